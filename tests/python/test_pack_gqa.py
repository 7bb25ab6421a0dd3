"""pack_gqa (FlashAttention-3's argument: None the library's rule, True, False) on
flash_attn_func, flash_attn_varlen_func and flash_attn_with_kvcache, on a Hopper GPU.

Every mode is checked against the float32 references of test_attention and
test_kvcache (FA3's rule, capped by the kernel's own error bound); describe_attention
says which plan each mode gets (True packs, False does not, None as FA3's fill rule
decides), and None gives the bits of the plan it chose. Packed and unpacked give the
same bits where the work order is the same (one split, no mask: each row sees the same
key blocks in the same order); with a mask or several splits only the reference bounds
them. Refusals: True where the library cannot pack raises ValueError with its message,
and a refused kvcache call leaves the cache unwritten.
"""

import math

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from warpspec import _lib  # noqa: E402
from torch_support import assert_refusals, needs_hopper  # noqa: E402
from test_attention import bshd, check, poison  # noqa: E402
from test_kvcache import Case, check_out  # noqa: E402

MODES = (None, True, False)


def words(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def fa3_rule_packs(seqlen_q, g, head_dim, block_m=128):
    """What pack_gqa=None plans (AttentionArgs::pack_gqa): pack when the library can (g a
    power of two from 2 to 16, head dim up to 192) and unpacked query tiles of the
    kernel's block_m rows would be less than 90% as full as packed ones."""
    if g < 2 or g > 16 or g & (g - 1) or head_dim > 192:
        return False

    def fill(rows):
        return rows / (math.ceil(rows / block_m) * block_m)

    return fill(seqlen_q) < 0.9 * fill(seqlen_q * g)


def assert_same_bits(a, b, what):
    assert torch.equal(a.view(torch.int16) if a.dtype != torch.float32 else a.view(torch.int32),
                       b.view(torch.int16) if b.dtype != torch.float32 else b.view(torch.int32)), what


# ------------------------------------------------------------------ flash_attn_func


@needs_hopper
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seqlen_q", [1, 3, 16, 100])
@pytest.mark.parametrize("ratio", [2, 4, 8])
@pytest.mark.parametrize("head_dim,dtype", [(64, torch.bfloat16), (128, torch.float16), (192, torch.bfloat16)],
                         ids=str)
def test_flash_attn_func_modes(ratio, seqlen_q, causal, head_dim, dtype, seed):
    hk = 2
    h = hk * ratio
    q = bshd(2, seqlen_q, h, head_dim, dtype)
    k, v = bshd(2, 333, hk, head_dim, dtype), bshd(2, 333, hk, head_dim, dtype)
    lines = {m: words(warpspec.describe_attention(q, k, v, causal=causal, pack_gqa=m)) for m in MODES}
    plans = {m: lines[m].get("pack_gqa") for m in MODES}
    assert plans[True] == str(ratio) and plans[False] is None
    # Head dim 64: 192 rows (three consumers) or 128 (two, where the padding says so);
    # 128 when it splits (on the head dim 128 kernel) and for the other head dims.
    block_m = int(lines[None]["block_m"])
    assert block_m in ((192, 128) if head_dim <= 64 and "splits" not in lines[None] else (128,)), lines[None]
    assert (plans[None] is not None) == fa3_rule_packs(seqlen_q, ratio, head_dim, block_m), plans
    results = {}
    for m in MODES:
        poison(q)
        out, lse = warpspec.flash_attn_func(q, k, v, causal=causal, pack_gqa=m, return_attn_probs=True)
        check(q, k, v, out, lse, causal=causal, what=f"seed={seed} pack_gqa={m}")
        results[m] = out, lse
    chosen = results[plans[None] is not None]
    for a, b in zip(results[None], chosen):
        assert_same_bits(a, b, "pack_gqa=None differs from the plan it chose, run explicitly")
    if not causal:  # one split (the default), no mask: the same work order
        for a, b in zip(results[True], results[False]):
            assert_same_bits(a, b, "packed and unpacked differ with one split and no mask")


@needs_hopper
@pytest.mark.parametrize("num_splits", [1, 3])
def test_flash_attn_func_window_and_sink(num_splits, seed):
    h, hk, d = 8, 2, 128
    q, k, v = bshd(2, 40, h, d, torch.bfloat16), bshd(2, 517, hk, d, torch.bfloat16), bshd(2, 517, hk, d, torch.bfloat16)
    sink = torch.randn(h, device="cuda") * 2 + 1  # per query head: the rows of one packed tile differ
    for window in [(-1, -1), (100, 7)]:
        results = {}
        for m in (True, False):
            poison(q)
            out, lse = warpspec.flash_attn_func(q, k, v, window_size=window, num_splits=num_splits, pack_gqa=m,
                                                learnable_sink=sink, return_attn_probs=True)
            check(q, k, v, out, lse, window=window, sink=sink, what=f"seed={seed} window={window} pack_gqa={m}")
            results[m] = out, lse
        if window == (-1, -1) and num_splits == 1:
            for a, b in zip(results[True], results[False]):
                assert_same_bits(a, b, "packed and unpacked differ with one split and no mask")


# ------------------------------------------------------------------ flash_attn_varlen_func


def packed(lengths, h, d, dtype):
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.tensor(lengths).cumsum(0)
    return torch.randn(int(cu[-1]), h, d, device="cuda", dtype=dtype), cu.cuda()


@needs_hopper
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("ratio,head_dim,dtype", [(4, 128, torch.bfloat16), (8, 64, torch.float16)], ids=str)
def test_varlen_modes(ratio, head_dim, dtype, causal, seed):
    hk = 2
    h = hk * ratio
    lengths = [(100, 300), (0, 40), (1, 1), (37, 700), (16, 0), (3, 129)]
    q, cu_q = packed([s for s, _ in lengths], h, head_dim, dtype)
    k, cu_k = packed([s for _, s in lengths], hk, head_dim, dtype)
    v = torch.randn_like(k)
    max_q, max_k = max(s for s, _ in lengths), max(s for _, s in lengths)
    results = {}
    for m in MODES:
        torch.full((q.shape[0] + 64, h, head_dim), float("nan"), dtype=dtype, device="cuda")  # poison the allocator
        out, lse = warpspec.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, causal=causal, pack_gqa=m,
                                                   return_attn_probs=True)
        for b, (sq, sk) in enumerate(lengths):
            if sq == 0:
                continue
            qs, ks = slice(int(cu_q[b]), int(cu_q[b + 1])), slice(int(cu_k[b]), int(cu_k[b + 1]))
            check(q[qs][None], k[ks][None], v[ks][None], out[qs][None], lse[:, qs][None], causal=causal,
                  what=f"seed={seed} pack_gqa={m} sequence {b} ({sq}, {sk})")
        results[m] = out, lse
    if not causal:
        for a, b in zip(results[True], results[False]):
            assert_same_bits(a, b, "packed and unpacked differ with one split and no mask")
    # None is one of the two plans, bit for bit (the forward is deterministic).
    assert any(all(torch.equal(a, b) for a, b in zip(results[None], results[m])) for m in (True, False))


