"""A user @triton.jit kernel imported after CUDA is initialised: torch.cuda's initialisation looks triton up
(importlib.util.find_spec) before the program imports it, as it does in every torch.compile'd program."""
import torch


def main():
    n = 1 << 22
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    import triton
    import triton.language as tl

    @triton.jit
    def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    for _ in range(4):
        axpy[(triton.cdiv(n, 2048),)](x, y, out, n, 0.5, BLOCK=2048)
    torch.cuda.synchronize()
    assert torch.allclose(out, 0.5 * x + y)
    print("triton_jit_late_import ok")


if __name__ == "__main__":
    main()
