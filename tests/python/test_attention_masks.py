"""FlashAttention-3's full call from Python: sliding windows, softcap, learnable sinks,
flash_attn_varlen_func (packed sequences, seqused, empty and length-1 sequences), and
the arguments warpspec does not implement (NotImplementedError naming them).

Each sequence is checked against test_attention's float32 reference (which implements
the same masks), by the same rule (FlashAttention-3's, capped by the kernel's own error
bound); LSE too.
"""

import inspect

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from torch_support import needs_hopper  # noqa: E402
from test_attention import bshd, check, run  # noqa: E402


# ------------------------------------------------------------------ the call signature


def test_signatures_are_fa3s():
    # FlashAttention-3's hopper/flash_attn_interface.py, in order, with its defaults.
    fa3 = ["q", "k", "v", "softmax_scale", "causal", "qv", "q_descale", "k_descale", "v_descale", "window_size",
           "attention_chunk", "softcap", "num_splits", "pack_gqa", "deterministic", "sm_margin", "return_attn_probs"]
    sig = inspect.signature(warpspec.flash_attn_func)
    assert [p for p in sig.parameters if sig.parameters[p].kind != inspect.Parameter.KEYWORD_ONLY] == fa3
    defaults = {n: p.default for n, p in sig.parameters.items()}
    assert defaults["window_size"] == (-1, -1) and defaults["softcap"] == 0.0 and defaults["num_splits"] == 1
    assert defaults["causal"] is False and defaults["return_attn_probs"] is False
    varlen = ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k", "seqused_q",
              "seqused_k"] + fa3[3:]
    sig = inspect.signature(warpspec.flash_attn_varlen_func)
    assert [p for p in sig.parameters if sig.parameters[p].kind != inspect.Parameter.KEYWORD_ONLY] == varlen
    assert "learnable_sink" in sig.parameters


@needs_hopper
@pytest.mark.parametrize("arg,value", [("qv", "tensor"), ("sm_margin", 8)])
def test_unsupported_arguments_raise_not_implemented_by_name(arg, value):
    # (q/k/v_descale are supported with e4m3 inputs: test_attention_fp8.py checks them and
    # their refusal with 16-bit inputs.)
    q = bshd(1, 64, 2, 64, torch.bfloat16)
    if value == "tensor":
        value = torch.ones(1, 2, device="cuda")
    with pytest.raises(NotImplementedError, match=arg):
        warpspec.flash_attn_func(q, q, q, **{arg: value})
    # Their defaults (and deterministic, which the forward always is) are accepted.
    warpspec.flash_attn_func(q, q, q, qv=None, q_descale=None, attention_chunk=0, num_splits=1, pack_gqa=None,
                             deterministic=True, sm_margin=0)


# ------------------------------------------------------------------ windows, softcap, sinks


@needs_hopper
@pytest.mark.parametrize("window,causal,seqlens", [
    ((100, 50), False, (700, 700)),
    ((256, -1), True, (1031, 1031)),
    ((200, -1), False, (300, 1031)),
    ((-1, 7), False, (513, 513)),
    ((5000, 5000), False, (257, 300)),
    ((0, 0), False, (700, 300)),
    ((64, 3), True, (1031, 257)),
], ids=str)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_sliding_window(window, causal, seqlens, dtype, seed):
    sq, sk = seqlens
    q, k, v = bshd(2, sq, 4, 128, dtype), bshd(2, sk, 2, 128, dtype), bshd(2, sk, 2, 128, dtype)
    out, lse = run(q, k, v, causal=causal, window_size=window)
    check(q, k, v, out, lse, causal=causal, window=window, what=f"seed={seed}")


@needs_hopper
@pytest.mark.parametrize("chunk,causal,window,seqlens", [(128, True, (-1, -1), (700, 700)), (100, False, (-1, -1), (300, 517)),
                                                         (256, True, (64, -1), (1031, 1031)), (64, False, (-1, -1), (500, 300))],
                         ids=str)