# ------------------------------------------------------------------ flash_attn_with_kvcache


@needs_hopper
@pytest.mark.parametrize("num_splits", [1, 3, 0])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("layout", ["dense", "paged", "paged_append"])
@pytest.mark.parametrize("ratio,seqlen_q", [(4, 1), (8, 3), (2, 16)])
def test_kvcache_modes(ratio, seqlen_q, layout, causal, num_splits, seed):
    hk = 2
    case = Case(batch=3, seqlen_q=seqlen_q, heads=hk * ratio, heads_kv=hk, d=128, cache_len=512,
                page=64 if layout != "dense" else None, new=2 if layout == "paged_append" else 0)
    _, _, _, ref_out, ref_lse, low = case.reference(causal)
    results = {}
    for m in MODES:
        k_cache, v_cache = case.k_cache.clone(), case.v_cache.clone()
        torch.full(case.q.shape, float("nan"), dtype=case.q.dtype, device="cuda")  # poison the allocator
        out, lse = case.call(k_cache, v_cache, causal=causal, num_splits=num_splits, pack_gqa=m)
        torch.cuda.synchronize()
        check_out(out, lse, ref_out, ref_lse, low)
        results[m] = out, lse
    if num_splits == 1 and not causal:
        for a, b in zip(results[True], results[False]):
            assert_same_bits(a, b, "packed and unpacked differ with one split and no mask")
    if num_splits != 0:  # the heuristic's count depends on the plan's tiles
        assert any(all(torch.equal(a, b) for a, b in zip(results[None], results[m])) for m in (True, False))


# ------------------------------------------------------------------ refusals and the op


