"""Attention past one GPU: ring attention (context parallelism) over torch.distributed.

Each rank of a process group holds one shard of the sequence dimension of q, k and v.
The K/V shards travel around the ring by NCCL point-to-point (batched isend/irecv,
which torch runs on NCCL's own stream): while rank r computes against the block it
holds, the next block is already on its way. Every step's partial output and
log-sum-exp land in a float32 slot; one flash_attn_combine merges the slots at the end
(in slot order: the result does not depend on timing).

Causal attention uses the load-balanced ("zig-zag") sharding: the sequence is cut into
2 * world chunks and rank r holds chunks r and 2 * world - 1 - r, so every rank has the
same amount of visible work. zigzag_shard / zigzag_unshard convert; shard / unshard do
the contiguous split used without causal masking.

    torchrun --nproc-per-node 2 bench/ring_attention.py

Memory: besides its shards, a rank holds world float32 partial outputs of its query
shard (world x batch x seqlen_local x nheads x headdim x 4 bytes) and two K/V blocks.
"""

import math
from typing import List, Optional, Sequence, Tuple

import torch

from . import ops

__all__ = ["ring_flash_attn_func", "shard", "unshard", "zigzag_shard", "zigzag_unshard"]


# ------------------------------------------------------------------ sharding helpers


def _check_split(x: torch.Tensor, pieces: int, dim: int, what: str) -> int:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{what}: must be a torch.Tensor, got {type(x).__name__}")
    n = x.shape[dim]
    if n % pieces != 0:
        raise ValueError(f"{what}: the sequence dimension ({n}) must divide into {pieces} equal chunks")
    return n // pieces


def shard(x: torch.Tensor, rank: int, world: int, dim: int = 1) -> torch.Tensor:
    """Rank `rank`'s contiguous shard of the full tensor x along `dim` (a view)."""
    c = _check_split(x, world, dim, "x")
    return x.narrow(dim, rank * c, c)


def unshard(shards: Sequence[torch.Tensor], dim: int = 1) -> torch.Tensor:
    """The full tensor from every rank's contiguous shard, in rank order."""
    return torch.cat(list(shards), dim=dim)


def zigzag_shard(x: torch.Tensor, rank: int, world: int, dim: int = 1) -> torch.Tensor:
    """Rank `rank`'s causal-balanced shard: chunks rank and 2 * world - 1 - rank of the
    2 * world equal chunks of x along `dim` (a new tensor)."""
    c = _check_split(x, 2 * world, dim, "x")
    return torch.cat([x.narrow(dim, rank * c, c), x.narrow(dim, (2 * world - 1 - rank) * c, c)], dim=dim)


def zigzag_unshard(shards: Sequence[torch.Tensor], dim: int = 1) -> torch.Tensor:
    """The full tensor from every rank's zig-zag shard (zigzag_shard's inverse)."""
    world = len(shards)
    halves: List[Optional[torch.Tensor]] = [None] * (2 * world)
    for r, s in enumerate(shards):
        c = _check_split(s, 2, dim, f"shards[{r}]")
        halves[r] = s.narrow(dim, 0, c)
        halves[2 * world - 1 - r] = s.narrow(dim, c, c)
    return torch.cat(halves, dim=dim)


# ------------------------------------------------------------------ the ring's arithmetic


class _Partials:
    """One float32 slot per ring step for the rank's query shard, merged at the end.

    Causal, zig-zag: the rank holds query chunks (r, 2W-1-r) and, at some step, the K/V
    chunks (s, 2W-1-s) of rank s. Chunk a sees chunk b fully when b < a, causally when
    b == a, not at all when b > a. So: s == r is causal attention over the local pair
    (equal lengths: the diagonal blocks causal, the late chunk sees the early one fully);
    s < r, every query sees chunk s only (2W-1-s is later than both); s > r, only the
    late query chunk sees anything, and it sees both of rank s's chunks."""

    def __init__(self, q: torch.Tensor, steps: int, causal: bool, scale: float):
        b, s, h, d = q.shape
        self.q, self.causal, self.scale = q, causal, scale
        self.out = torch.empty((steps, b, s, h, d), dtype=torch.float32, device=q.device)
        self.lse = torch.empty((steps, b, s, h), dtype=torch.float32, device=q.device)

    def _put(self, slot: int, rows: slice, q, k, v, causal: bool):
        o, lse = ops.flash_attn_func(q, k, v, softmax_scale=self.scale, causal=causal, return_attn_probs=True)
        self.out[slot, :, rows].copy_(o)
        self.lse[slot, :, rows].copy_(lse.transpose(1, 2))  # (b, h, s) -> (b, s, h)

    def add(self, slot: int, k: torch.Tensor, v: torch.Tensor, src: int, rank: int):
        q, every = self.q, slice(None)
        if not self.causal:
            self._put(slot, every, q, k, v, False)
            return
        c = q.shape[1] // 2
        if src == rank:
            self._put(slot, every, q, k, v, True)
        elif src < rank:
            self._put(slot, every, q, k[:, :c], v[:, :c], False)
        else:
            late = slice(c, None)
            self._put(slot, late, q[:, c:], k, v, False)
            self.out[slot, :, :c].zero_()
            self.lse[slot, :, :c].fill_(-math.inf)  # saw no key: weighs nothing in the merge

    def finish(self, dtype: torch.dtype) -> Tuple[torch.Tensor, torch.Tensor]:
        out, lse = ops.flash_attn_combine(self.out, self.lse, out_dtype=dtype)
        return out, lse.transpose(1, 2)  # lse as flash_attn_func's: (batch, nheads, seqlen)


