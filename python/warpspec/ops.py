"""PyTorch ops over the C ABI, registered with torch.library under the "warpspec"
namespace, each with a fake (meta) implementation so torch.compile traces them.

Each op allocates its outputs with torch, then makes one library call on the current
CUDA stream: no other allocation, no synchronisation, so the ops are CUDA-graph
capturable. Inputs are passed as torch's strided views, strides and all; the library
decides what it can run and refuses the rest with a message.

Host cost per call (bench/gemm_host_overhead.py measures each layer). A call is a
few µs of Python plus the library's own few µs, because:
- the args struct is packed in one struct.pack() into bytes that ctypes passes to C
  without a copy (not a ctypes.Structure filled field by field);
- the stream is torch's raw current-stream handle (no torch.cuda.Stream object), and
  the device is switched only when the operands are not on the current one;
- the ops are registered with torch.library.custom_op, whose dispatch costs tens of
  µs per call, so in plain eager mode (plain tensors, no tracing, no dispatch or function modes, no
  autograd to record, no profiler) the public functions call the kernel themselves,
  skipping the dispatcher; everything else goes through torch.ops.warpspec.*, so
  torch.compile, fake tensors, opcheck and the profiler see the op.
"""

import ctypes
import re
import struct
from typing import Optional, Tuple

import torch

from . import _lib

_DTYPES = {
    torch.bfloat16: _lib.DTYPE_BF16,
    torch.float16: _lib.DTYPE_FP16,
    torch.float32: _lib.DTYPE_FP32,
    torch.int32: _lib.DTYPE_I32,
}
for _name, _code in (("float8_e4m3fn", _lib.DTYPE_E4M3), ("float8_e5m2", _lib.DTYPE_E5M2)):
    if hasattr(torch, _name):  # fp8 dtypes arrived in torch 2.1
        _DTYPES[getattr(torch, _name)] = _code

_PAD = [(0,) * (_lib.MAX_RANK - r) for r in range(_lib.MAX_RANK + 1)]
_F32_PACK = struct.Struct("<f")
_GEMM_PACK = _lib.GEMM_FORMAT.pack
_ATTENTION_PACK = _lib.ATTENTION_FORMAT.pack
_GEMM_SIZE = _lib.GEMM_FORMAT.size
_ATTENTION_SIZE = _lib.ATTENTION_FORMAT.size
_GEMM_NAMES = ("a", "b", "c")
_ATTENTION_NAMES = ("q", "k", "v")


_FLT_MAX = 3.4028234663852886e38


def _f32(x, name: str) -> float:
    """A Python number (or a one-element tensor) as the float32 the C ABI takes: TypeError
    for a non-number, ValueError when its magnitude passes float32's largest (the struct
    would raise OverflowError). A tiny value rounds to 0, as float32 arithmetic would;
    where 0 means something else (softmax_scale, softcap) the caller checks that."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        if isinstance(x, torch.Tensor) and x.numel() == 1:
            x = x.item()
        else:
            raise TypeError(f"{name}: must be a number, got {type(x).__name__}")
    x = float(x)
    if x == x and abs(x) != float("inf") and abs(x) > _FLT_MAX:
        raise _lib.WarpspecArgumentError(f"invalid argument: {name}: {x!r} does not fit in float32 (at most "
                                         f"{_FLT_MAX:g} in magnitude)", _lib.INVALID_ARGUMENT)
    return x


def _tensor(t, name: str, optional: bool = False):
    """`t` as a plain strided tensor whose memory holds its values: TypeError for
    anything else; torch's lazy views (a negated or conjugated view, a ZeroTensor)
    are materialised, since the library reads the memory, not the view's flags."""
    if t is None and optional:
        return None
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: must be a torch.Tensor, got {type(t).__name__}")
    if t.layout != torch.strided:
        raise ValueError(f"{name}: must be a dense (strided) tensor, got layout {t.layout}")
    if t._is_zerotensor():
        t = torch.zeros(t.shape, dtype=t.dtype, device=t.device)
    if t.is_neg():
        t = t.resolve_neg()
    if t.is_conj():
        t = t.resolve_conj()
    return t


def _require_tensors(*named):
    """TypeError for an operand that is not a tensor, before anything else touches it
    (only isinstance: the public functions are traced by torch.compile; the lazy
    tensor kinds are resolved in the implementations, which run eagerly)."""
    for item in named:
        name, t, optional = item if len(item) == 3 else (*item, False)
        if not (isinstance(t, torch.Tensor) or (optional and t is None)):
            raise TypeError(f"{name}: must be a torch.Tensor, got {type(t).__name__}")


def _dtype_code(dtype: torch.dtype, what: str) -> int:
    code = _DTYPES.get(dtype)
    if code is None:
        raise ValueError(f"{what}: {dtype} has no warpspec equivalent "
                         f"(warpspec knows {', '.join(str(d) for d in _DTYPES)})")
    return code


def _fields(t: torch.Tensor, name: str) -> tuple:
    """A warpspec_tensor's fields for torch's view as it is: data pointer (storage
    offset included), dtype, rank, sizes, strides."""
    r = t.dim()
    if r > _lib.MAX_RANK:
        raise ValueError(f"{name}: rank {r}; warpspec tensors have at most {_lib.MAX_RANK} dimensions")
    code = _DTYPES.get(t.dtype)
    if code is None:
        _dtype_code(t.dtype, f"{name}.dtype")  # raises
    pad = _PAD[r]
    return (t.data_ptr(), code, r, *t.shape, *pad, *t.stride(), *pad)


def _view(t: torch.Tensor, name: str) -> _lib.Tensor:
    """torch's view as a ctypes warpspec_tensor (for callers of _lib's struct API)."""
    return _lib.tensor(t.data_ptr(), _dtype_code(t.dtype, f"{name}.dtype"), t.shape, t.stride())


def _device_of(names, *tensors) -> int:
    """The CUDA device index all operands are on (`names` name them, in order, for the
    message); ValueError naming the odd one out."""
    index = tensors[0].get_device()
    for t in tensors:
        if not t.is_cuda or t.get_device() != index:
            first = tensors[0]
            for name, u in zip(names, tensors):
                if not u.is_cuda:
                    raise ValueError(f"{name}: must be a CUDA tensor, got one on {u.device}")
                if u.device != first.device:
                    raise ValueError(f"{name}: is on {u.device} but {names[0]} is on {first.device}; "
                                     "all operands must be on one GPU")
    return index


# The current stream as a raw cudaStream_t int: torch's own fast accessor where it
# has one (what torch.compile's generated code uses), else through a Stream object.
if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    _raw_stream = torch._C._cuda_getCurrentRawStream
else:  # pragma: no cover - older torch

    def _raw_stream(index: int) -> int:
        return torch.cuda.current_stream(index).cuda_stream


# The calling thread's current CUDA device, without torch.cuda.current_device()'s
# lazy-init check (an operand is on the GPU, so CUDA is initialised).
_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def _call(packed_fn, packed: bytes, index: int):
    """One library call on device `index`'s current stream; returns the status.
    The library works on the calling thread's current device, so switch to the
    operands' device when it is not the current one (and back afterwards)."""
    if index == _current_device():
        return packed_fn(packed, _raw_stream(index))
    with torch.cuda.device(index):
        return packed_fn(packed, _raw_stream(index))


# ------------------------------------------------------------------ eager fast path

_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)  # torch < 2.1
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", None)
_function_modes = getattr(torch._C, "_is_torch_function_mode_enabled", None)
_profiling = getattr(torch._C._autograd, "_profiler_enabled", None) if hasattr(torch._C, "_autograd") else None
_fast_path_possible = _dispatch_modes is not None and _function_modes is not None and _profiling is not None


def _plain_eager(*tensors) -> bool:
    """True when calling the kernel directly is exactly what the dispatcher would do:
    not under torch.compile / export tracing, no dispatch or function mode active
    (FakeTensorMode, make_fx, DebugMode, `with torch.device(...)` and the like), no
    profiler to record the op, only plain torch.Tensor operands, and no autograd
    history to record. Anything else takes the registered op."""
    if _is_compiling() or not _fast_path_possible:
        return False
    if _dispatch_modes() or _function_modes() or _profiling():
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if t is None:
            continue
        if type(t) is not torch.Tensor or (grad and t.requires_grad):
            return False
    return True


class _ForwardOnly(torch.autograd.Function):
    """Runs a forward-only op when an input requires grad, so that a backward through
    it fails loudly instead of the dispatcher's fallback (a warning, no gradient)."""

    @staticmethod
    def forward(ctx, name, op, *args):
        ctx.name = name
        return op(*args)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"warpspec.{ctx.name} has no backward: it is forward-only; compute it under "
                           "torch.no_grad(), or detach its inputs")


def _needs_grad(*tensors) -> bool:
    return torch.is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in tensors)


# ------------------------------------------------------------------ registration

_HAS_CUSTOM_OP = hasattr(torch.library, "custom_op")  # torch >= 2.4


def _register(name: str, schema: str, impl, fake, mutates=()):
    """Register warpspec::<name> with torch.library.custom_op (`impl` for every device:
    on CPU it refuses with the same message eager mode gives) and `fake` for tracing;
    `mutates` names the arguments it writes (the out= variants). Returns the op, or
    `impl` itself on a torch too old to trace."""
    if not _HAS_CUSTOM_OP:
        return impl
    op = torch.library.custom_op(f"warpspec::{name}", impl, mutates_args=mutates, schema=schema)
    op.register_fake(fake)
    return getattr(torch.ops.warpspec, name).default


# ------------------------------------------------------------------ GEMM


def _gemm_shape(a: torch.Tensor, b: torch.Tensor):
    """D's shape: (M, N) for two matrices, else (L, M, N) with L broadcast from
    a's and b's batches (1 broadcasts)."""
    sa, sb = a.shape, b.shape
    ra, rb = len(sa), len(sb)
    if ra not in (2, 3):
        raise ValueError(f"a: must be (M, K) or (L, M, K), got shape {tuple(sa)}")
    if rb not in (2, 3):
        raise ValueError(f"b: must be (K, N) or (L, K, N), got shape {tuple(sb)}")
    m, n = sa[-2], sb[-1]
    if ra == 2 and rb == 2:
        return (m, n)
    la = sa[0] if ra == 3 else 1
    lb = sb[0] if rb == 3 else 1
    if la != lb and la != 1 and lb != 1:
        raise ValueError(f"a, b: batch sizes {la} and {lb} do not broadcast (each must be 1 or the same)")
    return (lb if la == 1 else la, m, n)


