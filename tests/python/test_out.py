"""out= on warpspec.gemm, flash_attn_func and flash_attn_varlen_func: the result is
written into the caller's tensor, bit for bit what the allocating call returns, for any
strides (views TMA cannot address go through a copy), under CUDA graphs and
torch.compile; wrong shapes, dtypes and devices are refused before anything runs."""

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from torch_support import needs_hopper  # noqa: E402


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda").to(dtype)


@needs_hopper
def test_gemm_out_is_written_in_place_bit_for_bit(seed):
    a, b = rand(300, 520), rand(520, 1000)
    want = warpspec.gemm(a, b)
    out = torch.full((300, 1000), float("nan"), device="cuda", dtype=torch.bfloat16)
    got = warpspec.gemm(a, b, out=out)
    assert got is out
    assert torch.equal(out, want)
    # fp32 out with out_dtype, and beta * c with c = out itself (in place).
    out32 = rand(300, 1000, dtype=torch.float32)
    c = out32.clone()
    warpspec.gemm(a, b, c=out32, beta=0.5, out_dtype=torch.float32, out=out32)
    assert torch.equal(out32, warpspec.gemm(a, b, c=c, beta=0.5, out_dtype=torch.float32))


@needs_hopper
@pytest.mark.parametrize("view", ["column_major", "odd_offset", "strided_rows"])
def test_gemm_out_views(view, seed):
    a, b = rand(64, 256), rand(256, 96)
    want = warpspec.gemm(a, b)
    if view == "column_major":
        out = torch.empty(96, 64, device="cuda", dtype=torch.bfloat16).t()
    elif view == "odd_offset":
        out = torch.empty(64 * 96 + 1, device="cuda", dtype=torch.bfloat16)[1:].view(64, 96)
    else:
        base = torch.full((64, 101), 7.0, device="cuda", dtype=torch.bfloat16)
        out = base[:, :96]
    warpspec.gemm(a, b, out=out)
    assert torch.equal(out, want), view
    if view == "strided_rows":  # the columns past the view are not written
        assert torch.all(base[:, 96:] == 7.0)


@needs_hopper
@pytest.mark.parametrize("activation", [None, "gelu_tanh"])
def test_gemm_bias_out_is_a_direct_call(activation, seed, monkeypatch):
    """Plain eager gemm(bias=..., out=...) calls the library directly (the registered op's
    dispatch costs tens of microseconds a call) and writes the allocating call's bits."""
    from warpspec import ops

    def dispatched(*args):
        raise AssertionError("took the registered op")

    a, w, bias = rand(200, 264), rand(320, 264), rand(320)
    want = warpspec.gemm(a, w.t(), bias=bias, activation=activation)
    out = torch.full((200, 320), float("nan"), device="cuda", dtype=torch.bfloat16)
    monkeypatch.setattr(ops, "_gemm_out", dispatched)
    assert warpspec.gemm(a, w.t(), bias=bias, activation=activation, out=out) is out
    assert torch.equal(out, want)


@needs_hopper
def test_gemm_out_refusals():
    a, b = rand(64, 64), rand(64, 64)
    with pytest.raises(ValueError, match="out: must have the result's shape"):
        warpspec.gemm(a, b, out=torch.empty(64, 65, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="out: must have the result's dtype"):
        warpspec.gemm(a, b, out=torch.empty(64, 64, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError, match="out: is on cpu"):
        warpspec.gemm(a, b, out=torch.empty(64, 64, dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="overlap"):
        warpspec.gemm(a, b, out=a)
    # With a bias or an activation too: out_dtype must agree with out (it was once ignored).
    out = torch.full((64, 64), float("nan"), device="cuda", dtype=torch.bfloat16)
    bias = rand(64)
    with pytest.raises(ValueError, match="out: must have the result's dtype"):
        warpspec.gemm(a, b.t(), bias=bias, out_dtype=torch.float32, out=out)
    with pytest.raises(ValueError, match="out: must have the result's dtype"):
        warpspec.gemm(a, b.t(), activation="relu", out=torch.empty(64, 64, device="cuda", dtype=torch.float16))
    assert torch.isnan(out).all(), "a refused call wrote out"
    with pytest.raises(RuntimeError, match="out= does not record gradients"):
        warpspec.gemm(a.requires_grad_(), b, out=torch.empty(64, 64, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(RuntimeError, match="out= does not record gradients"):
        warpspec.gemm(a, b.t(), bias=bias, out=out)  # a requires grad (above)


@needs_hopper
def test_gemm_out_in_a_cuda_graph_and_compiled(seed):
    a, b = rand(128, 256), rand(256, 512)
    out = torch.empty(128, 512, device="cuda", dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        warpspec.gemm(a, b, out=out)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        warpspec.gemm(a, b, out=out)
    a.copy_(rand(128, 256))
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, warpspec.gemm(a, b))

    torch._dynamo.reset()

    @torch.compile(fullgraph=True)
    def f(a, b, out):
        warpspec.gemm(a, b, out=out)
        return out * 2

    out.fill_(float("nan"))
    doubled = f(a, b, out)
    assert torch.equal(out, warpspec.gemm(a, b)) and torch.equal(doubled, out * 2)


@needs_hopper
def test_attention_out(seed):
    q, k, v = rand(2, 300, 4, 128), rand(2, 700, 2, 128), rand(2, 700, 2, 128)
    want, want_lse = warpspec.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
    out = torch.full_like(q, float("nan"))
    got, lse = warpspec.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, out=out)
    assert got is out and torch.equal(out, want) and torch.equal(lse, want_lse)
    # A view TMA cannot store to (odd offset): through a copy.
    odd = torch.empty(q.numel() + 1, device="cuda", dtype=q.dtype)[1:].view(q.shape)
    warpspec.flash_attn_func(q, k, v, causal=True, out=odd)
    assert torch.equal(odd, want)
    with pytest.raises(ValueError, match="out: must have the result's shape"):
        warpspec.flash_attn_func(q, k, v, out=torch.empty(2, 301, 4, 128, device="cuda", dtype=q.dtype))
    with pytest.raises(ValueError, match="o: overlaps k"):
        warpspec.flash_attn_func(q, k, v, out=k.view(-1)[: q.numel()].view(q.shape))
    inplace = q.clone()  # out may be q itself
    warpspec.flash_attn_func(inplace, k, v, causal=True, out=inplace)
    assert torch.equal(inplace, want)


@needs_hopper
def test_attention_out_varlen_and_graph(seed):
    lengths = [100, 0, 37, 250]
    cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
    total = int(cu[-1])
    q, k, v = rand(total, 4, 64), rand(total, 2, 64), rand(total, 2, 64)
    want = warpspec.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250, causal=True)
    out = torch.full_like(q, float("nan"))
    warpspec.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250, causal=True, out=out)
    assert torch.equal(out, want)
    out.fill_(float("nan"))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        warpspec.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250, causal=True, out=out)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        warpspec.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250, causal=True, out=out)
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, want)


