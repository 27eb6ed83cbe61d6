"""Eager PyTorch only: CUDA work, no Triton kernel (the capture must say that none was launched)."""
import torch


def main():
    x = torch.randn(2048, 2048, device="cuda")
    y = (x @ x).relu().sum()
    torch.cuda.synchronize()
    print("eager_only ok", float(y))


if __name__ == "__main__":
    main()