def _aligned_empty(t: torch.Tensor) -> torch.Tensor:
    """An uninitialised tensor like `t` that TMA can address: row-major, each row
    starting on a 16-byte boundary (the last dimension padded, the padding sliced off)."""
    cols = t.shape[-1]
    per16 = max(1, 16 // t.element_size())
    padded = (cols + per16 - 1) // per16 * per16
    return torch.empty((*t.shape[:-1], padded), dtype=t.dtype, device=t.device)[..., :cols]


def _aligned(t: torch.Tensor, keep_major: bool = False) -> torch.Tensor:
    """A copy of `t` that TMA can address. Used only when the library refused the view
    as it was. keep_major: the copy is column-major unless `t` is row-major (B, which FP8
    and fused kernels read K-major only); otherwise the copy is row-major."""
    if keep_major and _copies_column_major(t):
        return _aligned(t.transpose(-1, -2)).transpose(-1, -2)
    out = _aligned_empty(t)
    out.copy_(t)
    return out


def _copies_column_major(t: torch.Tensor) -> bool:
    """Whether _aligned(t, keep_major=True) copies `t` column-major: unless `t` is a
    row-major matrix of several columns. Where K is contiguous, where a unit dimension
    lets it read either way ((1, N) for K = 1, or one column), and where it has no unit
    stride at all (a strided slice), the copy is K-major."""
    if t.dim() < 2:
        return False
    col_ok = t.stride(-2) == 1 or t.shape[-2] == 1
    row_ok = t.stride(-1) == 1 or t.shape[-1] == 1
    return col_ok or not row_ok or t.shape[-1] == 1


# The epilogue of a call: scales, bias, activation code, bias per row, fast accumulation,
# and an e4m3 D's scale and amax (C ABI version 6).
# (scale_a, scale_b, bias, activation, bias_per_row, use_fast_accum, block-wise scales,
#  scale_result, amax)
_NO_EPILOGUE = (None, None, None, 0, False, False, False, None, None)

_ACTIVATIONS = {None: _lib.ACTIVATION_NONE, "none": _lib.ACTIVATION_NONE, "relu": _lib.ACTIVATION_RELU,
                "gelu": _lib.ACTIVATION_GELU_ERF, "gelu_tanh": _lib.ACTIVATION_GELU_TANH, "silu": _lib.ACTIVATION_SILU}


def _activation_code(activation) -> int:
    code = _ACTIVATIONS.get(activation)
    if code is None:
        raise ValueError(f"activation: must be None, 'relu', 'gelu' (erf), 'gelu_tanh' or 'silu', got {activation!r}")
    return code


# The GEMM tile width to ask for (GemmArgs::tile_n; 0: the library picks). Not API: for
# bench/scaled_mm_vs_torch.py --tile-n, which compares tiles in one process.
_BENCH_TILE_N = 0
# The K decomposition to ask for (GemmArgs::decomposition; 0: the library picks). Not API:
# for bench/gemm_vs_torch.py --decompositions, which compares them in one process.
_BENCH_DECOMPOSITION = 0


def _gemm_run(lib, index, a, b, c, d, alpha, beta, epilogue=_NO_EPILOGUE, fields=None):
    """fields: a's, b's and c's _fields when the caller has them already (the first try)."""
    fa, fb, fc = fields if fields is not None else (
        _fields(a, "a"), _fields(b, "b"), _fields(c, "c") if c is not None else _lib.NULL_TENSOR)
    scale_a, scale_b, bias, activation, bias_per_row, fast, block, scale_result, amax = epilogue
    opt = [_fields(t, n) if t is not None else _lib.NULL_TENSOR
           for t, n in ((scale_a, "scale_a"), (scale_b, "scale_b"), (bias, "bias"), (scale_result, "scale_result"),
                        (amax, "amax"))]
    # Version 4's cluster and version 5's schedule (and reserved5) 0: the library chooses.
    packed = _GEMM_PACK(_GEMM_SIZE, *fa, *fb, *fc, *_fields(d, "d"), alpha, beta, 0, 0,
                        _BENCH_TILE_N, 0, _BENCH_DECOMPOSITION, 0, 0, 0, *opt[0], *opt[1], *opt[2], activation, int(bias_per_row), int(fast),
                        _lib.SCALING_BLOCK if block else _lib.SCALING_TENSOR_OR_ROW, 0, 0, 0, 0, *opt[3], *opt[4])
    return _call(lib._gemm_packed, packed, index)


def _overlaps(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Whether the byte ranges x and y can touch intersect (the library's own check, for the
    paths that copy a result into out= without the library seeing out)."""
    def span(t):
        if t.numel() == 0:
            return None
        last = sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
        return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()
    a, b = span(x), span(y)
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def _check_out(out: torch.Tensor, shape, dtype: torch.dtype, like: torch.Tensor):
    """out=: a CUDA tensor on `like`'s device of exactly the result's shape and dtype
    (torch's rule: no resizing, no casting)."""
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out: must be a torch.Tensor, got {type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"out: must have the result's shape {tuple(shape)}, got {tuple(out.shape)}")
    if out.dtype != dtype:
        raise ValueError(f"out: must have the result's dtype {dtype}, got {out.dtype}")
    if out.device != like.device:
        raise ValueError(f"out: is on {out.device} but the operands are on {like.device}")
    _check_no_self_overlap(out, "out")


def _check_no_self_overlap(t: torch.Tensor, name: str):
    """The library's rule for an output (views.cpp, check_no_self_overlap), here for the
    out= paths that compute into an aligned buffer and copy in, where the library never
    sees the caller's view: ordered by stride, each dimension longer than 1 must step past
    every element the dimensions of smaller stride reach."""
    if t.numel() == 0:
        return  # no element to share
    reach = 0  # the largest element offset the inner dimensions reach
    for d in sorted((i for i in range(t.dim()) if t.shape[i] > 1), key=lambda i: t.stride(i)):
        if t.stride(d) <= reach:
            raise _lib.WarpspecArgumentError(
                f"invalid argument: {name}.stride: elements overlap (dimension {d} steps {t.stride(d)} elements over "
                f"extent {t.shape[d]}, but the dimensions of smaller stride reach {reach + 1}); an output must address "
                "each element once", _lib.INVALID_ARGUMENT)
        reach += (t.shape[d] - 1) * t.stride(d)


def _gemm_impl(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
               out_dtype: Optional[torch.dtype], out: Optional[torch.Tensor] = None,
               epilogue=_NO_EPILOGUE) -> torch.Tensor:
    a, b, c = _tensor(a, "a"), _tensor(b, "b"), _tensor(c, "c", optional=True)
    alpha, beta = _f32(alpha, "alpha"), _f32(beta, "beta")
    index = _device_of(_GEMM_NAMES, a, b) if c is None else _device_of(_GEMM_NAMES, a, b, c)
    shape = _gemm_shape(a, b)
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if out is not None:
        _check_out(out, shape, out_dtype, a)
    fields = (_fields(a, "a"), _fields(b, "b"), _fields(c, "c") if c is not None else _lib.NULL_TENSOR)
    _dtype_code(out_dtype, "out_dtype")
    lib = _lib.library()  # a missing library is reported before anything is allocated
    # An empty D (M, N or L = 0) still goes to the library: it checks every rule and
    # launches nothing; K = 0 gives beta * C (zeros when beta == 0), as torch.addmm.
    d = torch.empty(shape, dtype=out_dtype, device=a.device) if out is None else out
    status = _gemm_run(lib, index, a, b, c, d, alpha, beta, epilogue, fields)
    if status == _lib.OK:
        return d
    e = lib.error(status)
    # A D that TMA cannot address as it is (a caller's out= at a storage offset, a row
    # that is not a 16-byte multiple, no unit stride; or a new (M, 1) D, which only a
    # column-major reading addresses, where the kernel writes a row-major D only, as the
    # block-scaled one does): computed into an aligned buffer, then copied in, as torch
    # does with out= views. Other refusals (an out that overlaps a or b, say) stand.
    # An out whose own elements overlap is the caller's error: raised, never copied into.
    if ": d." in str(e) and "elements overlap" not in str(e) and (e.code == _lib.MISALIGNED or "stride" in str(e)):
        d2 = _aligned_empty(d)
        status = _gemm_run(lib, index, a, b, c, d2, alpha, beta, epilogue)
        if status == _lib.OK:
            d.copy_(d2)
            return d
        e = lib.error(status)
    # Views TMA cannot address as they are (odd leading dimensions, unaligned data, no
    # unit stride, C in the other layout, an output row not a multiple of 16 bytes):
    # like torch.matmul, compute anyway, through aligned copies. Everything else (shapes,
    # dtypes, the device) is the caller's error and raised as the library said it.
    if e.code == _lib.MISALIGNED or ("stride" in str(e) and e.code in (_lib.INVALID_ARGUMENT, _lib.UNSUPPORTED)
                                     and ": d." not in str(e)):
        a2 = _aligned(a)  # row-major: every kernel reads A that way (FP8 and fused ones only so)
        b2 = _aligned(b, keep_major=True)  # a K-major B stays so (FP8 and fused kernels need it)
        c2 = _aligned(c) if c is not None and beta != 0.0 else None  # C takes D's layout (row-major)
        d2 = _aligned_empty(d)
        status = _gemm_run(lib, index, a2, b2, c2, d2, alpha, beta, epilogue)
        if status == _lib.OK:
            if d2.data_ptr() != d.data_ptr():
                d.copy_(d2)
            return d
        e = lib.error(status)
    raise e


def _gemm_op_impl(a, b, c, alpha: float, beta: float, out_dtype, bias=None, activation: int = 0):
    return _gemm_impl(a, b, c, alpha, beta, out_dtype, None,
                      (None, None, bias, activation, False, False, False, None, None))


def _gemm_fake(a, b, c, alpha, beta, out_dtype, bias=None, activation=0):
    return a.new_empty(_gemm_shape(a, b), dtype=a.dtype if out_dtype is None else out_dtype)


_gemm = _register("gemm", "(Tensor a, Tensor b, Tensor? c, float alpha, float beta, ScalarType? out_dtype, "
                  "Tensor? bias=None, int activation=0) -> Tensor", _gemm_op_impl, _gemm_fake)


def _gemm_out_impl(a, b, c, alpha: float, beta: float, bias, activation: int, out: torch.Tensor) -> None:
    _gemm_impl(a, b, c, alpha, beta, out.dtype, out, (None, None, bias, activation, False, False, False, None, None))


def _gemm_out_fake(a, b, c, alpha, beta, bias, activation, out):
    return None


_gemm_out = _register("gemm_out", "(Tensor a, Tensor b, Tensor? c, float alpha, float beta, Tensor? bias, "
                      "int activation, Tensor(a!) out) -> ()", _gemm_out_impl, _gemm_out_fake, mutates=("out",))


def gemm(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor] = None, alpha: float = 1.0,
         beta: float = 0.0, out_dtype: Optional[torch.dtype] = None, *,
         out: Optional[torch.Tensor] = None, bias: Optional[torch.Tensor] = None,
         activation: Optional[str] = None) -> torch.Tensor:
    """D = act(alpha * (a @ b) + bias + beta * c), on torch.cuda.current_stream().

    a: (M, K) or (L, M, K); b: (K, N) or (L, K, N); bfloat16 or float16, the same.
    Any view with a unit stride in one of its last two dims works without a copy
    (b = w.t() included) when its data and leading dimension are 16-byte aligned;
    other views (odd K or N, slices at odd offsets, arbitrary strides) are computed
    through aligned copies, as torch.matmul would. A batch of 1, a 2-D operand, or a
    batch stride of 0 (expand) broadcasts.
    c: (M, N) or (L, M, N) of out_dtype, row-major; read only when beta != 0.
    out_dtype: a's dtype (default) or torch.float32.

    Zero extents work as in torch: M, N or L = 0 gives an empty result, K = 0 gives
    beta * c (zeros when beta == 0). The output must not share memory with a or b.

    Returns a new contiguous (M, N) or (L, M, N) tensor. Input the library cannot
    take raises ValueError (a warpspec.WarpspecArgumentError) with its message; an
    operand that is not a tensor raises TypeError; alpha or beta outside float32's
    range raise ValueError; a missing or non-Hopper GPU raises RuntimeError
    (warpspec.WarpspecError). Nothing is launched when refused. Lazily negated views
    and ZeroTensors are materialised first. Forward only: a backward through it raises.
    out (keyword): a preallocated result (exactly the result's shape and dtype, on the
    operands' GPU; any strides): written in place and returned, for CUDA graphs and
    serving loops that reuse buffers. It must not overlap a or b (c may be out itself:
    in place). Like torch's out= functions it records no gradient.
    bias (keyword): a contiguous (N,) tensor of out_dtype or float32, added to every row
    (shared by every batch entry). activation (keyword): None, "relu", "gelu" (erf, as
    torch.nn.functional.gelu), "gelu_tanh" (approximate="tanh") or "silu", applied last.
    With bias or activation the kernel is built for a linear layer's layout only: a
    row-major (an a in another layout is copied so first), b column-major (b = w.t() for
    a row-major (N, K) w; a strided b is copied so), out of a's dtype and the widest tile;
    a row-major b (N contiguous, K > 1) or another out dtype raises ValueError naming the
    rule.
    """
    _require_tensors(("a", a), ("b", b), ("c", c, True), ("out", out, True), ("bias", bias, True))
    alpha, beta = _f32(alpha, "alpha"), _f32(beta, "beta")  # a number that fits float32, or raised by name
    act = _activation_code(activation)
    if out is not None:
        if _needs_grad(a, b, c, bias):
            raise RuntimeError("warpspec.gemm: out= does not record gradients (as torch's out= functions); "
                               "call it under torch.no_grad() or without out=")
        result_dtype = out_dtype if out_dtype is not None else getattr(a, "dtype", None)
        if result_dtype != out.dtype:
            raise ValueError(f"out: must have the result's dtype {result_dtype}, got {out.dtype} (pass out_dtype "
                             "for a float32 result)")
    if bias is not None or act != _lib.ACTIVATION_NONE:
        epilogue = (None, None, bias, act, False, False, False, None, None)
        if out is not None:
            if _plain_eager(a, b, c, bias, out):
                _gemm_out_impl(a, b, c, alpha, beta, bias, act, out)
            else:
                _gemm_out(a, b, c, alpha, beta, bias, act, out)
            return out
        if _needs_grad(a, b, c, bias):
            raise RuntimeError("warpspec.gemm: bias/activation are forward only; call it under torch.no_grad()")
        if _plain_eager(a, b, c, bias):
            return _gemm_impl(a, b, c, alpha, beta, out_dtype, None, epilogue)
        return _gemm(a, b, c, alpha, beta, out_dtype, bias, act)
    if out is not None:
        if _plain_eager(a, b, c, out):
            _gemm_out_impl(a, b, c, alpha, beta, None, act, out)
        else:
            _gemm_out(a, b, c, alpha, beta, None, act, out)
        return out
    if _plain_eager(a, b, c):
        return _gemm_impl(a, b, c, alpha, beta, out_dtype)
    if _needs_grad(a, b, c):
        return _ForwardOnly.apply("gemm", _gemm, a, b, c, alpha, beta, out_dtype, None, 0)
    return _gemm(a, b, c, alpha, beta, out_dtype, None, 0)


# ------------------------------------------------------------------ scaled_mm (FP8)


def _block_scaled(a, b, scale_a, scale_b) -> bool:
    """Whether the scales are block-wise (DeepSeek-V3 / DeepGEMM): scale_a (M, ceil(K/128))
    and scale_b (ceil(K/128), ceil(N/128)), shapes that tensor- or row-wise scales cannot
    have. Where both readings fit (K and N up to 128) they compute the same product."""
    if a.dim() != 2 or b.dim() != 2 or scale_a.dim() != 2 or scale_b.dim() != 2:
        return False
    (m, k), n = a.shape, b.shape[1]
    kb, nb = -(-k // 128), -(-n // 128)
    if tuple(scale_a.shape) != (m, kb) or tuple(scale_b.shape) != (kb, nb):
        return False
    row_a = scale_a.numel() == 1 or tuple(scale_a.shape) == (m, 1)
    row_b = scale_b.numel() == 1 or tuple(scale_b.shape) == (1, n)
    return not (row_a and row_b)


_E4M3 = getattr(torch, "float8_e4m3fn", None)  # None: a torch without float8 dtypes
_E5M2 = getattr(torch, "float8_e5m2", None)
_SCALED_MM_OUT_DTYPES = tuple(d for d in (torch.bfloat16, torch.float16, torch.float32, _E4M3) if d is not None)


def _scaled_mm_impl(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum: bool):
    return _scaled_mm_run(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum, scale_result=scale_result)


def _scaled_mm_amax_impl(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum: bool, amax):
    return _scaled_mm_run(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum, scale_result=scale_result,
                          amax=amax)


def _scaled_mm_out_dtype(a, scale_a, scale_b, out_dtype, scale_result=None, amax=None):
    """The result's dtype, with the refusals that need no library (also the fakes', so a
    compiled graph raises where eager does)."""
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if out_dtype not in _SCALED_MM_OUT_DTYPES:
        if _E5M2 is not None and out_dtype == _E5M2:
            raise ValueError("out_dtype: torch.float8_e5m2 output is not built in warpspec.scaled_mm; its FP8 "
                             "output is torch.float8_e4m3fn")
        raise ValueError(f"out_dtype: warpspec.scaled_mm writes bfloat16, float16, float32 or float8_e4m3fn, got "
                         f"{out_dtype}")
    for name, t in (("scale_a", scale_a), ("scale_b", scale_b)):
        if t.dtype != torch.float32:
            raise ValueError(f"{name}: must be float32, got {t.dtype}")
    e4m3 = out_dtype == _E4M3
    # scale_result is read only for an e4m3 result; otherwise it is ignored, unchecked, as
    # torch._scaled_mm ignores it.
    if e4m3 and scale_result is not None and (scale_result.dtype != torch.float32 or scale_result.numel() != 1):
        raise ValueError(f"scale_result: must be a one-element float32 tensor, got {scale_result.dtype} of shape "
                         f"{tuple(scale_result.shape)}")
    if amax is not None:
        if not e4m3:
            raise ValueError(f"amax: applies to a torch.float8_e4m3fn result only (max |x| before scale_result, "
                             f"cuBLASLt's AMAX_D), but out_dtype is {out_dtype}")
        if amax.dtype != torch.float32 or amax.numel() != 1:
            raise ValueError(f"amax: must be a one-element float32 tensor (it is written), got {amax.dtype} of shape "
                             f"{tuple(amax.shape)}")
        if amax.device != a.device:
            raise ValueError(f"amax: is on {amax.device} but a is on {a.device}")
    return out_dtype


def _scaled_mm_run(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum: bool, out=None, scale_result=None,
                   amax=None):
    """scaled_mm's work; out: the result's buffer, or None for a new one. scale_result and
    amax: an e4m3 result's (amax is written)."""
    out_dtype = _scaled_mm_out_dtype(a, scale_a, scale_b, out_dtype, scale_result, amax)
    if out_dtype == _E4M3:
        # One element in any shape, as torch takes it; the library reads rank <= 2, so the
        # call passes a rank-0 view (of the same memory: amax is written through it).
        if scale_result is not None:
            scale_result = _tensor(scale_result, "scale_result").reshape(())
        if amax is not None:
            if amax.layout != torch.strided:
                raise ValueError(f"amax: must be a dense (strided) tensor, got layout {amax.layout}")
            # The library refuses an amax that overlaps another argument, but a call through
            # aligned copies would not show it the caller's a or b.
            for name, t in (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias),
                            ("scale_result", scale_result)):
                if t is not None and _overlaps(amax, t):
                    raise ValueError(f"amax: overlaps {name} (amax is written)")
            amax = amax.view(())
    else:
        scale_result = None  # torch._scaled_mm ignores it for other results
    return _gemm_impl(a, b, None, 1.0, 0.0, out_dtype, out,
                      (scale_a, scale_b, bias, _lib.ACTIVATION_NONE, False, bool(use_fast_accum),
                       _block_scaled(a, b, scale_a, scale_b), scale_result, amax))


def _scaled_mm_fake(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum):
    return a.new_empty(_gemm_shape(a, b), dtype=_scaled_mm_out_dtype(a, scale_a, scale_b, out_dtype, scale_result))


def _scaled_mm_amax_fake(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum, amax):
    return a.new_empty(_gemm_shape(a, b), dtype=_scaled_mm_out_dtype(a, scale_a, scale_b, out_dtype, scale_result,
                                                                     amax))


_scaled_mm = _register("scaled_mm", "(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias, "
                       "Tensor? scale_result, ScalarType? out_dtype, bool use_fast_accum) -> Tensor",
                       _scaled_mm_impl, _scaled_mm_fake)
# amax is an output argument: a call with it is an op of its own that says it writes amax
# (Tensor(a!)), as gemm_out says it writes out, so torch.compile functionalises the write
# and orders it against amax's other readers; calls without amax keep the op above, which
# writes nothing but its result.
_scaled_mm_amax = _register("scaled_mm_amax", "(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias, "
                            "Tensor? scale_result, ScalarType? out_dtype, bool use_fast_accum, Tensor(a!) amax) "
                            "-> Tensor", _scaled_mm_amax_impl, _scaled_mm_amax_fake, mutates=("amax",))


def scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
              bias: Optional[torch.Tensor] = None, scale_result: Optional[torch.Tensor] = None,
              out_dtype: Optional[torch.dtype] = None, use_fast_accum: bool = False, *,
              amax: Optional[torch.Tensor] = None) -> torch.Tensor:
    """torch._scaled_mm's arguments and meaning: (a * scale_a) @ (b * scale_b) + bias.

    a: (M, K), row-major; b: (K, N), column-major (b = w.t() for a row-major (N, K) w);
    each float8_e4m3fn or float8_e5m2, not both e5m2 (as torch). As torch requires, a
    row-major b raises ValueError with the rule; an a in another layout (which torch
    refuses) and views TMA cannot address are copied first. scale_a, scale_b: float32, one element each
    (tensor-wise), (M, 1) and (1, N) (row-wise), or (M, ceil(K/128)) and (ceil(K/128),
    ceil(N/128)) (block-wise, DeepSeek-V3's 1 x 128 blocks of a and 128 x 128 blocks of b;
    any strides, scale_a fastest M-major, stride (1, M) as DeepGEMM keeps it: ~3.5% over a
    contiguous one on the H200; no fast accumulation), read on the GPU (CUDA-graph safe).
    out_dtype: bfloat16, float16, float32 or float8_e4m3fn; torch's default, a's dtype,
    gives an e4m3 result for an e4m3 a (float8_e5m2 results are not built: ValueError).
    bias: (N,) of out_dtype or float32; with an e4m3 result bfloat16, float16 or float32.
    use_fast_accum: skip the promotion of the FP8 accumulator every 128 K.

    An e4m3 result (e4m3 a and b) is e4m3(scale_result * x), x the product above, rounded
    to nearest and saturated to +-448 (NaN stays NaN). scale_result: a one-element float32
    CUDA tensor read on the GPU, or None for 1 (cuBLASLt's D scale; torch 2.11's own
    _scaled_mm leaves it unapplied for an e4m3 result); ignored for other results, as torch.
    amax (keyword, not torch's): a one-element float32 tensor on a's GPU, set to max |x|
    over the result before scale_result (cuBLASLt's AMAX_D, what delayed scaling derives
    the next scale from); only with an e4m3 result. It must not share memory with any
    other argument. Forward only.
    """
    _require_tensors(("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias, True),
                     ("scale_result", scale_result, True), ("amax", amax, True))
    fast = bool(use_fast_accum)
    if amax is None:
        if _plain_eager(a, b, scale_a, scale_b, bias, scale_result):
            return _scaled_mm_impl(a, b, scale_a, scale_b, bias, scale_result, out_dtype, fast)
        if _needs_grad(a, b, scale_a, scale_b, bias):
            return _ForwardOnly.apply("scaled_mm", _scaled_mm, a, b, scale_a, scale_b, bias, scale_result, out_dtype,
                                      fast)
        return _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, fast)
    if _plain_eager(a, b, scale_a, scale_b, bias, scale_result, amax):
        return _scaled_mm_amax_impl(a, b, scale_a, scale_b, bias, scale_result, out_dtype, fast, amax)
    if _needs_grad(a, b, scale_a, scale_b, bias):
        return _ForwardOnly.apply("scaled_mm", _scaled_mm_amax, a, b, scale_a, scale_b, bias, scale_result,
                                  out_dtype, fast, amax)
    return _scaled_mm_amax(a, b, scale_a, scale_b, bias, scale_result, out_dtype, fast, amax)


def gemm_fp8_fp8_bf16_nt(lhs, rhs, out: torch.Tensor) -> None:
    """DeepGEMM's block-scaled FP8 GEMM, in its shape conventions: out = (lhs[0] · lhs[1])
    @ (rhs[0] · rhs[1])ᵀ. lhs = (a, a_scales): a (M, K) float8_e4m3fn row-major, a_scales
    float32 (M, ceil(K/128)), one per row and 128 K; rhs = (w, w_scales): w (N, K)
    float8_e4m3fn row-major, w_scales float32 (ceil(N/128), ceil(K/128)), one per 128 x 128
    block; out (M, N) bfloat16, written in place. Scales may have any strides (DeepGEMM's
    column-major, TMA-aligned a_scales work as they are). The same kernel as scaled_mm with
    block-wise scales."""
    for name, pair in (("lhs", lhs), ("rhs", rhs)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"{name}: must be a pair (tensor, scales), got {type(pair).__name__}"
                            + (f" of length {len(pair)}" if isinstance(pair, (tuple, list)) else ""))
    (a, sa), (w, sw) = lhs, rhs
    _require_tensors(("lhs[0]", a), ("lhs[1]", sa), ("rhs[0]", w), ("rhs[1]", sw), ("out", out))
    if out.dtype != torch.bfloat16:
        raise ValueError(f"out: must be bfloat16 (DeepGEMM's gemm_fp8_fp8_bf16_nt), got {out.dtype}")
    if w.dim() != 2 or sw.dim() != 2:
        raise ValueError(f"rhs: must be ((N, K), (ceil(N/128), ceil(K/128))) tensors, got shapes {tuple(w.shape)} "
                         f"and {tuple(sw.shape)}")
    b, sb = w.t(), sw.t()
    if not _block_scaled(a, b, sa, sb) and not (tuple(sa.shape) == (a.shape[0], 1) and sb.numel() == 1):
        raise ValueError(f"lhs[1], rhs[1]: block scales must be (M, ceil(K/128)) and (ceil(N/128), ceil(K/128)) "
                         f"for lhs {tuple(a.shape)} and rhs {tuple(w.shape)}; got {tuple(sa.shape)} and {tuple(sw.shape)}")
    if _plain_eager(a, sa, w, sw, out):
        _scaled_mm_run(a, b, sa, sb, None, torch.bfloat16, False, out)
    else:  # out's rules as the eager path's (_gemm_impl): exactly (M, N), no overlap with the inputs
        _check_out(out, (a.shape[0], w.shape[0]), torch.bfloat16, a)
        for t, name in ((a, "lhs[0]"), (w, "rhs[0]")):
            if _overlaps(out, t):
                raise ValueError(f"out: overlaps {name}")
        with torch.no_grad():
            out.copy_(_scaled_mm(a, b, sa, sb, None, None, torch.bfloat16, False))


# ------------------------------------------------------------------ attention


def _fresh_contiguous(t: torch.Tensor) -> torch.Tensor:
    """A contiguous copy in new memory (so 16-byte aligned), even where `t` is contiguous
    already: t.contiguous() would return a contiguous view at an odd offset unchanged."""
    return t.clone(memory_format=torch.contiguous_format)


def _contiguous_last(t: torch.Tensor) -> torch.Tensor:
    """FlashAttention's rule: a head dimension that is not contiguous is copied."""
    return t if t.stride(-1) == 1 else t.contiguous()


def _attention_shapes(q: torch.Tensor, packed: bool):
    if packed:
        if q.dim() != 3:
            raise ValueError(f"q: must be (total_q, heads, head_dim) with cu_seqlens_q, got shape {tuple(q.shape)}")
        t, h, _ = q.shape
        return tuple(q.shape), (h, t)
    if q.dim() != 4:
        raise ValueError(f"q: must be (batch, seqlen_q, heads, head_dim), got shape {tuple(q.shape)}")
    b, s, h, _ = q.shape
    return tuple(q.shape), (b, h, s)


def _int_arg(x, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        if isinstance(x, torch.Tensor) and x.numel() == 1 and not x.is_floating_point():
            return int(x.item())
        raise TypeError(f"{name}: must be an int, got {type(x).__name__}")
    if not -(2**63) <= x < 2**63:
        raise _lib.WarpspecArgumentError(f"invalid argument: {name}: {x} does not fit in int64", _lib.INVALID_ARGUMENT)
    return x


def _max_seqlen_q(cu_seqlens_q, max_seqlen_q) -> int:
    """max_seqlen_q as the library takes it: required with packed queries, else 0."""
    if cu_seqlens_q is None:
        return 0
    if max_seqlen_q is None:
        raise ValueError("max_seqlen_q: required with cu_seqlens_q (at least the longest query sequence)")
    return _int_arg(max_seqlen_q, "max_seqlen_q")


def _window(window_size) -> Tuple[int, int]:
    try:
        left, right = window_size
    except (TypeError, ValueError):
        raise TypeError(f"window_size: must be a pair (left, right), got {window_size!r}") from None
    return _int_arg(left, "window_size[0]"), _int_arg(right, "window_size[1]")


_NO_TENSOR = _lib.NULL_TENSOR


_TILE_COUNTERS = {}  # (device index, raw stream) -> a zeroed int32 pair


def _capturing(index: int) -> bool:
    """Whether device `index`'s current stream (the one the call launches on) is being
    captured into a CUDA graph."""
    if index == _current_device():
        return torch.cuda.is_current_stream_capturing()
    with torch.cuda.device(index):
        return torch.cuda.is_current_stream_capturing()


def _tile_counter(device: torch.device, index: int, capturing: bool) -> torch.Tensor:
    if capturing:
        return torch.zeros(2, dtype=torch.int32, device=device)
    key = (index, _raw_stream(index))
    counter = _TILE_COUNTERS.get(key)
    if counter is None:
        counter = _TILE_COUNTERS[key] = torch.zeros(2, dtype=torch.int32, device=device)
    return counter


def _attention_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softmax_scale: Optional[float],
                    causal: bool, window_left: int = -1, window_right: int = -1, softcap: float = 0.0,
                    sink: Optional[torch.Tensor] = None, cu_seqlens_q: Optional[torch.Tensor] = None,
                    cu_seqlens_k: Optional[torch.Tensor] = None, seqused_q: Optional[torch.Tensor] = None,
                    seqused_k: Optional[torch.Tensor] = None, max_seqlen_q: int = 0,
                    attention_chunk: int = 0,
                    out_buffer: Optional[torch.Tensor] = None, num_splits: int = 1,
                    cache_batch_idx: Optional[torch.Tensor] = None, cache_leftpad: Optional[torch.Tensor] = None,
                    page_table: Optional[torch.Tensor] = None, pack_gqa: int = -1,
                    q_descale: Optional[torch.Tensor] = None, k_descale: Optional[torch.Tensor] = None,
                    v_descale: Optional[torch.Tensor] = None,
                    before=None, want_lse: bool = True) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """pack_gqa: 1 on, 0 off, -1 the library's rule (_pack_gqa_arg). before: run (on the
    stream) after every argument is checked and before the launch (flash_attn_with_kvcache's
    append: a refused attention must not leave the cache written). want_lse False (the
    public functions' eager path when the caller did not ask for it): no LSE is allocated
    or written, and None is returned in its place (a torch.empty is ~3 µs of host time).
    q/k/v_descale: FP8 (e4m3 q, k, v) only, float32 (batch, heads_k); the output is then
    bfloat16."""
    q, k, v = _tensor(q, "q"), _tensor(k, "k"), _tensor(v, "v")
    side = [(_tensor(t, name, optional=True), name) for t, name in
            ((sink, "learnable_sink"), (cu_seqlens_q, "cu_seqlens_q"), (cu_seqlens_k, "cu_seqlens_k"),
             (seqused_q, "seqused_q"), (seqused_k, "seqused_k"))]
    cache = [(_tensor(t, name, optional=True), name) for t, name in
             ((cache_batch_idx, "cache_batch_idx"), (cache_leftpad, "cache_leftpad"), (page_table, "page_table"))]
    descales = [(_tensor(t, name, optional=True), name) for t, name in
                ((q_descale, "q_descale"), (k_descale, "k_descale"), (v_descale, "v_descale"))]
    scale = 0.0
    if softmax_scale is not None:
        scale = _f32(softmax_scale, "softmax_scale")
        # 0 means "default" in the C ABI: a scale that is 0 (or rounds to 0, or is
        # negative) in float32 must be refused here, not silently replaced.
        if not (_F32_PACK.unpack(_F32_PACK.pack(scale))[0] > 0.0) or scale == float("inf"):
            raise _lib.WarpspecArgumentError(f"invalid argument: softmax_scale: must be positive and finite in "
                                             f"float32, got {softmax_scale!r}", _lib.INVALID_ARGUMENT)
    cap = _f32(softcap, "softcap")
    if cap < 0.0:  # the library refuses it too, but -1e-50 packs to -0.0, which it would take as off
        raise _lib.WarpspecArgumentError(f"invalid argument: softcap: must be finite and >= 0 (0: off), got "
                                         f"{softcap!r}", _lib.INVALID_ARGUMENT)
    if cap != 0.0 and not _F32_PACK.unpack(_F32_PACK.pack(cap))[0] > 0.0 and cap > 0.0:
        raise _lib.WarpspecArgumentError(f"invalid argument: softcap: {softcap!r} rounds to 0 in float32 (0 turns "
                                         "softcapping off; pass 0.0 for that)", _lib.INVALID_ARGUMENT)
    present = [(t, name) for t, name in side + cache + descales if t is not None]
    index = _device_of(_ATTENTION_NAMES + tuple(name for _, name in present), q, k, v, *(t for t, _ in present))
    packed_q = cu_seqlens_q is not None
    out_shape, lse_shape = _attention_shapes(q, packed_q)
    out_dtype = _attention_out_dtype(q.dtype)
    q, k, v = _contiguous_last(q), _contiguous_last(k), _contiguous_last(v)
    # Rank and dtype checked before anything is allocated; the fields are kept for the
    # packing (by the tensor's identity: every one of them stays referenced by this call).
    fields = {id(t): _fields(t, name) for t, name in ((q, "q"), (k, "k"), (v, "v"), *present)}

    def fields_of(t, name):
        f = fields.get(id(t))
        return f if f is not None else _fields(t, name)

    lib = _lib.library()
    # An empty output still goes to the library: it checks every rule and launches
    # nothing; seqlen_k = 0 gives out = 0 and lse = -inf (FlashAttention's answer).
    if out_buffer is not None:
        _check_out(out_buffer, out_shape, out_dtype, q)
    out = torch.empty(out_shape, dtype=out_dtype, device=q.device) if out_buffer is None else out_buffer
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device) if want_lse else None
    # The window fields are always given (-1, -1: none), and so is num_splits (1: none);
    # pack-GQA is a flag either way, or neither for the library's rule.
    flags = _lib.FLAG_WINDOW | _lib.FLAG_NUM_SPLITS | _pack_gqa_flags(pack_gqa)
    tail = [window_left, window_right, cap, 0]  # version 2's fields, in the struct's order
    for t, name in side:
        tail.extend(fields[id(t)] if t is not None else _NO_TENSOR)
    tail.append(int(max_seqlen_q))
    ragged = cu_seqlens_q is not None or cu_seqlens_k is not None or seqused_q is not None or seqused_k is not None
    # Whether the launch stream is being captured: asked once (~0.4 µs), when it matters.
    capturing = (ragged or num_splits != 1) and _capturing(index)
    if ragged:
        # The dynamic tile schedule of ragged batches: a zeroed counter pair, which the
        # kernel leaves zeroed when it ends (tile_stream.cuh). Eager calls reuse one per
        # device and stream (stream-ordered, so no call sees another's count); a call
        # being captured into a CUDA graph gets its own, zeroed in the graph.
        counter = _tile_counter(q.device, index, capturing)  # referenced until the launch: a captured one is this call's
        tail.extend(_fields(counter, "tile_counter"))
    else:
        tail.extend(_NO_TENSOR)
    tail.append(int(attention_chunk))
    # Version 3: split-KV, and the KV-cache vectors. Eager calls use the library's cached
    # workspace (per device and stream: no allocation in steady state); a call being
    # captured into a CUDA graph gets its own from the caching allocator (the graph's
    # pool), set below: a graph must not share a buffer with another graph or stream.
    ws_at = len(tail) + 2
    tail.extend((int(num_splits), 0, 0, 0))
    for t, name in cache:
        tail.extend(fields[id(t)] if t is not None else _NO_TENSOR)
    for t, name in descales:  # version 4
        tail.extend(fields[id(t)] if t is not None else _NO_TENSOR)

    def pack(q, k, v, o=None):
        return _ATTENTION_PACK(_ATTENTION_SIZE, *fields_of(q, "q"), *fields_of(k, "k"), *fields_of(v, "v"),
                               *_fields(out if o is None else o, "out"),
                               *(_fields(lse, "softmax_lse") if lse is not None else _NO_TENSOR), scale,
                               1 if causal else 0, flags, 0, *tail)

    def run(q, k, v, o=None):
        return _call(lib._attention_packed, pack(q, k, v, o), index)

    capturing = capturing and num_splits != 1
    keep = []  # this call's graph-owned workspace, alive until the launch is recorded

    def own_workspace(q, k, v, o):
        """Under CUDA graph capture: this call's split-KV workspace from the caching
        allocator (the graph's pool). A refusal here is reported by the launch."""
        if not capturing:
            return
        if lib._attention_workspace_size_packed is None:
            raise _lib.WarpspecError(f"warpspec: the library at {lib.path} predates split-KV under CUDA graph capture "
                                     "(no warpspec_attention_workspace_size); use num_splits=1 or a newer library",
                                     _lib.UNSUPPORTED)
        size = ctypes.c_uint64(0)
        with torch.cuda.device(index):
            status = lib._attention_workspace_size_packed(pack(q, k, v, o), ctypes.byref(size))
        if status == _lib.OK and size.value > 0:
            keep.append(torch.empty(size.value, dtype=torch.uint8, device=q.device))
            tail[ws_at], tail[ws_at + 1] = keep[-1].data_ptr(), size.value

    def aligned(t):
        """A view TMA can address as it is, or a contiguous buffer of its shape to copy it into."""
        return t if t.data_ptr() % 16 == 0 and _tma_strides(t) else None

    # A caller's out= that TMA cannot address as it is: computed into a fresh output and
    # copied in at the end. Checked up front: the library names the first view it refuses.
    fresh = None
    if out_buffer is not None and (out_buffer.data_ptr() % 16 or out_buffer.stride(-1) != 1
                                   or not _tma_strides(out_buffer)):
        fresh = torch.empty(out_shape, dtype=out_dtype, device=q.device)
    if before is not None:
        # Every rule is checked before the append writes the cache. Views TMA cannot
        # address are replaced by contiguous buffers first (filled after the append, since
        # the cache and the rotated q are what it writes), and the check is on those.
        with torch.cuda.device(index):
            status = lib._attention_check_packed(pack(q, k, v, fresh))
        views = (q, k, v)
        if status == _lib.MISALIGNED:
            views = tuple(t if aligned(t) is not None else torch.empty(t.shape, dtype=t.dtype, device=t.device)
                          for t in (q, k, v))
            with torch.cuda.device(index):
                status = lib._attention_check_packed(pack(*views, fresh))
        if status != _lib.OK:
            raise lib.error(status)
        before()
        for src, dst in zip((q, k, v), views):
            if dst is not src:
                dst.copy_(src)
        own_workspace(*views, fresh)
        status = run(*views, fresh)
    else:
        own_workspace(q, k, v, fresh)
        status = run(q, k, v, fresh)
        if status == _lib.MISALIGNED:
            # Views TMA cannot address as they are (a storage offset or a batch, seqlen or
            # head stride that is not a multiple of 16 bytes): like SDPA, compute anyway,
            # through contiguous copies (16-byte aligned whenever head_dim is a multiple of 8).
            views = tuple(t if aligned(t) is not None else _fresh_contiguous(t) for t in (q, k, v))
            own_workspace(*views, fresh)
            status = run(*views, fresh)
    if status == _lib.OK and fresh is not None:
        out_buffer.copy_(fresh)
    if status != _lib.OK:
        e = lib.error(status)
        msg = str(e)
        if out_buffer is None and (": o." in msg or ": lse." in msg):
            raise type(e)(f"{msg} (o and lse are the outputs: new contiguous {out_shape} {out_dtype} and "
                          f"{lse_shape} float32 tensors)", e.code) from None
        if ": sink" in msg:
            msg = msg.replace(": sink", ": learnable_sink", 1)
            raise type(e)(msg, e.code) from None
        raise e
    return out, lse


