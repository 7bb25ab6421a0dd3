#!/usr/bin/env python3
"""Ring attention across GPUs against our single-GPU kernel at the per-rank shard length.

    torchrun --nproc-per-node 2 bench/ring_attention.py [--seqlens 262144,1048576]

Each rank holds seqlen / world tokens (zig-zag shards with --causal, the default). Ours:
warpspec.distributed.ring_flash_attn_func; the baseline: warpspec.flash_attn_func on one
GPU over a sequence of the shard's length (same mask). Per-GPU TFLOP/s of the ring = the
full attention's FLOPs / world / its time; the ratio is that over the baseline's TFLOP/s
(1.0: communication and merging fully hidden). Timing: CUDA events, the two interleaved
ABBA after warm-up, the same fixed call sequence on every rank (the ring is collective),
median of the rounds; rank 0 prints.
"""

import argparse
import os
import statistics
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import warpspec  # noqa: E402
from warpspec import distributed as wd  # noqa: E402


def pairs(s: int, causal: bool) -> int:
    return s * (s + 1) // 2 if causal else s * s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seqlens", default="262144,1048576", help="total sequence lengths, comma-separated")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--no-causal", action="store_true")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--iters", type=int, default=1, help="timed calls per candidate per ABBA half-block")
    args = ap.parse_args()
    causal = not args.no_causal
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    b, h, d = args.batch, args.heads, args.head_dim
    if rank == 0:
        print(f"# {world} x {torch.cuda.get_device_name()}, torch {torch.__version__}, bf16, batch {b}, {h} heads, "
              f"d {d}, {'causal (zig-zag shards)' if causal else 'full'}; median of {args.rounds} ABBA rounds")
        print(f"{'seqlen':>8} {'per rank':>8} | {'ring ms':>9} {'ring TFLOP/s/GPU':>16} | {'1-GPU ms':>9} "
              f"{'1-GPU TFLOP/s':>13} | ratio")
    for total in [int(x) for x in args.seqlens.split(",")]:
        local_len = total // world
        q, k, v = (torch.randn(b, local_len, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))

        def ring():
            wd.ring_flash_attn_func(q, k, v, causal=causal)

        def single():
            warpspec.flash_attn_func(q, k, v, causal=causal)

        fns = [ring, single]
        for c in (0, 1, 1, 0):  # warm-up, the same on every rank
            fns[c]()
        torch.cuda.synchronize()
        ms = [[], []]
        for r in range(args.rounds):
            events = []
            for c in ((0, 1, 1, 0) if r % 2 == 0 else (1, 0, 0, 1)):
                for _ in range(args.iters):
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record()
                    fns[c]()
                    e.record()
                    events.append((c, s, e))
            torch.cuda.synchronize()
            for c in (0, 1):
                ms[c].append(statistics.median(s.elapsed_time(e) for cc, s, e in events if cc == c))
        t = torch.tensor([statistics.median(ms[0]), statistics.median(ms[1])], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank's figure
        ring_ms, single_ms = t.tolist()
        ring_tf = 4.0 * b * h * d * pairs(total, causal) / world / ring_ms / 1e9
        single_tf = 4.0 * b * h * d * pairs(local_len, causal) / single_ms / 1e9
        if rank == 0:
            print(f"{total:>8} {local_len:>8} | {ring_ms:>9.2f} {ring_tf:>16.1f} | {single_ms:>9.2f} {single_tf:>13.1f} | "
                  f"{ring_tf / single_tf:.3f}", flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
