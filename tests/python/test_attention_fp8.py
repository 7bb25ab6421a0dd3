"""FP8 attention (e4m3 q, k, v with FlashAttention-3's descales; bf16 out) against a
float32 reference of the same dequantized inputs, on a Hopper GPU.

Inputs are quantized per (batch, kv head) with power-of-two descales, so the
dequantized values x8 * descale are exactly representable in bfloat16 and the bf16
kernel can run on exactly the inputs the FP8 kernel saw: its error, on the same
reference, is the yardstick the README's accuracy cost is stated against.

The bound. Q·K products of e4m3 values are exact in the fp32 accumulator, so S is as
exact as the reference's. P is rounded to e4m3 before P·V (3 mantissa bits: relative
error at most u8 = 2^-4, round to nearest; the kernel's 2^7 or 2^8 softmax offset keeps P
in e4m3's normal range, so no P underflows but those below 2^-13 of the row maximum,
whose absolute error 2^-16 is negligible), V is exact, and O is rounded once to bf16
(2^-9). So |O - O_ref| <= u8 * sum_j p_j |v_j| + 2^-9 |O| <= (2^-4 + 2^-9) * max|v|:
the max-error bound below (with a 2^-10 * max|v| floor for fp32 accumulation order).
For random data the roundings are independent with RMS u8 / sqrt(3) ~ 3.6% of each
p_j v_j term, and O is a sum of such terms with random signs, so the relative RMSE
(error RMS over O's RMS) is about u8 / sqrt(3); it is bounded by 0.05 here.

LSE comes from S, and S is not as exact as the reference's: 8-bit wgmma adds each
32-element k-step's products into the accumulator with fewer than fp32's bits
(DeepSeek-V3 measured about 14 on Hopper; the FP8 GEMM promotes for this reason), so a
score carries up to (d / 32) * 2^-13 * sum_i |q_i k_i| of error. The LSE tolerance adds
that term, times the softmax scale, to bf16's 1e-3 (+1e-4 relative): the one-key rows
of causal sq > sk at head dim 256 reached 1.85e-3 against bf16's 1.5e-3 tolerance.
"""

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from warpspec import _lib  # noqa: E402
from torch_support import assert_refusals, needs_hopper  # noqa: E402
from test_attention import attention_ref  # noqa: E402

E4M3 = getattr(torch, "float8_e4m3fn", None)
E4M3_MAX = 448.0


def _built():
    """Why the FP8 kernels cannot run here (None: they can)."""
    if E4M3 is None:
        return "this torch has no float8_e4m3fn"
    q = torch.zeros(1, 1, 1, 64, device="cuda", dtype=E4M3)
    try:
        warpspec.flash_attn_func(q, q, q)
    except Exception as e:  # noqa: BLE001 - the library's refusal names the build option
        if "WARPSPEC_FP8_ATTENTION" in str(e):
            return str(e)
        raise
    return None


@pytest.fixture(scope="module")
def fp8():
    why = _built()
    if why is not None:
        pytest.skip(why)