def _attention_out_dtype(dtype: torch.dtype) -> torch.dtype:
    """The output dtype of attention on inputs of `dtype`: the same for 16-bit, bfloat16
    for FP8 (e4m3) as FlashAttention-3's."""
    return torch.bfloat16 if dtype == getattr(torch, "float8_e4m3fn", None) else dtype


def _tma_strides(t: torch.Tensor) -> bool:
    """Every stride of a dimension longer than 1 is a multiple of 16 bytes (but the
    last, contiguous one)."""
    e = t.element_size()
    return all(t.shape[i] <= 1 or (t.stride(i) * e) % 16 == 0 for i in range(t.dim() - 1))


def _attention_op_impl(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                       cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, num_splits=1,
                       cache_batch_idx=None, cache_leftpad=None, page_table=None, pack_gqa=-1, q_descale=None,
                       k_descale=None, v_descale=None):
    return _attention_impl(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                           cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, None, num_splits,
                           cache_batch_idx, cache_leftpad, page_table, pack_gqa, q_descale, k_descale, v_descale)


def _attention_fake(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                    cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, num_splits=1,
                    cache_batch_idx=None, cache_leftpad=None, page_table=None, pack_gqa=-1, q_descale=None,
                    k_descale=None, v_descale=None):
    out_shape, lse_shape = _attention_shapes(q, cu_seqlens_q is not None)
    return q.new_empty(out_shape, dtype=_attention_out_dtype(q.dtype)), q.new_empty(lse_shape, dtype=torch.float32)


