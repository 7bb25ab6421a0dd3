#!/usr/bin/env python3
"""warpspec.flash_attn_with_kvcache (decode) against PyTorch SDPA (cuDNN and flash
backends) in the same process, on a Hopper GPU: the serving bar's shapes (issue 14) -
bf16, head dim 128, 32 query heads over 8 KV heads, one query token; batch 1 x cache
131072, 1 x 8192, 32 x 4096; warpspec over a dense and a paged (page 64, pages in random
order) cache with num_splits=0 (the heuristic). SDPA has no paged cache: its figure is the
dense one, next to both of ours. Memory-bound: GB/s of K+V read (and ms).

Timing is bench/measure.py's (the method of `warpspec bench`): every candidate
interleaved call by call after a second of sustained load, all queued on the current
stream, median of --rounds rounds with the least-largest round; cache copies rotate so
a round does not run from L2. SDPA gets GQA through enable_gqa (PyTorch 2.5 and later),
on the same memory viewed as (batch, heads, seqlen, head_dim).

    WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/decode_vs_torch.py [--rounds 5]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

import warpspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import time_interleaved  # noqa: E402

SHAPES = [(1, 131072), (1, 8192), (32, 4096)]
HEADS, HEADS_KV, D, PAGE = 32, 8, 128, 64


def graphed(fn, sets):
    """fn(0), ..., fn(sets - 1) captured back to back in one CUDA graph (each call on its
    own cache copy, as consecutive layers of a captured decode step); returns i -> a
    replay, which makes `sets` calls. One replay per timed call keeps the host's cost of
    launching a graph (several µs, more than a 1 x 8192 step's GPU time once events and
    Python are added) from showing in the events when the queue runs dry."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside capture (workspaces, cuDNN plans)
        for i in range(sets):
            fn(i)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(sets):
            fn(i)
    return lambda i: g.replay()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20, help="timed calls per candidate per round")
    ap.add_argument("--warmup-s", type=float, default=1.0, help="seconds of sustained load before timing")
    ap.add_argument("--num-splits", type=int, default=0, help="warpspec's num_splits (0: the heuristic)")
    ap.add_argument("--graph", action="store_true",
                    help="replay every candidate's calls from a CUDA graph (one call per cache copy, back to back): the GPU's time "
                         "without the host's per-call cost, as a serving loop that captures its decode step")
    args = ap.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("decode_vs_torch: needs a Hopper GPU (compute capability 9.0)")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dt = torch.bfloat16
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()}; bf16 "
          f"d={D}, {HEADS}/{HEADS_KV} heads, seqlen_q 1; GB/s of K+V read, median (least-largest) of {args.rounds} "
          f"rounds; num_splits={args.num_splits}" + ("; CUDA graph replays" if args.graph else ""))
    print(f"{'batch':>5} {'cache':>7} | {'warpspec dense':<22} {'warpspec paged 64':<22} {'sdpa cudnn':<22} "
          f"{'sdpa flash':<22} | ms (ours dense)")
    for b, s in SHAPES:
        kv_bytes = 2 * b * s * HEADS_KV * D * 2
        sets = max(1, min(8, -(-256_000_000 // kv_bytes)))  # past the 50 MB L2
        q = torch.randn(b, 1, HEADS, D, device="cuda", dtype=dt)
        caches = [(torch.randn(b, s, HEADS_KV, D, device="cuda", dtype=dt),
                   torch.randn(b, s, HEADS_KV, D, device="cuda", dtype=dt)) for _ in range(sets)]
        lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
        pages = b * (s // PAGE)
        perm = torch.randperm(pages, device="cuda")
        table = perm.view(b, s // PAGE).to(torch.int32)
        paged = []
        for k, v in caches:  # the same keys, stored page by page at the table's pages
            kp = torch.empty(pages, PAGE, HEADS_KV, D, device="cuda", dtype=dt)
            vp = torch.empty_like(kp)
            kp[perm] = k.reshape(pages, PAGE, HEADS_KV, D)
            vp[perm] = v.reshape(pages, PAGE, HEADS_KV, D)
            paged.append((kp, vp))

        def ours_dense(i):
            k, v = caches[i % sets]
            return warpspec.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=args.num_splits)

        def ours_paged(i):
            k, v = paged[i % sets]
            return warpspec.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, page_table=table,
                                                    num_splits=args.num_splits)

        fns, names = [ours_dense, ours_paged], ["warpspec dense", "warpspec paged"]
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
            def sdpa(i, backend=backend):
                k, v = caches[i % sets]
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                          enable_gqa=True)
            try:
                sdpa(0)
                torch.cuda.synchronize()
            except RuntimeError:
                continue
            fns.append(sdpa), names.append("sdpa " + name)
        calls = 1  # per timed call
        if args.graph:
            fns, calls = [graphed(f, sets) for f in fns], sets
        res = time_interleaved(fns, args.warmup_s, args.rounds, args.iters)
        res.ms[:] = [m.map(lambda t: t / calls) for m in res.ms]
        cells = {n: res.ms[c].map(lambda t: kv_bytes / t / 1e6).fmt(0) for c, n in enumerate(names)}
        print(f"{b:>5} {s:>7} | " + " ".join(f"{cells.get(n, 'n/a'):<22}" for n in
                                             ("warpspec dense", "warpspec paged", "sdpa cudnn", "sdpa flash"))
              + f" | {res.ms[0].fmt(4)}", flush=True)
        del caches, paged


if __name__ == "__main__":
    main()
