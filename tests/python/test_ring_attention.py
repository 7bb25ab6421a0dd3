"""warpspec.distributed: ring attention's arithmetic on one GPU (every rank's K/V shard at
hand, in ring order: the distributed call without the communication) against the float32
reference and flash_attn_func on the gathered sequence; the sharding helpers; refusals.
The two-rank run over NCCL is tests/python/ring_attention_dist.py (torchrun)."""

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from warpspec import distributed as wd  # noqa: E402
from test_attention import attention_ref  # noqa: E402
from torch_support import DTYPES, needs_hopper  # noqa: E402


def test_sharding_round_trips():
    x = torch.arange(2 * 24 * 3, dtype=torch.float32).view(2, 24, 3)
    for world in (1, 2, 3, 4):
        assert torch.equal(wd.unshard([wd.shard(x, r, world) for r in range(world)]), x)
        if 24 % (2 * world) == 0:
            parts = [wd.zigzag_shard(x, r, world) for r in range(world)]
            assert torch.equal(wd.zigzag_unshard(parts), x)
    # Rank 0 of 2 holds chunks 0 and 3 of 4 (6 positions each).
    z = wd.zigzag_shard(x, 0, 2)
    assert torch.equal(z[:, :6], x[:, :6]) and torch.equal(z[:, 6:], x[:, 18:])
    with pytest.raises(ValueError, match="equal chunks"):
        wd.zigzag_shard(x, 0, 5)


@needs_hopper
@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads_kv,d", [(4, 128), (1, 64)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ring_matches_the_gathered_attention(seed, world, causal, heads_kv, d, dtype):
    b, h, chunk = 2, 4, 72  # chunks off the kernels' block sizes
    total = 2 * world * chunk
    q = torch.randn(b, total, h, d, device="cuda", dtype=dtype)
    k = torch.randn(b, total, heads_kv, d, device="cuda", dtype=dtype)
    v = torch.randn(b, total, heads_kv, d, device="cuda", dtype=dtype)
    split, join = (wd.zigzag_shard, wd.zigzag_unshard) if causal else (wd.shard, wd.unshard)
    ks = [split(k, r, world) for r in range(world)]
    vs = [split(v, r, world) for r in range(world)]
    outs, lses = [], []
    for r in range(world):
        o, lse = wd._ring_local(split(q, r, world), ks, vs, r, causal=causal)
        assert o.dtype == dtype and o.shape == (b, total // world, h, d) and lse.shape == (b, h, total // world)
        outs.append(o)
        lses.append(lse)
    out, lse = join(outs), join(lses, dim=2)
    ref_out, ref_lse = attention_ref(q, k, v, causal=causal)
    single, single_lse = warpspec.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True)
    err = (out.float() - ref_out).abs().max().item()
    single_err = (single.float() - ref_out).abs().max().item()
    # One more rounding than the single call (each step's output is rounded to the input
    # dtype before the float32 merge).
    assert err <= 2 * single_err + 2e-3, (err, single_err)
    assert (lse - ref_lse).abs().max().item() <= 1e-3
    assert torch.isfinite(out).all()


def test_refusals():
    q = torch.zeros(1, 8, 2, 64)
    with pytest.raises(NotImplementedError, match="window_size"):
        wd._ring_local(q, [q], [q], 0, window_size=(4, 0))
    with pytest.raises(ValueError, match="seqlen_local must be even"):
        wd._ring_local(q[:, :7], [q[:, :7]], [q[:, :7]], 0, causal=True)
    with pytest.raises(ValueError, match="seqlen_local must match"):
        wd._ring_local(q, [q[:, :4]], [q[:, :4]], 0, causal=True)
    with pytest.raises(ValueError, match="k, v"):
        wd._ring_local(q, [q], [q[:, :4]], 0)
