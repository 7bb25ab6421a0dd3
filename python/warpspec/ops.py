"""PyTorch ops over the C ABI: registered with torch.library under the "warpspec"
namespace, each with a fake (meta) implementation so torch.compile traces them.

Each op allocates its output with torch, then makes one library call on
torch.cuda.current_stream(): no other allocation, no synchronisation, so the ops are
CUDA-graph capturable. Inputs are passed as torch's strided views, strides and all;
the library decides what it can run and refuses the rest with a message.
"""

from typing import Optional

import torch

from . import _lib

_DTYPES = {
    torch.bfloat16: _lib.DTYPE_BF16,
    torch.float16: _lib.DTYPE_FP16,
    torch.float32: _lib.DTYPE_FP32,
}
for _name, _code in (("float8_e4m3fn", _lib.DTYPE_E4M3), ("float8_e5m2", _lib.DTYPE_E5M2)):
    if hasattr(torch, _name):  # fp8 dtypes arrived in torch 2.1
        _DTYPES[getattr(torch, _name)] = _code


def _dtype_code(dtype: torch.dtype, what: str) -> int:
    code = _DTYPES.get(dtype)
    if code is None:
        raise ValueError(f"{what}: {dtype} has no warpspec equivalent "
                         f"(warpspec knows {', '.join(str(d) for d in _DTYPES)})")
    return code


def _view(t: torch.Tensor, name: str) -> _lib.Tensor:
    """torch's view as it is: data pointer (storage offset included), sizes, strides."""
    return _lib.tensor(t.data_ptr(), _dtype_code(t.dtype, f"{name}.dtype"), t.shape, t.stride())


def _check_cuda(named) -> None:
    first_name, first = named[0]
    for name, t in named:
        if t.device.type != "cuda":
            raise ValueError(f"{name}: must be a CUDA tensor, got one on {t.device}")
        if t.device != first.device:
            raise ValueError(f"{name}: is on {t.device} but {first_name} is on {first.device}; "
                             "all operands must be on one GPU")


# ------------------------------------------------------------------ GEMM


def _gemm_shape(a: torch.Tensor, b: torch.Tensor):
    """D's shape: (M, N) for two matrices, else (L, M, N) with L broadcast from
    a's and b's batches (1 broadcasts)."""
    if a.dim() not in (2, 3):
        raise ValueError(f"a: must be (M, K) or (L, M, K), got shape {tuple(a.shape)}")
    if b.dim() not in (2, 3):
        raise ValueError(f"b: must be (K, N) or (L, K, N), got shape {tuple(b.shape)}")
    m, n = a.shape[-2], b.shape[-1]
    if a.dim() == 2 and b.dim() == 2:
        return (m, n)
    la = a.shape[0] if a.dim() == 3 else 1
    lb = b.shape[0] if b.dim() == 3 else 1
    if la != lb and la != 1 and lb != 1:
        raise ValueError(f"a, b: batch sizes {la} and {lb} do not broadcast (each must be 1 or the same)")
    return (lb if la == 1 else la, m, n)


def _gemm_impl(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
               out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    named = [("a", a), ("b", b)] + ([("c", c)] if c is not None else [])
    _check_cuda(named)
    shape = _gemm_shape(a, b)
    out_dtype = a.dtype if out_dtype is None else out_dtype
    args = _lib.gemm_args()
    args.alpha = alpha
    args.beta = beta
    args.a = _view(a, "a")
    args.b = _view(b, "b")
    if c is not None:
        args.c = _view(c, "c")
    _dtype_code(out_dtype, "out_dtype")
    lib = _lib.library()  # a missing library is reported before anything is allocated
    with torch.cuda.device(a.device):
        d = torch.empty(shape, dtype=out_dtype, device=a.device)
        if d.numel() == 0:  # M or N or L is 0: nothing to compute (torch.matmul's answer)
            return d
        args.d = _view(d, "d")
        try:
            lib.gemm(args, torch.cuda.current_stream(a.device).cuda_stream)
        except _lib.WarpspecError as e:
            if ": d." in str(e):
                # The user never named d: say what it is.
                raise type(e)(f"{e} (d is the output: a new contiguous {tuple(shape)} {out_dtype} tensor, "
                              "so N times its element size must be a multiple of 16 bytes)", e.code) from None
            raise
    return d


def _gemm_fake(a, b, c, alpha, beta, out_dtype):
    return a.new_empty(_gemm_shape(a, b), dtype=a.dtype if out_dtype is None else out_dtype)


if hasattr(torch.library, "custom_op"):  # torch >= 2.4

    @torch.library.custom_op("warpspec::gemm", mutates_args=())
    def _gemm_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
                 out_dtype: Optional[torch.dtype]) -> torch.Tensor:
        return _gemm_impl(a, b, c, alpha, beta, out_dtype)

    _gemm_op.register_fake(_gemm_fake)
    _gemm = torch.ops.warpspec.gemm.default
else:  # older torch: eager only (no torch.compile tracing)
    _gemm = _gemm_impl


def gemm(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor] = None, alpha: float = 1.0,
         beta: float = 0.0, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """D = alpha * (a @ b) + beta * c, on torch.cuda.current_stream().

    a: (M, K) or (L, M, K); b: (K, N) or (L, K, N); bfloat16 or float16, the same.
    Any view with a unit stride in one of its last two dims works without a copy
    (b = w.t() included) when its data and leading dimension are 16-byte aligned; a
    batch of 1, a 2-D operand, or a batch stride of 0 (expand) broadcasts.
    c: (M, N) or (L, M, N) of out_dtype, row-major; read only when beta != 0.
    out_dtype: a's dtype (default) or torch.float32.

    Returns a new contiguous (M, N) or (L, M, N) tensor. Input the library cannot
    take raises ValueError (a warpspec.WarpspecArgumentError) with its message; a
    missing or non-Hopper GPU raises RuntimeError (warpspec.WarpspecError). Nothing
    is launched when refused.
    """
    return _gemm(a, b, c, float(alpha), float(beta), out_dtype)


# TODO(attention): flash_attn_func(q, k, v, softmax_scale=None, causal=False,
# return_attn_probs=False), FlashAttention-3's names and return convention, once the
# C++ attention API and its C ABI entry (warpspec_attention_args) land.
