"""warpspec.scaled_mm against torch._scaled_mm (same arguments, same meaning) and a
float64 reference of the dequantised inputs, with 16-bit, float32 and e4m3 results (the
e4m3 one's scale_result, saturation and amax); warpspec.gemm's bias= and activation=;
refusals before anything runs; torch.compile and CUDA graphs (scales read on the GPU)."""

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from torch_support import needs_hopper  # noqa: E402

E4M3 = getattr(torch, "float8_e4m3fn", None)
needs_fp8 = pytest.mark.skipif(E4M3 is None, reason="this torch has no float8 dtypes")
# The accumulation's error bound, a fraction of Σ|s·a·b| (testing/gemm_check.hpp's
# fp8_accumulation_eps): promoted every 128 K, a k-block's error reaches 2^-11.7 of its own
# magnitude, and one block can hold all of an element's; fast accumulation 2^-9.
PROMOTED, FAST = 2 ** -11, 2 ** -9


def fp8(*shape, dtype=None):
    return (torch.rand(*shape, device="cuda") * 4 - 2).to(dtype or E4M3)


def reference(a, b, sa, sb, bias=None):
    r = (a.double() * sa.double()) @ (b.double() * sb.double())
    return r if bias is None else r + bias.double()


def check(got, want, a, b, sa, sb, rel):
    # Error bound as the C++ tests derive it: output rounding plus accumulation against
    # the sum of absolute products.
    mag = (a.double().abs() * sa.double().abs()) @ (b.double().abs() * sb.double().abs())
    eps = {torch.bfloat16: 2 ** -8, torch.float16: 2 ** -11, torch.float32: 2 ** -20}[got.dtype]
    err = (got.double() - want).abs()
    tol = 2 * eps * want.abs() + rel * mag + 1e-6
    assert not torch.isnan(got).any()
    assert (err <= tol).all(), f"max excess {(err - tol).max().item()}"


@needs_hopper
@needs_fp8
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("scaling", ["tensor", "row"])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("fast", [False, True])
def test_scaled_mm_matches_reference_and_torch(out_dtype, scaling, with_bias, fast, seed):
    m, n, k = 257, 200, 528
    a, b = fp8(m, k), fp8(n, k).t()  # b column-major, as torch._scaled_mm requires
    if scaling == "tensor":
        sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    else:
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
    bias = torch.randn(n, device="cuda").to(out_dtype if out_dtype != torch.float32 else torch.bfloat16) \
        if with_bias else None
    if bias is not None and out_dtype == torch.float32:
        bias = bias.float()
    got = warpspec.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype, use_fast_accum=fast)
    assert got.shape == (m, n) and got.dtype == out_dtype
    check(got, reference(a, b, sa, sb, bias), a, b, sa, sb, FAST if fast else PROMOTED)
    try:
        peer = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype, use_fast_accum=fast)
    except (RuntimeError, TypeError):  # a combination this torch/cuBLASLt does not take
        return
    check(peer, reference(a, b, sa, sb, bias), a, b, sa, sb, FAST if fast else PROMOTED)


@needs_hopper
@needs_fp8
@pytest.mark.parametrize("scaling", ["tensor", "row"])
def test_scaled_mm_fast_accum_many_tiles(scaling, seed):
    # 18 x 18 = 324 output tiles of 128 x 128: at least two per SM, where fast accumulation
    # runs the ping-pong schedule (each warpgroup its own tile); M and N off the tile grid.
    m, n, k = 2300, 2296, 1040
    a, b = fp8(m, k), fp8(n, k).t()
    if scaling == "tensor":
        sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    else:
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
    bias = torch.randn(n, device="cuda").to(torch.bfloat16)
    got = warpspec.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=torch.bfloat16, use_fast_accum=True)
    check(got, reference(a, b, sa, sb, bias), a, b, sa, sb, 2 ** -9)


E5M2 = getattr(torch, "float8_e5m2", None)


