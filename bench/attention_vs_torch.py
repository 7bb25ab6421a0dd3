#!/usr/bin/env python3
"""warpspec.flash_attn_func against PyTorch SDPA (cuDNN and flash backends) in the
same process, on a Hopper GPU: FlashAttention-3's forward sweep (16k tokens in all,
batch = 16384 / seqlen (--tokens for other totals), hidden 2048, heads = 2048 / head_dim), causal and not.

Timing (bench/measure.py, the method of `warpspec bench`): warpspec and every available
SDPA backend interleaved call by call (W C F F C W, reversed on odd rounds) after at
least a second of sustained load, all queued on the current stream without
synchronisation between calls, two input sets alternating; median of --rounds rounds
and the least-largest round. TFLOP/s = 4 * d per visible (query, key) pair (the causal
mask counted exactly). SDPA gets the same memory (BSHD) viewed as (batch, heads, seqlen,
head_dim), so both read the layout FlashAttention and warpspec take. ratio vs X = X's
time / warpspec's time per round (above 1: warpspec is faster).

    WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/attention_vs_torch.py \\
        [--head-dims 64 128 256] [--seqlens 512 2048 8192] [--dtype bf16] [--rounds 5] [--iters 20]
"""

import argparse
import statistics
import sys
from pathlib import Path

import torch

import warpspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import SDPA_BACKENDS, attention_flops, sdpa_calls, time_interleaved, tflops  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20, help="timed calls per candidate per round")
    ap.add_argument("--warmup-s", type=float, default=1.0, help="seconds of sustained load before timing")
    ap.add_argument("--head-dims", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--seqlens", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    ap.add_argument("--tokens", type=int, nargs="+", default=[16384],
                    help="tokens in all (batch = tokens / seqlen); FlashAttention-3's sweep is 16384, and "
                         "e.g. 16896 at seqlen 512 gives 33 sequences: tile counts that fill whole waves")
    args = ap.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("attention_vs_torch: needs a Hopper GPU (compute capability 9.0)")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()}; "
          f"{args.dtype}; interleaved after {args.warmup_s} s of load; TFLOP/s as median (least-largest) of "
          f"{args.rounds} rounds of {2 * ((args.iters + 1) // 2)} calls each")
    print(f"{'hdim':<5} {'mask':<7} {'seqlen':>6} {'batch':>5} {'heads':>5} | {'warpspec':<20} "
          + " ".join(f"{name:<20}" for name in SDPA_BACKENDS) + " | "
          + " ".join(f"{'ratio vs ' + name:<22}" for name in SDPA_BACKENDS))
    ratios = {name: [] for name in SDPA_BACKENDS}
    for d in args.head_dims:
        for causal in causals:
            for s, tokens in ((s, t) for s in args.seqlens for t in args.tokens):
                b, h = max(1, tokens // s), 2048 // d
                sets = [tuple(torch.randn(b, s, h, d, device="cuda", dtype=dtype) for _ in range(3)) for _ in range(2)]
                flops = attention_flops(b, h, s, s, d, causal)
                peers = sdpa_calls(sets, causal, bshd=True)
                fns = [lambda i: warpspec.flash_attn_func(*sets[i % 2], causal=causal)] + [fn for _, fn in peers]
                names = [name for name, _ in peers]
                res = time_interleaved(fns, args.warmup_s, args.rounds, args.iters)
                by_name = {name: c + 1 for c, name in enumerate(names)}
                row = [f"{tflops(res.ms[0], flops).fmt(1):<20}"]
                ratio_cells = []
                for name in SDPA_BACKENDS:
                    c = by_name.get(name)
                    row.append(f"{tflops(res.ms[c], flops).fmt(1) if c else 'n/a':<20}")
                    ratio_cells.append(f"{res.ratio[c].fmt(3) if c else 'n/a':<22}")
                    if c:
                        ratios[name].append(res.ratio[c].median)
                print(f"{d:<5} {'causal' if causal else 'full':<7} {s:>6} {b:>5} {h:>5} | " + " ".join(row) + " | "
                      + " ".join(ratio_cells), flush=True)
                del sets, fns
    for name, r in ratios.items():
        if r:
            print(f"# geometric mean ratio vs {name} ({name} time / warpspec time): "
                  f"{statistics.geometric_mean(r):.3f} over {len(r)} cases")


if __name__ == "__main__":
    main()
