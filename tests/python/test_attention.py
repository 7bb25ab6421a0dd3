"""warpspec.flash_attn_func against PyTorch, on a Hopper GPU.

The oracle is FlashAttention-3's: a float32 reference (explicit causal mask, aligned
to the bottom-right corner, GQA by repeating K/V heads), and the kernel's error
against it must be within 2x the error of the same computation done in the input
dtype (bf16/fp16 matmuls, float32 softmax) plus a small floor, capped by the kernel's
own error bound (that yardstick grows with the scores' size). The reference is
itself checked against F.scaled_dot_product_attention in float32. Random data, a
fresh seed per test (printed), outputs poisoned with NaN through the caching
allocator before each call, every element checked.
"""

import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import warpspec  # noqa: E402
from warpspec import _lib  # noqa: E402
from torch_support import DTYPES, assert_refusals, needs_hopper  # noqa: E402

HEAD_DIMS = [64, 96, 128, 192, 256, 40, 160]  # 40 and 160 run padded


def bshd(b, s, h, d, dtype):
    return torch.randn(b, s, h, d, device="cuda", dtype=dtype)


def poison(q):
    """Leave NaN blocks of out's and lse's sizes in the caching allocator, so the
    outputs (allocated next) most likely start as NaN."""
    b, s, h, d = q.shape
    x = torch.full((b, s, h, d), float("nan"), dtype=q.dtype, device="cuda")
    y = torch.full((b, h, s), float("nan"), dtype=torch.float32, device="cuda")
    del x, y