@needs_hopper
@needs_fp8
@pytest.mark.parametrize("formats", [("e4m3", "e5m2"), ("e5m2", "e4m3")])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("scaling", ["tensor", "row"])
def test_scaled_mm_mixed_formats(formats, out_dtype, scaling, seed):
    """One operand e5m2, the other e4m3 (what torch._scaled_mm takes; e.g. a gradient in
    e5m2 times a weight in e4m3), against the float64 reference and torch."""
    ta, tb = (E4M3 if f == "e4m3" else E5M2 for f in formats)
    m, n, k = 257, 200, 528
    a, b = fp8(m, k, dtype=ta), fp8(n, k, dtype=tb).t()
    if scaling == "tensor":
        sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    else:
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
    got = warpspec.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
    assert got.shape == (m, n) and got.dtype == out_dtype
    check(got, reference(a, b, sa, sb), a, b, sa, sb, PROMOTED)
    # The operands exchanged (the product transposed): the other kernel of the pair.
    got_t = warpspec.scaled_mm(b.t(), a.t(), sb.t() if sb.dim() else sb, sa.t() if sa.dim() else sa,
                               out_dtype=out_dtype)
    check(got_t.t(), reference(a, b, sa, sb), a, b, sa, sb, PROMOTED)
    try:
        peer = torch._scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
    except (RuntimeError, TypeError):  # a combination this torch/cuBLASLt does not take
        return
    check(peer, reference(a, b, sa, sb), a, b, sa, sb, PROMOTED)


@needs_hopper
@needs_fp8
def test_scaled_mm_e5m2_both_refused():
    a, b = fp8(64, 128, dtype=E5M2), fp8(96, 128, dtype=E5M2).t()
    one = torch.ones((), device="cuda")
    with pytest.raises(ValueError, match="e5m2 x e5m2"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)


def expand_blocks(sa, sb, m, n, k):
    """Block scales as per-element factors: sa (M, ceil(K/128)) -> (M, K), sb (ceil(K/128),
    ceil(N/128)) -> (K, N)."""
    return (sa.repeat_interleave(128, dim=1)[:, :k],
            sb.repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :n])


def block_scales(m, n, k, a_m_contiguous=True):
    kb, nb = -(-k // 128), -(-n // 128)
    # 2^-6 .. 2^6: a scale applied to the wrong block shows.
    sa = torch.exp2(torch.rand(m, kb, device="cuda") * 12 - 6)
    sb = torch.exp2(torch.rand(kb, nb, device="cuda") * 12 - 6)
    if a_m_contiguous:  # DeepGEMM's layout for the activations' scales
        sa = sa.t().contiguous().t()
    return sa, sb


@needs_hopper
@needs_fp8
# (4, 1, 720): a new (M, 1) D reads only column-major, which the block-scaled kernel does
# not write: computed through a padded row-major buffer (the fuzz's fp8_gemm seed 777049).
@pytest.mark.parametrize("shape", [(257, 200, 528), (64, 384, 1040), (1, 16, 16), (130, 520, 4096), (4, 1, 720)])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("a_m_contiguous", [True, False])
def test_scaled_mm_block_scales(shape, out_dtype, a_m_contiguous, seed):
    m, n, k = shape
    a, b = fp8(m, k), fp8(n, k).t()
    sa, sb = block_scales(m, n, k, a_m_contiguous)
    fa, fb = expand_blocks(sa, sb, m, n, k)
    got = warpspec.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
    assert got.shape == (m, n) and got.dtype == out_dtype
    check(got, reference(a, b, fa, fb), a, b, fa, fb, PROMOTED)
    if k > 128 or n > 128:  # else the shapes also read as row-wise scales (the same product)
        with pytest.raises(ValueError, match="use_fast_accum: block scales"):
            warpspec.scaled_mm(a, b, sa, sb, out_dtype=out_dtype, use_fast_accum=True)


@needs_hopper
@needs_fp8
def test_deepgemm_entry_point(seed):
    m, n, k = 200, 384, 1024
    a, w = fp8(m, k), fp8(n, k)
    sa, sbt = block_scales(m, n, k)
    sw = sbt.t()  # DeepGEMM: (ceil(N/128), ceil(K/128)) for w (N, K)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    assert warpspec.gemm_fp8_fp8_bf16_nt((a, sa), (w, sw), out) is None
    fa, fb = expand_blocks(sa, sbt, m, n, k)
    check(out, reference(a, w.t(), fa, fb), a, w.t(), fa, fb, PROMOTED)
    same = warpspec.scaled_mm(a, w.t(), sa, sbt, out_dtype=torch.bfloat16)
    assert torch.equal(out, same)
    with pytest.raises(ValueError, match="out: must be bfloat16"):
        warpspec.gemm_fp8_fp8_bf16_nt((a, sa), (w, sw), out.float())
    with pytest.raises(ValueError, match="block scales must be"):
        warpspec.gemm_fp8_fp8_bf16_nt((a, sa[:, :1]), (w, sw), out)


@needs_hopper
@needs_fp8
def test_block_scales_under_a_cuda_graph(seed):
    m, n, k = 256, 256, 512
    a, b = fp8(m, k), fp8(n, k).t()
    sa, sb = block_scales(m, n, k)
    warpspec.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)  # warm-up outside capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = warpspec.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    sa.mul_(2.0)  # new values, read at replay
    g.replay()
    torch.cuda.synchronize()
    fa, fb = expand_blocks(sa, sb, m, n, k)
    check(out, reference(a, b, fa, fb), a, b, fa, fb, PROMOTED)