@needs_hopper
def test_out_ops_opcheck():
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    a, b = rand(64, 128), rand(128, 96)
    out = torch.empty(64, 96, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.warpspec.gemm_out.default, (a, b, None, 1.0, 0.0, None, 0, out),
                          test_utils=("test_schema", "test_faketensor"))
    bias = rand(96)
    torch.library.opcheck(torch.ops.warpspec.gemm_out.default, (a, b.t().contiguous().t(), None, 1.0, 0.0, bias, 2, out),
                          test_utils=("test_schema", "test_faketensor"))
    q, k = rand(1, 100, 2, 64), rand(1, 140, 2, 64)
    o = torch.empty_like(q)
    torch.library.opcheck(torch.ops.warpspec.flash_attn_forward_out.default,
                          (q, k, k, None, True, -1, -1, 0.0, None, None, None, None, None, 0, 0, o),
                          test_utils=("test_schema", "test_faketensor"))


def _overlapping_misaligned(shape, strides, dtype):
    """A NaN-filled out= one element past a 16-byte boundary whose own elements share
    memory: the library cannot store to it as it is (so the call would go through an
    aligned copy), and no copy can write it meaningfully."""
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    buf = torch.full((span + 1,), float("nan"), device="cuda", dtype=dtype)
    return buf, buf[1:].as_strided(shape, strides)


@needs_hopper
def test_out_whose_elements_overlap_is_refused_even_where_misaligned():
    a, b = rand(64, 96), rand(96, 64)
    # Rows 32 elements apart over 64 columns: row i's second half is row i + 1's first.
    buf, out = _overlapping_misaligned((64, 64), (32, 1), torch.bfloat16)
    with pytest.raises(ValueError, match=r"out\.stride: elements overlap"):
        warpspec.gemm(a, b, out=out)
    assert torch.isnan(buf).all(), "a refused gemm wrote out"
    q, k, v = rand(1, 40, 4, 64), rand(1, 40, 4, 64), rand(1, 40, 4, 64)
    # Heads 64 apart, positions 128 apart over 4 heads: positions overlap heads 2 and 3.
    buf, out = _overlapping_misaligned(q.shape, (40 * 128, 128, 64, 1), torch.bfloat16)
    with pytest.raises(ValueError, match=r"out\.stride: elements overlap"):
        warpspec.flash_attn_func(q, k, v, out=out)
    assert torch.isnan(buf).all(), "a refused attention wrote out"
    parts = torch.randn(2, 1, 40, 4, 64, device="cuda")
    lse = torch.randn(2, 1, 40, 4, device="cuda")
    buf, out = _overlapping_misaligned((1, 40, 4, 64), (40 * 128, 128, 64, 1), torch.float32)
    with pytest.raises(ValueError, match=r"out\.stride: elements overlap"):
        warpspec.flash_attn_combine(parts, lse, out=out)
    assert torch.isnan(buf).all(), "a refused combine wrote out"
    # The same strides, nested (each dimension steps past the ones inside it), compute.
    buf, out = _overlapping_misaligned(q.shape, (40 * 256, 256, 64, 1), torch.bfloat16)
    warpspec.flash_attn_func(q, k, v, out=out)
    assert torch.equal(out, warpspec.flash_attn_func(q, k, v))
