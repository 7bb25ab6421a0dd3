"""warpspec.gemm against PyTorch (float32 reference), on a Hopper GPU.

Random data with a fresh seed per test (printed, so a failure can be replayed),
outputs poisoned with NaN through the caching allocator before every call, every
element checked. Skipped cleanly without torch; the GPU tests without a Hopper GPU.
"""

import random

import pytest

torch = pytest.importorskip("torch")

import warpspec  # noqa: E402
from warpspec import _lib  # noqa: E402
from torch_support import DTYPES, assert_refusals, NO_HOPPER, needs_hopper  # noqa: E402


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda").to(dtype)


def poison(shape, dtype):
    """Leave a NaN-filled block of D's size in the caching allocator, so the op's
    output (allocated next, same size) most likely starts as NaN: an element the
    kernel fails to write then fails the check."""
    x = torch.full(shape, float("nan"), dtype=dtype, device="cuda")
    del x


def run(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None):
    shape = warpspec.ops._gemm_shape(a, b)
    poison(shape, out_dtype or a.dtype)
    return warpspec.gemm(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype)


def reference(a, b, c=None, alpha=1.0, beta=0.0):
    ref = alpha * torch.matmul(a.float(), b.float())
    if c is not None and beta != 0:
        ref = ref + beta * c.float()
    return ref


def check(out, ref, out_dtype, what=""):
    """FlashAttention-3's rule: our error against the float32 reference within a
    small factor of what rounding the exact result to out_dtype costs."""
    assert out.dtype == out_dtype, what
    assert tuple(out.shape) == tuple(ref.shape), what
    assert out.is_contiguous(), what
    outf = out.float()
    assert torch.isfinite(outf).all(), f"{what}: {(~torch.isfinite(outf)).sum().item()} non-finite elements"
    err = (outf - ref).abs().max().item()
    scale = ref.abs().max().item() + 1e-6
    if out_dtype == torch.float32:
        tol = 1e-4 * scale
    else:
        rounding = (ref.to(out_dtype).float() - ref).abs().max().item()
        tol = 2 * rounding + 1e-4 * scale
    assert err <= tol, f"{what}: max error {err:.4g} > tolerance {tol:.4g} (max |ref| {scale:.4g})"


def round_up(x, m):
    return (x + m - 1) // m * m


def operand(rows, cols, dtype, col_major=False, pad=0):
    """rows x cols, row-major, or column-major as a transposed view (x.t()); `pad`
    extra elements per leading dimension make a strided slice of a larger tensor."""
    if col_major:
        base = rand(cols, rows + pad, dtype=dtype)
        return base[:, :rows].t()
    base = rand(rows, cols + pad, dtype=dtype)
    return base[:, :cols]