def test_attention_chunk(chunk, causal, window, seqlens, seed):
    sq, sk = seqlens
    q, k, v = bshd(2, sq, 4, 64, torch.bfloat16), bshd(2, sk, 2, 64, torch.bfloat16), bshd(2, sk, 2, 64, torch.bfloat16)
    out, lse = run(q, k, v, causal=causal, window_size=window, attention_chunk=chunk)
    check(q, k, v, out, lse, causal=causal, window=window, chunk=chunk, what=f"seed={seed}")


@needs_hopper
def test_window_equals_causal_when_right_is_zero(seed):
    q, k, v = (bshd(1, 300, 2, 64, torch.bfloat16) for _ in range(3))
    assert torch.equal(warpspec.flash_attn_func(q, k, v, causal=True),
                       warpspec.flash_attn_func(q, k, v, window_size=(-1, 0)))


@needs_hopper
@pytest.mark.parametrize("softcap,scale,causal", [(5.0, 0.5, False), (30.0, None, True), (50.0, 1.0, False)])
def test_softcap(softcap, scale, causal, seed):
    q, k, v = (bshd(2, 513, 2, 64, torch.bfloat16) for _ in range(3))
    out, lse = run(q, k, v, softmax_scale=scale, causal=causal, softcap=softcap)
    check(q, k, v, out, lse, softmax_scale=scale, causal=causal, softcap=softcap, what=f"seed={seed}")


@needs_hopper
@pytest.mark.parametrize("causal,seqlens", [(False, (300, 1031)), (True, (700, 300))], ids=str)
def test_learnable_sink(causal, seqlens, seed):
    sq, sk = seqlens
    q, k, v = bshd(2, sq, 4, 128, torch.bfloat16), bshd(2, sk, 4, 128, torch.bfloat16), bshd(2, sk, 4, 128, torch.bfloat16)
    sink = torch.randn(4, device="cuda") * 2 + 1
    out, lse = run(q, k, v, causal=causal, learnable_sink=sink)
    check(q, k, v, out, lse, causal=causal, sink=sink, what=f"seed={seed}")
    if causal:  # rows that see no key: out 0, lse the sink itself
        assert torch.all(out[:, :400] == 0)
        torch.testing.assert_close(lse[:, :, :400], sink.view(1, 4, 1).expand(2, 4, 400))


@needs_hopper
def test_bad_mask_arguments_are_refused():
    q = bshd(1, 64, 2, 64, torch.bfloat16)
    with pytest.raises(ValueError, match="window_left: must be -1"):
        warpspec.flash_attn_func(q, q, q, window_size=(-3, 0))
    with pytest.raises(ValueError, match="softcap"):
        warpspec.flash_attn_func(q, q, q, softcap=-1.0)
    with pytest.raises(ValueError, match="learnable_sink.shape"):
        warpspec.flash_attn_func(q, q, q, learnable_sink=torch.zeros(3, device="cuda"))
    with pytest.raises(ValueError, match="learnable_sink.dtype"):
        warpspec.flash_attn_func(q, q, q, learnable_sink=torch.zeros(2, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="window_size"):
        warpspec.flash_attn_func(q, q, q, window_size=5)


# ------------------------------------------------------------------ variable length


def packed(lengths, h, d, dtype):
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.tensor(lengths).cumsum(0)
    return torch.randn(int(cu[-1]), h, d, device="cuda", dtype=dtype), cu.cuda()


RAGGED = [(300, 300), (0, 0), (1, 1), (129, 1031), (1031, 129), (0, 50), (128, 128), (7, 700)]


@needs_hopper
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim,dtype", [(64, torch.bfloat16), (128, torch.float16), (256, torch.bfloat16)], ids=str)
@pytest.mark.parametrize("extra", ["plain", "window", "softcap_sink"])
def test_varlen_against_each_sequence(causal, head_dim, dtype, extra, seed):
    h, hk = 4, 2
    q, cu_q = packed([s for s, _ in RAGGED], h, head_dim, dtype)
    k, cu_k = packed([s for _, s in RAGGED], hk, head_dim, dtype)
    v = torch.randn_like(k)
    kw, masks = {}, {}
    if extra == "window":
        kw["window_size"] = masks["window"] = (90, 3)
    if extra == "softcap_sink":
        kw["softcap"] = masks["softcap"] = 20.0
        kw["learnable_sink"] = masks["sink"] = torch.randn(h, device="cuda")
    torch.full((q.shape[0] + 64, h, head_dim), float("nan"), dtype=dtype, device="cuda")  # poison the allocator
    out, lse = warpspec.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(s for s, _ in RAGGED),
                                               max(s for _, s in RAGGED), causal=causal, return_attn_probs=True, **kw)
    assert out.shape == q.shape and lse.shape == (h, q.shape[0])
    for b, (sq, sk) in enumerate(RAGGED):
        if sq == 0:
            continue
        qs, ks = slice(int(cu_q[b]), int(cu_q[b + 1])), slice(int(cu_k[b]), int(cu_k[b + 1]))
        check(q[qs][None], k[ks][None], v[ks][None], out[qs][None], lse[:, qs][None], causal=causal,
              what=f"seed={seed} sequence {b} ({sq}, {sk})", **masks)