@needs_hopper
@needs_fp8
def test_scaled_mm_refusals():
    a, b = fp8(64, 128), fp8(96, 128).t()
    one = torch.ones((), device="cuda")
    with pytest.raises(ValueError, match="b.stride: FP8 B must be column-major"):
        warpspec.scaled_mm(a, b.contiguous(), one, one, out_dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="scale_a.shape"):
        warpspec.scaled_mm(a, b, torch.ones(3, 1, device="cuda"), one, out_dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="scale_b: must be float32"):
        warpspec.scaled_mm(a, b, one, one.half(), out_dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="out_dtype"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E5M2)  # an e5m2 result is not built
    # torch's default, a's dtype: an e4m3 result.
    assert warpspec.scaled_mm(a, b, one, one).dtype == E4M3
    with pytest.raises(ValueError, match="bias.shape"):
        warpspec.scaled_mm(a, b, one, one, bias=torch.zeros(95, device="cuda", dtype=torch.bfloat16),
                           out_dtype=torch.bfloat16)


@needs_hopper
@needs_fp8
def test_scaled_mm_graph_reads_scales_at_replay():
    a, b = fp8(128, 256), fp8(128, 256).t()
    sa, sb = torch.ones((), device="cuda"), torch.ones((), device="cuda")
    warpspec.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)  # warm-up
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = warpspec.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    sa.fill_(2.0)
    g.replay()
    torch.cuda.synchronize()
    check(out, reference(a, b, sa, sb), a, b, sa, sb, PROMOTED)


@needs_hopper
@needs_fp8
def test_scaled_mm_compiles():
    a, b = fp8(128, 256), fp8(64, 256).t()
    sa, sb = torch.rand(128, 1, device="cuda") + 0.5, torch.rand(1, 64, device="cuda") + 0.5
    f = torch.compile(lambda a, b, sa, sb: warpspec.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16), fullgraph=True)
    check(f(a, b, sa, sb), reference(a, b, sa, sb), a, b, sa, sb, PROMOTED)
    # A batched a (an FP8 linear layer over (batch, seq, hidden)): the fake's shape is eager's.
    a3 = fp8(2, 64, 256)
    sa3 = torch.rand(1, device="cuda") + 0.5
    eager = warpspec.scaled_mm(a3, b, sa3, sa3, out_dtype=torch.bfloat16)
    compiled = f(a3, b, sa3, sa3)
    assert compiled.shape == eager.shape == (2, 64, 64)
    assert torch.equal(compiled, eager)


# ------------------------------------------------------------------ e4m3 results

E4M3_MAX = 448.0


def e4m3_step(v):
    """The spacing of e4m3 values at magnitude v (float64): 2^(e-3) in the binade [2^e,
    2^(e+1)) of the normal values (e >= -6; 3 mantissa bits), 2^-9 among the subnormals.
    The binade from frexp (v = m * 2^x, m in [0.5, 1): e = x - 1), exactly: log2 on the GPU
    may land just under an integer at a power of two (64 read as binade 5: half the step)."""
    _, x = torch.frexp(v.clamp_min(2.0 ** -6))
    return torch.ldexp(torch.ones_like(v), x - 4)


def dequant(t):
    return t.float().double()


def same_bits(x, y):
    return torch.equal(x.view(torch.uint8), y.view(torch.uint8))


