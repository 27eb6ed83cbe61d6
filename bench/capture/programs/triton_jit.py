"""A user @triton.jit kernel launched directly (torch imported first, as programs usually do)."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, alpha * x + y, mask=m)


def main():
    n = 1 << 22
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    for _ in range(5):
        scale_add[(triton.cdiv(n, 1024),)](x, y, out, n, 2.0, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.allclose(out, 2.0 * x + y)
    print("triton_jit ok")


if __name__ == "__main__":
    main()
