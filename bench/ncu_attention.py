#!/usr/bin/env python3
"""Run one attention shape three times, ours or cuDNN (SDPA), for ncu to profile the third
launch (bench/ncu-attention.sh), or summarise the SASS source views it wrote.

    python3 bench/ncu_attention.py run ours|cudnn HEAD_DIM SEQLEN full|causal
    python3 bench/ncu_attention.py summary ours-sass.csv [cudnn-sass.csv ...]

FlashAttention-3's sweep shape: 16384 tokens, batch = 16384 / seqlen, heads = 2048 / head_dim.
The summary groups instructions by how often they ran (the loop body, a tile's own code, once
a CTA...) with their warp samples, and lists instructions by opcode.
"""
import collections
import csv
import re
import sys


def run(who, d, s, causal):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import warpspec

    b, h = 16384 // s, 2048 // d
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for _ in range(3):
        if who == "ours":
            warpspec.flash_attn_func(q, k, v, causal=causal)
        else:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=causal)
    torch.cuda.synchronize()


def summary(path):
    rows = list(csv.reader(open(path)))
    hdr = rows[1]
    data = [r for r in rows[2:] if len(r) == len(hdr)]
    i_src, i_exec = hdr.index("Source"), hdr.index("Instructions Executed")
    i_samp = hdr.index("Warp Stall Sampling (All Samples)")

    def num(x):
        x = x.replace(",", "")
        return int(x) if x else 0

    total = sum(num(r[i_samp]) for r in data)
    by_count = collections.defaultdict(lambda: [0, 0])
    ops, op_samples = collections.Counter(), collections.Counter()
    for r in data:
        e, smp = num(r[i_exec]), num(r[i_samp])
        by_count[e][0] += 1
        by_count[e][1] += smp
        m = re.match(r"(@!?U?P\w+\s+)?([A-Z0-9_]+)", r[i_src].strip())
        op = m.group(2) if m else "?"
        ops[op] += e
        op_samples[op] += smp
    print(f"{path}: {len(data)} SASS lines, {sum(ops.values()) / 1e6:.2f} M warp instructions, {total} samples")
    print("  runs per line   lines   samples")
    for e, (n, smp) in sorted(by_count.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"  {e:13d} {n:7d} {smp:9d} ({100 * smp / max(total, 1):.1f}%)")
    print("  opcode      executed   samples")
    for op, c in ops.most_common(16):
        print(f"  {op:10s} {c / 1e6:8.2f}M {op_samples[op]:8d} ({100 * op_samples[op] / max(total, 1):.1f}%)")


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "causal")
    elif len(sys.argv) >= 3 and sys.argv[1] == "summary":
        for p in sys.argv[2:]:
            summary(p)
    else:
        sys.exit(__doc__)