def attention_ref(q, k, v, softmax_scale=None, causal=False, upcast=True, window=(-1, -1), softcap=0.0, sink=None,
                  chunk=0):
    """(out, lse). upcast: in float32 (the reference); else the same computation in
    the input dtype (matmuls in bf16/fp16, softmax in float32), FA3's `out_pt`.
    Masks bottom-right aligned: key j visible to query i iff
    i + sk - sq - left <= j <= i + sk - sq + right (-1: unbounded; causal: right 0).
    softcap > 0: scores softcap * tanh(scores / softcap). sink: (h,) logits that join
    the softmax denominator without a value; lse includes them."""
    dtype = q.dtype
    if upcast:
        q, k, v = q.float(), k.float(), v.float()
    b, sq, h, d = q.shape
    sk, hk = k.shape[1], k.shape[2]
    scale = 1.0 / math.sqrt(d) if softmax_scale is None else softmax_scale
    k = k.repeat_interleave(h // hk, dim=2)
    v = v.repeat_interleave(h // hk, dim=2)
    scores = torch.einsum("bthd,bshd->bhts", q, k).float() * scale
    if softcap > 0:
        scores = softcap * torch.tanh(scores / softcap)
    left, right = window
    if causal:
        right = 0
    i = torch.arange(sq, device=q.device).view(-1, 1)
    j = torch.arange(sk, device=q.device).view(1, -1)
    hidden = torch.zeros(sq, sk, dtype=torch.bool, device=q.device)
    if right >= 0:
        hidden |= j > i + sk - sq + right
    if left >= 0:
        hidden |= j < i + sk - sq - left
    if chunk > 0:  # FA3's attention_chunk: keys of the query's own chunk
        start = torch.div(i + sk - sq, chunk, rounding_mode="floor") * chunk
        hidden |= (j < start) | (j >= start + chunk)
    scores = scores.masked_fill(hidden, float("-inf"))
    if sink is not None:
        scores = torch.cat([scores, sink.float().view(1, h, 1, 1).expand(b, h, sq, 1)], dim=-1)
    lse = torch.logsumexp(scores, dim=-1)
    p = torch.softmax(scores, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)  # a row that sees no key: output 0
    if sink is not None:
        p = p[..., :-1]
    out = torch.einsum("bhts,bshd->bthd", p.to(v.dtype), v)
    return (out if upcast else out.to(dtype)), lse


def check(q, k, v, out, lse, softmax_scale=None, causal=False, what="", **masks):
    b, sq, h, d = q.shape
    assert out.shape == q.shape and out.dtype == q.dtype and out.is_contiguous(), what
    assert lse.shape == (b, h, sq) and lse.dtype == torch.float32, what
    out_ref, lse_ref = attention_ref(q, k, v, softmax_scale, causal, **masks)
    out_pt, _ = attention_ref(q, k, v, softmax_scale, causal, upcast=False, **masks)
    outf = out.float()
    assert not torch.isnan(outf).any(), f"{what}: {torch.isnan(outf).sum().item()} NaN in out"
    err = (outf - out_ref).abs().max().item() if out.numel() else 0.0
    err_pt = (out_pt.float() - out_ref).abs().max().item() if out.numel() else 0.0
    # FA3's floor: what one rounding step of the reference's magnitude costs.
    floor = 2 * (out_ref + 0.3 - 0.3 - out_ref).abs().max().item() + 1e-5 if out.numel() else 1e-5
    # The yardstick is never below what rounding the exact answer to the output dtype can
    # cost (u * max |out_ref|, u the unit roundoff): on a handful of outputs (one query row,
    # d = 8) out_pt, and the rounding itself, can land nearer the exact answer than that by
    # chance, and a kernel that rounds once more (P) must not fail for that.
    u_out = torch.finfo(out.dtype).eps / 2 if out.dtype in (torch.bfloat16, torch.float16) else 0.0
    err_round = u_out * out_ref.abs().max().item() if out.numel() else 0.0
    # FA3's yardstick bounds nothing by itself: out_pt rounds the scores to 16 bits, so
    # its error grows with their size. Cap the tolerance by what the kernel's own
    # arithmetic can cost (testing/attention_check.hpp): P and O rounded once each to the
    # input dtype (unit roundoff u), O a convex combination of V's rows, and fp16's
    # subnormal P (2^-25 each, over seqlen_k keys); twice that bound.
    u = 1 / 256 if q.dtype == torch.bfloat16 else 1 / 2048
    subnormal = k.shape[1] * 2.0**-25 if q.dtype == torch.float16 else 0.0
    vmax = v.float().abs().max().item() if v.numel() else 0.0
    cap = 2 * (2 * u + subnormal) * vmax + 1e-6
    tol = min(2 * max(err_pt, err_round) + floor, cap)
    assert err <= tol, (f"{what}: max error {err:.4g} > {tol:.4g} = min(2 * max({err_pt:.4g}, rounding "
                        f"{err_round:.4g}) + {floor:.3g}, cap {cap:.4g})")
    # LSE: same inputs, float32 accumulation on both sides; -inf exactly where no key
    # (and no sink).
    no_key = torch.isinf(lse_ref)
    assert torch.equal(torch.isinf(lse) & (lse < 0), no_key), f"{what}: -inf LSE rows differ"
    assert not torch.isnan(lse).any(), f"{what}: NaN in lse"
    if (~no_key).any():
        lse_err = (lse[~no_key] - lse_ref[~no_key]).abs().max().item()
        assert lse_err <= 1e-3 + 1e-4 * lse_ref[~no_key].abs().max().item(), f"{what}: lse error {lse_err:.4g}"


def run(q, k, v, **kw):
    poison(q)
    return warpspec.flash_attn_func(q, k, v, return_attn_probs=True, **kw)


# ------------------------------------------------------------------ the reference itself


@needs_hopper
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_reference_matches_sdpa_in_float32(causal, seed):
    q, k, v = (bshd(2, 77, 4, 64, torch.float32) for _ in range(3))
    out_ref, _ = attention_ref(q, k, v, causal=causal)
    # seqlen_q == seqlen_k: SDPA's top-left causal mask is FA's bottom-right one.
    sdpa = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                          is_causal=causal).transpose(1, 2)
    torch.testing.assert_close(out_ref, sdpa, atol=1e-5, rtol=1e-5)


# ------------------------------------------------------------------ correctness


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seqlens", [(128, 128), (113, 203), (239, 97), (1, 300)], ids=str)
def test_against_float32_reference(dtype, head_dim, causal, seqlens, seed):
    sq, sk = seqlens
    q, k, v = bshd(2, sq, 3, head_dim, dtype), bshd(2, sk, 3, head_dim, dtype), bshd(2, sk, 3, head_dim, dtype)
    out, lse = run(q, k, v, causal=causal)
    check(q, k, v, out, lse, causal=causal, what=f"seed={seed}")


@needs_hopper
@pytest.mark.parametrize("heads", [(8, 2), (6, 1), (4, 4)], ids=["gqa", "mqa", "mha"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gqa_and_mqa(heads, causal, seed):
    h, hk = heads
    q, k, v = bshd(2, 150, h, 128, torch.bfloat16), bshd(2, 260, hk, 128, torch.bfloat16), \
        bshd(2, 260, hk, 128, torch.bfloat16)
    out, lse = run(q, k, v, causal=causal)
    check(q, k, v, out, lse, causal=causal, what=f"seed={seed}")


@needs_hopper
def test_softmax_scale_and_default(seed):
    q, k, v = (bshd(1, 100, 2, 64, torch.float16) for _ in range(3))
    out, lse = run(q, k, v, softmax_scale=0.3)
    check(q, k, v, out, lse, softmax_scale=0.3, what=f"seed={seed}")
    explicit = warpspec.flash_attn_func(q, k, v, softmax_scale=1 / 8)
    default = warpspec.flash_attn_func(q, k, v)
    assert torch.equal(explicit, default)


@needs_hopper
def test_causal_rows_that_see_no_key_are_zero_with_minus_inf_lse(seed):
    q, k, v = bshd(1, 200, 2, 64, torch.bfloat16), bshd(1, 50, 2, 64, torch.bfloat16), bshd(1, 50, 2, 64, torch.bfloat16)
    out, lse = run(q, k, v, causal=True)
    assert torch.all(out[:, :150] == 0)
    assert torch.all(lse[:, :, :150] == float("-inf"))
    check(q, k, v, out, lse, causal=True, what=f"seed={seed}")


@needs_hopper
def test_return_convention_is_fa3s():
    q, k, v = (bshd(1, 64, 2, 64, torch.bfloat16) for _ in range(3))
    out = warpspec.flash_attn_func(q, k, v)
    assert isinstance(out, torch.Tensor) and out.shape == q.shape
    both = warpspec.flash_attn_func(q, k, v, None, False, return_attn_probs=True)
    assert isinstance(both, tuple) and len(both) == 2
    assert torch.equal(both[0], out) and both[1].shape == (1, 2, 64)


# ------------------------------------------------------------------ layouts


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_non_contiguous_views(dtype, seed):
    # BHSD memory seen as BSHD, q/k/v sliced out of one packed qkv tensor, and a
    # strided batch: passed as they are, strides and all.
    b, s, h, d = 2, 130, 4, 64
    q = torch.randn(b, h, s, d, device="cuda", dtype=dtype).transpose(1, 2)
    qkv = torch.randn(b, s, 3, h, d, device="cuda", dtype=dtype)
    k, v = qkv[:, :, 1], qkv[:, :, 2]
    assert not q.is_contiguous() and not k.is_contiguous()
    out, lse = run(q, k, v)
    check(q, k, v, out, lse, what=f"seed={seed} bhsd/qkv")
    big = torch.randn(2 * b, s, h, d, device="cuda", dtype=dtype)
    q2 = big[::2]
    out, lse = run(q2, k, v, causal=True)
    check(q2, k, v, out, lse, causal=True, what=f"seed={seed} batch stride")


@needs_hopper
def test_contiguous_views_at_an_odd_offset(seed):
    # Contiguous q, k, v whose data starts off a 16-byte boundary: TMA cannot address them,
    # so they go through fresh copies (t.contiguous() would hand back the same view).
    b, s, h, d = 1, 96, 2, 64
    n = b * s * h * d
    q = torch.randn(n + 1, device="cuda", dtype=torch.bfloat16)[1:].view(b, s, h, d)
    k = torch.randn(n + 3, device="cuda", dtype=torch.bfloat16)[3:].view(b, s, h, d)
    v = bshd(b, s, h, d, torch.bfloat16)
    assert q.is_contiguous() and q.data_ptr() % 16 != 0
    out, lse = run(q, k, v, causal=True)
    check(q, k, v, out, lse, causal=True, what=f"seed={seed}")
    cu = torch.tensor([0, 40, 96], device="cuda", dtype=torch.int32)
    out = warpspec.flash_attn_varlen_func(q[0], k[0], v[0], cu, cu, 56, 56)
    for lo, hi in ((0, 40), (40, 96)):
        qs, ks, vs = (t[:, lo:hi] for t in (q, k, v))
        ref, _ = attention_ref(qs, ks, vs)
        assert (out[lo:hi].float() - ref[0]).abs().max().item() < 2e-2, f"seed={seed} varlen [{lo}, {hi})"


@needs_hopper
def test_non_contiguous_head_dim_is_copied_as_fa3_does(seed):
    q = torch.randn(1, 64, 2, 64, 2, device="cuda", dtype=torch.bfloat16)[..., 0]  # head_dim stride 2
    k, v = bshd(1, 64, 2, 64, torch.bfloat16), bshd(1, 64, 2, 64, torch.bfloat16)
    out, lse = run(q, k, v)
    check(q, k, v, out, lse, what=f"seed={seed}")


@needs_hopper
def test_runs_on_the_current_stream(seed):
    q, k, v = (bshd(2, 256, 4, 128, torch.bfloat16) for _ in range(3))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out, lse = warpspec.flash_attn_func(q, k, v, return_attn_probs=True)
        ref = out.clone()  # ordered after the kernel on `side`
    side.synchronize()
    check(q, k, v, ref, lse, what=f"seed={seed}")


@needs_hopper
def test_empty_batch_needs_no_launch():
    q = torch.empty(0, 16, 2, 64, device="cuda", dtype=torch.bfloat16)
    out, lse = warpspec.flash_attn_func(q, q, q, return_attn_probs=True)
    assert out.shape == q.shape and lse.shape == (0, 2, 16)


# ------------------------------------------------------------------ refusals


def test_cpu_tensors_are_refused():
    q = torch.randn(1, 16, 2, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="q: must be a CUDA tensor"):
        warpspec.flash_attn_func(q, q, q)


@needs_hopper
def test_bad_input_raises_the_library_message():
    def t(b=1, s=64, h=2, d=64, dtype=torch.bfloat16):
        return bshd(b, s, h, d, dtype)

    cases = [
        ("fp32", lambda: warpspec.flash_attn_func(t(dtype=torch.float32), t(dtype=torch.float32),
                                                  t(dtype=torch.float32)), _lib.UNSUPPORTED, "q.dtype"),
        ("mixed dtypes", lambda: warpspec.flash_attn_func(t(), t(dtype=torch.float16), t()),
         _lib.INVALID_ARGUMENT, "k.dtype: must equal q.dtype"),
        ("head dim 100", lambda: warpspec.flash_attn_func(t(d=100), t(d=100), t(d=100)), _lib.UNSUPPORTED, "head_dim"),
        ("heads not a multiple", lambda: warpspec.flash_attn_func(t(h=4), t(h=3), t(h=3)), _lib.INVALID_ARGUMENT,
         "must be a multiple of heads_kv"),
        ("k and v differ", lambda: warpspec.flash_attn_func(t(), t(s=64), t(s=65)), _lib.INVALID_ARGUMENT,
         "v.shape[1]"),
        ("batch differs", lambda: warpspec.flash_attn_func(t(b=2), t(b=1), t(b=1)), _lib.INVALID_ARGUMENT,
         "k.shape[0]"),
        # (Views TMA cannot address, a misaligned pointer or seqlen stride, are computed
        # through copies as SDPA computes them: test_hostile.py checks their results.)
        ("negative scale", lambda: warpspec.flash_attn_func(t(), t(), t(), softmax_scale=-1.0),
         _lib.INVALID_ARGUMENT, "softmax_scale: must be positive and finite"),
        ("NaN scale", lambda: warpspec.flash_attn_func(t(), t(), t(), softmax_scale=float("nan")),
         _lib.INVALID_ARGUMENT, "softmax_scale"),
    ]
    assert_refusals(cases)


@needs_hopper
def test_shape_errors_raised_in_python():
    with pytest.raises(ValueError, match=r"q: must be \(batch, seqlen_q, heads, head_dim\)"):
        warpspec.flash_attn_func(bshd(1, 64, 2, 64, torch.bfloat16)[0], bshd(1, 64, 2, 64, torch.bfloat16),
                                 bshd(1, 64, 2, 64, torch.bfloat16))
    with pytest.raises(ValueError, match="softmax_scale: must be positive"):
        q = bshd(1, 64, 2, 64, torch.bfloat16)
        warpspec.flash_attn_func(q, q, q, softmax_scale=0.0)


@needs_hopper
def test_backward_raises_instead_of_a_silent_zero_gradient():
    q = bshd(1, 64, 2, 64, torch.bfloat16).requires_grad_()
    k, v = bshd(1, 64, 2, 64, torch.bfloat16), bshd(1, 64, 2, 64, torch.bfloat16)
    out = warpspec.flash_attn_func(q, k, v)
    with torch.no_grad():
        ref = warpspec.flash_attn_func(q, k, v)
    assert torch.equal(out.detach(), ref)
    with pytest.raises(RuntimeError, match="has no backward"):
        out.float().sum().backward()


# ------------------------------------------------------------------ torch integration


@needs_hopper
def test_opcheck():
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    op = torch.ops.warpspec.flash_attn_forward.default
    q, k, v = bshd(2, 100, 4, 64, torch.bfloat16), bshd(2, 140, 2, 64, torch.bfloat16), \
        bshd(2, 140, 2, 64, torch.bfloat16)
    sink = torch.randn(4, device="cuda")
    packed = q[0], k[0], v[0]
    cu_q = torch.tensor([0, 60, 100], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, 100, 140], dtype=torch.int32, device="cuda")
    none = (None, None, None, None, 0, 0)
    for args in [(q, k, v, None, False, -1, -1, 0.0, None, *none),
                 (q, k, v, 0.2, True, 64, 0, 30.0, sink, None, None, None, None, 0, 48),
                 (*packed, None, True, -1, -1, 0.0, None, cu_q, cu_k, None, None, 60, 0)]:
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


@needs_hopper
def test_fake_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(2, 33, 8, 128, device="cuda", dtype=torch.float16)
        k = torch.empty(2, 70, 2, 128, device="cuda", dtype=torch.float16)
        out, lse = warpspec.flash_attn_func(q, k, k, return_attn_probs=True)
        assert out.shape == (2, 33, 8, 128) and out.dtype == torch.float16
        assert lse.shape == (2, 8, 33) and lse.dtype == torch.float32


@needs_hopper
def test_torch_compile_fullgraph(seed):
    torch._dynamo.reset()

    def block(x, wq, k, v):
        q = (x @ wq).unflatten(-1, (4, 64))
        out, lse = warpspec.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
        return out.flatten(-2) * 2, lse.exp()

    compiled = torch.compile(block, fullgraph=True)
    for s in (128, 80):
        x, wq = bshd(1, 2, s, 128, torch.bfloat16)[0], torch.randn(128, 256, device="cuda", dtype=torch.bfloat16)
        k, v = bshd(2, 150, 2, 64, torch.bfloat16), bshd(2, 150, 2, 64, torch.bfloat16)
        out, lse_exp = compiled(x, wq, k, v)
        q = (x @ wq).unflatten(-1, (4, 64))
        ref_out, ref_lse = warpspec.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
        torch.testing.assert_close(out, ref_out.flatten(-2) * 2)
        torch.testing.assert_close(lse_exp, ref_lse.exp())
        check(q, k, v, ref_out, ref_lse, causal=True, what=f"seed={seed} s={s}")


@needs_hopper
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_cuda_graph_capture_and_replay(causal, seed):
    q, k, v = bshd(2, 190, 4, 128, torch.bfloat16), bshd(2, 250, 2, 128, torch.bfloat16), \
        bshd(2, 250, 2, 128, torch.bfloat16)
    side = torch.cuda.Stream()  # warm-up off the default stream, as torch's docs ask
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        warpspec.flash_attn_func(q, k, v, causal=causal)
    torch.cuda.current_stream().wait_stream(side)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = warpspec.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True)
    for replay in range(3):  # new inputs, in place, each replay
        for t in (q, k, v):
            t.copy_(torch.randn_like(t))
        out.fill_(float("nan"))
        lse.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(q, k, v, out, lse, causal=causal, what=f"seed={seed} replay {replay}")