@needs_hopper
def test_refusals():
    d = 128
    q6, k2 = bshd(1, 1, 6, d, torch.bfloat16), bshd(1, 64, 2, d, torch.bfloat16)  # group 3
    q64 = bshd(1, 1, 64, d, torch.bfloat16)  # group 32
    q8, k2_256 = bshd(1, 1, 8, 256, torch.bfloat16), bshd(1, 64, 2, 256, torch.bfloat16)
    qp, cu = q6[0], torch.tensor([0, 1], dtype=torch.int32, device="cuda")
    power = "pack_gqa: needs heads_q / heads_kv a power of two up to 16"
    hd256 = "pack_gqa: not supported with head_dim > 192"
    assert_refusals([
        ("group 3", lambda: warpspec.flash_attn_func(q6, k2, k2, pack_gqa=True), _lib.UNSUPPORTED, power),
        ("group 32", lambda: warpspec.flash_attn_func(q64, k2, k2, pack_gqa=True), _lib.UNSUPPORTED, "= 32"),
        ("head dim 256", lambda: warpspec.flash_attn_func(q8, k2_256, k2_256, pack_gqa=True), _lib.UNSUPPORTED, hd256),
        ("varlen group 3", lambda: warpspec.flash_attn_varlen_func(qp, k2[0], k2[0], cu,
                                                                  torch.tensor([0, 64], dtype=torch.int32,
                                                                               device="cuda"), 1, 64, pack_gqa=True),
         _lib.UNSUPPORTED, power),
        ("kvcache group 3", lambda: warpspec.flash_attn_with_kvcache(q6, k2, k2, pack_gqa=True), _lib.UNSUPPORTED,
         power),
        ("kvcache head dim 256", lambda: warpspec.flash_attn_with_kvcache(q8, k2_256, k2_256, pack_gqa=True),
         _lib.UNSUPPORTED, hd256),
        ("describe", lambda: warpspec.describe_attention(q6, k2, k2, pack_gqa=True), _lib.UNSUPPORTED, power),
    ])
    # None and False never refuse: the rule just does not pack there.
    for m in (None, False):
        warpspec.flash_attn_func(q6, k2, k2, pack_gqa=m)
        warpspec.flash_attn_func(q8, k2_256, k2_256, pack_gqa=m)
        warpspec.flash_attn_with_kvcache(q64, k2, k2, pack_gqa=m)
    # One query head per KV head: nothing to pack, True runs unpacked.
    q2 = bshd(1, 5, 2, d, torch.bfloat16)
    assert "pack_gqa" not in words(warpspec.describe_attention(q2, k2, k2, pack_gqa=True))
    out, lse = warpspec.flash_attn_func(q2, k2, k2, pack_gqa=True, return_attn_probs=True)
    check(q2, k2, k2, out, lse)
    for bad in ("yes", 2, 1.0):
        with pytest.raises(TypeError, match="pack_gqa"):
            warpspec.flash_attn_func(q2, k2, k2, pack_gqa=bad)
        with pytest.raises(TypeError, match="pack_gqa"):
            warpspec.flash_attn_with_kvcache(q2, k2, k2, pack_gqa=bad)
    torch.cuda.synchronize()


@needs_hopper
def test_refused_kvcache_call_writes_nothing():
    case = Case(batch=2, seqlen_q=1, heads=6, heads_kv=2, new=2, cache_len=256)  # group 3: True is refused
    kc, vc = case.k_cache.clone(), case.v_cache.clone()
    with pytest.raises(ValueError, match="pack_gqa: needs heads_q / heads_kv a power of two"):
        case.call(kc, vc, pack_gqa=True)
    torch.cuda.synchronize()
    assert torch.equal(kc, case.k_cache) and torch.equal(vc, case.v_cache)


@needs_hopper
def test_opcheck_and_compile(seed):
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    q, k = bshd(1, 3, 8, 64, torch.bfloat16), bshd(1, 300, 2, 64, torch.bfloat16)
    for pack in (-1, 0, 1):
        torch.library.opcheck(torch.ops.warpspec.flash_attn_forward.default,
                              (q, k, k, None, True, -1, -1, 0.0, None, None, None, None, None, 0, 0, 1, None, None,
                               None, pack),
                              test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    case = Case(batch=2, seqlen_q=1, new=1, cache_len=256, page=64)
    args = (case.q, case.k_cache, case.v_cache, case.k, case.v, None, None, case.cache_seqlens, None, None,
            case.page_table, None, 0, None, True, -1, 0, 0, 0.0, False, 3, 1)
    torch.library.opcheck(torch.ops.warpspec.flash_attn_with_kvcache.default, args,
                          test_utils=("test_schema", "test_faketensor"))
    torch._dynamo.reset()

    def f(q, k):
        return warpspec.flash_attn_func(q, k, k, causal=True, pack_gqa=True, return_attn_probs=True)

    compiled = torch.compile(f, fullgraph=True)
    for a, b in zip(compiled(q, k), f(q, k)):
        assert torch.equal(a, b)