def scales(scaling, m, n, k):
    """(sa, sb) as scaled_mm takes them, and (fa, fb) as factors of a and b for the reference."""
    if scaling == "tensor":
        sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    elif scaling == "row":
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
    else:
        sa, sb = block_scales(m, n, k)
        return (sa, sb), expand_blocks(sa, sb, m, n, k)
    return (sa, sb), (sa, sb)


def accumulation_margin(a, b, fa, fb, bias, s, rel):
    """A bound on |s * (x_kernel - x)|, x the exact (float64) pre-scale result: the FP8
    accumulation's error, rel of the sum of |products| (as check() takes it), and float32
    rounding of the scaling, the bias addition and the product by s (2^-20 of the terms'
    size covers those few roundings of 2^-24 each)."""
    mag = (a.double().abs() * fa.double().abs()) @ (b.double().abs() * fb.double().abs())
    if bias is not None:
        mag = mag + bias.double().abs()
    return s * (rel + 2 ** -20) * mag


def check_e4m3(got, want, s, margin):
    """got: an e4m3 result; want: x in float64; s: scale_result. The kernel rounds s·x_kernel
    to nearest, saturating: |got - clamp(s·x_kernel)| <= step(|got|) / 2 (a value that rounds
    up into the next binade takes that binade's step, so |got|'s step is never smaller than
    the rounded value's), and clamp is 1-Lipschitz, so |got - clamp(s·x)| <= step(|got|) / 2
    + margin."""
    g = dequant(got)
    assert not torch.isnan(g).any()
    target = (s * want).clamp(-E4M3_MAX, E4M3_MAX)
    err = (g - target).abs()
    tol = e4m3_step(g.abs()) / 2 + margin
    i = (err - tol).argmax()
    assert (err <= tol).all(), (f"max excess {(err - tol).flatten()[i].item()}: got {g.flatten()[i].item()}, "
                                f"want {target.flatten()[i].item()}")


@needs_hopper
@needs_fp8
@pytest.mark.parametrize("shape", [(200, 264, 512), (1000, 1040, 4096), (64, 128, 256)])
@pytest.mark.parametrize("scaling", ["tensor", "row", "block"])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("fast", [False, True])
def test_scaled_mm_e4m3_result_matches_reference_and_torch(shape, scaling, with_bias, fast, seed):
    m, n, k = shape
    if scaling == "block" and fast:
        pytest.skip("block scales take no fast accumulation")
    a, b = fp8(m, k), fp8(n, k).t()  # b column-major (N = 264: rows of the e4m3 result not 16-byte multiples)
    (sa, sb), (fa, fb) = scales(scaling, m, n, k)
    bias = torch.randn(n, device="cuda").to(torch.bfloat16) if with_bias else None  # torch's bias dtype here
    want = reference(a, b, fa, fb, bias)
    # scale_result maps the largest |x| to 200: the whole e4m3 range is used, none saturates.
    s = torch.tensor(200.0 / want.abs().max().item(), device="cuda")
    sv = s.item()
    amax = torch.full((), 1e30, device="cuda")  # the call resets it: not raised from 1e30
    got = warpspec.scaled_mm(a, b, sa, sb, bias=bias, scale_result=s, out_dtype=E4M3, use_fast_accum=fast,
                             amax=amax)
    assert got.shape == (m, n) and got.dtype == E4M3
    rel = FAST if fast else PROMOTED
    margin = accumulation_margin(a, b, fa, fb, bias, sv, rel)
    check_e4m3(got, want, sv, margin)
    # amax: max |x| before scale_result, against the float64 x of the dequantised inputs.
    amax_want = want.abs().max().item()
    assert abs(amax.item() - amax_want) <= 1e-2 * amax_want, (amax.item(), amax_want)
    # Without amax: the same bits (amax is a side output only).
    assert same_bits(warpspec.scaled_mm(a, b, sa, sb, bias=bias, scale_result=s, out_dtype=E4M3,
                                        use_fast_accum=fast), got)
    if scaling == "block":
        return  # torch._scaled_mm takes block scales in other shapes, if at all
    # Against torch._scaled_mm with scale_result 1 on both sides: torch 2.11 (H200, 2026-12-07)
    # ignores scale_result for an e4m3 result (scale_result=2 gave the bits of 1), so the scaled
    # result is checked against float64 above and the rounding against torch here.
    try:  # torch takes an e4m3 result with tensor-wise scales (row-wise ones want a bf16 result)
        peer = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=E4M3, use_fast_accum=fast)
    except (RuntimeError, TypeError):
        return
    unscaled = warpspec.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=E4M3, use_fast_accum=fast)
    margin = accumulation_margin(a, b, fa, fb, bias, 1.0, rel)
    check_e4m3(unscaled, want, 1.0, margin)
    check_e4m3(peer, want, 1.0, margin)
    # Ours against torch's: both round x of the same products, accumulated in float32 in
    # different orders, so the two rounded values can sit on either side of a rounding
    # boundary: each is within half its step plus margin of clamp(x) (check_e4m3), so they
    # differ by at most one e4m3 step (half of each one's) plus twice the accumulation margin.
    ours, theirs = dequant(unscaled), dequant(peer)
    tol = e4m3_step(ours.abs()) / 2 + e4m3_step(theirs.abs()) / 2 + 2 * margin
    diff = (ours - theirs).abs()
    assert (diff <= tol).all(), f"differs from torch._scaled_mm by {(diff - tol).max().item()} past the bound"
    # The same computation: nearly every element is the very same e4m3 value.
    assert (ours == theirs).double().mean().item() >= 0.9


