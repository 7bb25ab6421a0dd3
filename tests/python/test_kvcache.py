"""warpspec.flash_attn_with_kvcache and flash_attn_combine against PyTorch, on a Hopper GPU.

The reference works on the physical cache (dense or paged) the way FlashAttention-3
defines the call: the new k/v written at rows cache_seqlens[b] + t of the sequence's cache
(through cache_batch_idx or the page table), rotary applied to them and to q (float32,
rounded to the cache's dtype), then a float32 attention of q over rows [leftpad,
cache_seqlens + seqlen_new) of the gathered cache, masks aligned to the bottom-right
corner. The kernel's error against it must be within 2x the error of the same
computation in the input dtype plus a small floor (FA3's oracle). Every cache row outside
the appended ones must come back bit-identical. Random data, a fresh seed per test.
"""

import inspect
import math

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from warpspec import _lib  # noqa: E402
from torch_support import needs_hopper  # noqa: E402


def rotary_ref(x, cos, sin, pos, interleaved):
    """x (b, s, h, d) rotated at positions pos (b, s), in float32, rounded to x's dtype."""
    rd = 2 * cos.shape[1]
    c = cos.float()[pos].unsqueeze(2)  # (b, s, 1, rd / 2)
    s_ = sin.float()[pos].unsqueeze(2)
    xf = x.float()
    if interleaved:
        x1, x2 = xf[..., 0:rd:2], xf[..., 1:rd:2]
        r = torch.stack((x1 * c - x2 * s_, x1 * s_ + x2 * c), dim=-1).flatten(-2)
    else:
        x1, x2 = xf[..., : rd // 2], xf[..., rd // 2: rd]
        r = torch.cat((x1 * c - x2 * s_, x1 * s_ + x2 * c), dim=-1)
    return torch.cat((r, xf[..., rd:]), dim=-1).to(x.dtype)


def attend(q, k, v, scale, causal, window, upcast):
    """q (sq, h, d), k/v (sk, hk, d) -> out (sq, h, d) float32, lse (h, sq); bottom-right masks."""
    dtype = q.dtype
    if upcast:
        q, k, v = q.float(), k.float(), v.float()
    sq, h, _ = q.shape
    sk, hk, _ = k.shape
    k = k.repeat_interleave(h // hk, dim=1)
    v = v.repeat_interleave(h // hk, dim=1)
    s = torch.einsum("thd,shd->hts", q, k).float() * scale
    i = torch.arange(sq, device=q.device).view(-1, 1) + sk - sq
    j = torch.arange(sk, device=q.device).view(1, -1)
    left, right = window
    if causal:
        right = 0
    visible = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if left >= 0:
        visible &= j >= i - left
    if right >= 0:
        visible &= j <= i + right
    s = s.masked_fill(~visible, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
    out = torch.einsum("hts,shd->thd", p.to(v.dtype) if not upcast else p, v).float()
    if not upcast:
        out = out.to(dtype).float()
    return out, lse


class Case:
    """A serving call's inputs, built at random, with the reference's view of the cache."""

    def __init__(self, batch=3, seqlen_q=1, heads=8, heads_kv=2, d=128, dtype=torch.bfloat16, cache_len=700,
                 new=0, page=None, batch_idx=False, leftpad=False, rotary=None):
        dev = "cuda"
        self.dtype, self.new, self.page = dtype, new, page
        self.q = torch.randn(batch, seqlen_q, heads, d, device=dev, dtype=dtype)
        self.k = torch.randn(batch, new, heads_kv, d, device=dev, dtype=dtype) if new else None
        self.v = torch.randn(batch, new, heads_kv, d, device=dev, dtype=dtype) if new else None
        lens = torch.randint(0, cache_len - new + 1, (batch,))
        lens[0] = cache_len - new  # one sequence fills its cache
        self.leftpad = torch.stack([torch.randint(0, int(n) + 1, ()) for n in lens]) if leftpad else None
        self.cache_seqlens = lens.to(torch.int32).to(dev)
        if page is None:
            cache_batch = batch + 2 if batch_idx else batch
            self.k_cache = torch.randn(cache_batch, cache_len, heads_kv, d, device=dev, dtype=dtype)
            self.v_cache = torch.randn(cache_batch, cache_len, heads_kv, d, device=dev, dtype=dtype)
            self.batch_idx = torch.randperm(cache_batch)[:batch].to(torch.int32).to(dev) if batch_idx else None
            self.page_table = None
        else:
            pages = -(-cache_len // page)
            num_pages = batch * pages + 3  # a few pages no sequence uses: they must stay untouched
            self.k_cache = torch.randn(num_pages, page, heads_kv, d, device=dev, dtype=dtype)
            self.v_cache = torch.randn(num_pages, page, heads_kv, d, device=dev, dtype=dtype)
            self.page_table = torch.randperm(num_pages)[: batch * pages].view(batch, pages).to(torch.int32).to(dev)
            self.batch_idx = None
        self.rotary = rotary  # None, or interleaved (bool)
        if rotary is not None:
            rd = d // 2
            rows = cache_len if page is None else -(-cache_len // page) * page  # the table covers the cache (FA3)
            angle = torch.rand(rows + 16, rd // 2, device=dev) * 2 * math.pi
            self.cos, self.sin = angle.cos().to(dtype), angle.sin().to(dtype)
        else:
            self.cos = self.sin = None

    def row(self, b, j):
        """The physical index of logical row j of sequence b."""
        if self.page is not None:
            return int(self.page_table[b, j // self.page]), j % self.page
        return (int(self.batch_idx[b]) if self.batch_idx is not None else b), j

    def call(self, k_cache, v_cache, **kw):
        return warpspec.flash_attn_with_kvcache(
            self.q, k_cache, v_cache, k=self.k, v=self.v, rotary_cos=self.cos, rotary_sin=self.sin,
            cache_seqlens=self.cache_seqlens, cache_batch_idx=self.batch_idx,
            cache_leftpad=None if self.leftpad is None else self.leftpad.to(torch.int32).cuda(),
            page_table=self.page_table, rotary_interleaved=bool(self.rotary), return_softmax_lse=True, **kw)

    def reference(self, causal=False, window=(-1, -1), softmax_scale=None):
        """(k_cache, v_cache, appended-row mask, out fp32, lse, out in the input dtype)."""
        kc, vc = self.k_cache.clone(), self.v_cache.clone()
        appended = torch.zeros(kc.shape[:2], dtype=torch.bool, device=kc.device)
        b, sq, h, d = self.q.shape
        lens = self.cache_seqlens.cpu()
        pad = self.leftpad if self.leftpad is not None else torch.zeros_like(lens)
        q = self.q
        if self.new:
            k = self.k
            if self.rotary is not None:
                pos = lens.view(-1, 1) + torch.arange(self.new).view(1, -1)  # the row, a left pad counted (FA3)
                k = rotary_ref(k, self.cos, self.sin, pos.cuda(), self.rotary)
                per_token = causal or window != (-1, -1)
                qpos = lens.view(-1, 1) + (torch.arange(sq).view(1, -1) if per_token else 0)
                q = rotary_ref(q, self.cos, self.sin, qpos.expand(b, sq).cuda(), self.rotary)
            for i in range(b):
                for t in range(self.new):
                    r = self.row(i, int(lens[i]) + t)
                    if self.page is None and r[1] >= kc.shape[1]:
                        continue
                    kc[r], vc[r], appended[r] = k[i, t], self.v[i, t], True
        scale = softmax_scale or 1.0 / math.sqrt(d)
        outs, lses, lows = [], [], []
        for i in range(b):
            rows = [self.row(i, j) for j in range(int(pad[i]), int(lens[i]) + self.new)]
            idx0 = torch.tensor([r[0] for r in rows], dtype=torch.long, device=kc.device)
            idx1 = torch.tensor([r[1] for r in rows], dtype=torch.long, device=kc.device)
            ks, vs = kc[idx0, idx1], vc[idx0, idx1]
            o, lse = attend(q[i], ks, vs, scale, causal, window, True)
            lo, _ = attend(q[i], ks, vs, scale, causal, window, False)
            outs.append(o), lses.append(lse), lows.append(lo)
        return kc, vc, appended, torch.stack(outs), torch.stack(lses), torch.stack(lows)


def check_out(out, lse, ref_out, ref_lse, low_out):
    assert not out.isnan().any()
    err = (out.float() - ref_out).abs().max().item()
    low = (low_out - ref_out).abs().max().item()
    assert err <= 2 * low + 2e-3, f"max error {err} vs the input-dtype computation's {low}"
    finite = ref_lse.isfinite()
    assert torch.equal(lse.isfinite(), finite)
    assert (lse[finite] - ref_lse[finite]).abs().max().item() < 1e-3 if finite.any() else True


def run(case, causal=False, window=(-1, -1), num_splits=0):
    kc, vc, appended, ref_out, ref_lse, low = case.reference(causal, window)
    k_cache, v_cache = case.k_cache.clone(), case.v_cache.clone()
    out, lse = case.call(k_cache, v_cache, causal=causal, window_size=window, num_splits=num_splits)
    torch.cuda.synchronize()
    # Untouched outside the appended rows, bit for bit; the appended rows as the reference
    # wrote them (rotary: within the rounding of one float32 rotation).
    assert torch.equal(k_cache[~appended], kc[~appended]) and torch.equal(v_cache[~appended], vc[~appended])
    assert torch.equal(v_cache[appended], vc[appended])
    if case.rotary is None:
        assert torch.equal(k_cache[appended], kc[appended])
    else:
        torch.testing.assert_close(k_cache[appended].float(), kc[appended].float(), atol=2e-2, rtol=1e-2)
    check_out(out, lse, ref_out, ref_lse, low)
    return out, lse


# ------------------------------------------------------------------ the signature


def test_signature_is_fa3s():
    # FlashAttention-3's hopper/flash_attn_interface.py, in order, with its defaults.
    fa3 = ["q", "k_cache", "v_cache", "k", "v", "qv", "rotary_cos", "rotary_sin", "cache_seqlens", "cache_batch_idx",
           "cache_leftpad", "page_table", "cu_seqlens_q", "cu_seqlens_k_new", "max_seqlen_q", "rotary_seqlens",
           "q_descale", "k_descale", "v_descale", "softmax_scale", "causal", "window_size", "attention_chunk",
           "softcap", "rotary_interleaved", "scheduler_metadata", "num_splits", "pack_gqa", "sm_margin",
           "return_softmax_lse"]
    sig = inspect.signature(warpspec.flash_attn_with_kvcache)
    assert list(sig.parameters) == fa3
    d = {n: p.default for n, p in sig.parameters.items()}
    assert d["num_splits"] == 0 and d["rotary_interleaved"] is True and d["window_size"] == (-1, -1)
    assert d["causal"] is False and d["return_softmax_lse"] is False and d["softcap"] == 0.0
    assert list(inspect.signature(warpspec.flash_attn_combine).parameters) == ["out_partial", "lse_partial", "out",
                                                                               "out_dtype"]


# ------------------------------------------------------------------ attention over the cache


@needs_hopper
@pytest.mark.parametrize("heads_kv", [8, 2, 1])  # GQA ratios 1, 4, 8 over 8 query heads
@pytest.mark.parametrize("seqlen_q", [1, 5, 16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("num_splits", [1, 3, 0])
def test_contiguous_cache(seed, heads_kv, seqlen_q, causal, num_splits):
    run(Case(seqlen_q=seqlen_q, heads_kv=heads_kv), causal=causal, num_splits=num_splits)


@needs_hopper
@pytest.mark.parametrize("page", [16, 64, 256])
@pytest.mark.parametrize("new", [0, 3])
@pytest.mark.parametrize("num_splits", [1, 3, 0])
def test_paged_cache_pages_in_random_order(seed, page, new, num_splits):
    run(Case(seqlen_q=max(new, 1), page=page, new=new), causal=True, num_splits=num_splits)


@needs_hopper
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("new", [1, 4, 16])
def test_append_without_rotary(seed, dtype, new):
    run(Case(seqlen_q=new, new=new, dtype=dtype), causal=True)


@needs_hopper
@pytest.mark.parametrize("rotary", [None, True])
def test_append_of_strided_new_keys(seed, rotary):
    """k, v whose head dim is strided (every other element of a (..., d, 2) tensor) are
    copied before the append; the copies must live until the append has read them (the
    lengths allocated in between would otherwise take their memory)."""
    case = Case(batch=4, seqlen_q=1, new=1, heads_kv=8, rotary=rotary)
    pair_k = torch.stack([case.k, torch.randn_like(case.k)], dim=-1)
    pair_v = torch.stack([case.v, torch.randn_like(case.v)], dim=-1)
    case.k, case.v = pair_k[..., 0], pair_v[..., 0]
    assert case.k.stride(-1) == 2
    run(case, causal=True)


@needs_hopper
@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("page", [None, 64])
def test_append_with_rotary(seed, interleaved, causal, page):
    run(Case(seqlen_q=4, new=4, rotary=interleaved, page=page), causal=causal)


@needs_hopper
@pytest.mark.parametrize("new", [0, 2])
def test_cache_batch_idx_permutation(seed, new):
    run(Case(seqlen_q=2, new=new, batch_idx=True), causal=True, num_splits=3)


@needs_hopper
@pytest.mark.parametrize("rotary", [None, True])
def test_leftpad(seed, rotary):
    run(Case(seqlen_q=3, new=3, leftpad=True, rotary=rotary), causal=True, num_splits=0)


@needs_hopper
@pytest.mark.parametrize("window", [(64, 0), (200, 16), (-1, 5)])
@pytest.mark.parametrize("num_splits", [1, 3])
def test_window(seed, window, num_splits):
    run(Case(seqlen_q=8, new=2, cache_len=900), window=window, num_splits=num_splits)


@needs_hopper
@pytest.mark.parametrize("num_splits", [1, 3, 7])
def test_bitwise_deterministic_for_fixed_splits(seed, num_splits):
    case = Case(batch=2, seqlen_q=1, cache_len=5000)
    outs = [case.call(case.k_cache, case.v_cache, num_splits=num_splits) for _ in range(3)]
    for out, lse in outs[1:]:
        assert torch.equal(out, outs[0][0]) and torch.equal(lse, outs[0][1])


@needs_hopper
def test_splits_agree_with_no_split(seed):
    case = Case(batch=1, seqlen_q=1, cache_len=8192, heads=32, heads_kv=8)
    ref, ref_lse = case.call(case.k_cache, case.v_cache, num_splits=1)
    for n in (0, 2, 3, 16, 128):
        out, lse = case.call(case.k_cache, case.v_cache, num_splits=n)
        assert (out.float() - ref.float()).abs().max().item() < 2e-2, n
        assert (lse - ref_lse).abs().max().item() < 1e-4, n


@needs_hopper
def test_cache_seqlens_as_int_and_absent(seed):
    case = Case(batch=2, seqlen_q=1, cache_len=300)
    case.cache_seqlens = torch.full((2,), 300, dtype=torch.int32, device="cuda")
    _, _, _, ref, ref_lse, low = case.reference()
    for lens in (300, None):
        out, lse = warpspec.flash_attn_with_kvcache(case.q, case.k_cache, case.v_cache, cache_seqlens=lens,
                                                    return_softmax_lse=True)
        check_out(out, lse, ref, ref_lse, low)


@needs_hopper
def test_num_splits_on_flash_attn_func(seed):
    q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 8192, 8, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 8192, 8, 128, device="cuda", dtype=torch.bfloat16)
    ref = warpspec.flash_attn_func(q, k, v, num_splits=1)
    for n in (0, 3, 64):
        out = warpspec.flash_attn_func(q, k, v, num_splits=n)
        assert (out.float() - ref.float()).abs().max().item() < 2e-2
        assert torch.equal(out, warpspec.flash_attn_func(q, k, v, num_splits=n))
    cu = torch.tensor([0, 8192], dtype=torch.int32, device="cuda")
    out = warpspec.flash_attn_varlen_func(q[0], k[0], v[0], cu[:2] // 8192, cu, 1, 8192, num_splits=4)
    assert (out.float() - ref[0].float()).abs().max().item() < 2e-2


# ------------------------------------------------------------------ combine


def combine_ref(out_partial, lse_partial):
    lse = torch.logsumexp(lse_partial, dim=0)  # (b, s, h)
    w = torch.exp(lse_partial - lse.unsqueeze(0)).nan_to_num(0.0)
    out = (out_partial * w.unsqueeze(-1)).sum(0)
    return out.nan_to_num(0.0), lse


@needs_hopper
@pytest.mark.parametrize("splits", [1, 2, 5, 128])
@pytest.mark.parametrize("d", [128, 64, 6])
@pytest.mark.parametrize("out_dtype", [None, torch.bfloat16, torch.float16])
def test_combine_matches_a_logsumexp_merge(seed, splits, d, out_dtype):
    op = torch.randn(splits, 2, 3, 4, d, device="cuda")
    lp = torch.randn(splits, 2, 3, 4, device="cuda") * 3
    if splits > 1:
        lp[1, 0] = float("-inf")   # a split that saw no key in some rows
        lp[:, 1, 2, 3] = float("-inf")  # a row no split saw a key of
    ref, ref_lse = combine_ref(op, lp)
    out, lse = warpspec.flash_attn_combine(op, lp, out_dtype=out_dtype)
    assert out.shape == (2, 3, 4, d) and out.dtype == (out_dtype or torch.float32)
    assert lse.shape == (2, 3, 4) and lse.dtype == torch.float32
    tol = 1e-5 if out_dtype is None else 1e-2
    torch.testing.assert_close(out.float(), ref, atol=tol, rtol=tol)
    finite = ref_lse.isfinite()
    assert torch.equal(lse.isfinite(), finite)
    torch.testing.assert_close(lse[finite], ref_lse[finite], atol=1e-5, rtol=1e-5)
    if splits > 1:
        assert torch.equal(out[1, 2, 3], torch.zeros_like(out[1, 2, 3])) and lse[1, 2, 3] == float("-inf")
    o = torch.full((2, 3, 4, d), float("nan"), device="cuda", dtype=out_dtype or torch.float32)
    out2, lse2 = warpspec.flash_attn_combine(op, lp, out=o)
    assert out2 is o and torch.equal(o, out) and torch.equal(lse2, lse)


@needs_hopper
def test_combine_nan_propagates_and_is_deterministic(seed):
    op = torch.randn(4, 1, 2, 2, 64, device="cuda")
    lp = torch.randn(4, 1, 2, 2, device="cuda")
    a = warpspec.flash_attn_combine(op, lp)
    assert all(torch.equal(x, y) for x, y in zip(a, warpspec.flash_attn_combine(op, lp)))
    lp[2, 0, 1, 0] = float("nan")
    out, lse = warpspec.flash_attn_combine(op, lp)
    assert lse[0, 1, 0].isnan() and out[0, 1, 0].isnan().all()


# ------------------------------------------------------------------ refusals


@needs_hopper
@pytest.mark.parametrize("arg,value", [("qv", "tensor"), ("cu_seqlens_k_new", "tensor"),
                                       ("rotary_seqlens", "tensor"), ("q_descale", "tensor"),
                                       ("k_descale", "tensor"), ("v_descale", "tensor"),
                                       ("scheduler_metadata", "tensor"), ("sm_margin", 4)])
def test_unsupported_arguments_raise_not_implemented_by_name(arg, value):
    case = Case(batch=1, cache_len=64)
    if value == "tensor":
        value = torch.ones(1, device="cuda")
    with pytest.raises(NotImplementedError, match=arg):
        warpspec.flash_attn_with_kvcache(case.q, case.k_cache, case.v_cache, cache_seqlens=case.cache_seqlens,
                                         **{arg: value})


@needs_hopper
def test_refusals():
    case = Case(batch=2, seqlen_q=2, new=2, cache_len=128, rotary=True)
    kc, vc = case.k_cache.clone(), case.v_cache.clone()
    q = case.q

    def call(**kw):
        args = dict(k=case.k, v=case.v, cache_seqlens=case.cache_seqlens)
        args.update(kw)
        return warpspec.flash_attn_with_kvcache(q, kc, vc, **args)

    with pytest.raises(ValueError, match="k, v"):
        call(v=None)
    with pytest.raises(ValueError, match="cache_seqlens"):
        call(cache_seqlens=None)
    with pytest.raises(ValueError, match="rotary_cos, rotary_sin"):
        call(rotary_cos=case.cos)
    with pytest.raises(ValueError, match="only with k and v"):
        call(k=None, v=None, rotary_cos=case.cos, rotary_sin=case.sin)
    with pytest.raises(ValueError, match="num_splits"):
        call(num_splits=-1)
    with pytest.raises(ValueError, match="num_splits"):
        call(num_splits=129)
    with pytest.raises(ValueError, match="v.shape"):  # the library's message, named as the caller's argument
        call(v=case.v[:, :1])
    # The attention's refusals name this function's arguments: the caches, not its k and v;
    # cache_seqlens, not the seqused_k it becomes.
    with pytest.raises(ValueError, match="cache_seqlens"):
        warpspec.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=case.cache_seqlens.cpu())
    with pytest.raises(ValueError, match=r"cache_seqlens\.shape"):
        warpspec.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=case.cache_seqlens[:1])
    with pytest.raises(ValueError, match=r"k_cache\.dtype"):
        warpspec.flash_attn_with_kvcache(q, kc.half(), vc.half(), cache_seqlens=case.cache_seqlens)
    with pytest.raises(ValueError, match="page_size"):
        pc = torch.zeros(8, 40, 2, 128, device="cuda", dtype=torch.bfloat16)
        warpspec.flash_attn_with_kvcache(q, pc, pc.clone(), cache_seqlens=case.cache_seqlens,
                                         page_table=torch.zeros(2, 4, dtype=torch.int32, device="cuda"))
    with pytest.raises(ValueError, match=r"rotary_cos.shape\[0\] \(seqlen_ro\): must be at least the cache's rows"):
        call(rotary_cos=case.cos[:100], rotary_sin=case.sin[:100])  # FA3 refuses tables shorter than the cache
    torch.cuda.synchronize()
    assert torch.equal(kc, case.k_cache) and torch.equal(vc, case.v_cache)  # nothing was written
    # A view the attention computes through a copy (q at an odd offset) and a rule only the
    # library knows (head dim 256 does not split): refused before the append writes.
    big = Case(batch=2, seqlen_q=2, new=2, cache_len=128, d=256)
    kc2, vc2 = big.k_cache.clone(), big.v_cache.clone()
    odd = torch.empty(big.q.numel() + 1, device="cuda", dtype=big.q.dtype)[1:].view(big.q.shape)
    odd.copy_(big.q)
    with pytest.raises(ValueError, match="num_splits"):
        warpspec.flash_attn_with_kvcache(odd, kc2, vc2, k=big.k, v=big.v, cache_seqlens=big.cache_seqlens,
                                         num_splits=3)
    torch.cuda.synchronize()
    assert torch.equal(kc2, big.k_cache) and torch.equal(vc2, big.v_cache)
    with pytest.raises(ValueError, match="out_partial"):
        warpspec.flash_attn_combine(torch.zeros(2, 1, 1, 1, 8, device="cuda", dtype=torch.bfloat16),
                                    torch.zeros(2, 1, 1, 1, device="cuda"))
    with pytest.raises(ValueError, match="num_splits"):
        warpspec.flash_attn_combine(torch.zeros(129, 1, 1, 1, 8, device="cuda"), torch.zeros(129, 1, 1, 1,
                                                                                                 device="cuda"))
    with pytest.raises(ValueError, match="lse_partial"):
        warpspec.flash_attn_combine(torch.zeros(2, 1, 1, 1, 8, device="cuda"), torch.zeros(2, 1, 1, device="cuda"))


# ------------------------------------------------------------------ torch integration


@needs_hopper
def test_opcheck():
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    case = Case(batch=2, seqlen_q=2, new=2, cache_len=256, rotary=False, page=64)
    args = (case.q, case.k_cache, case.v_cache, case.k, case.v, case.cos, case.sin, case.cache_seqlens, None, None,
            case.page_table, None, 0, None, True, -1, 0, 0, 0.0, False, 3)
    torch.library.opcheck(torch.ops.warpspec.flash_attn_with_kvcache.default, args,
                          test_utils=("test_schema", "test_faketensor"))
    read = (args[0], args[1], args[2], *args[7:19], args[20])
    torch.library.opcheck(torch.ops.warpspec.flash_attn_with_kvcache_read.default, read,
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    op, lp = torch.randn(3, 2, 1, 4, 64, device="cuda"), torch.randn(3, 2, 1, 4, device="cuda")
    torch.library.opcheck(torch.ops.warpspec.flash_attn_combine.default, (op, lp, torch.bfloat16),
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    torch.library.opcheck(torch.ops.warpspec.flash_attn_combine_out.default, (op, lp, torch.empty(2, 1, 4, 64,
                                                                                                    device="cuda")),
                          test_utils=("test_schema", "test_faketensor"))
    q, k = torch.randn(1, 1, 8, 64, device="cuda", dtype=torch.bfloat16), \
        torch.randn(1, 2000, 2, 64, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.warpspec.flash_attn_forward.default,
                          (q, k, k, None, False, -1, -1, 0.0, None, None, None, None, None, 0, 0, 4, None, None, None),
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


def test_only_the_append_declares_the_caches_written():
    """A call without k and v only reads the caches: its op must not declare them mutated,
    or torch.compile's functionalisation copies both caches on every decode step."""
    if not hasattr(torch.library, "custom_op"):
        pytest.skip("the registered ops need torch >= 2.4")

    def written(op):
        return [a.name for a in op._schema.arguments if a.alias_info is not None and a.alias_info.is_write]

    assert written(torch.ops.warpspec.flash_attn_with_kvcache_read.default) == []
    assert written(torch.ops.warpspec.flash_attn_with_kvcache.default) == ["k_cache", "v_cache"]


@needs_hopper
@pytest.mark.parametrize("append", [False, True])
def test_registered_op_routing(seed, append):
    """Off the direct path (here under a dispatch mode), a call without k and v takes the
    read-only op, one with them the appending op; both give the direct call's bits."""
    if not hasattr(torch.library, "custom_op"):
        pytest.skip("the registered ops need torch >= 2.4")
    from torch.utils._python_dispatch import TorchDispatchMode

    class Seen(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func.name()))
            return func(*args, **(kwargs or {}))

    case = Case(batch=2, seqlen_q=2, new=2 if append else 0, cache_len=300, page=64)
    kw = dict(k=case.k, v=case.v, cache_seqlens=case.cache_seqlens, page_table=case.page_table, causal=True,
              num_splits=2, return_softmax_lse=True)
    kc, vc = case.k_cache.clone(), case.v_cache.clone()
    direct = warpspec.flash_attn_with_kvcache(case.q, kc, vc, **kw)
    kc2, vc2 = case.k_cache.clone(), case.v_cache.clone()
    with Seen() as seen:
        routed = warpspec.flash_attn_with_kvcache(case.q, kc2, vc2, **kw)
    want = "warpspec::flash_attn_with_kvcache" if append else "warpspec::flash_attn_with_kvcache_read"
    other = "warpspec::flash_attn_with_kvcache_read" if append else "warpspec::flash_attn_with_kvcache"
    assert want in seen.ops and other not in seen.ops, seen.ops
    assert all(torch.equal(x, y) for x, y in zip(direct, routed))
    assert torch.equal(kc, kc2) and torch.equal(vc, vc2)
    assert torch.equal(kc2, case.k_cache) != append  # appended rows differ from the random cache


@needs_hopper
def test_torch_compile(seed):
    case = Case(batch=2, seqlen_q=1, new=1, cache_len=512, rotary=True)
    k_ref, v_ref = case.k_cache.clone(), case.v_cache.clone()
    eager, _ = case.call(k_ref, v_ref, causal=True, num_splits=3)

    def step(q, k_cache, v_cache, k, v, cos, sin, lens):
        return warpspec.flash_attn_with_kvcache(q, k_cache, v_cache, k=k, v=v, rotary_cos=cos, rotary_sin=sin,
                                                cache_seqlens=lens, causal=True, num_splits=3)

    compiled = torch.compile(step, fullgraph=True)
    kc, vc = case.k_cache.clone(), case.v_cache.clone()
    out = compiled(case.q, kc, vc, case.k, case.v, case.cos, case.sin, case.cache_seqlens)
    assert torch.equal(out, eager) and torch.equal(kc, k_ref) and torch.equal(vc, v_ref)
    # A read of the updated cache (no append), compiled, gives the eager call's bits.
    read = torch.compile(lambda q, a, b, lens: warpspec.flash_attn_with_kvcache(q, a, b, cache_seqlens=lens,
                                                                                causal=True, num_splits=3),
                         fullgraph=True)
    assert torch.equal(read(case.q, kc, vc, case.cache_seqlens),
                       warpspec.flash_attn_with_kvcache(case.q, kc, vc, cache_seqlens=case.cache_seqlens,
                                                        causal=True, num_splits=3))
    assert torch.equal(kc, k_ref) and torch.equal(vc, v_ref)
    op, lp = torch.randn(3, 2, 1, 4, 64, device="cuda"), torch.randn(3, 2, 1, 4, device="cuda")
    c = torch.compile(lambda a, b: warpspec.flash_attn_combine(a, b, out_dtype=torch.bfloat16), fullgraph=True)
    assert all(torch.equal(x, y) for x, y in zip(c(op, lp), warpspec.flash_attn_combine(op, lp,
                                                                                         out_dtype=torch.bfloat16)))


@needs_hopper
@pytest.mark.parametrize("num_splits", [3, 0])
def test_cuda_graph_decode_steps(seed, num_splits):
    """A decode loop as a serving engine captures it: the lengths and the page table are
    read on the GPU, so one graph replays every step. No warm-up on the capture stream:
    the captured call takes its split-KV workspace from the graph's pool, and replays give
    the bits of an eager call with the same num_splits."""
    case = Case(batch=2, seqlen_q=1, new=1, cache_len=1024, page=64, rotary=True)
    kc, vc = case.k_cache.clone(), case.v_cache.clone()
    lens = torch.tensor([100, 37], dtype=torch.int32, device="cuda")
    q, k, v = case.q.clone(), case.k.clone(), case.v.clone()

    def step(kc, vc):
        return warpspec.flash_attn_with_kvcache(q, kc, vc, k=k, v=v, rotary_cos=case.cos, rotary_sin=case.sin,
                                                cache_seqlens=lens, page_table=case.page_table, causal=True,
                                                num_splits=num_splits)

    step(kc.clone(), vc.clone())  # loads the kernels, on the current stream (not the capture's)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = step(kc, vc)
    kc.copy_(case.k_cache), vc.copy_(case.v_cache)
    for _ in range(3):
        # The reference sees this step's inputs and the cache as it is before the step.
        case.q, case.k, case.v, case.cache_seqlens = q.clone(), k.clone(), v.clone(), lens.clone()
        case.k_cache, case.v_cache = kc.clone(), vc.clone()
        ref_k, ref_v, _, ref_out, ref_lse, low = case.reference(causal=True)
        eager_kc, eager_vc = kc.clone(), vc.clone()
        eager = step(eager_kc, eager_vc)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, eager) and torch.equal(kc, eager_kc), "graph replay differs from the eager call"
        assert torch.equal(kc, ref_k.to(kc.dtype)) or (kc.float() - ref_k.float()).abs().max().item() < 2e-2
        err = (out.float() - ref_out).abs().max().item()
        assert err <= 2 * (low - ref_out).abs().max().item() + 2e-3
        lens += 1  # the next step, read by the same graph on the GPU
        q.normal_(), k.normal_(), v.normal_()
