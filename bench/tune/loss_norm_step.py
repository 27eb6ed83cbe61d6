#!/usr/bin/env python3
"""The two kernel shapes every training program has and a capture used to skip: a vocabulary-sized
cross-entropy whose labels carry an ignore index (-100), and an RMSNorm backward written in place.

    python3 bench/tune/loss_norm_step.py
    python3 -m sassx_capture -o /tmp/cap -- python3 bench/tune/loss_norm_step.py --steps 3

One step of the last layer of a language model, forward and backward, hand-written the way widely used
Triton kernel libraries write it: RMSNorm forward (Triton), the LM head (cuBLAS), a fused cross-entropy
that writes the loss per row and the logits' gradient over the logits (Triton; rows whose label is the
ignore index get a zero gradient), the head's gradients (cuBLAS), and the RMSNorm backward (Triton), whose
input gradient is written over the incoming gradient: `dY_ptr` and `dX_ptr` are the same buffer.
About 15% of the labels are -100, as padding and prompt tokens are.  Each timed step prints `step_ms=...`.
"""
import argparse
import sys

from step_timer import summary, time_steps

IGNORE_INDEX = -100


def kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def rmsnorm_fwd(X_ptr, W_ptr, Y_ptr, RSTD_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(X_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(x * x, 0) / n_cols + eps)
        tl.store(RSTD_ptr + row, rstd)
        tl.store(Y_ptr + row * stride + cols, (x * rstd * w).to(Y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def rmsnorm_bwd(dY_ptr, dX_ptr, X_ptr, W_ptr, RSTD_ptr, dW_ptr, stride, n_rows, n_cols, rows_per_program,
                    BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        dw = tl.zeros((BLOCK,), dtype=tl.float32)
        row_start = pid * rows_per_program
        for row in range(row_start, tl.minimum(row_start + rows_per_program, n_rows)):
            offs = row.to(tl.int64) * stride + cols
            dy = tl.load(dY_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            x = tl.load(X_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            rstd = tl.load(RSTD_ptr + row)
            xhat = x * rstd
            m = dy * w
            dx = rstd * (m - xhat * (tl.sum(m * xhat, 0) / n_cols))
            dw += dy * xhat
            tl.store(dX_ptr + offs, dx.to(dX_ptr.dtype.element_ty), mask=mask)
        tl.store(dW_ptr + pid.to(tl.int64) * n_cols + cols, dw, mask=mask)

    @triton.jit
    def cross_entropy_fwd_bwd(logits_ptr, stride, labels_ptr, loss_ptr, n_cols, n_valid, ignore_index,
                              BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        logits_ptr += row * stride
        label = tl.load(labels_ptr + row)
        if label == ignore_index:
            for off in range(0, n_cols, BLOCK):
                cols = off + tl.arange(0, BLOCK)
                tl.store(logits_ptr + cols, tl.zeros((BLOCK,), dtype=logits_ptr.dtype.element_ty),
                         mask=cols < n_cols)
            tl.store(loss_ptr + row, 0.0)
            return
        m = float("-inf")
        d = 0.0
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(logits_ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, 0))
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
            m = m_new
        lse = m + tl.log(d)
        x_label = tl.load(logits_ptr + label).to(tl.float32)
        tl.store(loss_ptr + row, (lse - x_label) / n_valid)
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            mask = cols < n_cols
            x = tl.load(logits_ptr + cols, mask=mask, other=float("-inf")).to(tl.float32)
            g = tl.exp(x - lse)
            g = tl.where(cols == label, g - 1.0, g) / n_valid
            tl.store(logits_ptr + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)

    return triton, rmsnorm_fwd, rmsnorm_bwd, cross_entropy_fwd_bwd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--dim", type=int, default=2048)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--check", action="store_true", help="compare loss and gradients with torch first")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("loss_norm_step: no CUDA GPU", file=sys.stderr)
        return 1
    triton, rmsnorm_fwd, rmsnorm_bwd, cross_entropy = kernels()
    torch.manual_seed(args.seed)
    n, dim, vocab = args.tokens, args.dim, args.vocab
    dtype = torch.bfloat16
    block = triton.next_power_of_2(dim)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows_per_program = triton.cdiv(n, sms)
    x = torch.randn(n, dim, device="cuda", dtype=dtype)
    w = torch.ones(dim, device="cuda", dtype=dtype) + 0.1 * torch.randn(dim, device="cuda", dtype=dtype)
    head = torch.randn(vocab, dim, device="cuda", dtype=dtype) * dim ** -0.5
    labels = torch.randint(0, vocab, (n,), device="cuda")
    labels[torch.rand(n, device="cuda") < 0.15] = IGNORE_INDEX
    n_valid = float((labels != IGNORE_INDEX).sum().item())

    def step():
        h = torch.empty_like(x)
        rstd = torch.empty(n, device="cuda", dtype=torch.float32)
        rmsnorm_fwd[(n,)](x, w, h, rstd, x.stride(0), dim, 1e-6, BLOCK=block, num_warps=8)
        logits = h @ head.t()
        loss_rows = torch.empty(n, device="cuda", dtype=torch.float32)
        cross_entropy[(n,)](logits, logits.stride(0), labels, loss_rows, vocab, n_valid, IGNORE_INDEX,
                            BLOCK=4096, num_warps=16)
        dh = logits @ head  # logits now hold d(loss)/d(logits)
        d_head = logits.t() @ h
        dw_part = torch.empty(sms, dim, device="cuda", dtype=torch.float32)
        rmsnorm_bwd[(sms,)](dh, dh, x, w, rstd, dw_part, dh.stride(0), n, dim, rows_per_program, BLOCK=block,
                            num_warps=8)
        return loss_rows.sum(), dh, d_head, dw_part.sum(0)

    if args.check:
        loss, dx, d_head, dw = step()
        xr, wr, hr = (t.detach().float().requires_grad_() for t in (x, w, head))
        hn = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * wr
        ref = torch.nn.functional.cross_entropy(hn @ hr.t(), labels, ignore_index=IGNORE_INDEX)
        ref.backward()
        rel = lambda a, r: ((a.float() - r).norm() / r.norm()).item()
        errs = (abs(loss.item() - ref.item()) / ref.item(), rel(dx, xr.grad), rel(d_head, hr.grad), rel(dw, wr.grad))
        print("check: rel. error loss %.2e, rel. error dX %.2e, dHead %.2e, dW %.2e" % errs)
        if not (errs[0] < 1e-2 and max(errs[1:]) < 5e-2):
            return 1

    times, result = time_steps(torch, step, args.warmup, args.steps)
    if times:
        print(summary(times, f"loss {result[0].item():.5f}, {int(n_valid)} of {n} labels valid, "
                             f"{torch.cuda.get_device_name()}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