def _attention_out_impl(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                        cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, out, num_splits=1,
                        cache_batch_idx=None, cache_leftpad=None, page_table=None, pack_gqa=-1, q_descale=None,
                        k_descale=None, v_descale=None):
    return _attention_impl(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                           cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, out, num_splits,
                           cache_batch_idx, cache_leftpad, page_table, pack_gqa, q_descale, k_descale, v_descale)[1]


def _attention_out_fake(q, k, v, softmax_scale, causal, window_left, window_right, softcap, sink, cu_seqlens_q,
                        cu_seqlens_k, seqused_q, seqused_k, max_seqlen_q, attention_chunk, out, num_splits=1,
                        cache_batch_idx=None, cache_leftpad=None, page_table=None, pack_gqa=-1, q_descale=None,
                        k_descale=None, v_descale=None):
    _, lse_shape = _attention_shapes(q, cu_seqlens_q is not None)
    return q.new_empty(lse_shape, dtype=torch.float32)


# The serving arguments come last, with defaults, so calls written for the earlier
# schema (positional, up to attention_chunk / out) still bind. pack_gqa: 1 on, 0 off, -1
# the library's rule (an int: a schema has no optional bool default that traces as None).
_SERVING_SCHEMA = ("int num_splits=1, Tensor? cache_batch_idx=None, Tensor? cache_leftpad=None, "
                   "Tensor? page_table=None, int pack_gqa=-1, Tensor? q_descale=None, Tensor? k_descale=None, "
                   "Tensor? v_descale=None")
