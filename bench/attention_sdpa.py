#!/usr/bin/env python3
"""PyTorch SDPA alone on FlashAttention-3's forward sweep, for machines where the
warpspec Python package is not importable: 16k tokens in all (batch = 16384 / seqlen),
hidden 2048 (heads = 2048 / head_dim), head dims 64 / 128 / 256, seqlen 512 .. 16384,
causal and not. TFLOP/s = 4 * d per visible (query, key) pair (the causal mask counted
exactly, as `warpspec bench attention` counts it).

Backends: cuDNN attention and PyTorch's flash attention (FlashAttention-2 kernels),
each forced with torch.nn.attention.sdpa_kernel. Timing: bench/measure.py, the method
of `warpspec bench` (both backends interleaved ABBA after a second of load, queued
without synchronisation between calls, rounds with spread).

A figure from this script next to one from `warpspec bench attention` compares two
runs; for ours against the peer in one process, use bench/attention_vs_torch.py.

    python3 bench/attention_sdpa.py [--rounds 5] [--iters 20] [--head-dims 64 128 256] [--dtype bf16]
"""
import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import SDPA_BACKENDS, attention_flops, sdpa_calls, time_interleaved, tflops  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20, help="timed calls per backend per round")
    ap.add_argument("--warmup-s", type=float, default=1.0)
    ap.add_argument("--head-dims", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    args = ap.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    print(f"{'hdim':<6} {'mask':<7} {'seqlen':>6} {'batch':>6} {'heads':>5} " +
          " ".join(f"{name + ' TFLOP/s':<22}" for name in SDPA_BACKENDS))
    for d in args.head_dims:
        for causal in (False, True):
            s = 512
            while s <= 16384:
                b, h = 16384 // s, 2048 // d
                # SDPA takes (batch, heads, seqlen, head_dim); build BSHD and transpose,
                # the layout FlashAttention and warpspec take.
                sets = [tuple(torch.randn(b, s, h, d, device="cuda", dtype=dtype).transpose(1, 2)
                              for _ in range(3)) for _ in range(2)]
                flops = attention_flops(b, h, s, s, d, causal)
                peers = sdpa_calls(sets, causal, bshd=False)
                fns, names = [fn for _, fn in peers], [name for name, _ in peers]
                cells = {}
                if fns:
                    res = time_interleaved(fns, args.warmup_s, args.rounds, args.iters)
                    cells = {name: tflops(res.ms[c], flops).fmt(1) for c, name in enumerate(names)}
                print(f"{d:<6} {'causal' if causal else 'full':<7} {s:>6} {b:>6} {h:>5} " +
                      " ".join(f"{cells.get(name, 'n/a'):<22}" for name in SDPA_BACKENDS), flush=True)
                del sets, fns
                s *= 2


if __name__ == "__main__":
    main()
