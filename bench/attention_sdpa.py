#!/usr/bin/env python3
"""PyTorch SDPA on FlashAttention-3's forward sweep, for the side-by-side with
`warpspec bench attention`: 16k tokens in all (batch = 16384 / seqlen), hidden 2048
(heads = 2048 / head_dim), head dims 64 / 128 / 256, seqlen 512 .. 16384, causal and
not. TFLOP/s = 4 * b * h * sq * sk * d / time, halved for causal.

Backends: cuDNN attention and PyTorch's flash attention (FlashAttention-2 kernels),
each forced with torch.nn.attention.sdpa_kernel. Timing: CUDA events, median of
--iters runs after a warm-up, two input sets alternating (as warpspec's runner does).

    python3 bench/attention_sdpa.py [--iters 20] [--head-dims 64 128 256] [--dtype bf16]
"""
import argparse
import statistics

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F


def time_ms(fn, iters):
    for _ in range(3):
        fn(0)
    torch.cuda.synchronize()
    times = []
    for i in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--head-dims", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    args = ap.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    print(f"{'hdim':<6} {'mask':<7} {'seqlen':>6} {'batch':>6} {'heads':>5} " +
          " ".join(f"{name + ' TFLOP/s':>14}" for name, _ in backends))
    for d in args.head_dims:
        for causal in (False, True):
            s = 512
            while s <= 16384:
                b, h = 16384 // s, 2048 // d
                # SDPA takes (batch, heads, seqlen, head_dim); build BSHD and transpose,
                # the layout FlashAttention and warpspec take.
                sets = [tuple(torch.randn(b, s, h, d, device="cuda", dtype=dtype).transpose(1, 2)
                              for _ in range(3)) for _ in range(2)]
                flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
                row = []
                for _, backend in backends:
                    try:
                        with sdpa_kernel(backend):
                            ms = time_ms(lambda i: F.scaled_dot_product_attention(*sets[i % 2], is_causal=causal),
                                         args.iters)
                        row.append(f"{flops / ms / 1e9:>14.1f}")
                    except RuntimeError as e:  # backend unavailable for this shape
                        row.append(f"{'n/a':>14}")
                print(f"{d:<6} {'causal' if causal else 'full':<7} {s:>6} {b:>6} {h:>5} " + " ".join(row), flush=True)
                del sets
                s *= 2


if __name__ == "__main__":
    main()