_attention = _register("flash_attn_forward",
                       "(Tensor q, Tensor k, Tensor v, float? softmax_scale, bool causal, int window_left, "
                       "int window_right, float softcap, Tensor? sink, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, "
                       "Tensor? seqused_q, Tensor? seqused_k, int max_seqlen_q, int attention_chunk, "
                       + _SERVING_SCHEMA + ") -> (Tensor, Tensor)",
                       _attention_op_impl, _attention_fake)
_attention_out = _register("flash_attn_forward_out",
                           "(Tensor q, Tensor k, Tensor v, float? softmax_scale, bool causal, int window_left, "
                           "int window_right, float softcap, Tensor? sink, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, "
                           "Tensor? seqused_q, Tensor? seqused_k, int max_seqlen_q, int attention_chunk, "
                           "Tensor(a!) out, " + _SERVING_SCHEMA + ") -> Tensor",
                           _attention_out_impl, _attention_out_fake, mutates=("out",))


def _refuse_unsupported(qv, q_descale, k_descale, v_descale, sm_margin, **more):
    """FlashAttention-3's arguments that warpspec does not implement yet: their
    defaults are accepted, any other value raises NotImplementedError naming it.
    more: further name=value arguments whose default is None (flash_attn_with_kvcache's
    own), checked after qv. q/k/v_descale: pass None where FP8 is built (they are then
    the caller's to check)."""
    for name, value in (("qv", qv), *more.items(), ("q_descale", q_descale), ("k_descale", k_descale),
                        ("v_descale", v_descale)):
        if value is not None:
            raise NotImplementedError(f"{name}: not supported by warpspec yet (pass None)")
    if sm_margin not in (0, None):
        raise NotImplementedError(f"sm_margin={sm_margin!r}: not supported by warpspec yet (pass 0)")


def _pack_gqa_arg(pack_gqa) -> int:
    """FlashAttention-3's pack_gqa as the ops' int: None (the library's rule: pack when
    that fills the query tiles better) -1, False 0, True 1. True where the library cannot
    pack (heads / heads_k not a power of two up to 16, head dim 256) raises ValueError
    with its message; with heads == heads_k there is nothing to pack and it runs as False."""
    if pack_gqa is None:
        return -1
    if isinstance(pack_gqa, bool):
        return int(pack_gqa)
    if isinstance(pack_gqa, int) and pack_gqa in (0, 1):  # an int from a traced or scripted caller
        return pack_gqa
    raise TypeError(f"pack_gqa: must be None, True or False, got {pack_gqa!r}")


def _pack_gqa_flags(pack_gqa: int) -> int:
    """The C ABI's flag for _pack_gqa_arg's int: one of the two, or neither (the rule)."""
    if pack_gqa < 0:
        return 0
    return _lib.FLAG_PACK_GQA if pack_gqa else _lib.FLAG_NO_PACK_GQA


def _run_attention(name, q, k, v, args, out=None, serving=(1, None, None, None, -1), want_lse=True):
    """args: the op's arguments after v up to attention_chunk; serving: (num_splits,
    cache_batch_idx, cache_leftpad, page_table, pack_gqa[, q_descale, k_descale,
    v_descale]). want_lse False: the LSE may
    come back None (the eager path skips it; the registered ops always return one)."""
    tensors = (q, k, v) + tuple(t for t in args + serving if isinstance(t, torch.Tensor))
    if out is not None:
        if _needs_grad(*tensors):
            raise RuntimeError(f"warpspec.{name}: out= does not record gradients (as torch's out= functions); "
                               "call it under torch.no_grad() or without out=")
        if _plain_eager(*tensors, out):
            return _attention_impl(q, k, v, *args, out, *serving, want_lse=want_lse)
        return out, _attention_out(q, k, v, *args, out, *serving)
    if _plain_eager(*tensors):
        return _attention_impl(q, k, v, *args, None, *serving, want_lse=want_lse)
    if _needs_grad(*tensors):
        return _ForwardOnly.apply(name, _attention, q, k, v, *args, *serving)
    return _attention(q, k, v, *args, *serving)


def _splits_arg(num_splits) -> int:
    """FlashAttention's num_splits: 0 a heuristic, 1 no split, n > 1 that many (the
    library takes up to 128; head dim 256 does not split)."""
    n = _int_arg(num_splits if num_splits is not None else 1, "num_splits")
    if n < 0:
        raise _lib.WarpspecArgumentError(f"invalid argument: num_splits: must be 0 (heuristic) or positive, got {n}",
                                         _lib.INVALID_ARGUMENT)
    return n


