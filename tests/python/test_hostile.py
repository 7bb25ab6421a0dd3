"""The Python binding against hostile and edge input: the documented error types
(TypeError, ValueError, RuntimeError; never AttributeError or OverflowError), zero
extents computed as torch computes them, torch's lazy tensor kinds read by value,
views SDPA accepts computed (through copies), NaN propagated, and outputs that do
not overlap inputs. Skipped cleanly without torch; GPU cases without a Hopper GPU.
"""

import math

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from torch_support import needs_hopper  # noqa: E402


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda").to(dtype)


def attention_reference(q, k, v, scale=None):
    """float32 SDPA-style reference (b, s, h, d) with GQA, and its log-sum-exp."""
    hq, hk = q.shape[2], k.shape[2]
    k = k.repeat_interleave(hq // hk, dim=2)
    v = v.repeat_interleave(hq // hk, dim=2)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(), k.float()) * scale
    lse = torch.logsumexp(s, dim=-1)
    out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s, dim=-1), v.float())
    return out, lse


# ------------------------------------------------------------------ error types


@pytest.mark.parametrize("bad", [None, [1, 2], 3.0, "a"])
def test_non_tensor_operands_raise_type_error(bad):
    x = torch.ones(8, 8)
    with pytest.raises(TypeError, match="a: must be a torch.Tensor"):
        warpspec.gemm(bad, x)
    with pytest.raises(TypeError, match="k: must be a torch.Tensor"):
        warpspec.flash_attn_func(torch.ones(1, 8, 1, 64), bad, torch.ones(1, 8, 1, 64))


@pytest.mark.parametrize("alpha", [1e39, -1e300])
def test_alpha_outside_float32_raises_value_error(alpha):
    x = torch.ones(8, 8)
    with pytest.raises(ValueError, match="alpha: .* does not fit in float32"):
        warpspec.gemm(x, x, alpha=alpha)


@pytest.mark.parametrize("scale", [1e-50, -1e-50, 0.0, -1.0, 1e39, float("nan"), float("inf")])
def test_softmax_scale_that_is_not_a_positive_float32_is_refused(scale):
    q = torch.ones(1, 8, 1, 64)
    with pytest.raises(ValueError, match="softmax_scale"):
        warpspec.flash_attn_func(q, q, q, softmax_scale=scale)


@pytest.mark.parametrize("device", [2**32, -2, 2**31])
def test_check_device_out_of_range_is_refused_not_truncated(device):
    with pytest.raises(ValueError, match="device"):
        warpspec.check_device(device)


# ------------------------------------------------------------------ zero extents


@needs_hopper
@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_gemm_with_k_zero_is_beta_c_like_addmm(beta):
    a = torch.empty(70, 0, device="cuda", dtype=torch.bfloat16)
    b = torch.empty(0, 48, device="cuda", dtype=torch.bfloat16)
    c = rand(70, 48)
    out = warpspec.gemm(a, b, c, alpha=2.0, beta=beta)
    torch.cuda.synchronize()
    want = torch.addmm(c.float(), a.float(), b.float(), beta=beta, alpha=2.0).to(torch.bfloat16)
    assert torch.equal(out, want)


@needs_hopper
def test_empty_gemm_still_checks_dtypes():
    with pytest.raises(ValueError, match="b.dtype"):
        warpspec.gemm(rand(0, 64), rand(64, 32, dtype=torch.float16))


@needs_hopper
def test_attention_with_no_keys_is_zero_with_minus_inf_lse():
    q = rand(2, 40, 4, 64)
    k = torch.empty(2, 0, 2, 64, device="cuda", dtype=torch.bfloat16)
    out, lse = warpspec.flash_attn_func(q, k, k, return_attn_probs=True)
    torch.cuda.synchronize()
    assert torch.all(out == 0)
    assert torch.all(torch.isneginf(lse))


@needs_hopper
def test_attention_head_dim_zero_is_refused():
    q = torch.empty(1, 8, 2, 0, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="head_dim"):
        warpspec.flash_attn_func(q, q, q)


# ------------------------------------------------------------------ lazy tensor kinds


@needs_hopper
def test_negated_view_is_read_by_value():
    a, b = rand(64, 32), rand(32, 48)
    neg = torch._neg_view(a)
    assert neg.is_neg()
    out = warpspec.gemm(neg, b)
    torch.cuda.synchronize()
    ref = torch.matmul(-a.float(), b.float())
    assert (out.float() - ref).abs().max().item() < 0.05 * ref.abs().max().item()


@needs_hopper
def test_zero_tensor_is_read_as_zeros():
    if not hasattr(torch, "_efficientzerotensor"):
        pytest.skip("this torch has no ZeroTensor")
    a = torch._efficientzerotensor((64, 32), device="cuda", dtype=torch.bfloat16)
    out = warpspec.gemm(a, rand(32, 48))
    torch.cuda.synchronize()
    assert torch.all(out == 0)


# ------------------------------------------------------------------ views, NaN, overlap


@needs_hopper
def test_attention_views_sdpa_accepts_are_computed(seed):
    # A storage offset of one element (2 bytes) and a seqlen stride of 72 elements
    # (144 bytes, a multiple of 16) on q; k and v sliced from a wider buffer whose
    # head stride is 68 elements (136 bytes, not a multiple of 16).
    base = rand(2 * 50 * 3 * 72 + 1)
    q = base[1:].view(2, 50, 3, 72)[..., :64]
    wide = rand(2, 90, 1, 68)
    k, v = wide[..., :64], rand(2, 90, 1, 68)[..., :64]
    out, lse = warpspec.flash_attn_func(q, k, v, return_attn_probs=True)
    torch.cuda.synchronize()
    ref, ref_lse = attention_reference(q, k, v)
    assert (out.float() - ref).abs().max().item() < 2e-2, f"seed={seed}"
    assert (lse - ref_lse).abs().max().item() < 1e-3, f"seed={seed}"


@needs_hopper
def test_attention_nan_in_q_gives_nan_row_not_minus_inf():
    q, k, v = rand(1, 130, 2, 64), rand(1, 130, 2, 64), rand(1, 130, 2, 64)
    q[0, 77, 1, 3] = float("nan")
    out, lse = warpspec.flash_attn_func(q, k, v, return_attn_probs=True)
    torch.cuda.synchronize()
    assert torch.isnan(lse[0, 1, 77])
    assert torch.all(torch.isnan(out[0, 77, 1]))
    mask = torch.ones_like(lse, dtype=torch.bool)
    mask[0, 1, 77] = False
    assert torch.all(torch.isfinite(lse[mask]))
