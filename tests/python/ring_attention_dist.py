"""Ring attention over NCCL, two or more ranks (not collected by pytest):

    torchrun --nproc-per-node 2 tests/python/ring_attention_dist.py

Every rank builds the same full q, k, v (one seed), runs warpspec.distributed.
ring_flash_attn_func on its shard, and the gathered result is compared on every rank with
flash_attn_func on the full sequence (and the float32 reference). Exit 0 when every case
passes on every rank."""

import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import warpspec  # noqa: E402
from warpspec import distributed as wd  # noqa: E402
from test_attention import attention_ref  # noqa: E402


def main():
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    failures = 0
    for causal in (False, True):
        for dtype, heads_kv, d in ((torch.bfloat16, 4, 128), (torch.float16, 1, 64), (torch.bfloat16, 8, 256)):
            g = torch.Generator().manual_seed(1234 + d)
            b, h, chunk = 2, 8, 200
            total = 2 * world * chunk
            q = torch.randn(b, total, h, d, generator=g).to(dtype).cuda()
            k = torch.randn(b, total, heads_kv, d, generator=g).to(dtype).cuda()
            v = torch.randn(b, total, heads_kv, d, generator=g).to(dtype).cuda()
            split, join = (wd.zigzag_shard, wd.zigzag_unshard) if causal else (wd.shard, wd.unshard)
            out, lse = wd.ring_flash_attn_func(split(q, rank, world), split(k, rank, world), split(v, rank, world),
                                               causal=causal, return_attn_probs=True)
            outs = [torch.empty_like(out) for _ in range(world)]
            lses = [torch.empty_like(lse) for _ in range(world)]
            dist.all_gather(outs, out.contiguous())
            dist.all_gather(lses, lse.contiguous())
            full, full_lse = join(outs), join(lses, dim=2)
            ref, ref_lse = attention_ref(q, k, v, causal=causal)
            single = warpspec.flash_attn_func(q, k, v, causal=causal)
            err = (full.float() - ref).abs().max().item()
            single_err = (single.float() - ref).abs().max().item()
            lse_err = (full_lse - ref_lse).abs().max().item()
            ok = err <= 2 * single_err + 2e-3 and lse_err <= 1e-3 and bool(torch.isfinite(full).all())
            failures += not ok
            if rank == 0:
                print(f"{'PASS' if ok else 'FAIL'} world={world} causal={causal} {dtype} heads_kv={heads_kv} d={d}: "
                      f"max|err| {err:.2e} (single GPU {single_err:.2e}), max|lse err| {lse_err:.2e}", flush=True)
    t = torch.tensor([failures], device="cuda")
    dist.all_reduce(t)
    dist.destroy_process_group()
    sys.exit(1 if t.item() else 0)


if __name__ == "__main__":
    main()