@needs_hopper
@needs_fp8
@pytest.mark.parametrize("bias_dtype", [torch.float16, torch.float32])
def test_scaled_mm_e4m3_result_bias_dtypes(bias_dtype, seed):
    """With an e4m3 result the bias may be bfloat16 (torch's), float16 or float32: the same
    values in each give results within the bound of the bfloat16 one's."""
    m, n, k = 200, 264, 512
    a, b = fp8(m, k), fp8(n, k).t()
    sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    bias16 = torch.randn(n, device="cuda").to(torch.bfloat16)
    bias16[bias16.abs() < 2 ** -6] = 0  # every value exact in float16 too
    bias = bias16.to(bias_dtype)
    want = reference(a, b, sa, sb, bias16)
    s = torch.tensor(200.0 / want.abs().max().item(), device="cuda")
    got = warpspec.scaled_mm(a, b, sa, sb, bias=bias, scale_result=s, out_dtype=E4M3)
    check_e4m3(got, want, s.item(), accumulation_margin(a, b, sa, sb, bias16, s.item(), PROMOTED))
    same = warpspec.scaled_mm(a, b, sa, sb, bias=bias16, scale_result=s, out_dtype=E4M3)
    assert (dequant(got) == dequant(same)).double().mean().item() >= 0.9


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_result_saturates(seed):
    m, n, k = 200, 264, 512
    a, b = fp8(m, k), fp8(n, k).t()
    sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    want = reference(a, b, sa, sb)
    # The largest |x| maps to 4 · 448: many elements pass the e4m3 range.
    s = torch.tensor(4 * E4M3_MAX / want.abs().max().item(), device="cuda")
    amax = torch.zeros((), device="cuda")
    got = warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax)
    g = dequant(got)
    assert not torch.isnan(g).any() and not torch.isinf(g).any()
    margin = accumulation_margin(a, b, sa, sb, None, s.item(), PROMOTED)
    over = s.item() * want > E4M3_MAX + margin
    under = s.item() * want < -(E4M3_MAX + margin)
    assert over.any() and under.any()
    assert (g[over] == E4M3_MAX).all() and (g[under] == -E4M3_MAX).all()
    check_e4m3(got, want, s.item(), margin)
    # amax is taken before scale_result and saturation.
    amax_want = want.abs().max().item()
    assert abs(amax.item() - amax_want) <= 1e-2 * amax_want


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_scale_result_default_is_one():
    a, b = fp8(128, 256), fp8(128, 256).t()
    one = torch.ones((), device="cuda")
    assert same_bits(warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3),
                     warpspec.scaled_mm(a, b, one, one, scale_result=one, out_dtype=E4M3))
    # Any one-element shape, as torch takes it.
    assert same_bits(warpspec.scaled_mm(a, b, one, one, scale_result=one.reshape(1, 1, 1), out_dtype=E4M3),
                     warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3))


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_refusals():
    a, b = fp8(64, 128), fp8(96, 128).t()
    one = torch.ones((), device="cuda")
    amax = torch.full((), 7.0, device="cuda")
    with pytest.raises(ValueError, match="out_dtype: torch.float8_e5m2 output is not built"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E5M2, amax=amax)
    with pytest.raises(ValueError, match="amax: applies to a torch.float8_e4m3fn result only"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, amax=amax)
    with pytest.raises(ValueError, match="amax: must be a one-element float32 tensor"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3, amax=amax.half())
    with pytest.raises(ValueError, match="amax: must be a one-element float32 tensor"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3, amax=torch.zeros(2, device="cuda"))
    with pytest.raises(TypeError, match="amax: must be a torch.Tensor"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3, amax=0.0)
    with pytest.raises(ValueError, match="amax: is on cpu"):
        warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3, amax=torch.zeros(()))
    shared = torch.ones(2, device="cuda")
    with pytest.raises(ValueError, match="amax: overlaps scale_a"):
        warpspec.scaled_mm(a, b, shared[:1].view(()), one, out_dtype=E4M3, amax=shared[0])
    with pytest.raises(ValueError, match="scale_result: must be a one-element float32 tensor"):
        warpspec.scaled_mm(a, b, one, one, scale_result=one.half(), out_dtype=E4M3)
    with pytest.raises(ValueError, match="scale_result: must be a one-element float32 tensor"):
        warpspec.scaled_mm(a, b, one, one, scale_result=torch.ones(2, device="cuda"), out_dtype=E4M3)
    with pytest.raises(ValueError, match="d.dtype"):  # built for e4m3 a and b only
        warpspec.scaled_mm(a, fp8(96, 128, dtype=E5M2).t(), one, one, out_dtype=E4M3, amax=amax)
    torch.cuda.synchronize()
    assert amax.item() == 7.0  # nothing ran, nothing was written
    # scale_result with another result is ignored, unchecked, as torch._scaled_mm does.
    got = warpspec.scaled_mm(a, b, one, one, scale_result=one.half(), out_dtype=torch.bfloat16)
    assert torch.equal(got, warpspec.scaled_mm(a, b, one, one, out_dtype=torch.bfloat16))


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_fake_result_dtype():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a = torch.empty(64, 128, device="cuda", dtype=E4M3)
        b = torch.empty(96, 128, device="cuda", dtype=E4M3).t()
        one = torch.ones((), device="cuda")
        amax = torch.zeros((), device="cuda")
        for out in (warpspec.scaled_mm(a, b, one, one, out_dtype=E4M3),
                    warpspec.scaled_mm(a, b, one, one, scale_result=one, out_dtype=E4M3, amax=amax),
                    warpspec.scaled_mm(a, b, one, one)):  # torch's default: a's dtype
            assert out.shape == (64, 96) and out.dtype == E4M3
        with pytest.raises(ValueError, match="out_dtype"):
            warpspec.scaled_mm(a, b, one, one, out_dtype=E5M2)
        with pytest.raises(ValueError, match="amax"):
            warpspec.scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, amax=amax)


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_opcheck():
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    a, b = fp8(128, 256), fp8(200, 256).t()
    sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand(1, 200, device="cuda") + 0.5
    s, bias = torch.full((), 0.25, device="cuda"), torch.randn(200, device="cuda").to(torch.bfloat16)
    # test_schema (and the AOT test's comparison) run arithmetic torch has no float8 kernels
    # for ("mul_cuda" not implemented for Float8_e4m3fn): the fake implementations are checked
    # here, the amax op's write by the compile and graph test.
    checks = ("test_faketensor",)
    torch.library.opcheck(torch.ops.warpspec.scaled_mm.default, (a, b, sa, sb, bias, s, E4M3, False),
                          test_utils=checks)
    torch.library.opcheck(torch.ops.warpspec.scaled_mm_amax.default,
                          (a, b, sa, sb, bias, s, E4M3, False, torch.zeros((), device="cuda")), test_utils=checks)