@needs_hopper
def test_varlen_seqused_and_a_dense_side(seed):
    # Packed q over a dense KV cache, of which seqused_k says how much each sequence uses.
    h, d = 4, 128
    lengths = [300, 1, 129, 64]
    q, cu_q = packed(lengths, h, d, torch.bfloat16)
    k, v = bshd(4, 1031, 2, d, torch.bfloat16), bshd(4, 1031, 2, d, torch.bfloat16)
    used = torch.tensor([1031, 5, 0, 600], dtype=torch.int32, device="cuda")
    out, lse = warpspec.flash_attn_varlen_func(q, k, v, cu_q, None, 300, None, seqused_k=used, causal=True,
                                               return_attn_probs=True)
    for b, n in enumerate(lengths):
        qs = slice(int(cu_q[b]), int(cu_q[b + 1]))
        u = int(used[b])
        check(q[qs][None], k[b:b + 1, :u], v[b:b + 1, :u], out[qs][None], lse[:, qs][None], causal=True,
              what=f"seed={seed} sequence {b}")


@needs_hopper
def test_varlen_refusals():
    q, cu = packed([10, 20], 2, 64, torch.bfloat16)
    with pytest.raises(ValueError, match="max_seqlen_q: required"):
        warpspec.flash_attn_varlen_func(q, q, q, cu, cu, None, None)
    with pytest.raises(ValueError, match="cu_seqlens_q.dtype"):
        warpspec.flash_attn_varlen_func(q, q, q, cu.long(), cu, 20, 20)
    with pytest.raises(ValueError, match="cu_seqlens_q.dtype: must be int32, got fp32"):
        warpspec.flash_attn_varlen_func(q, q, q, cu.float(), cu, 20, 20)
    with pytest.raises(ValueError, match="cu_seqlens_q: must be a CUDA tensor"):
        warpspec.flash_attn_varlen_func(q, q, q, cu.cpu(), cu, 20, 20)
    with pytest.raises(ValueError, match=r"q: must be \(total_q, heads, head_dim\) with cu_seqlens_q"):
        warpspec.flash_attn_varlen_func(q[None], q, q, cu, cu, 20, 20)


@needs_hopper
def test_varlen_fake_shapes_and_graph_capture(seed):
    h, d = 2, 64
    q, cu = packed([100, 0, 37], h, d, torch.bfloat16)
    args = (q, q, q, cu, cu, 100, 100)
    out, lse = warpspec.flash_attn_varlen_func(*args, causal=True, return_attn_probs=True)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True):
        fq = torch.empty_like(q)
        fo, fl = warpspec.flash_attn_varlen_func(fq, fq, fq, cu, cu, 100, 100, return_attn_probs=True)
        assert fo.shape == q.shape and fl.shape == (h, q.shape[0])
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        warpspec.flash_attn_varlen_func(*args, causal=True)  # warm-up outside the graph
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        captured = warpspec.flash_attn_varlen_func(*args, causal=True)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, out)
