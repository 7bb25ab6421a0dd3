#!/usr/bin/env python3
"""Host cost of one call, layer by layer: where the µs of a warpspec.gemm /
warpspec.flash_attn_func call go, against torch.matmul / SDPA in the same process.

Each row times N back-to-back calls of a tiny problem (the kernel is a few µs, so the
host is what is measured) with time.perf_counter: `host` is the time until the last
call returned divided by N (the launch queue never fills: N stays small), `total`
adds torch.cuda.synchronize(). Median of several rounds.

Layers, outermost first:
  public          warpspec.gemm(...)            what users call (eager fast path)
  torch.ops       torch.ops.warpspec.gemm       the registered op (define/impl), as
                                                torch.compile's graphs call it
  impl            ops._gemm_impl(...)           allocation, packing, the library call
  C call          the library's warpspec_gemm on pre-packed args (C++: prepare +
                  3-4 tensor-map encodes + launch) through ctypes
  C check         warpspec_gemm_check: C++ prepare only, no launch
and, for the record, the binding as it was before (ctypes.Structure filled per call,
torch.cuda.device + torch.cuda.current_stream() objects, torch.library.custom_op).

    WARPSPEC_LIBRARY=build/libwarpspec.so PYTHONPATH=python python3 bench/gemm_host_overhead.py
"""

import argparse
import ctypes
import statistics
import time
from typing import Optional

import torch
import torch.nn.functional as F

import warpspec
from warpspec import _lib, ops


def per_call_us(fn, n, rounds):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    host, total = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        host.append((t1 - t0) / n * 1e6)
        total.append((t2 - t0) / n * 1e6)
    return statistics.median(host), statistics.median(total)


# ------------------------------------------------------------------ the binding before this change


def _old_gemm_impl(a, b, c, alpha, beta, out_dtype):
    """The per-call path as it was: a ctypes.Structure filled field by field, a
    torch.cuda.device context, a torch.cuda.Stream object for the stream."""
    named = [("a", a), ("b", b)] + ([("c", c)] if c is not None else [])
    for name, t in named:
        if t.device.type != "cuda" or t.device != a.device:
            raise ValueError(name)
    shape = ops._gemm_shape(a, b)
    out_dtype = a.dtype if out_dtype is None else out_dtype
    args = _lib.gemm_args()
    args.alpha = alpha
    args.beta = beta
    args.a = ops._view(a, "a")
    args.b = ops._view(b, "b")
    if c is not None:
        args.c = ops._view(c, "c")
    ops._dtype_code(out_dtype, "out_dtype")
    lib = _lib.library()
    with torch.cuda.device(a.device):
        d = torch.empty(shape, dtype=out_dtype, device=a.device)
        args.d = ops._view(d, "d")
        lib.gemm(args, torch.cuda.current_stream(a.device).cuda_stream)
    return d