@needs_hopper
@needs_fp8
def test_scaled_mm_e4m3_compiles_and_graphs(seed):
    a, b = fp8(256, 512), fp8(264, 512).t()
    sa, sb = torch.rand(256, 1, device="cuda") + 0.5, torch.rand(1, 264, device="cuda") + 0.5
    s = torch.full((), 0.5, device="cuda")
    amax, amax_eager = torch.zeros((), device="cuda"), torch.zeros((), device="cuda")
    eager = warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax_eager)

    # The op with amax says it writes amax (Tensor(a!)): the compiled graph writes the
    # caller's tensor and reads it afterwards in order.
    def f(a, b, sa, sb, s, amax):
        out = warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax)
        return out, amax * 2

    torch._dynamo.reset()
    out, twice = torch.compile(f, fullgraph=True)(a, b, sa, sb, s, amax)
    assert out.dtype == E4M3 and same_bits(out, eager)
    assert amax.item() == amax_eager.item() and twice.item() == 2 * amax_eager.item()

    # CUDA graphs: scale_result is read and amax written at each replay.
    warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax)  # warm-up outside capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        captured = warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax)
    s.fill_(0.25)
    amax.fill_(-1.0)
    a.copy_(fp8(256, 512))  # new inputs: a new amax
    g.replay()
    torch.cuda.synchronize()
    amax_new = torch.zeros((), device="cuda")
    again = warpspec.scaled_mm(a, b, sa, sb, scale_result=s, out_dtype=E4M3, amax=amax_new)
    assert same_bits(captured, again) and amax.item() == amax_new.item()


