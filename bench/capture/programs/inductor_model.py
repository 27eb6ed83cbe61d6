"""A torch.compile'd MLP block: pointwise, reduction (layer norm, softmax) and persistent-reduction
kernels from Inductor, forward and backward.
Set BENCH_STATIC_LAUNCHER=1 to turn Inductor's static CUDA launcher on from inside the program."""
import os

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.down(F.gelu(self.up(self.ln(x))))
        return x + h * torch.softmax(h, dim=-1)


def main():
    if os.environ.get("BENCH_STATIC_LAUNCHER") == "1":
        import torch._inductor.config as cfg
        cfg.use_static_cuda_launcher = True
    torch.manual_seed(0)
    model = Block().cuda()
    step = torch.compile(model)
    x = torch.randn(8, 512, 1024, device="cuda")
    for _ in range(3):
        y = step(x)
        (y.float() ** 2).mean().backward()
    torch.cuda.synchronize()
    print("inductor_model ok", float(y.norm()))


if __name__ == "__main__":
    main()
