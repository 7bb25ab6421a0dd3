#!/usr/bin/env python3
"""warpspec.scaled_mm against torch._scaled_mm (cuBLASLt) in the same process, on Hopper.

FP8 e4m3 A (M, K) row-major and B = w.t() (K-major, as both require), scales per tensor
or per row, output bf16; optional bias and fast accumulation. Timed as bench/measure.py
says (ABBA-interleaved after sustained load, median and least-largest of rounds, inputs
rotated past L2). ratio = torch time / warpspec time (above 1: warpspec is faster).
Also times warpspec.gemm(bf16, bias, activation) against the plain bf16 GEMM for the cost
of the fused epilogue (--epilogue).

  WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/scaled_mm_vs_torch.py
  ... --scaling row --shapes 8192x8192x8192 --fast-accum
  ... --b-format e5m2   (A e4m3, B e5m2: the mixed-format kernels)
  ... --scaling block    (block-wise 1x128 / 128x128 scales; the peer is warpspec's own
                          tensor-wise call on the same data, the issue's bar)
"""

import argparse
import statistics
import sys
from pathlib import Path

import torch

import warpspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import time_interleaved, tflops  # noqa: E402

DEFAULT_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 14336, 4096), (16384, 16384, 16384)]


def parse_shapes(text):
    return [tuple(int(x) for x in item.lower().split("x")) for item in text.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", type=parse_shapes, default=DEFAULT_SHAPES, help="MxNxK,...")
    p.add_argument("--scaling", choices=["tensor", "row", "block"], default="tensor",
                   help="block: DeepSeek-V3 block scales, timed against warpspec's tensor-wise call")
    p.add_argument("--fast-accum", action="store_true")
    p.add_argument("--b-format", choices=["e4m3", "e5m2"], default="e4m3",
                   help="B's FP8 format (A is e4m3): e5m2 times the mixed-format kernels")
    p.add_argument("--epilogue", action="store_true", help="bf16 GEMM + bias + GELU(tanh) vs plain, instead")
    p.add_argument("--a-scales", choices=["row-major", "m-major"], default="row-major",
                   help="block scaling: A's (M, ceil(K/128)) scales row-major (contiguous) or M-major "
                        "(stride (1, M), DeepGEMM's layout)")
    p.add_argument("--tile-n", type=int, default=0,
                   help="warpspec's tile width (0: its choice; 256: the wide FP8 tile, bf16 out)")
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--l2-bytes", type=float, default=120e6)
    args = p.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("scaled_mm_vs_torch: needs a Hopper GPU (compute capability 9.0)")
    what = "bf16 gemm+bias+gelu_tanh vs plain bf16 gemm" if args.epilogue else (
        f"e4m3 x {args.b_format} -> bf16, {args.scaling}-wise scales"
        f"{' (A ' + args.a_scales + ')' if args.scaling == 'block' else ''}"
        f"{', fast accumulation' if args.fast_accum else ''}")
    if args.tile_n:
        warpspec.ops._BENCH_TILE_N = args.tile_n  # not API: the tile of every warpspec call below
        what += f", warpspec tile_n={args.tile_n}"
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; {what}; ABBA after {args.warmup_s} s, "
          f"median (least-largest) of {args.rounds} rounds")
    peer = "plain" if args.epilogue else "tensor" if args.scaling == "block" else "torch"
    print(f"{'M':>6} {'N':>6} {'K':>6} | {'ours TFLOP/s':<20} | {peer + ' TFLOP/s':<20} | {'ratio':<20}")
    ratios = []
    b_dtype = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[args.b_format]
    for m, n, k in args.shapes:
        esz = 2 if args.epilogue else 1
        copies = max(2, min(32, int(args.l2_bytes // ((m * k + k * n) * esz)) + 1))
        sets = []
        for _ in range(copies):
            a = torch.randn(m, k, device="cuda")
            w = torch.randn(n, k, device="cuda")
            if args.epilogue:
                sets.append((a.bfloat16(), w.bfloat16().t(), torch.randn(n, device="cuda").bfloat16()))
            else:
                kb, nb = -(-k // 128), -(-n // 128)
                shape_a = {"row": (m, 1), "block": (m, kb)}.get(args.scaling)
                shape_b = {"row": (1, n), "block": (kb, nb)}.get(args.scaling)
                sa = torch.rand(*shape_a, device="cuda") + 0.5 if shape_a else torch.tensor(0.7, device="cuda")
                if args.scaling == "block" and args.a_scales == "m-major":
                    sa = sa.t().contiguous().t()
                sb = torch.rand(*shape_b, device="cuda") + 0.5 if shape_b else torch.tensor(1.3, device="cuda")
                sets.append((a.to(torch.float8_e4m3fn), w.to(b_dtype).t(), sa, sb,
                             torch.tensor(0.7, device="cuda"), torch.tensor(1.3, device="cuda")))
            del a, w
        if args.epilogue:
            ours = lambda i: warpspec.gemm(sets[i % copies][0], sets[i % copies][1], bias=sets[i % copies][2],  # noqa: E731
                                           activation="gelu_tanh")
            theirs = lambda i: warpspec.gemm(sets[i % copies][0], sets[i % copies][1])  # noqa: E731
        else:
            ours = lambda i: warpspec.scaled_mm(*sets[i % copies][:4], out_dtype=torch.bfloat16,  # noqa: E731
                                                use_fast_accum=args.fast_accum)
            if args.scaling == "block":
                theirs = lambda i: warpspec.scaled_mm(*sets[i % copies][:2], *sets[i % copies][4:],  # noqa: E731
                                                      out_dtype=torch.bfloat16)
            else:
                theirs = lambda i: torch._scaled_mm(*sets[i % copies][:4], out_dtype=torch.bfloat16,  # noqa: E731
                                                    use_fast_accum=args.fast_accum)
        try:
            ours(0)
            theirs(0)
        except (ValueError, RuntimeError, NotImplementedError) as e:
            print(f"{m:>6} {n:>6} {k:>6} | refused: {str(e)[:100]}")
            continue
        res = time_interleaved([ours, theirs], args.warmup_s, args.rounds, args.iters)
        flops = 2.0 * m * n * k
        ratios.append(res.ratio[1].median)
        print(f"{m:>6} {n:>6} {k:>6} | {tflops(res.ms[0], flops).fmt(1):<20} | {tflops(res.ms[1], flops).fmt(1):<20} | "
              f"{res.ratio[1].fmt(3):<20}", flush=True)
        del sets
        torch.cuda.empty_cache()
    if ratios:
        print(f"# geometric mean ratio ({peer} time / ours): {statistics.geometric_mean(ratios):.3f} over {len(ratios)}")


if __name__ == "__main__":
    main()