# ------------------------------------------------------------------ correctness


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("trial", range(8))
def test_random_shapes_and_layouts(dtype, trial, seed):
    # Operands must have 16-byte leading dimensions: K and N multiples of 8, and M
    # too when A is column-major. The library refuses others (tested below).
    a_col, b_col = random.random() < 0.5, random.random() < 0.5
    m = random.randint(1, 700)
    if a_col:
        m = round_up(m, 8)
    n = 8 * random.randint(1, 90)
    k = 8 * random.randint(1, 160)
    pad = 8 * random.randint(0, 2)
    a = operand(m, k, dtype, col_major=a_col, pad=pad)
    b = operand(k, n, dtype, col_major=b_col, pad=pad)
    out = run(a, b)
    check(out, reference(a, b), dtype, f"seed={seed} m={m} n={n} k={k} a_col={a_col} b_col={b_col} pad={pad}")


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("mnk", [(1, 8, 8), (1, 1, 8), (64, 1, 16), (7, 8, 8), (128, 256, 64), (129, 264, 72),
                                 (127, 248, 56), (256, 512, 4096), (300, 8, 2048), (2, 2048, 8), (1000, 1000, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
def test_edge_shapes(dtype, mnk, seed):
    m, n, k = mnk
    a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
    check(run(a, b), reference(a, b), dtype, f"seed={seed} {mnk}")


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_weight_transpose_view_is_not_copied(dtype, seed):
    # The linear-layer case: x @ w.t() with w (N, K) contiguous. The binding computes a
    # view the library refuses through aligned copies without a word, so the result alone
    # cannot tell; count the allocations instead: D, and nothing else.
    x, w = rand(333, 512, dtype=dtype), rand(384, 512, dtype=dtype)
    b = w.t()
    assert not b.is_contiguous()

    def allocations(a, b):
        poison((a.shape[0], b.shape[1]), dtype)
        torch.cuda.synchronize()
        before = torch.cuda.memory_stats()["allocation.all.allocated"]
        out = warpspec.gemm(a, b)
        return out, torch.cuda.memory_stats()["allocation.all.allocated"] - before

    out, n = allocations(x, b)
    assert n == 1, f"seed={seed}: {n} allocations for x @ w.t(); only D's expected (a copy was made)"
    check(out, reference(x, b), dtype, f"seed={seed}")
    # The count sees a copy: the same product with w one element off 16-byte alignment
    # (the library refuses it; the binding copies it).
    w_odd = rand(384, 520, dtype=dtype)[:, 1:513]
    out, n = allocations(x, w_odd.t())
    assert n > 1, f"seed={seed}: an unaligned w was computed without a copy?"
    check(out, reference(x, w_odd.t()), dtype, f"seed={seed} unaligned")


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_batched_and_broadcast(dtype, seed):
    L, m, n, k = 3, 200, 136, 96
    a3, b3 = rand(L, m, k, dtype=dtype), rand(L, k, n, dtype=dtype)
    a2, b2 = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
    cases = {
        "both batched": (a3, b3),
        "a 2-D broadcast": (a2, b3),
        "b 2-D broadcast": (a3, b2),
        "a batch 1": (a2.unsqueeze(0), b3),
        "b expanded (stride 0)": (a3, b2.expand(L, k, n)),
        "b batched transposed": (a3, rand(L, n, k, dtype=dtype).transpose(1, 2)),
        "a batched transposed": (rand(L, k, m + 8, dtype=dtype)[:, :, :m].transpose(1, 2), b3),
        "every other batch": (rand(2 * L, m, k, dtype=dtype)[::2], b3),
    }
    for what, (a, b) in cases.items():
        out = run(a, b)
        assert out.shape == (L, m, n), what
        check(out, reference(a, b), dtype, f"seed={seed} {what}")


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_out_dtype_float32(dtype, seed):
    a, b = rand(257, 520, dtype=dtype), rand(520, 136, dtype=dtype).t().contiguous().t()
    check(run(a, b, out_dtype=torch.float32), reference(a, b), torch.float32, f"seed={seed}")
    a3, b3 = rand(2, 64, 64, dtype=dtype), rand(2, 64, 72, dtype=dtype)
    check(run(a3, b3, out_dtype=torch.float32), reference(a3, b3), torch.float32, f"seed={seed} batched")


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("out_dtype", [None, torch.float32], ids=["same", "fp32"])
def test_alpha_beta_with_c(dtype, out_dtype, seed):
    od = out_dtype or dtype
    m, n, k = 190, 264, 320
    a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
    c = rand(m, n, dtype=od)
    check(run(a, b, c, alpha=0.5, beta=-1.25, out_dtype=out_dtype),
          reference(a, b, c, 0.5, -1.25), od, f"seed={seed} 2-D")
    # Batched, with C broadcast over the batch and with a C per batch.
    L = 2
    a3 = rand(L, m, k, dtype=dtype)
    for what, cc in {"c broadcast": c, "c per batch": rand(L, m, n, dtype=od)}.items():
        check(run(a3, b, cc, alpha=2.0, beta=0.75, out_dtype=out_dtype),
              reference(a3, b, cc, 2.0, 0.75), od, f"seed={seed} {what}")
    # beta == 0: C is never read, so NaNs in it do not matter.
    nan_c = torch.full((m, n), float("nan"), dtype=od, device="cuda")
    check(run(a, b, nan_c, alpha=3.0, beta=0.0, out_dtype=out_dtype), reference(a, b, None, 3.0), od,
          f"seed={seed} beta 0")


@needs_hopper
def test_runs_on_the_current_stream(seed):
    # On a side stream held up by a sleep, A is overwritten and then multiplied: a
    # GEMM launched anywhere else would read the old A.
    a, b, new_a = rand(512, 512), rand(512, 512), rand(512, 512)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(20_000_000)
        a.copy_(new_a)
        out = warpspec.gemm(a, b)
    side.synchronize()
    check(out, reference(new_a, b), torch.bfloat16, f"seed={seed}")


# ------------------------------------------------------------------ refusals


def test_cpu_tensors_are_refused():
    a = torch.randn(64, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="a: must be a CUDA tensor"):
        warpspec.gemm(a, a)


def test_dtypes_without_a_warpspec_equivalent_are_refused():
    a = torch.ones(64, 64, dtype=torch.int64)
    with pytest.raises(ValueError, match="no warpspec equivalent"):
        warpspec.ops._dtype_code(a.dtype, "a.dtype")


@needs_hopper
def test_bad_input_raises_the_library_message():
    cases = [
        # (what, call, exception, code or None, text)
        ("fp32 inputs", lambda: warpspec.gemm(rand(64, 64, dtype=torch.float32), rand(64, 64, dtype=torch.float32)),
         _lib.UNSUPPORTED, "a.dtype: fp32 is not supported"),
        ("mixed dtypes", lambda: warpspec.gemm(rand(64, 64), rand(64, 64, dtype=torch.float16)),
         _lib.INVALID_ARGUMENT, "b.dtype: must equal a.dtype"),
        ("K mismatch", lambda: warpspec.gemm(rand(64, 64), rand(72, 64)), _lib.INVALID_ARGUMENT, "b.shape"),
        ("beta without c", lambda: warpspec.gemm(rand(64, 64), rand(64, 64), beta=1.0), _lib.INVALID_ARGUMENT,
         "c.data: must not be null"),
        ("c of another dtype", lambda: warpspec.gemm(rand(64, 64), rand(64, 64), rand(64, 64, dtype=torch.float16),
                                                     beta=1.0), _lib.INVALID_ARGUMENT, "c.dtype"),
        ("infinite alpha", lambda: warpspec.gemm(rand(64, 64), rand(64, 64), alpha=float("inf")),
         _lib.INVALID_ARGUMENT, "alpha/beta: must be finite"),
        ("out_dtype fp16 for bf16", lambda: warpspec.gemm(rand(64, 64), rand(64, 64), out_dtype=torch.float16),
         _lib.UNSUPPORTED, "d.dtype"),
    ]
    assert_refusals(cases)


@needs_hopper
def test_views_tma_cannot_address_are_computed_through_copies():
    # Like torch.matmul, any layout works; the library's alignment rules only decide
    # whether a copy is made first. Each result is checked against float32 matmul.
    a64, b64 = rand(64, 64), rand(64, 64)
    cases = {
        "K = 7 (rows of 14 bytes)": (rand(64, 7), rand(7, 64), None),
        "b's leading dimension 120 bytes": (a64, rand(64, 60)[:, :16], None),
        "N = 13 (output rows of 26 bytes)": (a64, rand(64, 16)[:, :13], None),
        "a at an odd element offset": (rand(64 * 64 + 1)[1:].view(64, 64), b64, None),
        "a with no unit stride": (rand(64, 128)[:, ::2], b64, None),
        "odd everything": (rand(33, 129), rand(129, 17), None),
        "c transposed": (a64, b64, rand(64, 64).t()),
        "batched, odd K": (rand(3, 40, 9), rand(3, 9, 24), None),
    }
    for what, (a, b, c) in cases.items():
        beta = 0.5 if c is not None else 0.0
        out = warpspec.gemm(a, b, c, alpha=1.0, beta=beta)
        ref = a.float() @ b.float() + (beta * c.float() if c is not None else 0)
        assert out.shape == ref.shape and out.is_contiguous(), what
        err = (out.float() - ref).abs().max().item()
        assert err <= 2e-2 * max(1.0, ref.abs().max().item()), f"{what}: max error {err}"


@needs_hopper
def test_empty_batched_problems(seed):
    # An empty operand's batch stride is never used: torch gives a (3, 5, 0) tensor the
    # batch stride 5 (10 bytes), which the library once refused as misaligned.
    a, b = rand(3, 5, 0), rand(3, 0, 7)
    out = warpspec.gemm(a, b)  # K = 0: zeros
    assert out.shape == (3, 5, 7) and torch.equal(out.float(), torch.zeros(3, 5, 7, device="cuda")), f"seed={seed}"
    c = rand(3, 5, 7)
    out = warpspec.gemm(a, b, c, alpha=1.0, beta=0.5)  # K = 0: beta * c
    assert torch.equal(out, (0.5 * c.float()).to(torch.bfloat16)), f"seed={seed}"
    assert warpspec.gemm(rand(3, 0, 8), rand(3, 8, 7)).shape == (3, 0, 7)
    assert warpspec.gemm(rand(3, 5, 8), rand(3, 8, 0)).shape == (3, 5, 0)


@needs_hopper
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fused_epilogue_with_k_one(dtype, seed):
    # x @ w.t() + bias with K = 1: w.t() of a (N, 1) w has strides (1, 1) and reads either
    # way; its aligned copy must stay K-major, as the fused kernel reads B.
    x, w, bias = rand(16, 1, dtype=dtype), rand(32, 1, dtype=dtype), rand(32, dtype=dtype)
    out = warpspec.gemm(x, w.t(), bias=bias, activation="relu")
    ref = torch.relu(x.float() @ w.float().t() + bias.float())
    check(out, ref, dtype, f"seed={seed}")
    # A strided w (no unit stride) is copied K-major too.
    w2 = rand(32, 128, dtype=dtype)[:, ::2]
    x2 = rand(16, 64, dtype=dtype)
    check(warpspec.gemm(x2, w2.t(), bias=bias), x2.float() @ w2.float().t() + bias.float(), dtype, f"seed={seed}")
    # One output column from a strided slice (strides (8, 1)): the copy of b is K-major.
    b3, bias3 = rand(64, 8, dtype=dtype)[:, :1], rand(1, dtype=dtype)
    check(warpspec.gemm(x2, b3, bias=bias3), x2.float() @ b3.float() + bias3.float(), dtype, f"seed={seed} N = 1")


@needs_hopper
def test_shape_errors_raised_in_python():
    with pytest.raises(ValueError, match=r"a: must be \(M, K\) or \(L, M, K\)"):
        warpspec.gemm(rand(64), rand(64, 64))
    with pytest.raises(ValueError, match="batch sizes 2 and 3 do not broadcast"):
        warpspec.gemm(rand(2, 64, 64), rand(3, 64, 64))
    with pytest.raises(ValueError, match="out_dtype"):
        warpspec.gemm(rand(64, 64), rand(64, 64), out_dtype=torch.int64)


@needs_hopper
def test_empty_output_needs_no_launch():
    out = warpspec.gemm(rand(0, 64), rand(64, 64))
    assert out.shape == (0, 64) and out.dtype == torch.bfloat16


@pytest.mark.skipif(not torch.cuda.is_available() or NO_HOPPER is None, reason="needs a non-Hopper CUDA GPU")
def test_non_hopper_gpu_raises_runtime_error():
    a = torch.randn(64, 64, device="cuda").to(torch.bfloat16)
    with pytest.raises(RuntimeError, match="compute capability") as e:
        warpspec.gemm(a, a)
    assert not isinstance(e.value, ValueError)


# ------------------------------------------------------------------ torch integration


@needs_hopper
def test_opcheck():
    if not hasattr(torch.library, "opcheck"):
        pytest.skip("torch.library.opcheck needs torch >= 2.4")
    a, b, c = rand(128, 64), rand(96, 64).t(), rand(128, 96)
    op = torch.ops.warpspec.gemm.default
    for args in [(a, b, None, 1.0, 0.0, None), (a, b, c, 0.5, 2.0, None),
                 (a, b, None, 1.0, 0.0, torch.float32), (rand(2, 128, 64), b, None, 1.0, 0.0, None)]:
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


@needs_hopper
def test_torch_compile_fullgraph(seed):
    if not hasattr(torch.library, "custom_op"):
        pytest.skip("torch.compile support needs torch >= 2.4 (torch.library.custom_op)")
    torch._dynamo.reset()

    def linear_act(x, w, bias):
        y = warpspec.gemm(x, w.t(), bias, alpha=0.5, beta=1.0, out_dtype=torch.float32)
        return torch.relu(y) * 2

    compiled = torch.compile(linear_act, fullgraph=True)
    for m in (256, 96):  # a second shape recompiles or runs the dynamic graph
        x, w = rand(m, 512), rand(320, 512)
        bias = torch.randn(m, 320, device="cuda")
        out = compiled(x, w, bias)
        ref = torch.relu(reference(x, w.t(), bias, 0.5, 1.0)) * 2
        check(out, ref, torch.float32, f"seed={seed} m={m}")


@needs_hopper
@pytest.mark.parametrize("batched", [False, True], ids=["2d", "batched"])
def test_cuda_graph_capture_and_replay(batched, seed):
    shape_a, shape_b = ((3, 256, 128), (128, 192)) if batched else ((256, 128), (128, 192))
    a, b = rand(*shape_a), rand(*shape_b)
    c = rand(*shape_a[:-1], 192)
    side = torch.cuda.Stream()  # warm-up off the default stream, as torch's docs ask
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        warpspec.gemm(a, b, c, alpha=1.5, beta=0.5)
    torch.cuda.current_stream().wait_stream(side)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = warpspec.gemm(a, b, c, alpha=1.5, beta=0.5)
    for replay in range(3):  # new inputs, in place, each replay
        a.copy_(rand(*shape_a))
        b.copy_(rand(*shape_b))
        c.copy_(rand(*c.shape))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(out, reference(a, b, c, 1.5, 0.5), torch.bfloat16, f"seed={seed} replay {replay}")