def _register_custom_ops():
    @torch.library.custom_op("warpspec_bench::old_gemm", mutates_args=())
    def old_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
               out_dtype: Optional[torch.dtype]) -> torch.Tensor:
        return _old_gemm_impl(a, b, c, alpha, beta, out_dtype)

    @torch.library.custom_op("warpspec_bench::custom_op_gemm", mutates_args=())
    def new_impl_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
                    out_dtype: Optional[torch.dtype]) -> torch.Tensor:
        return ops._gemm_impl(a, b, c, alpha, beta, out_dtype)

    return torch.ops.warpspec_bench.old_gemm.default, torch.ops.warpspec_bench.custom_op_gemm.default


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=300, help="calls per round (stay below the launch queue's depth)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--size", type=int, default=64, help="M = N = K of the tiny GEMM")
    args = p.parse_args()
    n, rounds = args.n, args.rounds

    lib = _lib.library()
    dev = torch.cuda.current_device()
    s = args.size
    a = torch.randn(s, s, device="cuda").to(torch.bfloat16)
    b = torch.randn(s, s, device="cuda").to(torch.bfloat16)
    d = torch.empty(s, s, device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.current_stream().cuda_stream
    # The fields past version 1's: decomposition, splits, workspace, its bytes, scale_a,
    # scale_b, bias, activation, bias_per_row, fast accumulation, scaling (version 3);
    # cluster_m, cluster_n (4); schedule, reserved5 (5); scale_result, amax (6).
    tail = (0, 0, 0, 0, *_lib.NULL_TENSOR, *_lib.NULL_TENSOR, *_lib.NULL_TENSOR, 0, 0, 0, 0, 0, 0, 0, 0,
            *_lib.NULL_TENSOR, *_lib.NULL_TENSOR)
    packed = _lib.GEMM_FORMAT.pack(_lib.GEMM_FORMAT.size, *ops._fields(a, "a"), *ops._fields(b, "b"),
                                   *_lib.NULL_TENSOR, *ops._fields(d, "d"), 1.0, 0.0, 0, 0, 0, 0, *tail)
    cargs = _lib.gemm_args()
    cargs.a, cargs.b, cargs.d = ops._view(a, "a"), ops._view(b, "b"), ops._view(d, "d")
    check_fn = lib._cdll.warpspec_gemm_check
    cargs_ref = ctypes.byref(cargs)
    old_op, custom_op_new = _register_custom_ops()

    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, warpspec {warpspec.library_version()}; "
          f"{s}x{s}x{s} bf16, {n} calls x {rounds} rounds, median; µs per call")
    print(f"{'what':<58} {'host':>8} {'total':>8}")
    rows = [
        ("torch.matmul", lambda: torch.matmul(a, b)),
        ("warpspec.gemm (public: eager fast path)", lambda: warpspec.gemm(a, b)),
        ("torch.ops.warpspec.gemm (define/impl op)", lambda: ops._gemm(a, b, None, 1.0, 0.0, None)),
        ("ops._gemm_impl (alloc + pack + C call)", lambda: ops._gemm_impl(a, b, None, 1.0, 0.0, None)),
        ("C call: warpspec_gemm on pre-packed args (C++ side)", lambda: lib._gemm_packed(packed, stream)),
        ("C check: warpspec_gemm_check (C++ prepare, no launch)", lambda: check_fn(cargs_ref)),
        ("new impl under torch.library.custom_op", lambda: custom_op_new(a, b, None, 1.0, 0.0, None)),
        ("before: old impl (ctypes.Structure, device ctx, Stream)", lambda: _old_gemm_impl(a, b, None, 1.0, 0.0, None)),
        ("before: old impl under custom_op (the old warpspec.gemm)", lambda: old_op(a, b, None, 1.0, 0.0, None)),
        # pieces
        ("  piece: struct.pack of the args", lambda: _lib.GEMM_FORMAT.pack(
            _lib.GEMM_FORMAT.size, *ops._fields(a, "a"), *ops._fields(b, "b"), *_lib.NULL_TENSOR,
            *ops._fields(d, "d"), 1.0, 0.0, 0, 0, 0, 0, *tail)),
        ("  piece: ctypes.Structure args (old)", lambda: (_lib.gemm_args(), ops._view(a, "a"), ops._view(b, "b"),
                                                          ops._view(d, "d"))),
        ("  piece: torch.empty output", lambda: torch.empty((s, s), dtype=torch.bfloat16, device=a.device)),
        ("  piece: raw current stream", lambda: ops._raw_stream(dev)),
        ("  piece: torch.cuda.current_stream(dev).cuda_stream", lambda: torch.cuda.current_stream(a.device).cuda_stream),
        ("  piece: with torch.cuda.device(dev)", lambda: torch.cuda.device(a.device).__enter__() or None),
        ("  piece: _plain_eager check", lambda: ops._plain_eager(a, b, None)),
    ]
    # The device piece leaves nothing behind: entering a context for the current device.
    for what, fn in rows:
        if what.endswith("with torch.cuda.device(dev)"):
            def fn(dev_obj=a.device):  # noqa: E731 - enter and exit, as `with` does
                ctx = torch.cuda.device(dev_obj)
                ctx.__enter__()
                ctx.__exit__(None, None, None)
        host, total = per_call_us(fn, n, rounds)
        print(f"{what:<58} {host:>8.2f} {total:>8.2f}", flush=True)

    # Attention: the same for flash_attn_func on a tiny problem.
    q = torch.randn(1, 128, 8, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 128, 8, 64, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 128, 8, 64, device="cuda", dtype=torch.bfloat16)
    o = torch.empty_like(q)
    lse = torch.empty(1, 8, 128, device="cuda")
    apacked = ops._ATTENTION_V1.pack(ops._ATTENTION_V1.size, *ops._fields(q, "q"), *ops._fields(k, "k"),
                                         *ops._fields(v, "v"), *ops._fields(o, "o"), *ops._fields(lse, "lse"),
                                         0.0, 0, 0, 0)
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    print(f"\n# attention (1, 128, 8, 64) bf16")
    for what, fn in [
        ("F.scaled_dot_product_attention (default backend)", lambda: F.scaled_dot_product_attention(qt, kt, vt)),
        ("warpspec.flash_attn_func (public)", lambda: warpspec.flash_attn_func(q, k, v)),
        ("torch.ops.warpspec.flash_attn_forward", lambda: ops._attention(q, k, v, None, False, -1, -1, 0.0, None, None, None, None, None,
                                                                  0, 0)),
        ("C call: warpspec_attention on pre-packed args", lambda: lib._attention_packed(apacked, stream)),
    ]:
        host, total = per_call_us(fn, n, rounds)
        print(f"{what:<58} {host:>8.2f} {total:>8.2f}", flush=True)

    # A decode step: flash_attn_with_kvcache over a 1 x 8192 cache, 32 / 8 heads, d 128
    # (split-KV: the attention and the combine; the lengths on the GPU).
    qd = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    kd = torch.randn(1, 8192, 8, 128, device="cuda", dtype=torch.bfloat16)
    vd = torch.randn(1, 8192, 8, 128, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((1,), 8192, dtype=torch.int32, device="cuda")
    print(f"\n# decode: flash_attn_with_kvcache, q (1, 1, 32, 128), cache (1, 8192, 8, 128) bf16")
    for what, fn in [
        ("warpspec.flash_attn_with_kvcache (num_splits=0)", lambda: warpspec.flash_attn_with_kvcache(
            qd, kd, vd, cache_seqlens=lens)),
        ("warpspec.flash_attn_with_kvcache (num_splits=1)", lambda: warpspec.flash_attn_with_kvcache(
            qd, kd, vd, cache_seqlens=lens, num_splits=1)),
        ("  piece: torch.zeros(2) (a tile counter)", lambda: torch.zeros(2, dtype=torch.int32, device="cuda")),
    ]:
        host, total = per_call_us(fn, min(n, 150), rounds)
        print(f"{what:<58} {host:>8.2f} {total:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