def quantize(x, heads_k):
    """x (b, s, h, d) float -> (x8 e4m3, descale (b, heads_k) float32): one power-of-two
    descale per batch and kv head (over the query heads of its group for q), chosen so
    the group's largest |x| lands in [224, 448]."""
    b, s, h, d = x.shape
    g = x.float().reshape(b, s, heads_k, h // heads_k, d)
    # (b, heads_k); an empty sequence (s = 0) has no values to scale: descale 1.
    amax = g.abs().amax(dim=(1, 3, 4)) if s > 0 else torch.full((b, heads_k), E4M3_MAX, device=x.device)
    amax = amax.clamp_min(1e-12)
    descale = torch.exp2(torch.ceil(torch.log2(amax / E4M3_MAX)))
    x8 = (g / descale.view(b, 1, heads_k, 1, 1)).reshape(b, s, h, d).to(E4M3)
    return x8, descale.float().contiguous()


def dequantize(x8, descale):
    b, s, h, d = x8.shape
    hk = descale.shape[1]
    return (x8.float().reshape(b, s, hk, h // hk, d) * descale.view(b, 1, hk, 1, 1)).reshape(b, s, h, d)


def make(b, sq, sk, h, hk, d, seed_scale=1.0):
    q = torch.randn(b, sq, h, d, device="cuda") * seed_scale
    k = torch.randn(b, sk, hk, d, device="cuda") * seed_scale
    v = torch.randn(b, sk, hk, d, device="cuda")
    (q8, qd), (k8, kd), (v8, vd) = quantize(q, hk), quantize(k, hk), quantize(v, hk)
    return q8, k8, v8, qd, kd, vd


def score_magnitude(q, k):
    """max over (batch, head, query, key) of sum_i |q_i k_i|, GQA's kv heads repeated."""
    g = q.shape[2] // k.shape[2]
    ka = k.abs().repeat_interleave(g, dim=2)
    return torch.einsum("bqhd,bkhd->bhqk", q.abs(), ka).max()


def errors(out, out_ref):
    err = (out.float() - out_ref).abs()
    rmse = err.pow(2).mean().sqrt().item() / max(out_ref.pow(2).mean().sqrt().item(), 1e-12)
    return err.max().item(), rmse


@needs_hopper
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("shape", [(2, 113, 1031, 4, 2), (1, 1, 1, 2, 2), (3, 256, 128, 6, 3), (1, 300, 300, 8, 1)],
                         ids=["q113_k1031_gqa2", "q1_k1", "q256_k128_gqa2", "q300_mqa"])
def test_matches_dequantized_reference(fp8, head_dim, causal, shape, seed):
    b, sq, sk, h, hk = shape
    q8, k8, v8, qd, kd, vd = make(b, sq, sk, h, hk, head_dim)
    out, lse = warpspec.flash_attn_func(q8, k8, v8, causal=causal, q_descale=qd, k_descale=kd, v_descale=vd,
                                        return_attn_probs=True)
    assert out.dtype == torch.bfloat16 and out.shape == (b, sq, h, head_dim) and out.is_contiguous()
    qf, kf, vf = dequantize(q8, qd), dequantize(k8, kd), dequantize(v8, vd)
    out_ref, lse_ref = attention_ref(qf, kf, vf, causal=causal)
    assert not torch.isnan(out.float()).any()
    max_err, rmse = errors(out, out_ref)
    vmax = vf.abs().max().item()
    bound = (2.0**-4 + 2.0**-9 + 2.0**-10) * vmax
    assert max_err <= bound, f"max error {max_err:.4g} > (2^-4 + 2^-9 + 2^-10) * max|v| = {bound:.4g}"
    if sk >= 64:  # enough terms per row for the statistical bound
        assert rmse <= 0.05, f"relative RMSE {rmse:.4f} > 0.05 (expected about 2^-4 / sqrt(3) = 0.036)"
    no_key = torch.isinf(lse_ref)
    assert torch.equal(torch.isinf(lse) & (lse < 0), no_key)
    if (~no_key).any():
        lse_err = (lse[~no_key] - lse_ref[~no_key]).abs().max().item()
        accum = (head_dim / 32) * 2.0**-13 * head_dim**-0.5 * score_magnitude(qf, kf).item()
        tol = 1e-3 + 1e-4 * lse_ref[~no_key].abs().max().item() + accum
        assert lse_err <= tol, f"lse error {lse_err:.4g} > {tol:.4g} (accumulation term {accum:.4g})"
    # The rows that see no key (causal, sq > sk) are 0.
    if causal and sq > sk:
        assert torch.all(out[:, : sq - sk].float() == 0)


@needs_hopper
@pytest.mark.parametrize("head_dim", [128, 256])
def test_accuracy_cost_against_bf16_on_the_same_inputs(fp8, head_dim, seed):
    """The FP8 kernel's error against the bf16 kernel's, on bit-identical inputs (the
    dequantized values are bf16-exact): the README states this ratio."""
    q8, k8, v8, qd, kd, vd = make(2, 512, 512, 4, 4, head_dim)
    qf, kf, vf = dequantize(q8, qd), dequantize(k8, kd), dequantize(v8, vd)
    assert torch.equal(qf.bfloat16().float(), qf), "dequantized inputs must be bf16-exact"
    out8 = warpspec.flash_attn_func(q8, k8, v8, q_descale=qd, k_descale=kd, v_descale=vd)
    out16 = warpspec.flash_attn_func(qf.bfloat16(), kf.bfloat16(), vf.bfloat16())
    out_ref, _ = attention_ref(qf, kf, vf)
    _, rmse8 = errors(out8, out_ref)
    _, rmse16 = errors(out16, out_ref)
    print(f"head_dim {head_dim}: relative RMSE fp8 {rmse8:.4f}, bf16 {rmse16:.4f}")
    assert rmse16 < rmse8 <= 0.05


@needs_hopper
def test_descales_apply_and_default_to_one(fp8, seed):
    q8, k8, v8, qd, kd, vd = make(2, 128, 128, 4, 2, 128)
    ones = torch.ones_like(qd)
    a = warpspec.flash_attn_func(q8, k8, v8, q_descale=ones, k_descale=ones, v_descale=ones)
    b = warpspec.flash_attn_func(q8, k8, v8)
    assert torch.equal(a, b), "absent descales must read as 1"
    # v_descale scales O exactly (a power of two times bf16 output); q, k's fold into
    # the softmax scale: descale 2 on q equals softmax_scale doubled.
    two = torch.full_like(qd, 2.0)
    c = warpspec.flash_attn_func(q8, k8, v8, v_descale=two)
    assert torch.equal(c.float(), 2 * b.float())
    d = warpspec.flash_attn_func(q8, k8, v8, softmax_scale=0.0625, q_descale=two)
    e = warpspec.flash_attn_func(q8, k8, v8, softmax_scale=0.125)
    assert torch.equal(d, e)


@needs_hopper
def test_fp8_refusals_name_the_argument(fp8):
    q8, k8, v8, qd, kd, vd = make(2, 64, 64, 4, 2, 128)
    bf = torch.randn(2, 64, 4, 128, device="cuda", dtype=torch.bfloat16)
    bfk = torch.randn(2, 64, 2, 128, device="cuda", dtype=torch.bfloat16)
    q96 = torch.zeros(2, 64, 4, 96, device="cuda", dtype=E4M3)
    k96 = torch.zeros(2, 64, 2, 96, device="cuda", dtype=E4M3)
    cu = torch.tensor([0, 64, 128], dtype=torch.int32, device="cuda")
    inv, uns = _lib.INVALID_ARGUMENT, _lib.UNSUPPORTED
    assert_refusals([
        ("descale with bf16 inputs", lambda: warpspec.flash_attn_func(bf, bfk, bfk, q_descale=qd), inv,
         "q_descale: descales are for e4m3 inputs only"),
        ("descale of the wrong shape", lambda: warpspec.flash_attn_func(q8, k8, v8, k_descale=qd[:1]), inv,
         "k_descale"),
        ("descale not float32", lambda: warpspec.flash_attn_func(q8, k8, v8, v_descale=vd.half()), inv, "v_descale"),
        ("head dim not built", lambda: warpspec.flash_attn_func(q96, k96, k96), uns,
         "e4m3 attention runs head dims 64, 128 and 256 only, got 96"),
        ("varlen", lambda: warpspec.flash_attn_varlen_func(q8.reshape(128, 4, 128), k8.reshape(128, 2, 128),
                                                           v8.reshape(128, 2, 128), cu, cu, 64, 64), uns,
         "cu_seqlens_q: not supported with e4m3 inputs yet"),
        ("softcap", lambda: warpspec.flash_attn_func(q8, k8, v8, softcap=5.0), uns,
         "softcap: not supported with e4m3 inputs yet"),
    ])


@needs_hopper
def test_fake_output_dtype_is_bf16(fp8):
    q8, k8, v8, qd, kd, vd = make(1, 64, 64, 2, 2, 64)
    out = torch.compile(lambda q, k, v: warpspec.flash_attn_func(q, k, v, q_descale=qd), fullgraph=True)(q8, k8, v8)
    assert out.dtype == torch.bfloat16
    assert torch.equal(out, warpspec.flash_attn_func(q8, k8, v8, q_descale=qd))