def flash_attn_func(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softmax_scale: Optional[float] = None,
                    causal: bool = False, qv=None, q_descale=None, k_descale=None, v_descale=None,
                    window_size=(-1, -1), attention_chunk: int = 0, softcap: float = 0.0, num_splits: int = 1,
                    pack_gqa=None, deterministic: bool = False, sm_margin: int = 0, return_attn_probs: bool = False,
                    *, learnable_sink: Optional[torch.Tensor] = None, out: Optional[torch.Tensor] = None):
    """FlashAttention-3's flash_attn_func (forward), on torch.cuda.current_stream():
    the same arguments in the same order with the same defaults.

    q: (batch, seqlen_q, nheads, headdim); k, v: (batch, seqlen_k, nheads_k, headdim);
    bfloat16 or float16, all the same; headdim a multiple of 8 up to 256. nheads a
    multiple of nheads_k (MQA / GQA: query head h reads kv head h // (nheads //
    nheads_k)). Any strides work without a copy when the data and the strides of the
    batch, seqlen and head dimensions are 16-byte aligned; other views are computed
    through contiguous copies (as SDPA accepts them), and a head dimension that is
    not contiguous is copied first (as FlashAttention does). seqlen_k = 0 gives
    out = 0 and lse = -inf; a NaN in q or k gives NaN rows (never -inf).
    softmax_scale: the scaling of q @ k^T before the softmax; default 1/sqrt(headdim).
    causal: mask aligned to the bottom-right corner (query i sees key j iff
    j <= i + seqlen_k - seqlen_q); a row that sees no key gets out = 0, lse = -inf.
    window_size: (left, right), -1 for unbounded: query i sees keys j with
    i + seqlen_k - seqlen_q - left <= j <= i + seqlen_k - seqlen_q + right; causal
    sets right to 0.
    softcap: > 0 caps the scores, softcap * tanh(score / softcap); 0 is off.
    learnable_sink (keyword, FlashAttention-4's name): float32 (nheads,) logits that
    join each row's softmax denominator without a value (gpt-oss); lse includes it.
    deterministic: accepted (the forward is always deterministic).
    attention_chunk > 0: chunked attention (Llama 4): query i also sees only the keys of
    its chunk, [c, c + chunk) with c = (i + seqlen_k - seqlen_q) // chunk * chunk.
    num_splits: split-KV (flash-decoding): 1 (the default) does not split, 0 lets a
    heuristic split when the grid would leave SMs idle, n > 1 deals each query tile's
    keys to n CTAs whose fp32 partials a combine kernel merges (deterministic for a
    fixed n; the workspace is the library's cached one per device and stream, or, under
    CUDA graph capture, the call's own from the graph's memory pool; head dim 256 does
    not split).
    pack_gqa: pack the nheads // nheads_k query heads of one kv head into one query tile
    (each K/V block read once per kv head; decode fills the tile): None (the default)
    packs when that fills the query tiles better (FlashAttention-3's rule), True always
    (nheads // nheads_k a power of two up to 16 and headdim up to 192, else ValueError;
    nheads == nheads_k runs unpacked), False never. The results match unpacked up to the
    split-KV merge order.
    q_descale, k_descale, v_descale: FP8 (FlashAttention-3's): q, k, v float8_e4m3fn hold
    x / descale; each descale is float32 (batch, nheads_k) or None (1); the output is
    bfloat16. Head dims 64, 128 and 256; causal, windows off the diagonal, GQA; varlen,
    split-KV, softcap, sinks and pack-GQA are refused by name (ValueError). Built only
    with -DWARPSPEC_FP8_ATTENTION=ON for now (the library says so otherwise).
    qv and sm_margin are not supported yet: a value other than the default raises NotImplementedError.

    Returns out, (batch, seqlen_q, nheads, headdim) contiguous, or with
    return_attn_probs=True (out, softmax_lse) as FlashAttention-3 does, softmax_lse
    (batch, nheads, seqlen_q) float32: the natural-log log-sum-exp of each row of
    the scaled (and capped) scores. Bad input raises ValueError
    (warpspec.WarpspecArgumentError) with the library's message; no Hopper GPU raises
    RuntimeError. Forward only.
    """
    _require_tensors(("q", q), ("k", k), ("v", v), ("learnable_sink", learnable_sink, True), ("out", out, True),
                     ("q_descale", q_descale, True), ("k_descale", k_descale, True), ("v_descale", v_descale, True))
    _refuse_unsupported(qv, None, None, None, sm_margin)
    left, right = _window(window_size)
    args = (softmax_scale, bool(causal), left, right, _f32(softcap, "softcap"), learnable_sink, None, None, None, None, 0,
            _int_arg(attention_chunk or 0, "attention_chunk"))
    result, lse = _run_attention("flash_attn_func", q, k, v, args, out,
                                 (_splits_arg(num_splits), None, None, None, _pack_gqa_arg(pack_gqa),
                                  q_descale, k_descale, v_descale),
                                 want_lse=bool(return_attn_probs))
    return (result, lse) if return_attn_probs else result


