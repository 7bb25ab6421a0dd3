#!/usr/bin/env python3
"""warpspec.gemm against torch.matmul (cuBLAS) in the same process, on a Hopper GPU.

For each shape: both ops on the same inputs, timed as bench/measure.py says (the method
of `warpspec bench`: interleaved call by call in ABBA order after a second of sustained
load, queued alike, median and least-largest of several rounds), inputs rotated across
enough copies that L2 (60 MB on H200) does not hold the previous call's operands.
Prints one table; ratio = torch time / warpspec time per round (above 1: warpspec is
faster).

  WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/gemm_vs_torch.py
  ... --dtype fp16 --layout nt --shapes 4096x4096x4096,8192x8192x8192 --out-dtype fp32
  ... --decompositions dp,streamk   (ours once per K decomposition, every one interleaved
                                     with torch and with each other in one timing)
"""

import argparse
import statistics
import sys
from pathlib import Path

import torch

import warpspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import time_interleaved, tflops  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}

DEFAULT_SHAPES = [
    (8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (1024, 1024, 1024),
    # LLM-like: tokens x (hidden -> ffn), decode-sized and prefill-sized M
    (16, 8192, 8192), (128, 8192, 8192), (4096, 28672, 8192), (4096, 8192, 28672),
    (8191, 8192, 8192), (4095, 4104, 4096),
]


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        m, n, k = (int(x) for x in item.lower().split("x"))
        shapes.append((m, n, k))
    return shapes


def make_inputs(m, n, k, dtype, layout, copies):
    """`copies` sets of (a, b). layout: two letters for A and B, n = row-major
    ("normal"), t = a transposed view (B = w.t() is "nt", the linear layer)."""
    sets = []
    for _ in range(copies):
        a = torch.randn(m, k, device="cuda").to(dtype) if layout[0] == "n" else \
            torch.randn(k, m, device="cuda").to(dtype).t()
        b = torch.randn(k, n, device="cuda").to(dtype) if layout[1] == "n" else \
            torch.randn(n, k, device="cuda").to(dtype).t()
        sets.append((a, b))
    return sets


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", type=parse_shapes, default=DEFAULT_SHAPES, help="MxNxK,MxNxK,...")
    p.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    p.add_argument("--out-dtype", choices=list(DTYPES), default=None, help="default: the input dtype")
    p.add_argument("--layout", choices=["nn", "nt", "tn", "tt"], default="nn",
                   help="A and B: n row-major, t transposed view (nt = x @ w.t())")
    p.add_argument("--warmup-s", type=float, default=1.0, help="seconds of sustained load before timing")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=20, help="timed calls per op per round")
    p.add_argument("--l2-bytes", type=float, default=120e6, help="operand bytes to rotate through (>= 2x L2)")
    p.add_argument("--decompositions", type=lambda t: t.split(","), default=None,
                   help="comma-separated of auto, dp, splitk, streamk: ours once per decomposition, in one timing")
    args = p.parse_args()
    if args.decompositions is not None:
        return compare_decompositions(args)

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("gemm_vs_torch: needs a Hopper GPU (compute capability 9.0)")
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = DTYPES[args.dtype]
    out_dtype = DTYPES[args.out_dtype] if args.out_dtype else dtype
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()} "
          f"({warpspec.library_path()}); {args.dtype} -> {args.out_dtype or args.dtype}, layout {args.layout}, "
          f"interleaved after {args.warmup_s} s of load, median (least-largest) of {args.rounds} rounds")

    ours = lambda a, b: warpspec.gemm(a, b, out_dtype=out_dtype)  # noqa: E731
    if out_dtype == dtype:
        theirs = torch.matmul
    else:  # torch has no mixed-output matmul: cuBLAS with out_dtype where this torch has it
        try:
            torch.mm(torch.ones(8, 8, device="cuda", dtype=dtype), torch.ones(8, 8, device="cuda", dtype=dtype),
                     out_dtype=out_dtype)
            theirs = lambda a, b: torch.mm(a, b, out_dtype=out_dtype)  # noqa: E731
        except (TypeError, RuntimeError):
            theirs = lambda a, b: torch.matmul(a, b).to(out_dtype)  # noqa: E731
            print("# torch.mm has no out_dtype here: torch column is matmul + cast")

    header = (f"{'M':>6} {'N':>6} {'K':>6} | {'warpspec ms':>11} {'TFLOP/s':<20} | {'torch ms':>9} {'TFLOP/s':<20} | "
              f"{'ratio':<20}")
    print(header)
    print("-" * len(header))
    ratios = []
    for m, n, k in args.shapes:
        bytes_per_set = (m * k + k * n) * torch.tensor([], dtype=dtype).element_size()
        copies = max(2, min(64, int(args.l2_bytes // max(bytes_per_set, 1)) + 1))
        sets = make_inputs(m, n, k, dtype, args.layout, copies)
        try:
            ours(*sets[0])  # a refusal is reported, not timed
        except (ValueError, RuntimeError) as e:
            print(f"{m:>6} {n:>6} {k:>6} | refused: {e}")
            continue
        res = time_interleaved([lambda i: ours(*sets[i % len(sets)]), lambda i: theirs(*sets[i % len(sets)])],
                               args.warmup_s, args.rounds, args.iters)
        flops = 2.0 * m * n * k
        ratios.append(res.ratio[1].median)
        print(f"{m:>6} {n:>6} {k:>6} | {res.ms[0].median:>11.4f} {tflops(res.ms[0], flops).fmt(1):<20} | "
              f"{res.ms[1].median:>9.4f} {tflops(res.ms[1], flops).fmt(1):<20} | {res.ratio[1].fmt(3):<20}")
        del sets
        torch.cuda.empty_cache()
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"# geometric mean ratio (torch time / warpspec time): {geo:.3f} over {len(ratios)} shapes")


DECOMPOSITIONS = {"auto": 0, "dp": 1, "splitk": 2, "streamk": 3}  # GemmDecomposition's values


def compare_decompositions(args):
    """torch, then ours under each decomposition asked for, interleaved in one timing (so
    no candidate's ratio depends on which other one it was timed beside)."""
    dtype = DTYPES[args.dtype]
    names = args.decompositions
    for d in names:
        if d not in DECOMPOSITIONS:
            sys.exit(f"gemm_vs_torch: --decompositions: {d!r} is not one of {', '.join(DECOMPOSITIONS)}")

    def ours(d):
        def call(a, b):
            warpspec.ops._BENCH_DECOMPOSITION = DECOMPOSITIONS[d]  # not API: the decomposition of this call
            try:
                return warpspec.gemm(a, b)
            finally:
                warpspec.ops._BENCH_DECOMPOSITION = 0
        return call

    fns = [torch.matmul] + [ours(d) for d in names]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()}; "
          f"{args.dtype}, layout {args.layout}; TFLOP/s median (least-largest) of {args.rounds} rounds, "
          f"ratio = torch time / ours")
    print(f"{'M':>6} {'N':>6} {'K':>6} | {'torch':<20} | " + " | ".join(f"{d:<28}" for d in names))
    for m, n, k in args.shapes:
        bytes_per_set = (m * k + k * n) * torch.tensor([], dtype=dtype).element_size()
        copies = max(2, min(64, int(args.l2_bytes // max(bytes_per_set, 1)) + 1))
        sets = make_inputs(m, n, k, dtype, args.layout, copies)
        res = time_interleaved([lambda i, f=f: f(*sets[i % len(sets)]) for f in fns], args.warmup_s, args.rounds,
                               args.iters)
        flops = 2.0 * m * n * k
        # res.ratio[c] is candidate c's time over torch's: torch / ours is its inverse.
        cells = [f"{tflops(res.ms[c], flops).fmt(1):<20} {1.0 / res.ratio[c].median:>7.3f}" for c in range(1, len(fns))]
        print(f"{m:>6} {n:>6} {k:>6} | {tflops(res.ms[0], flops).fmt(1):<20} | " + " | ".join(cells), flush=True)
        del sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