ACTIVATIONS = {
    None: lambda x: x,
    "relu": torch.relu,
    "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "silu": torch.nn.functional.silu,
}


@needs_hopper
@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_gemm_bias_activation(activation, dtype, seed):
    # b column-major (w.t()): the layout the fused-epilogue kernels are built for.
    a, b = torch.randn(200, 136, device="cuda", dtype=dtype), torch.randn(520, 136, device="cuda", dtype=dtype).t()
    bias = torch.randn(520, device="cuda", dtype=dtype)
    got = warpspec.gemm(a, b, bias=bias, activation=activation)
    want = ACTIVATIONS[activation]((a.double() @ b.double() + bias.double()))
    eps = 2 ** -8 if dtype == torch.bfloat16 else 2 ** -11
    tol = 2 * eps * want.abs() + 136 ** 0.5 / 4096 + 1e-6
    assert ((got.double() - want).abs() <= tol).all()


@needs_hopper
@pytest.mark.parametrize("activation", ["gelu_tanh", "relu"])
def test_gemm_bias_activation_many_tiles_with_c(activation, seed):
    # More 128 x 256 tiles than SMs (17 x 11 = 187), so CTAs run several tiles and their
    # epilogues in turn, with beta·C read through the epilogue's C loads and K off the
    # 64-column k-block (136).
    dtype = torch.bfloat16
    a, b = torch.randn(2100, 136, device="cuda", dtype=dtype), torch.randn(2600, 136, device="cuda", dtype=dtype).t()
    c = torch.randn(2100, 2600, device="cuda", dtype=dtype)
    bias = torch.randn(2600, device="cuda", dtype=dtype)
    got = warpspec.gemm(a, b, c, alpha=0.75, beta=0.5, bias=bias, activation=activation)
    want = ACTIVATIONS[activation](0.75 * (a.double() @ b.double()) + bias.double() + 0.5 * c.double())
    eps = 2 ** -8
    tol = 2 * eps * want.abs() + 136 ** 0.5 / 4096 + 1e-6
    assert ((got.double() - want).abs() <= tol).all()


@needs_hopper
def test_gemm_activation_refusals():
    a, b = torch.randn(64, 64, device="cuda").bfloat16(), torch.randn(64, 64, device="cuda").bfloat16()
    with pytest.raises(ValueError, match="activation"):
        warpspec.gemm(a, b, activation="tanh")
    with pytest.raises(ValueError, match="bias.dtype"):
        warpspec.gemm(a, b.t().contiguous().t(), bias=torch.zeros(64, device="cuda", dtype=torch.float16))
    # Fused epilogues are built for column-major b and out of a's dtype only.
    with pytest.raises(ValueError, match="b.stride"):
        warpspec.gemm(a, b.contiguous(), activation="relu")
    with pytest.raises(ValueError, match="d.dtype"):
        warpspec.gemm(a, b.t().contiguous().t(), activation="relu", out_dtype=torch.float32)