def _check(q, k, v, causal, window_size, softmax_scale) -> float:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(f"{name}: must be (batch, seqlen_local, nheads, headdim), got shape {tuple(t.shape)}")
    if k.shape != v.shape:
        raise ValueError(f"k, v: must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if tuple(window_size) != (-1, -1):
        raise NotImplementedError("window_size: not supported by warpspec's ring attention yet (only (-1, -1))")
    if causal:
        if q.shape[1] != k.shape[1]:
            raise ValueError(f"q, k: causal ring attention shards one sequence: seqlen_local must match, got "
                             f"{q.shape[1]} and {k.shape[1]}")
        if q.shape[1] % 2 != 0:
            raise ValueError(f"q: causal ring attention needs the zig-zag shard (two equal chunks): seqlen_local "
                             f"must be even, got {q.shape[1]}")
    return 1.0 / math.sqrt(q.shape[-1]) if softmax_scale is None else float(softmax_scale)


def _ring_local(q, ks, vs, rank: int, softmax_scale=None, causal=False, window_size=(-1, -1)):
    """Rank `rank`'s ring result with every rank's K/V shard at hand (ks[s], vs[s]), in the
    order the ring delivers them: the same arithmetic as ring_flash_attn_func without the
    communication. For tests and for single-process use."""
    world = len(ks)
    scale = _check(q, ks[rank], vs[rank], causal, window_size, softmax_scale)
    parts = _Partials(q, world, causal, scale)
    for step in range(world):
        src = (rank - step) % world
        parts.add(step, ks[src], vs[src], src, rank)
    return parts.finish(q.dtype)


# ------------------------------------------------------------------ the distributed call


def ring_flash_attn_func(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, group=None,
                         softmax_scale: Optional[float] = None, causal: bool = False, window_size=(-1, -1),
                         return_attn_probs: bool = False):
    """Attention over a sequence sharded across the ranks of `group` (default: the world).

    q: (batch, seqlen_local, nheads, headdim); k, v: (batch, seqlen_local_k, nheads_k,
    headdim): this rank's shard, every rank the same shapes; bf16 or fp16 on this rank's
    GPU; the rules of flash_attn_func (GQA, head dims). Without causal, shards are
    contiguous (shard()); with causal, zig-zag (zigzag_shard(), seqlen_local even and
    q and k sharded alike). Returns this rank's shard of the output, in the layout of
    its q shard, and with return_attn_probs=True also the log-sum-exp (batch, nheads,
    seqlen_local) in float32. Forward only. Every rank must call it (collective).
    window_size other than (-1, -1) raises NotImplementedError."""
    import torch.distributed as dist

    scale = _check(q, k, v, causal, window_size, softmax_scale)
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)

    def global_rank(r: int) -> int:
        return r if group is None else dist.get_global_rank(group, r)

    nxt, prv = global_rank((rank + 1) % world), global_rank((rank - 1) % world)
    k, v = k.contiguous(), v.contiguous()
    parts = _Partials(q, world, causal, scale)
    for step in range(world):
        pending = None
        if step + 1 < world:
            # Send what this rank holds on, receive the next block: on NCCL's stream,
            # while the kernel below runs on the current one.
            k_next, v_next = torch.empty_like(k), torch.empty_like(v)
            pending = dist.batch_isend_irecv([dist.P2POp(dist.isend, k, nxt, group), dist.P2POp(dist.isend, v, nxt, group),
                                              dist.P2POp(dist.irecv, k_next, prv, group),
                                              dist.P2POp(dist.irecv, v_next, prv, group)])
        parts.add(step, k, v, (rank - step) % world, rank)
        if pending is not None:
            for req in pending:
                req.wait()  # the current stream waits for the transfer, the host does not
            k, v = k_next, v_next
    out, lse = parts.finish(q.dtype)
    return (out, lse) if return_attn_probs else out