def flash_attn_varlen_func(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: Optional[torch.Tensor],
                           cu_seqlens_k: Optional[torch.Tensor], max_seqlen_q: Optional[int],
                           max_seqlen_k: Optional[int], seqused_q: Optional[torch.Tensor] = None,
                           seqused_k: Optional[torch.Tensor] = None, softmax_scale: Optional[float] = None,
                           causal: bool = False, qv=None, q_descale=None, k_descale=None, v_descale=None,
                           window_size=(-1, -1), attention_chunk: int = 0, softcap: float = 0.0,
                           num_splits: int = 1, pack_gqa=None, deterministic: bool = False, sm_margin: int = 0,
                           return_attn_probs: bool = False, *, learnable_sink: Optional[torch.Tensor] = None,
                           out: Optional[torch.Tensor] = None):
    """FlashAttention-3's flash_attn_varlen_func (forward): packed sequences of
    different lengths, no padding.

    q: (total_q, nheads, headdim), sequence b at rows cu_seqlens_q[b] to
    cu_seqlens_q[b+1]; k, v: (total_k, nheads_k, headdim) by cu_seqlens_k likewise.
    cu_seqlens_q, cu_seqlens_k: int32 (batch + 1,) on q's device (either may be None:
    that side is then dense, (batch, seqlen, nheads, headdim)). seqused_q, seqused_k:
    optional int32 (batch,): only the first seqused[b] rows of sequence b take part
    (output rows past it are not written). max_seqlen_q: at least the longest query
    sequence (rows past it are not computed); max_seqlen_k is accepted and not needed.
    Sequence lengths are read on the GPU: no host synchronisation, CUDA-graph safe.
    Lengths 0 and 1 are fine; masks use each sequence's own lengths. The other
    arguments are flash_attn_func's.

    Returns out (total_q, nheads, headdim), and with return_attn_probs=True
    softmax_lse (nheads, total_q) float32 as FlashAttention-3 does.
    """
    _require_tensors(("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_seqlens_q, True),
                     ("cu_seqlens_k", cu_seqlens_k, True), ("seqused_q", seqused_q, True),
                     ("seqused_k", seqused_k, True), ("learnable_sink", learnable_sink, True), ("out", out, True),
                     ("q_descale", q_descale, True), ("k_descale", k_descale, True), ("v_descale", v_descale, True))
    _refuse_unsupported(qv, None, None, None, sm_margin)
    left, right = _window(window_size)
    max_q = _max_seqlen_q(cu_seqlens_q, max_seqlen_q)
    if max_seqlen_k is not None:
        _int_arg(max_seqlen_k, "max_seqlen_k")  # accepted, not needed (lengths are read on the GPU)
    args = (softmax_scale, bool(causal), left, right, _f32(softcap, "softcap"), learnable_sink, cu_seqlens_q, cu_seqlens_k,
            seqused_q, seqused_k, max_q, _int_arg(attention_chunk or 0, "attention_chunk"))
    result, lse = _run_attention("flash_attn_varlen_func", q, k, v, args, out,
                                 (_splits_arg(num_splits), None, None, None, _pack_gqa_arg(pack_gqa),
                                  q_descale, k_descale, v_descale),
                                 want_lse=bool(return_attn_probs))
    return (result, lse) if return_attn_probs else result


# ------------------------------------------------------------------ serving: KV cache, combine

_APPEND_PACK = _lib.APPEND_FORMAT.pack
_APPEND_SIZE = _lib.APPEND_FORMAT.size
_COMBINE_PACK = _lib.COMBINE_FORMAT.pack
_COMBINE_SIZE = _lib.COMBINE_FORMAT.size


def _kvcache_seqused(k, cache_seqlens, page_table, k_cache, batch):
    """The keys each sequence attends to after the append, as the attention's seqused_k:
    cache_seqlens + seqlen_new, computed on the GPU (graph-safe); without cache_seqlens a
    paged cache is read whole (max_pages * page_size keys), a dense one needs none."""
    if cache_seqlens is None:
        if page_table is None:
            return None
        return torch.full((batch,), page_table.shape[1] * k_cache.shape[1], dtype=torch.int32,
                          device=k_cache.device)
    if k is None or k.shape[1] == 0:
        return cache_seqlens
    return cache_seqlens + k.shape[1]


def _kvcache_impl(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, k: Optional[torch.Tensor],
                  v: Optional[torch.Tensor], rotary_cos: Optional[torch.Tensor], rotary_sin: Optional[torch.Tensor],
                  cache_seqlens: Optional[torch.Tensor], cache_batch_idx: Optional[torch.Tensor],
                  cache_leftpad: Optional[torch.Tensor], page_table: Optional[torch.Tensor],
                  cu_seqlens_q: Optional[torch.Tensor], max_seqlen_q: int, softmax_scale: Optional[float],
                  causal: bool, window_left: int, window_right: int, attention_chunk: int, softcap: float,
                  rotary_interleaved: bool, num_splits: int, pack_gqa: int = -1,
                  want_lse: bool = True) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    q = _tensor(q, "q")
    k_cache, v_cache = _tensor(k_cache, "k_cache"), _tensor(v_cache, "v_cache")
    if (k is None) != (v is None) or (rotary_cos is not None and k is None):
        raise ValueError("k, v: give both, and rotary_cos / rotary_sin only with them")
    if k is not None:
        k, v = _tensor(k, "k"), _tensor(v, "v")
        cos, sin = _tensor(rotary_cos, "rotary_cos", optional=True), _tensor(rotary_sin, "rotary_sin", optional=True)
        present = [(t, n) for t, n in ((q, "q"), (k_cache, "k_cache"), (v_cache, "v_cache"), (k, "k"), (v, "v"),
                                       (cos, "rotary_cos"), (sin, "rotary_sin"), (cache_seqlens, "cache_seqlens"),
                                       (cache_batch_idx, "cache_batch_idx"), (cache_leftpad, "cache_leftpad"),
                                       (page_table, "page_table")) if t is not None]
        index = _device_of(tuple(n for _, n in present), *(t for t, _ in present))
        lib = _lib.library()
        rotate_q = cos is not None
        q_rot = torch.empty(q.shape, dtype=q.dtype, device=q.device) if rotate_q else None
        kc, vc = _contiguous_last(k_cache), _contiguous_last(v_cache)
        if kc is not k_cache or vc is not v_cache:
            raise ValueError("k_cache, v_cache: the head dimension must be contiguous (the cache is written in place)")
        none = _lib.NULL_TENSOR

        def f(t, name):
            return _fields(t, name) if t is not None else none

        # Copies (only of views whose last dim is strided) stay referenced until the
        # append has run: the packed bytes hold only their addresses, and a freed block
        # would be handed to the next allocation on the stream before the append reads it.
        held = (_contiguous_last(k), _contiguous_last(v), cos if cos is None else _contiguous_last(cos),
                sin if sin is None else _contiguous_last(sin), _contiguous_last(q) if rotate_q else None)
        k_in, v_in, cos_in, sin_in, q_in = held
        packed = _APPEND_PACK(_APPEND_SIZE, *f(k_cache, "k_cache"), *f(v_cache, "v_cache"),
                              *f(k_in, "k"), *f(v_in, "v"),
                              *f(cache_seqlens, "cache_seqlens"), *f(cache_batch_idx, "cache_batch_idx"),
                              *f(cache_leftpad, "cache_leftpad"), *f(page_table, "page_table"),
                              *f(cos_in, "rotary_cos"), *f(sin_in, "rotary_sin"), *f(q_in, "q"), *f(q_rot, "q_out"),
                              1 if rotary_interleaved else 0,
                              # q at each new position when causal or local (a window or a chunk), as FA3
                              1 if (causal or window_left >= 0 or window_right >= 0 or (attention_chunk or 0) > 0)
                              else 0)
        append_fn = lib.serving("kvcache_append")

        def append(held=held):  # `held` keeps the copies alive until the launch
            status = _call(append_fn, packed, index)
            if status != _lib.OK:
                e = lib.error(status)
                msg = str(e).replace(": k_new", ": k").replace(": v_new", ": v").replace(", k_new", ", k")
                e = type(e)(msg, e.code)
                e._kvcache_append = True  # names the caller's own arguments already
                raise e from None

        # Order: every attention rule is checked first, then the append runs (it checks its
        # own rules before writing anything), then the attention: a refused call leaves the
        # cache as it was (see _attention_impl's `before`).
        before = append
        if rotate_q:
            q = q_rot  # written by the append, read by the attention after it
    else:
        before = None
    batch = q.shape[0] if cu_seqlens_q is None else cu_seqlens_q.shape[0] - 1
    seqused_k = _kvcache_seqused(k, cache_seqlens, page_table, k_cache, batch)
    try:
        return _attention_impl(q, k_cache, v_cache, softmax_scale, causal, window_left, window_right, softcap, None,
                               cu_seqlens_q, None, None, seqused_k, max_seqlen_q, attention_chunk, None, num_splits,
                               cache_batch_idx, cache_leftpad, page_table, pack_gqa, before=before, want_lse=want_lse)
    except (_lib.WarpspecError, ValueError, TypeError) as e:
        if getattr(e, "_kvcache_append", False) or getattr(e, "code", 0) is None:
            raise
        msg = _kvcache_names(str(e))
        if msg == str(e):
            raise
        raise (type(e)(msg, e.code) if isinstance(e, _lib.WarpspecError) else type(e)(msg)) from None


def _kvcache_names(msg: str) -> str:
    """The attention's refusal in flash_attn_with_kvcache's names: the attention reads the
    caches as its k and v, and cache_seqlens (plus the new keys) as its seqused_k."""
    msg = msg.replace("seqused_k (cache_seqlens)", "cache_seqlens")
    msg = re.sub(r"(?<![\w/])k(?=[.\[])", "k_cache", msg)
    msg = re.sub(r"(?<![\w/])v(?=[.\[])", "v_cache", msg)
    return re.sub(r"(?<![\w])seqused_k\b", "cache_seqlens", msg)


def _kvcache_op_impl(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
                     page_table, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_left, window_right,
                     attention_chunk, softcap, rotary_interleaved, num_splits, pack_gqa=-1):
    return _kvcache_impl(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx,
                         cache_leftpad, page_table, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_left,
                         window_right, attention_chunk, softcap, rotary_interleaved, num_splits, pack_gqa)


def _kvcache_fake(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
                  page_table, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_left, window_right,
                  attention_chunk, softcap, rotary_interleaved, num_splits, pack_gqa=-1):
    out_shape, lse_shape = _attention_shapes(q, cu_seqlens_q is not None)
    return q.new_empty(out_shape, dtype=_attention_out_dtype(q.dtype)), q.new_empty(lse_shape, dtype=torch.float32)


# The op writes k and v into the caches in place (FlashAttention-3's semantics): it says so,
# so torch.compile orders it against other readers of the cache.
_kvcache = _register("flash_attn_with_kvcache",
                     "(Tensor q, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor? k, Tensor? v, Tensor? rotary_cos, "
                     "Tensor? rotary_sin, Tensor? cache_seqlens, Tensor? cache_batch_idx, Tensor? cache_leftpad, "
                     "Tensor? page_table, Tensor? cu_seqlens_q, int max_seqlen_q, float? softmax_scale, bool causal, "
                     "int window_left, int window_right, int attention_chunk, float softcap, bool rotary_interleaved, "
                     "int num_splits, int pack_gqa=-1) -> (Tensor, Tensor)",
                     _kvcache_op_impl, _kvcache_fake, mutates=("k_cache", "v_cache"))


def _kvcache_read_impl(q, k_cache, v_cache, cache_seqlens, cache_batch_idx, cache_leftpad, page_table, cu_seqlens_q,
                       max_seqlen_q, softmax_scale, causal, window_left, window_right, attention_chunk, softcap,
                       num_splits, pack_gqa=-1):
    return _kvcache_impl(q, k_cache, v_cache, None, None, None, None, cache_seqlens, cache_batch_idx, cache_leftpad,
                         page_table, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_left, window_right,
                         attention_chunk, softcap, False, num_splits, pack_gqa)


def _kvcache_read_fake(q, k_cache, v_cache, cache_seqlens, cache_batch_idx, cache_leftpad, page_table, cu_seqlens_q,
                       max_seqlen_q, softmax_scale, causal, window_left, window_right, attention_chunk, softcap,
                       num_splits, pack_gqa=-1):
    return _kvcache_fake(q, k_cache, v_cache, None, None, None, None, cache_seqlens, cache_batch_idx, cache_leftpad,
                         page_table, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_left, window_right,
                         attention_chunk, softcap, False, num_splits, pack_gqa)


# A call without k and v only reads the caches: its own op says so, so torch.compile's
# functionalisation neither copies the caches nor writes them back on every decode step.
_kvcache_read = _register("flash_attn_with_kvcache_read",
                          "(Tensor q, Tensor k_cache, Tensor v_cache, Tensor? cache_seqlens, Tensor? cache_batch_idx, "
                          "Tensor? cache_leftpad, Tensor? page_table, Tensor? cu_seqlens_q, int max_seqlen_q, "
                          "float? softmax_scale, bool causal, int window_left, int window_right, int attention_chunk, "
                          "float softcap, int num_splits, int pack_gqa=-1) -> (Tensor, Tensor)",
                          _kvcache_read_impl, _kvcache_read_fake)


def flash_attn_with_kvcache(q, k_cache, v_cache, k=None, v=None, qv=None, rotary_cos=None, rotary_sin=None,
                            cache_seqlens=None, cache_batch_idx=None, cache_leftpad=None, page_table=None,
                            cu_seqlens_q=None, cu_seqlens_k_new=None, max_seqlen_q=None, rotary_seqlens=None,
                            q_descale=None, k_descale=None, v_descale=None, softmax_scale=None, causal=False,
                            window_size=(-1, -1), attention_chunk=0, softcap=0.0, rotary_interleaved=True,
                            scheduler_metadata=None, num_splits=0, pack_gqa=None, sm_margin=0,
                            return_softmax_lse=False):
    """FlashAttention-3's flash_attn_with_kvcache (hopper/flash_attn_interface.py): the
    same arguments in the same order with the same defaults, on the current stream.

    When k and v are given, they are written into k_cache / v_cache *in place* at rows
    cache_seqlens[b], cache_seqlens[b] + 1, ... (rotary applied to the new keys when
    rotary_cos / rotary_sin are given, and to q: at each new position when causal or
    local, else all at position cache_seqlens[b]; `rotary_interleaved` pairs (2i, 2i+1),
    else (i, i + rotary_dim / 2)); then q attends to the updated cache, the first
    cache_seqlens[b] + seqlen_new keys of sequence b (the causal mask and window aligned
    to their end). Rows outside the appended ones are never written.

    q: (batch, seqlen_q, nheads, headdim), or (total_q, nheads, headdim) with
    cu_seqlens_q and max_seqlen_q (no rotary then). k_cache, v_cache: (batch_cache,
    seqlen_cache, nheads_k, headdim), or (num_pages, page_size, nheads_k, headdim) with
    page_table (batch, max_pages) int32; page_size a multiple of 16. k, v: (batch,
    seqlen_new, nheads_k, headdim). cache_seqlens: int or int32 (batch,). cache_batch_idx:
    int32 (batch,), the cache entry each batch entry uses (dense caches). cache_leftpad:
    int32 (batch,), where each sequence starts in its cache row (dense caches; positions
    and cache_seqlens count from row 0, so the keys are rows [leftpad, cache_seqlens)).
    rotary_cos / rotary_sin: (seqlen_ro, rotary_dim / 2) of the cache's dtype, seqlen_ro at
    least the rows a sequence's cache holds (as FA3); positions are cache rows, a left pad
    counted (new key t of sequence b at cache_seqlens[b] + t, as FA3).
    num_splits: 0 (the default) a heuristic split-KV, 1 none, n > 1 that many; the
    workspace is the library's cached one per device and stream, or, under CUDA graph
    capture, the call's own from the graph's memory pool (graphs share nothing; no warm-up
    call needed). Everything per step (lengths, indices, pages) is read on the GPU: no
    host synchronisation.

    pack_gqa: None (the default) the library's rule, True or False; flash_attn_func's.

    Not supported (NotImplementedError naming them): qv, cu_seqlens_k_new, rotary_seqlens,
    q/k/v_descale, scheduler_metadata, sm_margin != 0, and rotary with cu_seqlens_q.

    Returns out (like q), or with return_softmax_lse=True (out, softmax_lse), softmax_lse
    (batch, nheads, seqlen_q) float32 ((nheads, total_q) with cu_seqlens_q). Forward only.
    """
    _require_tensors(("q", q), ("k_cache", k_cache), ("v_cache", v_cache), ("k", k, True), ("v", v, True),
                     ("rotary_cos", rotary_cos, True), ("rotary_sin", rotary_sin, True),
                     ("cache_batch_idx", cache_batch_idx, True), ("cache_leftpad", cache_leftpad, True),
                     ("page_table", page_table, True), ("cu_seqlens_q", cu_seqlens_q, True))
    _refuse_unsupported(qv, q_descale, k_descale, v_descale, sm_margin, cu_seqlens_k_new=cu_seqlens_k_new,
                        rotary_seqlens=rotary_seqlens, scheduler_metadata=scheduler_metadata)
    pack = _pack_gqa_arg(pack_gqa)
    if (k is None) != (v is None):
        raise ValueError("k, v: give both (the new keys and values to append) or neither")
    if (rotary_cos is None) != (rotary_sin is None):
        raise ValueError("rotary_cos, rotary_sin: give both or neither")
    if rotary_cos is not None and k is None:
        raise ValueError("rotary_cos, rotary_sin: only with k and v (rotary is applied to the appended keys and q)")
    if rotary_cos is not None and cu_seqlens_q is not None:
        raise NotImplementedError("cu_seqlens_q: not supported by warpspec yet together with rotary_cos / rotary_sin")
    if k is not None and cache_seqlens is None:
        raise ValueError("cache_seqlens: required with k and v (where each sequence's new rows go)")
    if isinstance(cache_seqlens, int) and not isinstance(cache_seqlens, bool):
        if not 0 <= cache_seqlens < 2 ** 31:
            raise ValueError(f"cache_seqlens: must be from 0 to 2^31 - 1 (int32), got {cache_seqlens}")
        batch = q.shape[0] if cu_seqlens_q is None else cu_seqlens_q.shape[0] - 1
        cache_seqlens = torch.full((batch,), cache_seqlens, dtype=torch.int32, device=k_cache.device)
    _require_tensors(("cache_seqlens", cache_seqlens, True))
    left, right = _window(window_size)
    if causal:
        right = 0
    max_q = _max_seqlen_q(cu_seqlens_q, max_seqlen_q)
    args = (q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
            page_table, cu_seqlens_q, max_q, softmax_scale, bool(causal), left, right,
            _int_arg(attention_chunk or 0, "attention_chunk"), _f32(softcap, "softcap"), bool(rotary_interleaved),
            _splits_arg(num_splits), pack)
    tensors = [t for t in args if isinstance(t, torch.Tensor)]
    if _plain_eager(*tensors):
        out, lse = _kvcache_impl(*args, want_lse=bool(return_softmax_lse))
    else:
        # Forward only: under autograd the op runs without recording (a backward through
        # the result finds nothing to differentiate and says so).
        with torch.no_grad():
            if k is None:  # no k: args[3:7] (k, v, rotary) and args[19] (rotary_interleaved) are unused
                out, lse = _kvcache_read(*args[:3], *args[7:19], *args[20:])
            else:
                out, lse = _kvcache(*args)
    return (out, lse) if return_softmax_lse else out


def _combine_view(t: torch.Tensor, name: str) -> tuple:
    """A (num_splits, ...) tensor as the C ABI's per-split view: split 0's fields (the
    leading dimension dropped) and the split stride."""
    r = t.dim() - 1
    pad = _PAD[r]
    return (t.data_ptr(), _dtype_code(t.dtype, f"{name}.dtype"), r, *t.shape[1:], *pad, *t.stride()[1:], *pad), \
        t.stride(0)


def _combine_impl(out_partial: torch.Tensor, lse_partial: torch.Tensor, out_dtype: Optional[torch.dtype],
                  out_buffer: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    op, lp = _tensor(out_partial, "out_partial"), _tensor(lse_partial, "lse_partial")
    if op.dim() != 5:
        raise ValueError(f"out_partial: must be (num_splits, batch, seqlen, nheads, headdim), got shape {tuple(op.shape)}")
    if lp.dim() != 4:
        raise ValueError(f"lse_partial: must be (num_splits, batch, seqlen, nheads), got shape {tuple(lp.shape)}")
    index = _device_of(("out_partial", "lse_partial"), op, lp)
    splits, b, s, h, d = op.shape
    if tuple(lp.shape) != (splits, b, s, h):  # the C ABI takes one split count: checked here
        raise _lib.WarpspecArgumentError(f"invalid argument: lse_partial.shape: must be (num_splits, batch, seqlen, "
                                         f"nheads) = {(splits, b, s, h)} (out_partial's), got {tuple(lp.shape)}",
                                         _lib.INVALID_ARGUMENT)
    out_dtype = op.dtype if out_dtype is None else out_dtype
    if out_buffer is not None:
        _check_out(out_buffer, (b, s, h, d), out_dtype, op)
    lib = _lib.library()
    # The kernel reads float4 columns: a head_dim that is not a multiple of 4 runs padded
    # (as FlashAttention-3 does), as do views it cannot address (an odd offset or stride).
    dp = (d + 3) // 4 * 4
    if dp != d:
        op = torch.nn.functional.pad(op, (0, dp - d))
    elif op.stride(-1) != 1 or op.data_ptr() % 16 or any(x % 4 for x in op.stride()[:-1]):
        op = _fresh_contiguous(op)
    if lp.data_ptr() % 4:
        lp = _fresh_contiguous(lp)
    direct = out_buffer is not None and dp == d and out_buffer.stride(-1) == 1 and out_buffer.data_ptr() % 16 == 0 \
        and all(x % 4 == 0 for x in out_buffer.stride()[:-1])
    out = out_buffer if direct else torch.empty((b, s, h, dp), dtype=out_dtype, device=op.device)
    lse = torch.empty((b, h, s), dtype=torch.float32, device=op.device)
    (opf, op_stride), (lpf, lp_stride) = _combine_view(op, "out_partial"), _combine_view(lp, "lse_partial")
    packed = _COMBINE_PACK(_COMBINE_SIZE, *opf, splits, op_stride, *lpf, lp_stride, *_fields(out, "out"),
                           *_fields(lse, "lse"))
    status = _call(lib.serving("attention_combine"), packed, index)
    if status != _lib.OK:
        raise lib.error(status)
    if dp != d:
        out = out[..., :d]
        if out_buffer is None:  # a new result is contiguous, as the fake's (even when empty)
            out = out.clone(memory_format=torch.contiguous_format)
    if out_buffer is not None and out is not out_buffer:
        out_buffer.copy_(out)
        out = out_buffer
    # FlashAttention-3 returns the LSE as (batch, seqlen, nheads), a transposed view.
    return out, lse.transpose(1, 2)


def _combine_op_impl(out_partial, lse_partial, out_dtype):
    out, lse = _combine_impl(out_partial, lse_partial, out_dtype)
    return (out if out.is_contiguous() else out.contiguous()), lse


def _combine_fake(out_partial, lse_partial, out_dtype):
    _, b, s, h, d = out_partial.shape
    out = out_partial.new_empty((b, s, h, d), dtype=out_partial.dtype if out_dtype is None else out_dtype)
    return out, out_partial.new_empty((b, h, s), dtype=torch.float32).transpose(1, 2)


def _combine_out_impl(out_partial, lse_partial, out):
    return _combine_impl(out_partial, lse_partial, out.dtype, out)[1]


def _combine_out_fake(out_partial, lse_partial, out):
    _, b, s, h, _ = out_partial.shape
    return out_partial.new_empty((b, h, s), dtype=torch.float32).transpose(1, 2)


_combine = _register("flash_attn_combine",
                     "(Tensor out_partial, Tensor lse_partial, ScalarType? out_dtype) -> (Tensor, Tensor)",
                     _combine_op_impl, _combine_fake)
_combine_out = _register("flash_attn_combine_out", "(Tensor out_partial, Tensor lse_partial, Tensor(a!) out) -> Tensor",
                         _combine_out_impl, _combine_out_fake, mutates=("out",))


def flash_attn_combine(out_partial, lse_partial, out=None, out_dtype=None):
    """FlashAttention-3's flash_attn_combine: merge split-KV partials (or attention over
    disjoint key sets, e.g. from several devices) by their log-sum-exps:
      lse = log sum_s exp(lse_partial[s]),  out = sum_s exp(lse_partial[s] - lse) * out_partial[s].
    out_partial: float32 (num_splits, batch, seqlen, nheads, headdim); lse_partial: float32
    (num_splits, batch, seqlen, nheads), natural log; num_splits 1 to 128. A split whose
    lse is -inf (it saw no key) adds nothing; all -inf gives out = 0, lse = -inf; NaN
    propagates. Summed in split order: deterministic. out_dtype: float32 (the default, as
    FA3), bfloat16 or float16; out=: a preallocated (batch, seqlen, nheads, headdim) result.
    Returns (out, softmax_lse), softmax_lse (batch, seqlen, nheads) float32 as FA3's."""
    _require_tensors(("out_partial", out_partial), ("lse_partial", lse_partial), ("out", out, True))
    if out is not None:
        if out_dtype is not None and out_dtype != out.dtype:
            raise ValueError(f"out: must have out_dtype {out_dtype}, got {out.dtype}")
        if _plain_eager(out_partial, lse_partial, out):
            return _combine_impl(out_partial, lse_partial, out.dtype, out)
        with torch.no_grad():
            return out, _combine_out(out_partial, lse_partial, out)
    if _plain_eager(out_partial, lse_partial):
        return _combine_impl(out_partial, lse_partial, out_dtype)
    if _needs_grad(out_partial, lse_partial):
        return _ForwardOnly.apply("flash_attn_combine", _combine, out_partial, lse_partial, out_dtype)
    return _combine(out_partial, lse_partial, out_dtype)


# ------------------------------------------------------------------ introspection

# describe_* pack the first version of the args structs, with struct_size saying so: the
# library reads a shorter (older) struct as it was, defaulting whatever later versions
# append, so these keep working, unchanged, as fields are added to the structs.
_GEMM_V1 = struct.Struct("<Q" + _lib.TENSOR_FORMAT * 4 + "ffiiiI")
_ATTENTION_V1 = struct.Struct("<Q" + _lib.TENSOR_FORMAT * 5 + "fiII")


def describe_gemm(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor] = None, alpha: float = 1.0,
                  beta: float = 0.0, out_dtype: Optional[torch.dtype] = None) -> str:
    """The configuration warpspec.gemm(a, b, c, alpha, beta, out_dtype) picks, without
    running it: one line of key=value words (the kernel tile, stages, cluster, raster
    order, swizzle, tiles, grid), the line WARPSPEC_LOG_CONFIG=1 prints at the launch.
    Refuses what gemm refuses. For views gemm computes through aligned copies, the
    line is the copies' call. Allocates an output-sized buffer; reads no data."""
    a, b, c = _tensor(a, "a"), _tensor(b, "b"), _tensor(c, "c", optional=True)
    alpha, beta = _f32(alpha, "alpha"), _f32(beta, "beta")
    index = _device_of(_GEMM_NAMES, a, b) if c is None else _device_of(_GEMM_NAMES, a, b, c)
    out_dtype = a.dtype if out_dtype is None else out_dtype
    _dtype_code(out_dtype, "out_dtype")  # as gemm: named before anything is allocated
    d = torch.empty(_gemm_shape(a, b), dtype=out_dtype, device=a.device)

    def line(a, b, c, d):
        fc = _fields(c, "c") if c is not None else _lib.NULL_TENSOR
        packed = _GEMM_V1.pack(_GEMM_V1.size, *_fields(a, "a"), *_fields(b, "b"), *fc, *_fields(d, "d"), alpha,
                               beta, 0, 0, 0, 0)
        with torch.cuda.device(index):
            return _lib.describe("gemm", packed)

    try:
        return line(a, b, c, d)
    except _lib.WarpspecError as e:  # gemm's copy path, as _gemm_impl decides it
        if not (e.code == _lib.MISALIGNED or ("stride" in str(e) and e.code in (_lib.INVALID_ARGUMENT,
                                                                                  _lib.UNSUPPORTED)
                                              and ": d." not in str(e))):
            raise
        c2 = _aligned_empty(c) if c is not None and beta != 0.0 else None
        # b's copy in the layout gemm's takes (_aligned with keep_major), not its data.
        b2 = (_aligned_empty(b.transpose(-1, -2)).transpose(-1, -2) if _copies_column_major(b)
              else _aligned_empty(b))
        return line(_aligned_empty(a), b2, c2, _aligned_empty(d))


def describe_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softmax_scale: Optional[float] = None,
                       causal: bool = False, *, pack_gqa=None) -> str:
    """The configuration flash_attn_func(q, k, v, softmax_scale, causal, pack_gqa=pack_gqa)
    picks, without running it: one line of key=value words (the head-dim kernel it runs
    on, its key block and stages, the tile order, tiles, grid; pack_gqa=g when it packs),
    the line WARPSPEC_LOG_CONFIG=1 prints at the launch. Refuses what flash_attn_func
    refuses. Allocates output-sized buffers; reads no data."""
    q, k, v = _tensor(q, "q"), _tensor(k, "k"), _tensor(v, "v")
    flags = _pack_gqa_flags(_pack_gqa_arg(pack_gqa))
    scale = 0.0
    if softmax_scale is not None:  # 0 means "default" in the C ABI: refuse it here, as flash_attn_func does
        scale = _f32(softmax_scale, "softmax_scale")
        if not (_F32_PACK.unpack(_F32_PACK.pack(scale))[0] > 0.0) or scale == float("inf"):
            raise _lib.WarpspecArgumentError(f"invalid argument: softmax_scale: must be positive and finite in "
                                             f"float32, got {softmax_scale!r}", _lib.INVALID_ARGUMENT)
    index = _device_of(_ATTENTION_NAMES, q, k, v)
    out_shape, lse_shape = _attention_shapes(q, False)
    q, k, v = _contiguous_last(q), _contiguous_last(k), _contiguous_last(v)
    out = torch.empty(out_shape, dtype=_attention_out_dtype(q.dtype), device=q.device)  # bf16 for e4m3
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)

    def line(q, k, v):
        packed = _ATTENTION_V1.pack(_ATTENTION_V1.size, *_fields(q, "q"), *_fields(k, "k"), *_fields(v, "v"),
                                    *_fields(out, "out"), *_fields(lse, "softmax_lse"), scale, 1 if causal else 0,
                                    flags, 0)
        with torch.cuda.device(index):
            return _lib.describe("attention", packed)

    try:
        return line(q, k, v)
    except _lib.WarpspecError as e:  # flash_attn_func's copy path: contiguous buffers (not read)
        if e.code != _lib.MISALIGNED:
            raise
        return line(*(torch.empty(t.shape, dtype=t.dtype, device=t.device) for t in (q, k, v)))
