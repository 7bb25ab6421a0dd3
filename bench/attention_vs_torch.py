#!/usr/bin/env python3
"""warpspec.flash_attn_func against PyTorch SDPA (cuDNN and flash backends) in the
same process, on a Hopper GPU: FlashAttention-3's forward sweep (16k tokens in all,
batch = 16384 / seqlen, hidden 2048, heads = 2048 / head_dim), causal and not.

Timing: CUDA events around each call, warm-up first, median of --iters runs, two
input sets alternating. TFLOP/s = 4 * b * h * sq * sk * d / time, halved for causal.
SDPA gets the same memory (BSHD) viewed as (batch, heads, seqlen, head_dim), so both
read the layout FlashAttention and warpspec take. ratio = best SDPA time / warpspec
time (above 1: warpspec is faster).

    WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/attention_vs_torch.py \\
        [--head-dims 64 128 256] [--seqlens 512 2048 8192] [--dtype bf16] [--iters 20]
"""

import argparse
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import warpspec


def time_ms(fn, iters):
    for i in range(3):
        fn(i)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn(i)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--head-dims", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--seqlens", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    args = ap.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("attention_vs_torch: needs a Hopper GPU (compute capability 9.0)")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()}; "
          f"{args.dtype}, median of {args.iters}; TFLOP/s")
    print(f"{'hdim':<5} {'mask':<7} {'seqlen':>6} {'batch':>5} {'heads':>5} | {'warpspec':>9} "
          + " ".join(f"{name:>9}" for name, _ in backends) + f" | {'ratio':>6}")
    ratios = []
    for d in args.head_dims:
        for causal in causals:
            for s in args.seqlens:
                b, h = max(1, 16384 // s), 2048 // d
                sets = [tuple(torch.randn(b, s, h, d, device="cuda", dtype=dtype) for _ in range(3)) for _ in range(2)]
                flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
                ms = time_ms(lambda i: warpspec.flash_attn_func(*sets[i % 2], causal=causal), args.iters)
                row = [f"{flops / ms / 1e9:>9.1f}"]
                best = None
                for _, backend in backends:
                    try:
                        with sdpa_kernel(backend):
                            t = time_ms(lambda i: F.scaled_dot_product_attention(
                                *(x.transpose(1, 2) for x in sets[i % 2]), is_causal=causal), args.iters)
                        row.append(f"{flops / t / 1e9:>9.1f}")
                        best = t if best is None else min(best, t)
                    except RuntimeError:  # backend unavailable for this shape
                        row.append(f"{'n/a':>9}")
                ratio = best / ms if best else float("nan")
                if best:
                    ratios.append(ratio)
                print(f"{d:<5} {'causal' if causal else 'full':<7} {s:>6} {b:>5} {h:>5} | " + " ".join(row)
                      + f" | {ratio:>6.3f}", flush=True)
                del sets
    if ratios:
        print(f"# geometric mean ratio (best SDPA time / warpspec time): {statistics.geometric_mean(ratios):.3f} "
              f"over {len(ratios)} cases")


if __name__ == "__main__":
    main()
