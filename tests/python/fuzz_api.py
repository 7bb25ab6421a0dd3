"""Randomized, seeded fuzz of warpspec's public Python API against PyTorch, as a user
from outside the repository checks it.

run_case(family, seed) draws ONE random case of a family from a seed, runs it through
warpspec and through a PyTorch reference, and raises AssertionError with a one-line,
reproducible description (the seed and every drawn parameter) on a mismatch. Families:

  gemm       warpspec.gemm: shapes from 1 to thousands (odd K and N), bf16/fp16,
             out_dtype, the four A/B layouts, padded/offset/strided views,
             batches with broadcast, alpha/beta/C, bias/activation, out=
  scaled_mm  warpspec.scaled_mm (torch._scaled_mm's meaning): e4m3 and
             e4m3 x e5m2, tensor-, row- and block-wise scales, bias, out_dtype,
             use_fast_accum; float64 reference, and torch._scaled_mm where it
             accepts the case
  attention  warpspec.flash_attn_func: GQA, head dims 8..256, causal, windows,
             softcap, sinks, chunks, split-KV, pack-GQA, views, out=, LSE
  varlen     warpspec.flash_attn_varlen_func: ragged batches with empty and
             length-1 sequences, seqused, dense sides
  kvcache    warpspec.flash_attn_with_kvcache: dense or paged caches, appends,
             rotary, cache_batch_idx, left pads
  bad        a valid call with one thing broken: the documented exception type,
             a message naming the argument, out= (or the cache) left untouched;
             for describe_gemm / describe_attention, the call's own exception and message
  combine    warpspec.flash_attn_combine: 1..128 splits, head dims not a multiple of
             4 or 8, out_dtype, strided / odd-offset / split-stride-0 partials, FA3's
             (splits, b, h, s) LSE layout, -inf splits and rows, NaN, LSEs far from 0,
             out=; test_kvcache.combine_ref's logsumexp merge in float64
  fp8_gemm   warpspec.gemm_fp8_fp8_bf16_nt (DeepGEMM's convention): small shapes,
             M- or K-major a_scales, out= views; float64 reference, and bit-equal to
             scaled_mm with the same block scales
  describe   describe_gemm / describe_attention on a valid gemm / attention case:
             one line, no exception, and the call itself runs
  attention_fp8  warpspec.flash_attn_func on e4m3 q, k, v: head dims 64/128/256, GQA,
             causal, per-(batch, kv head) descales given or absent, softmax_scale,
             padded views, out=, LSE; test_attention_fp8's bounds against a float32
             reference of the dequantised inputs

Drawing a case is pure Python (random.Random), so `--dry-run` lists cases without torch.
The references and tolerances are the existing tests' (test_attention.check,
test_kvcache.Case / check_out, test_scaled_mm.check, testing/gemm_check.hpp's element
tolerance), imported from those modules.

    python3 tests/python/fuzz_api.py --cases N --seed S [--family gemm|scaled_mm|attention|varlen|kvcache|bad|
                                                                  combine|fp8_gemm|describe|attention_fp8]

runs N cases per family (seeds S .. S+N-1), prints each failure's line and a summary line
per family, and exits 1 if any case failed (77, ctest's skip code, without a Hopper GPU).
`--family bad --corruption gemm:a_fp32` (or `--all-corruptions`) runs chosen corruptions;
`--dry-run` prints the drawn cases only. tests/python/test_fuzz_api.py runs a fixed list of
seeds per family, and every corruption once, under pytest.
"""

import argparse
import importlib.util
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:  # the helpers live in the test modules beside this file
    sys.path.insert(0, str(HERE))
if "warpspec" not in sys.modules and importlib.util.find_spec("warpspec") is None:  # as conftest.py
    sys.path.insert(0, str(ROOT / "python"))

try:
    import torch
except ImportError:  # drawing cases (and --dry-run) needs no torch
    torch = None

# New families go at the end: a family's salt is its position, so earlier draws stay as they were.
FAMILIES = ("gemm", "scaled_mm", "attention", "varlen", "kvcache", "bad", "combine", "fp8_gemm", "describe",
            "attention_fp8")
_SALT = {name: i + 1 for i, name in enumerate(FAMILIES)}
NAN = float("nan")


class FuzzSkip(Exception):
    """The case cannot run here (no torch, no CUDA, no float8 dtypes in this torch)."""


# ------------------------------------------------------------------ shared drawing helpers


def _kernel_d(d):
    """The head-dim kernel a head dim runs on (64, 128, 192, 256; others padded up)."""
    return 64 if d <= 64 else 128 if d <= 128 else 192 if d <= 192 else 256


def _pow2(g):
    return g >= 1 and g & (g - 1) == 0


def _banded(rng, bands):
    """One draw from bands [(cumulative probability, lo, hi), ...]: uniform in [lo, hi] of
    the band rng.random() falls in (the last band's probability is not read; lo == hi
    draws nothing more)."""
    r = rng.random()
    for p, lo, hi in bands[:-1]:
        if r < p:
            return lo if lo == hi else rng.randint(lo, hi)
    _, lo, hi = bands[-1]
    return lo if lo == hi else rng.randint(lo, hi)


def _extent(rng, top=4000):
    """A GEMM extent: 1..8, 1..300 (odd sizes), hundreds, or thousands."""
    return _banded(rng, [(0.12, 1, 8), (0.60, 1, 300), (0.90, 301, 1500), (1.0, 1501, top)])


def _seqlen(rng, top=1500):
    return _banded(rng, [(0.10, 1, 1), (0.35, 1, 64), (0.75, 65, 512), (1.0, 513, top)])


def _heads(rng, top=32):
    hk = rng.choice([1, 1, 2, 2, 3, 4, 8])
    g = rng.choice([1, 1, 2, 3, 4, 5, 8, 16])
    while hk * g > top:
        g = max(1, g // 2)
    return hk * g, hk


def _window(rng, sk):
    if rng.random() < 0.65:
        return (-1, -1)
    span = max(sk, 1)
    return (rng.choice([-1, rng.randint(0, span), rng.randint(0, 64)]),
            rng.choice([-1, rng.randint(0, span), rng.randint(0, 16)]))


def _attention_options(rng, p, sk):
    """The masking/scheduling arguments flash_attn_func and flash_attn_varlen_func share,
    drawn inside what the API documents as supported."""
    kd = _kernel_d(p["d"])
    g = p["h"] // p["hk"]
    p["causal"] = rng.random() < 0.4
    p["window"] = _window(rng, sk)
    # The softcap's tanh is the hardware's approximate one (relative error ~2^-11 of the
    # capped score, python/README.md): with a softcap the scores stay unit-sized (the default
    # scale), so that the FA3 tolerance bounds the kernel's error in fp16 too.
    p["softcap"] = 0.0 if rng.random() < 0.8 else round(rng.uniform(1.0, 50.0), 3)
    if p["softcap"] == 0.0 and rng.random() < 0.3:
        p["softmax_scale"] = round(rng.uniform(0.02, 1.0), 4)
    else:
        p["softmax_scale"] = None
    p["sink"] = rng.random() < 0.15
    p["chunk"] = rng.choice([1, 7, 64, 100, 128, 333]) if kd <= 192 and rng.random() < 0.12 else 0
    r = rng.random()
    if kd > 192:  # head dim 256's kernel does not split (1 or 0 only)
        p["num_splits"] = 0 if r < 0.2 else 1
    else:
        p["num_splits"] = 1 if r < 0.6 else 0 if r < 0.7 else rng.randint(2, 16)
    can_pack = g == 1 or (_pow2(g) and g <= 16 and kd <= 192)
    r = rng.random()
    p["pack_gqa"] = None if r < 0.6 else False if r < 0.8 or not can_pack else True
    p["deterministic"] = rng.random() < 0.2
    p["return_lse"] = rng.random() < 0.7


# ------------------------------------------------------------------ drawing: one per family

_BATCH_MODES = ("full", "2d", "one", "expand", "every_other")
_ACTIVATIONS = (None, "relu", "gelu", "gelu_tanh", "silu")


def draw_gemm(rng):
    p = {"dtype": rng.choice(["bf16", "fp16"])}
    fused = rng.random() < 0.25  # bias and/or activation: the fused-epilogue kernels
    batched = rng.random() < 0.35
    p["L"] = rng.randint(1, 5) if batched else 1
    p["a_batch"] = rng.choice(_BATCH_MODES) if batched else "2d"
    p["b_batch"] = rng.choice(_BATCH_MODES) if batched else "2d"
    res3d = not (p["a_batch"] == "2d" and p["b_batch"] == "2d")
    one = ("2d", "one")
    lr = 1 if (p["a_batch"] in one and p["b_batch"] in one) else p["L"]
    m, n, k = _extent(rng), _extent(rng), _extent(rng, top=6000)
    r = rng.random()
    if not fused and r < 0.03:
        k = 0  # D = beta * C (zeros when beta == 0), as torch.addmm
    elif r < 0.05:
        m = 0
    elif r < 0.07:
        n = 0
    while m * n * lr > 6_000_000 or m * n * k * lr > 3_000_000_000:  # ~50 ms of GPU work at most
        if m >= n and m >= k:
            m //= 2
        elif n >= k:
            n //= 2
        else:
            k //= 2
    p["M"], p["N"], p["K"] = m, n, k
    if fused:
        p["a_col"] = rng.random() < 0.1  # documented as refused; the binding may copy (either is accepted)
        p["b_col"] = True
    else:
        p["a_col"], p["b_col"] = rng.random() < 0.5, rng.random() < 0.5
    for w in "ab":
        p[w + "_pad"] = 0 if rng.random() < 0.5 else rng.choice([8, 16, 64, rng.randint(1, 23)])
        p[w + "_offset"] = 0 if rng.random() < 0.85 else rng.randint(1, 7)
        p[w + "_step"] = 2 if rng.random() < 0.05 else 1
    p["out_dtype"] = rng.choice(["default", "same"] if fused else ["default", "same", "fp32"])
    p["alpha"] = 1.0 if rng.random() < 0.5 else round(rng.uniform(-2.0, 2.0), 4)
    p["beta"] = 0.0 if rng.random() < 0.55 else (round(rng.uniform(-1.5, 1.5), 4) or 0.5)
    p["c"] = "given" if p["beta"] != 0.0 else ("nan" if rng.random() < 0.15 else "none")
    p["c_batch"] = rng.choice(["2d", "full"]) if (p["c"] != "none" and res3d) else "2d"
    p["c_col"] = p["c"] != "none" and rng.random() < 0.2
    p["c_pad"] = 0 if rng.random() < 0.7 else rng.randint(1, 16)
    p["out"] = rng.choice(["contig", "col", "odd_offset", "strided_rows"]) if rng.random() < 0.3 else "none"
    p["c_is_out"] = (p["beta"] != 0.0 and p["out"] != "none" and (p["c_batch"] == "full" or not res3d)
                     and rng.random() < 0.3)
    if fused:
        p["activation"] = rng.choice(_ACTIVATIONS)
        p["bias"] = rng.choice(["out", "fp32"]) if (rng.random() < 0.75 or p["activation"] is None) else "none"
    else:
        p["activation"], p["bias"] = None, "none"
    return p


def draw_scaled_mm(rng):
    p = {"formats": rng.choices([("e4m3", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "e4m3")], weights=[70, 15, 15])[0]}
    block = p["formats"] == ("e4m3", "e4m3") and rng.random() < 0.18
    p["scaling"] = "block" if block else rng.choice(["tensor", "row"])
    m, n = _extent(rng, top=3000), _extent(rng, top=3000)
    k = 16 * rng.randint(1, 250) if rng.random() < 0.7 else rng.randint(1, 2000)
    while m * n > 5_000_000 or m * n * k > 2_000_000_000:
        if m >= n and m >= k:
            m //= 2
        elif n >= k:
            n //= 2
        else:
            k //= 2
    p["M"], p["N"], p["K"] = m, n, max(k, 1)
    p["tensor_form"] = rng.choice(["0d", "(1,)", "(1,1)"]) if p["scaling"] == "tensor" else None
    p["a_scale_m_major"] = rng.random() < 0.5 if block else None
    p["out_dtype"] = rng.choice(["bf16", "fp16", "fp32"])
    p["fast_accum"] = False if block else rng.random() < 0.5
    bias = rng.random() < 0.4
    p["bias"] = "none" if not bias else ("fp32" if p["out_dtype"] == "fp32" else rng.choice(["out", "fp32"]))
    p["a_col"] = rng.random() < 0.08  # documented as refused; the binding may copy (either is accepted)
    for w in "ab":
        p[w + "_pad"] = 0 if rng.random() < 0.5 else rng.choice([16, 32, rng.randint(1, 31)])
        p[w + "_offset"] = 0 if rng.random() < 0.85 else rng.randint(1, 15)
    r = rng.random()
    p["nan_scale"] = None if (block or r >= 0.08) else ("a_row" if p["scaling"] == "row" else "a_tensor")
    p["negative_scale"] = (not block) and rng.random() < 0.1
    return p


# q/k/v layouts and their weights. A contiguous view at an odd element offset is drawn
# rarely: the binding documents it as computed through a copy, but (as read in ops.py,
# _attention_impl) it retries with t.contiguous(), which is the same misaligned view.
_QKV_LAYOUTS = {"contig": 30, "bhsd": 12, "batch_stride": 12, "headdim_strided": 10, "padded_heads": 15,
                "odd_pad": 10, "odd_offset": 3}
_VARLEN_LAYOUTS = {"contig": 60, "padded_heads": 30, "odd_offset": 3}


def _layouts(rng, table, n=3):
    return "/".join(rng.choices(list(table), weights=list(table.values()))[0] for _ in range(n))


def draw_attention(rng):
    p = {"dtype": rng.choice(["bf16", "fp16"]), "batch": rng.choice([1, 1, 2, 2, 3, 4])}
    p["h"], p["hk"] = _heads(rng)
    p["d"] = 8 * rng.randint(1, 32)
    sq, sk = _seqlen(rng), _seqlen(rng)
    self_attn = rng.random() < 0.3
    if self_attn:
        sk = sq
    r = rng.random()
    if r < 0.02:
        sk = 0  # out = 0, lse = -inf
        self_attn = False
    elif r < 0.04:
        sq = 0
        self_attn = False
    while p["batch"] * p["h"] * sq * max(sk, 1) > 25_000_000 or p["batch"] * p["h"] * sq * sk * p["d"] > 2e9:
        if sq >= sk:
            sq = max(1, sq // 2)
        else:
            sk = max(1, sk // 2)
        if self_attn:
            sk = sq = min(sq, sk)
    p["sq"], p["sk"] = sq, sk
    _attention_options(rng, p, sk)
    if self_attn and rng.random() < 0.5:
        p["layout"] = "packed_qkv"  # q, k, v sliced out of one (b, s, h + 2 hk, d) tensor
    else:
        p["layout"] = _layouts(rng, _QKV_LAYOUTS)  # q/k/v
    p["out"] = rng.choice(["contig", "odd_offset", "padded", "inplace_q"]) if rng.random() < 0.25 else "none"
    if p["out"] == "inplace_q" and (p["layout"] == "packed_qkv" or not p["layout"].startswith("contig/")):
        p["out"] = "contig"  # out may be q only as the very same (here: contiguous) view
    return p


def draw_varlen(rng):
    p = {"dtype": rng.choice(["bf16", "fp16"])}
    p["h"], p["hk"] = _heads(rng, top=16)
    p["d"] = 8 * rng.randint(1, 32)
    b = rng.randint(1, 8)
    p["mode"] = rng.choices(["packed", "packed_q_dense_k", "dense_q_packed_k", "dense"], weights=[65, 20, 10, 5])[0]
    q_packed = p["mode"] in ("packed", "packed_q_dense_k")
    k_packed = p["mode"] in ("packed", "dense_q_packed_k")

    def length():
        return _banded(rng, [(0.08, 0, 0), (0.18, 1, 1), (0.48, 2, 64), (0.85, 65, 400), (1.0, 401, 1200)])

    self_attn = p["mode"] == "packed" and rng.random() < 0.3
    sq = [length() for _ in range(b)] if q_packed else [max(1, length())] * b  # a dense side: one padded length
    sk = list(sq) if self_attn else [length() for _ in range(b)] if k_packed else [max(1, length())] * b
    while sum(p["h"] * x * max(y, 1) for x, y in zip(sq, sk)) > 20_000_000:  # ~50 ms of GPU work
        i = max(range(b), key=lambda j: sq[j] * max(sk[j], 1))
        if self_attn:
            sq[i] //= 2
            sk[i] = sq[i]
        elif sq[i] >= sk[i]:  # a dense side shrinks as a whole
            sq = [x // 2 for x in sq] if not q_packed else sq[:i] + [sq[i] // 2] + sq[i + 1:]
        else:
            sk = [x // 2 for x in sk] if not k_packed else sk[:i] + [sk[i] // 2] + sk[i + 1:]
    p["seqlens_q"], p["seqlens_k"] = sq, sk
    # seqused: only the first rows of each sequence take part (a dense side with
    # seqused_k is how decoding calls it).
    use_q = rng.random() < (0.15 if q_packed else 0.5)
    use_k = rng.random() < (0.15 if k_packed else 0.8)
    p["seqused_q"] = [rng.randint(0, x) for x in sq] if use_q else None
    p["seqused_k"] = [rng.randint(0, x) for x in sk] if use_k else None
    p["max_seqlen_q_extra"] = 0 if rng.random() < 0.7 else rng.randint(1, 100)
    p["max_seqlen_k"] = rng.random() < 0.5
    _attention_options(rng, p, max(sk) if sk else 0)
    if self_attn and rng.random() < 0.5:
        p["layout"] = "packed_qkv"
    else:
        p["layout"] = _layouts(rng, _VARLEN_LAYOUTS)
    p["out"] = rng.choice(["contig", "padded"]) if rng.random() < 0.2 else "none"
    return p


def draw_kvcache(rng):
    p = {"dtype": rng.choice(["bf16", "fp16"]), "batch": rng.randint(1, 4)}
    p["heads_kv"] = rng.choice([1, 2, 4, 8])
    g = rng.choice([1, 2, 3, 4, 8])
    while g * p["heads_kv"] > 32:
        g //= 2
    p["heads"] = g * p["heads_kv"]
    p["d"] = 8 * rng.randint(1, 32)
    p["page"] = None if rng.random() < 0.5 else rng.choice([16, 32, 48, 64, 128, 256])
    p["cache_len"] = rng.randint(16, 600)
    p["new"] = 0 if rng.random() < 0.35 else rng.randint(1, min(8, p["cache_len"]))
    r = rng.random()
    p["rotary"] = None if (p["new"] == 0 or r < 0.6) else (r < 0.8)  # None, or interleaved (bool)
    dense = p["page"] is None
    p["batch_idx"] = dense and rng.random() < 0.2
    p["leftpad"] = dense and rng.random() < 0.2
    if p["rotary"] is not None or (p["new"] and rng.random() < 0.6):
        p["seqlen_q"] = p["new"]  # q: the new tokens (rotary rotates q at their positions)
    else:
        p["seqlen_q"] = rng.randint(1, 16)
    p["causal"] = rng.random() < 0.5
    p["window"] = _window(rng, p["cache_len"])
    kd = _kernel_d(p["d"])
    r = rng.random()
    p["num_splits"] = 0 if r < 0.4 else 1 if (r < 0.7 or kd > 192) else rng.randint(2, 8)
    can_pack = g == 1 or (_pow2(g) and kd <= 192)
    r = rng.random()
    p["pack_gqa"] = None if r < 0.6 else False if r < 0.8 or not can_pack else True
    p["softmax_scale"] = None if rng.random() < 0.7 else round(rng.uniform(0.5, 1.5) / math.sqrt(p["d"]), 5)
    return p


def draw_combine(rng):
    """flash_attn_combine: splits, shapes (head dims that are not a multiple of 4 or 8
    included: the binding pads them), out_dtype, strided / odd-offset views of out_partial
    and lse_partial (FA3's split kernels leave the LSE (splits, batch, heads, seqlen)),
    -inf splits and rows, a NaN, LSEs far from 0, out=."""
    r = rng.random()
    p = {"splits": 1 if r < 0.15 else rng.randint(2, 8) if r < 0.75 else rng.randint(9, 32) if r < 0.95
         else rng.choice([64, 127, 128])}
    p["batch"], p["seqlen"], p["heads"] = rng.randint(1, 4), _seqlen(rng, top=1024), rng.randint(1, 16)
    r = rng.random()
    p["d"] = 8 * rng.randint(1, 32) if r < 0.6 else 4 * rng.randint(1, 64) if r < 0.8 else rng.randint(1, 260)
    while p["splits"] * p["batch"] * p["seqlen"] * p["heads"] * p["d"] > 4_000_000:  # 16 MB of partials at most
        if p["seqlen"] > 1:
            p["seqlen"] //= 2
        elif p["heads"] > 1:
            p["heads"] //= 2
        else:
            p["splits"] = max(1, p["splits"] // 2)
    p["op_layout"] = rng.choices(["contig", "split_strided", "padded_d", "odd_offset", "bhsd", "expand"],
                                 weights=[40, 12, 15, 8, 15, 5])[0]
    p["lp_layout"] = rng.choices(["contig", "bhs", "split_strided", "odd_offset", "expand"],
                                 weights=[40, 30, 12, 8, 5])[0]
    p["lse_scale"] = rng.choice([1.0, 3.0, 3.0, 30.0, 300.0])
    p["lse_shift"] = rng.choice([0.0, 0.0, round(rng.uniform(-200, 200), 2)])
    # An empty batch, seqlen or heads: an empty result (the library returns before the
    # launch for these, attention_combine in src/attention/combine_api.cpp).
    p["empty"] = rng.choice(["batch", "seqlen", "heads"]) if rng.random() < 0.03 else None
    if p["empty"]:
        p[p["empty"]] = 0
    p["neg_inf"] = p["splits"] > 1 and rng.random() < 0.5  # some splits saw no key in some rows
    p["dead_row"] = not p["empty"] and rng.random() < 0.3  # a row no split saw a key of: out = 0, lse = -inf
    p["nan"] = not p["empty"] and rng.random() < 0.1  # one NaN LSE: its row is NaN
    p["out_dtype"] = rng.choice(["none", "fp32", "bf16", "fp16"])
    p["out"] = rng.choice(["contig", "odd_offset", "padded", "strided_rows"]) if rng.random() < 0.3 else "none"
    p["pass_out_dtype"] = p["out"] != "none" and p["out_dtype"] != "none" and rng.random() < 0.5
    return p


def draw_fp8_gemm(rng):
    """gemm_fp8_fp8_bf16_nt (DeepGEMM's convention): small shapes only, K mostly a
    multiple of 16 (odd K goes through copies), a_scales M-major (DeepGEMM's) or K-major,
    an out= view that is contiguous or not."""
    p = {"M": rng.choice([1, rng.randint(1, 64), rng.randint(65, 512)]),
         "N": rng.choice([16 * rng.randint(1, 32), rng.randint(1, 512)]),
         "K": 16 * rng.randint(1, 64) if rng.random() < 0.8 else rng.randint(1, 1024)}
    p["a_scale_m_major"] = rng.random() < 0.6
    p["out"] = rng.choice(["contig", "contig", "odd_offset", "strided_rows"])
    return p


def draw_describe(rng):
    """describe_gemm / describe_attention on a valid gemm / flash_attn_func case, drawn by
    those families and narrowed to the arguments describe takes."""
    api = rng.choice(["gemm", "attention"])
    if api == "gemm":
        p = draw_gemm(rng)
        p.update(bias="none", activation=None, out="none", c_is_out=False)
    else:
        p = draw_attention(rng)
        p.update(window=(-1, -1), softcap=0.0, sink=False, chunk=0, num_splits=1, deterministic=False, out="none")
        if p["d"] > 192 and p["pack_gqa"]:
            p["pack_gqa"] = False
    return {"api": api, **p}


# The bad family: (target, corruption) -> (exception types, any-of substrings the message
# must contain, whether out= may be given, base overrides). Types are names resolved at
# run time ("ValueError" covers warpspec.WarpspecArgumentError).
_V, _T, _N = ("ValueError",), ("TypeError",), ("NotImplementedError",)
CORRUPTIONS = {
    "gemm": {
        "a_fp32": (_V, ["a.dtype"], True, {}),
        "a_int": (_V, ["a.dtype"], True, {}),
        "b_other_dtype": (_V, ["b.dtype"], True, {}),
        "a_cpu": (_V, ["a: must be a CUDA tensor"], True, {}),
        "b_cpu": (_V, ["b: must be a CUDA tensor"], True, {}),
        "c_cpu": (_V, ["c: must be a CUDA tensor"], True, {}),
        "out_cpu": (_V, ["out:"], True, {"with_out": True}),
        "k_mismatch": (_V, ["b.shape"], True, {}),
        "a_rank1": (_V, ["a: must be (M, K)"], True, {}),
        "a_rank4": (_V, ["a: must be (M, K)"], True, {}),
        "b_rank1": (_V, ["b: must be (K, N)"], True, {}),
        "batch_mismatch": (_V, ["a, b: batch sizes"], False, {}),
        "c_shape": (_V, ["c.shape"], True, {}),
        "c_dtype": (_V, ["c.dtype"], True, {}),
        "beta_without_c": (_V, ["c.data"], True, {}),
        "out_shape": (_V, ["out: must have the result's shape"], True, {"with_out": True}),
        "out_dtype_mismatch": (_V, ["out: must have the result's dtype"], True, {"with_out": True}),
        "out_overlaps_a": (_V, ["overlap"], True, {"with_out": True}),
        "out_elements_overlap": (_V, ["overlap"], True, {"with_out": True}),  # an expanded out=: refused, not copied into
        "alpha_inf": (_V, ["alpha"], True, {}),
        "alpha_huge": (_V, ["alpha"], True, {}),
        "beta_nan": (_V, ["beta"], True, {}),
        "activation_unknown": (_V, ["activation"], True, {}),
        "bias_dtype": (_V, ["bias.dtype"], True, {"bias": True}),
        "bias_shape": (_V, ["bias.shape"], True, {"bias": True}),
        "bias_2d": (_V, ["bias"], True, {"bias": True}),
        "bias_strided": (_V, ["bias"], True, {"bias": True}),
        "bias_cpu": (_V, ["bias"], True, {"bias": True}),
        "bias_b_row_major": (_V, ["b.stride"], True, {"bias": True}),
        "bias_out_fp32": (_V, ["d.dtype", "out_dtype"], True, {"bias": True}),
        "out_dtype_other_16bit": (_V, ["d.dtype", "out_dtype"], False, {}),
        "out_dtype_int64": (_V, ["out_dtype"], False, {}),
        "a_not_a_tensor": (_T, ["a: must be a torch.Tensor"], True, {}),
        "out_dtype_conflicts_out": (_V, ["out"], True, {"with_out": True}),
        "out_dtype_conflicts_out_bias": (_V, ["out"], True, {"with_out": True, "bias": True}),
        "alpha_str": (_T, ["alpha"], True, {}),  # _f32's rule: a non-number is a TypeError naming it
        "alpha_none": (_T, ["alpha"], True, {}),
        "alpha_nan": (_V, ["alpha"], True, {}),
        "beta_inf": (_V, ["beta"], True, {}),
        "beta_neg_inf": (_V, ["beta"], True, {}),
        "beta_huge": (_V, ["beta"], True, {}),
        "out_dtype_not_a_dtype": ((*_V, *_T), ["out_dtype"], False, {}),
    },
    "scaled_mm": {
        "b_row_major": (_V, ["b.stride"], False, {}),
        "scale_a_shape": (_V, ["scale_a.shape"], False, {}),
        "scale_b_fp16": (_V, ["scale_b"], False, {}),
        "scale_a_fp64": (_V, ["scale_a"], False, {}),
        "scale_a_row_strided": (_V, ["scale_a"], False, {"scaling": "row"}),
        "scale_a_cpu": (_V, ["scale_a"], False, {}),
        "out_dtype_none": (_V, ["out_dtype"], False, {}),
        "out_dtype_fp8": (_V, ["out_dtype"], False, {}),
        "amax_16bit_result": (_V, ["amax"], False, {}),
        "e4m3_amax_shape": (_V, ["amax"], False, {}),
        "e4m3_scale_result_fp16": (_V, ["scale_result"], False, {}),
        "e4m3_mixed_formats": (_V, ["d.dtype"], False, {}),
        "bias_shape": (_V, ["bias.shape"], False, {"bias": True}),
        "bias_dtype": (_V, ["bias.dtype"], False, {"bias": True}),
        "both_e5m2": (_V, ["a.dtype", "b.dtype"], False, {}),
        "a_bf16": (_V, ["a.dtype", "b.dtype"], False, {}),
        "a_cpu": (_V, ["a: must be a CUDA tensor"], False, {}),
        "block_fast_accum": (_V, ["use_fast_accum"], False, {"scaling": "block"}),
    },
    "attention": {
        "q_fp32": (_V, ["q.dtype"], False, {}),
        "k_dtype": (_V, ["k.dtype"], True, {}),
        "v_dtype": (_V, ["v.dtype"], True, {}),
        "q_cpu": (_V, ["q: must be a CUDA tensor"], True, {}),
        "k_cpu": (_V, ["k: must be a CUDA tensor"], True, {}),
        "head_dim_not_multiple_of_8": (_V, ["head_dim"], True, {}),
        "head_dim_264": (_V, ["head_dim"], True, {}),
        "heads_not_multiple": (_V, ["heads"], True, {}),
        "kv_seqlen_mismatch": (_V, ["v.shape[1]"], True, {}),
        "batch_mismatch": (_V, ["k.shape[0]"], True, {}),
        "kv_head_dim_mismatch": (_V, ["k.shape[3]"], True, {}),
        "q_rank3": (_V, ["q: must be (batch, seqlen_q, heads, head_dim)"], False, {}),
        "k_rank3": (_V, ["k.rank", "k: must"], True, {}),
        "softmax_scale_negative": (_V, ["softmax_scale"], True, {}),
        "softmax_scale_zero": (_V, ["softmax_scale"], True, {}),
        "softmax_scale_nan": (_V, ["softmax_scale"], True, {}),
        "softcap_negative": (_V, ["softcap"], True, {}),
        "window_left_below_minus_1": (_V, ["window_left"], True, {}),
        "window_right_below_minus_1": (_V, ["window_right"], True, {}),
        "window_not_a_pair": (_T, ["window_size"], True, {}),
        "sink_shape": (_V, ["learnable_sink.shape"], True, {}),
        "sink_dtype": (_V, ["learnable_sink.dtype"], True, {}),
        "sink_cpu": (_V, ["learnable_sink"], True, {}),
        "num_splits_negative": (_V, ["num_splits"], True, {}),
        "num_splits_129": (_V, ["num_splits"], True, {}),
        "attention_chunk_negative": (_V, ["attention_chunk"], True, {}),
        "pack_gqa_not_bool": (_T, ["pack_gqa"], True, {}),
        "pack_gqa_group_of_3": (_V, ["pack_gqa"], True, {"hk": 2, "g": 3}),
        "pack_gqa_head_dim_256": (_V, ["pack_gqa"], True, {"hk": 1, "g": 2, "d": 256}),
        "splits_head_dim_256": (_V, ["num_splits"], True, {"d": 256}),
        "chunk_head_dim_256": (_V, ["attention_chunk"], True, {"d": 256}),
        "qv_given": (_N, ["qv"], True, {}),
        "sm_margin": (_N, ["sm_margin"], True, {}),
        "descale_with_16bit": (("ValueError", "NotImplementedError"), ["q_descale"], True, {}),
        "out_shape": (_V, ["out: must have the result's shape"], True, {"with_out": True}),
        "out_dtype": (_V, ["out: must have the result's dtype"], True, {"with_out": True}),
        "out_cpu": (_V, ["out:"], True, {"with_out": True}),
        "out_overlaps_k": (_V, ["overlap"], True, {"with_out": True}),
        "out_elements_overlap": (_V, ["overlap"], True, {"with_out": True, "sq": 4, "d": 64}),
        "q_not_a_tensor": (_T, ["q: must be a torch.Tensor"], True, {}),
        "softmax_scale_inf": (_V, ["softmax_scale"], True, {}),
        "softmax_scale_tiny": (_V, ["softmax_scale"], True, {}),  # rounds to 0 in float32 (README's table)
        "softmax_scale_str": (_T, ["softmax_scale"], True, {}),
        "softcap_nan": (_V, ["softcap"], True, {}),
        "softcap_inf": (_V, ["softcap"], True, {}),
        "softcap_tiny_negative": (_V, ["softcap"], True, {}),  # negative: refused as softcap_negative is
        "softcap_str": (_T, ["softcap"], True, {}),
        "attention_chunk_2_31": (_V, ["attention_chunk"], True, {}),
        "attention_chunk_float": (_T, ["attention_chunk"], True, {}),
        "window_float": (_T, ["window_size"], True, {}),
        "num_splits_float": (_T, ["num_splits"], True, {}),
        "sink_rank2": (_V, ["learnable_sink"], True, {}),
        "sink_strided": (_V, ["learnable_sink"], True, {"g": 2}),  # heads > 1: a stride that matters
    },
    "varlen": {
        "cu_seqlens_q_int64": (_V, ["cu_seqlens_q.dtype"], True, {}),
        "cu_seqlens_q_float": (_V, ["cu_seqlens_q.dtype"], True, {}),
        "cu_seqlens_q_cpu": (_V, ["cu_seqlens_q: must be a CUDA tensor"], True, {}),
        "cu_seqlens_k_cpu": (_V, ["cu_seqlens_k: must be a CUDA tensor"], True, {}),
        "cu_seqlens_q_strided": (_V, ["cu_seqlens_q.stride"], True, {}),
        "cu_seqlens_k_length": (_V, ["cu_seqlens_k.shape"], True, {}),
        "max_seqlen_q_none": (_V, ["max_seqlen_q"], True, {}),
        "max_seqlen_q_negative": (_V, ["max_seqlen_q"], True, {}),
        "max_seqlen_k_not_int": (_T, ["max_seqlen_k"], True, {}),
        "q_rank4": (_V, ["q: must be (total_q, heads, head_dim)"], False, {}),
        "seqused_k_length": (_V, ["seqused_k.shape"], True, {}),
        "seqused_q_int64": (_V, ["seqused_q.dtype"], True, {}),
        "cu_seqlens_k_int16": (_V, ["cu_seqlens_k.dtype"], True, {}),
        "cu_seqlens_q_rank2": (_V, ["cu_seqlens_q"], True, {}),
        "max_seqlen_q_float": (_T, ["max_seqlen_q"], True, {}),
        "max_seqlen_q_2_63": (_V, ["max_seqlen_q"], True, {}),
        "seqused_k_float": (_V, ["seqused_k.dtype"], True, {}),
    },
    "kvcache": {
        "k_without_v": (_V, ["k, v"], None, {"new": 2}),
        "k_without_cache_seqlens": (_V, ["cache_seqlens"], None, {"new": 2}),
        "rotary_cos_only": (_V, ["rotary_cos"], None, {"new": 2, "rotary": True}),
        "rotary_without_k": (_V, ["rotary_cos"], None, {"new": 0, "rotary": True}),
        "rotary_table_short": (_V, ["rotary_cos.shape[0]"], None, {"new": 2, "rotary": True, "page": None}),
        "rotary_with_cu_seqlens_q": (_N, ["cu_seqlens_q"], None, {"new": 2, "rotary": True}),
        "num_splits_negative": (_V, ["num_splits"], None, {}),
        "num_splits_129": (_V, ["num_splits"], None, {}),
        "v_new_seqlen": (_V, ["v.shape"], None, {"new": 2}),
        "page_size_40": (_V, ["page_size"], None, {"page": 16}),
        "page_table_int64": (_V, ["page_table"], None, {"page": 16}),
        "page_table_strided": (_V, ["page_table"], None, {"page": 16}),
        "batch_idx_with_pages": (_V, ["cache_batch_idx"], None, {"page": 16}),
        "leftpad_with_pages": (_V, ["cache_leftpad"], None, {"page": 16}),
        "k_cache_head_dim_strided": (_V, ["k_cache"], None, {"new": 2, "page": None}),
        "k_cache_dtype": (_V, ["k_cache"], None, {}),
        "cache_seqlens_cpu_with_k": (_V, ["cache_seqlens"], None, {"new": 2}),
        "cache_seqlens_cpu_without_k": (_V, ["cache_seqlens"], None, {"new": 0}),
        "cache_seqlens_length": (_V, ["cache_seqlens"], None, {}),
        "splits_head_dim_256": (_V, ["num_splits"], None, {"d": 256}),
        "q_cpu": (_V, ["q: must be a CUDA tensor"], None, {}),
        "qv_given": (_N, ["qv"], None, {}),
        "cu_seqlens_k_new_given": (_N, ["cu_seqlens_k_new"], None, {}),
        "rotary_seqlens_given": (_N, ["rotary_seqlens"], None, {}),
        "scheduler_metadata_given": (_N, ["scheduler_metadata"], None, {}),
        "cache_seqlens_int64": (_V, ["cache_seqlens"], None, {}),
        "cache_seqlens_rank2": (_V, ["cache_seqlens"], None, {}),
        "cache_seqlens_int_2_31": (_V, ["cache_seqlens"], None, {}),  # an int that int32 cannot hold
        "softcap_nan": (_V, ["softcap"], None, {}),
        "window_left_below_minus_1": (_V, ["window_left"], None, {}),
    },
    # flash_attn_combine. Negative, NaN or huge LSE values are data (NaN propagates).
    "combine": {
        "out_partial_bf16": (_V, ["out_partial.dtype"], True, {}),
        "out_partial_fp64": (_V, ["out_partial.dtype"], True, {}),
        "lse_partial_fp16": (_V, ["lse_partial.dtype"], True, {}),
        "out_partial_rank4": (_V, ["out_partial"], True, {}),
        "lse_partial_rank3": (_V, ["lse_partial"], True, {}),
        "lse_partial_heads": (_V, ["lse_partial.shape"], True, {}),
        "lse_partial_fewer_splits": (_V, ["lse_partial"], True, {"splits": 3}),
        "lse_partial_more_splits": (_V, ["lse_partial"], True, {}),
        "out_partial_cpu": (_V, ["out_partial: must be a CUDA tensor"], True, {}),
        "lse_partial_cpu": (_V, ["lse_partial: must be a CUDA tensor"], True, {}),
        "splits_0": (_V, ["num_splits", "out_partial"], True, {}),
        "splits_129": (_V, ["num_splits", "out_partial"], True, {}),
        "out_dtype_int32": (_V, ["out_dtype", "out.dtype"], False, {}),
        "out_dtype_fp64": (_V, ["out_dtype", "out.dtype"], False, {}),
        "out_shape": (_V, ["out: must have the result's shape"], True, {"with_out": True}),
        "out_dtype_conflicts_out": (_V, ["out"], True, {"with_out": True}),
        "out_cpu": (_V, ["out:"], True, {"with_out": True}),
        # (a head dim that is not a multiple of 4 is computed through a padded copy: no overlap)
        "out_overlaps_out_partial": (_V, ["overlap"], True, {"with_out": True, "out_dtype": "fp32", "d": 64}),
        "out_overlaps_lse_partial": (_V, ["overlap"], True, {"with_out": True, "out_dtype": "fp32", "d": 64}),
        "out_partial_not_a_tensor": (_T, ["out_partial: must be a torch.Tensor"], True, {}),
        "out_not_a_tensor": (_T, ["out: must be a torch.Tensor"], True, {"with_out": True}),
    },
    # gemm_fp8_fp8_bf16_nt. "standin": also checked with bfloat16 stand-ins where torch has
    # no float8 dtypes (the binding refuses these before the inputs' dtype matters).
    "fp8_gemm": {
        "out_fp32": (_V, ["out: must be bfloat16"], None, {"standin": True}),
        "out_shape": (_V, ["out: must have the result's shape"], None, {"standin": True}),
        "out_not_a_tensor": (_T, ["out"], None, {"standin": True}),
        "out_cpu": (_V, ["out"], None, {}),
        "lhs_not_a_pair": ((*_V, *_T), ["lhs"], None, {"standin": True}),
        "a_rank3": (_V, ["lhs"], None, {"standin": True}),
        "w_rank1": (_V, ["rhs"], None, {"standin": True}),
        "a_scales_shape": (_V, ["block scales must be", "lhs[1]"], None, {"standin": True}),
        "w_scales_shape": (_V, ["block scales must be", "rhs[1]"], None, {"standin": True}),
        "a_scales_fp16": (_V, ["scale_a", "lhs[1]"], None, {"standin": True}),
        "a_cpu": (_V, ["a: must be a CUDA tensor", "lhs[0]"], None, {"standin": True}),
        "a_bf16": (_V, ["a.dtype", "lhs[0]"], None, {}),
        "w_column_major": (_V, ["b.stride", "rhs[0]"], None, {}),
        "k_mismatch": (_V, ["b.shape", "rhs[0]", "block scales must be"], None, {}),
    },
}
# describe_gemm / describe_attention: the call's corruptions that describe's arguments can
# carry; describe must refuse them with the call's exception and message.
_DESCRIBE_GEMM = ("a_fp32", "a_int", "b_other_dtype", "a_cpu", "b_cpu", "c_cpu", "k_mismatch", "a_rank1", "a_rank4",
                  "b_rank1", "batch_mismatch", "c_shape", "c_dtype", "beta_without_c", "alpha_inf", "alpha_huge",
                  "beta_nan", "out_dtype_other_16bit", "out_dtype_int64", "a_not_a_tensor", "alpha_str", "alpha_none",
                  "alpha_nan", "beta_inf", "beta_neg_inf", "beta_huge", "out_dtype_not_a_dtype")
_DESCRIBE_ATTENTION = ("q_fp32", "k_dtype", "v_dtype", "q_cpu", "k_cpu", "head_dim_not_multiple_of_8", "head_dim_264",
                       "heads_not_multiple", "kv_seqlen_mismatch", "batch_mismatch", "kv_head_dim_mismatch", "q_rank3",
                       "k_rank3", "softmax_scale_negative", "softmax_scale_zero", "softmax_scale_nan",
                       "softmax_scale_inf", "softmax_scale_tiny", "softmax_scale_str", "pack_gqa_not_bool",
                       "pack_gqa_group_of_3", "pack_gqa_head_dim_256", "q_not_a_tensor")
CORRUPTIONS["describe_gemm"] = {c: (*CORRUPTIONS["gemm"][c][:2], False, CORRUPTIONS["gemm"][c][3])
                                for c in _DESCRIBE_GEMM}
CORRUPTIONS["describe_attention"] = {c: (*CORRUPTIONS["attention"][c][:2], False, CORRUPTIONS["attention"][c][3])
                                     for c in _DESCRIBE_ATTENTION}
_BAD_TARGETS = {"gemm": 30, "scaled_mm": 15, "attention": 25, "varlen": 15, "kvcache": 15, "combine": 15,
                "fp8_gemm": 8, "describe_gemm": 10, "describe_attention": 10}


def draw_bad(rng, forced=None):
    """forced: (target, corruption) to draw only the base case for (every corruption in turn)."""
    if forced is None:
        target = rng.choices(list(_BAD_TARGETS), weights=list(_BAD_TARGETS.values()))[0]
        corruption = rng.choice(sorted(CORRUPTIONS[target]))
    else:
        target, corruption = forced
    _, _, allow_out, over = CORRUPTIONS[target][corruption]
    p = {"target": target, "corruption": corruption}
    if target in ("gemm", "describe_gemm"):
        p.update(dtype=rng.choice(["bf16", "fp16"]), M=8 * rng.randint(1, 16), N=8 * rng.randint(2, 16),
                 K=8 * rng.randint(2, 16), b_col=rng.random() < 0.5, bias=False,
                 with_out=allow_out and rng.random() < 0.5)
        if over.get("bias"):
            p["b_col"] = True
    elif target == "scaled_mm":
        p.update(M=16 * rng.randint(1, 8), N=16 * rng.randint(1, 8), K=16 * rng.randint(1, 16),
                 scaling=rng.choice(["tensor", "row"]), out_dtype=rng.choice(["bf16", "fp16", "fp32"]), bias=False)
        if over.get("scaling") == "block":
            p["K"] = 128 * rng.randint(2, 4)  # K > 128: block scales cannot read as row-wise
    elif target in ("attention", "describe_attention"):
        p.update(dtype=rng.choice(["bf16", "fp16"]), batch=rng.randint(1, 2), sq=rng.randint(1, 150),
                 sk=rng.randint(1, 150), hk=rng.choice([1, 2]), g=rng.choice([1, 2, 4]), d=8 * rng.randint(1, 16),
                 with_out=allow_out and rng.random() < 0.5)
    elif target == "varlen":
        b = rng.randint(1, 4)
        p.update(dtype=rng.choice(["bf16", "fp16"]), seqlens_q=[rng.randint(0, 100) for _ in range(b)],
                 seqlens_k=[rng.randint(0, 100) for _ in range(b)], hk=rng.choice([1, 2]), g=rng.choice([1, 2]),
                 d=8 * rng.randint(1, 16), with_out=allow_out and rng.random() < 0.5)
    elif target == "combine":
        p.update(splits=rng.randint(1, 6), batch=rng.randint(1, 3), seqlen=rng.randint(1, 40), heads=rng.randint(1, 8),
                 d=rng.choice([8 * rng.randint(1, 32), rng.randint(1, 130)]),
                 out_dtype=rng.choice(["none", "fp32", "bf16", "fp16"]), with_out=allow_out and rng.random() < 0.5)
    elif target == "fp8_gemm":
        p.update(M=rng.randint(1, 200), N=16 * rng.randint(1, 24), K=128 * rng.randint(1, 4))
    else:
        p.update(dtype=rng.choice(["bf16", "fp16"]), batch=rng.randint(1, 3), heads_kv=rng.choice([1, 2]),
                 g=rng.choice([1, 2]), d=8 * rng.randint(1, 16), cache_len=rng.randint(32, 200),
                 page=rng.choice([None, 16, 32, 64]), new=rng.choice([0, 1, 3]), rotary=None)
        p["seqlen_q"] = p["new"] or rng.randint(1, 4)
    for key, value in over.items():
        p[key] = value
    if target == "kvcache" and p["new"]:
        p["seqlen_q"] = p["new"]
    return p


def draw_attention_fp8(rng):
    """flash_attn_func on e4m3 inputs, inside what FP8 attention supports (dense, causal or
    not, GQA, head dims 64 / 128 / 256; no window, softcap, sink, split or pack-GQA)."""
    p = {"d": rng.choice([64, 128, 256]), "batch": rng.choice([1, 1, 2, 3])}
    p["h"], p["hk"] = _heads(rng, top=16)
    sq, sk = _seqlen(rng, top=1200), _seqlen(rng, top=1200)
    if rng.random() < 0.3:
        sk = sq
    if rng.random() < 0.02:
        sk = 0  # every row sees no key: out = 0, lse = -inf
    while p["batch"] * p["h"] * sq * max(sk, 1) > 12_000_000:
        sq, sk = max(1, sq // 2), sk // 2
    p["sq"], p["sk"] = sq, sk
    p["causal"] = rng.random() < 0.4
    # Per tensor: "pow2" quantised with a power-of-two descale per (batch, kv head), passed;
    # "none" cast as it is, no descale (it reads as 1).
    for t in "qkv":
        p[t + "_descale"] = "pow2" if rng.random() < 0.7 else "none"
        p[t + "_view"] = "padded_heads" if rng.random() < 0.25 else "contig"
    p["softmax_scale"] = None if rng.random() < 0.7 else round(rng.uniform(0.02, 0.3), 4)
    p["return_lse"] = rng.random() < 0.7
    p["out"] = "none" if rng.random() < 0.75 else rng.choice(["contig", "odd_offset"])
    return p


_DRAW = {"gemm": draw_gemm, "scaled_mm": draw_scaled_mm, "attention": draw_attention, "varlen": draw_varlen,
         "kvcache": draw_kvcache, "bad": draw_bad, "combine": draw_combine, "fp8_gemm": draw_fp8_gemm,
         "describe": draw_describe, "attention_fp8": draw_attention_fp8}


def draw(family, seed, corruption=None):
    """The parameters of `family`'s case for `seed` (pure Python, deterministic).
    corruption: "target:name" (family "bad" only), that corruption's case."""
    rng = random.Random(int(seed) * 1000003 + _SALT[family])
    if corruption is not None:
        if family != "bad":
            raise ValueError("corruption: only with family 'bad'")
        target, name = corruption.split(":")
        if name not in CORRUPTIONS.get(target, {}):
            raise ValueError(f"corruption: unknown {corruption!r}")
        return draw_bad(rng, (target, name))
    return _DRAW[family](rng)


def all_corruptions():
    """Every bad-input corruption as "target:name"."""
    return [f"{t}:{c}" for t in CORRUPTIONS for c in sorted(CORRUPTIONS[t])]


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        inner = ",".join(_fmt(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    return str(v)


def describe(family, seed, params, corruption=None):
    """One line: the replay command and every drawn parameter."""
    words = " ".join(f"{k}={_fmt(v)}" for k, v in params.items())
    forced = f" --corruption {corruption}" if corruption else ""
    return (f"[{family} seed={seed}; replay: python3 tests/python/fuzz_api.py --family {family}{forced} "
            f"--seed {seed} --cases 1] {words}")


def _one_line(x):
    return " | ".join(line.strip() for line in str(x).splitlines() if line.strip())


# ------------------------------------------------------------------ torch side: shared


def _need_gpu():
    if torch is None:
        raise FuzzSkip("torch is not installed")
    if not torch.cuda.is_available():
        raise FuzzSkip("no CUDA device")
    if torch.cuda.get_device_capability() != (9, 0):
        raise FuzzSkip("not a Hopper (9.0) GPU")


def _dt(name):
    table = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
             "e4m3": getattr(torch, "float8_e4m3fn", None), "e5m2": getattr(torch, "float8_e5m2", None)}
    t = table[name]
    if t is None:
        raise FuzzSkip(f"this torch has no {name} dtype")
    return t


def _randn(n, dtype):
    """n random normal values (float32 draws rounded to dtype), on the GPU."""
    return torch.randn(n, device="cuda").to(dtype)


def _strided(batch, rows, cols, dtype, col=False, pad=0, offset=0, step=1):
    """A (*batch, rows, cols) random view inside a larger buffer, as a user slicing a bigger
    tensor makes one: row-major, or column-major (a transposed view) when `col`; each
    leading dimension `pad` elements longer than the matrix; the data `offset` elements
    into the buffer; `step` 2 takes every other element (no unit stride)."""
    inner, outer = (rows, cols) if col else (cols, rows)
    width = (inner + pad) * step
    lead = math.prod(batch)
    buf = _randn(lead * outer * width + offset, dtype)
    m = buf[offset:].view(*batch, outer, width)[..., : inner * step: step]
    return m.transpose(-1, -2) if col else m


def _nan_buffer_view(shape, dtype, kind):
    """(view, base): a NaN-filled out= buffer of `shape`, as `kind` lays it out in `base`."""
    shape = tuple(shape)
    if kind == "contig":
        base = torch.full(shape, NAN, dtype=dtype, device="cuda")
        return base, base
    if kind == "col":  # column-major matrices: the last two dims transposed
        base = torch.full((*shape[:-2], shape[-1], shape[-2]), NAN, dtype=dtype, device="cuda")
        return base.transpose(-1, -2), base
    if kind == "odd_offset":  # one element off 16-byte alignment
        base = torch.full((math.prod(shape) + 1,), NAN, dtype=dtype, device="cuda")
        return base[1:].view(shape), base
    if kind in ("strided_rows", "padded"):  # rows of a wider tensor
        extra = 5 if kind == "strided_rows" else 8
        base = torch.full((*shape[:-1], shape[-1] + extra), NAN, dtype=dtype, device="cuda")
        return base[..., : shape[-1]], base
    raise ValueError(kind)


def _outside_untouched(base, view):
    """Whether every element of the NaN-filled `base` outside `view` is still NaN."""
    if base is view or base.numel() == 0:
        return True
    idx = torch.arange(base.numel(), device=base.device)
    inside = torch.zeros(base.numel(), dtype=torch.bool, device=base.device)
    inside[torch.as_strided(idx, view.size(), view.stride(), view.storage_offset() - base.storage_offset())
           .reshape(-1)] = True
    return bool(torch.isnan(base.reshape(-1)[~inside].float()).all())


def _call(fn, *args, **kwargs):
    """fn(*args, **kwargs), any exception turned into an AssertionError saying so."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - a refusal of a supported case is the finding
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None


# ------------------------------------------------------------------ gemm


def _gemm_operand(p, which, rows, cols, dtype):
    mode, L = p[which + "_batch"], p["L"]
    view = dict(col=p[which + "_col"], pad=p[which + "_pad"], offset=p[which + "_offset"], step=p[which + "_step"])
    if mode == "2d":
        return _strided((), rows, cols, dtype, **view)
    if mode == "full":
        return _strided((L,), rows, cols, dtype, **view)
    if mode == "one":
        return _strided((1,), rows, cols, dtype, **view)
    if mode == "expand":  # batch stride 0
        return _strided((), rows, cols, dtype, **view).unsqueeze(0).expand(L, rows, cols)
    if mode == "every_other":
        return _strided((2 * L,), rows, cols, dtype, **view)[::2]
    raise ValueError(mode)


_ACT_REF = {None: lambda x: x, "relu": lambda x: torch.relu(x), "gelu": lambda x: torch.nn.functional.gelu(x),
            "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
            "silu": lambda x: torch.nn.functional.silu(x)}
_OUT_EPS = {"bf16": 2.0 ** -8, "fp16": 2.0 ** -11, "fp32": 2.0 ** -20}


def _check_gemm(got, want, out_name, k, alpha, beta, cmax):
    """testing/gemm_check.hpp's element rule for random-normal inputs (a dot product over
    K has standard deviation sqrt(K)): two units of output rounding plus fp32
    accumulation in another order, scaled by the terms' size; as test_scaled_mm.py's
    bias/activation tests use it."""
    if want.numel() == 0:
        return
    g = got.double()
    tol = 2 * _OUT_EPS[out_name] * want.abs() + (math.sqrt(k) * abs(alpha) + abs(beta) * cmax) / 4096 + 1e-6
    err = (g - want).abs()
    bad = ~(err <= tol)  # NaN (a poisoned element never written) counts as bad
    if bad.any():
        n = int(bad.sum())
        i = int(torch.nonzero(bad.reshape(-1))[0])
        idx = tuple(int(x) for x in torch.unravel_index(torch.tensor(i), want.shape)) \
            if hasattr(torch, "unravel_index") else i
        worst = err.nan_to_num(float("inf")).max().item()
        raise AssertionError(f"{n} of {want.numel()} elements out of tolerance; first at {idx}: got "
                             f"{g.reshape(-1)[i].item():.6g}, want {want.reshape(-1)[i].item():.6g}, tolerance "
                             f"{tol.reshape(-1)[i].item():.3g}; max error {worst:.4g}")


def run_gemm(p):
    _need_gpu()
    import warpspec
    from test_gemm import poison

    dt = _dt(p["dtype"])
    out_name = {"default": p["dtype"], "same": p["dtype"], "fp32": "fp32"}[p["out_dtype"]]
    od = _dt(out_name)
    M, N, K = p["M"], p["N"], p["K"]
    a = _gemm_operand(p, "a", M, K, dt)
    b = _gemm_operand(p, "b", K, N, dt)
    want_shape = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (M, N) if (a.dim() == 3 or b.dim() == 3) \
        else (M, N)
    kw = {"alpha": p["alpha"], "beta": p["beta"]}
    if p["out_dtype"] != "default":
        kw["out_dtype"] = od
    c = c_values = None
    if p["c"] != "none":
        c_batch = (want_shape[0],) if (p["c_batch"] == "full" and len(want_shape) == 3) else ()
        c = _strided(c_batch, M, N, od, col=p["c_col"], pad=p["c_pad"])
        if p["c"] == "nan":  # beta == 0: C must never be read
            c.fill_(NAN)
        c_values = c.clone()
    out = base = None
    if p["out"] != "none":
        out, base = _nan_buffer_view(want_shape, od, p["out"])
        if p["c_is_out"]:  # in place: C is the output itself
            out.copy_(c_values.expand(want_shape))
            c, c_values = out, out.clone()
        kw["out"] = out
    bias = None
    if p["bias"] != "none":
        bias = _randn(N, od if p["bias"] == "out" else torch.float32)
        kw["bias"] = bias
    if p["activation"] is not None:
        kw["activation"] = p["activation"]
    if out is None and want_shape and math.prod(want_shape):
        poison(want_shape, od)
    # With bias or activation the binding documents ValueError for layouts other than a
    # row-major a and a column-major b (ops.py, gemm's docstring); it may also compute them
    # through copies. Either is accepted for those layouts.
    refusable = []
    if p["bias"] != "none" or p["activation"] is not None:
        refusable = (["a.stride"] if p["a_col"] else []) + (["b.stride"] if p["b_step"] != 1 else [])
    try:
        got = warpspec.gemm(a, b, c, **kw)
    except ValueError as e:
        if any(r in str(e) for r in refusable):
            return f"refused as documented: {_one_line(e)}"
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None
    torch.cuda.synchronize()
    if out is not None:
        assert got is out, "out= given but another tensor was returned"
        assert _outside_untouched(base, out), "out=: memory outside the view was written"
    else:
        assert got.is_contiguous(), f"result not contiguous: strides {got.stride()}"
    assert tuple(got.shape) == tuple(want_shape), f"shape {tuple(got.shape)}, want {tuple(want_shape)}"
    assert got.dtype == od, f"dtype {got.dtype}, want {od}"
    want = p["alpha"] * torch.matmul(a.double(), b.double())
    if bias is not None:
        want = want + bias.double()
    cmax = 0.0
    if p["beta"] != 0.0:
        want = want + p["beta"] * c_values.double()
        cmax = c_values.double().abs().max().item() if c_values.numel() else 0.0
    want = _ACT_REF[p["activation"]](want)
    _check_gemm(got, want, out_name, K, p["alpha"], p["beta"], cmax)
    return None


# ------------------------------------------------------------------ scaled_mm


def run_scaled_mm(p):
    _need_gpu()
    import warpspec
    from test_scaled_mm import FAST, PROMOTED, block_scales, check, expand_blocks, reference

    fa_t, fb_t = (_dt(f) for f in p["formats"])
    od = _dt(p["out_dtype"])
    M, N, K = p["M"], p["N"], p["K"]
    a = _strided((), M, K, fa_t, col=p["a_col"], pad=p["a_pad"], offset=p["a_offset"])
    b = _strided((), N, K, fb_t, pad=p["b_pad"], offset=p["b_offset"]).t()  # column-major: w.t()
    if p["scaling"] == "block":
        sa, sb = block_scales(M, N, K, p["a_scale_m_major"])
    elif p["scaling"] == "row":
        sa, sb = torch.rand(M, 1, device="cuda") + 0.5, torch.rand(1, N, device="cuda") + 0.5
    else:
        shape = {"0d": (), "(1,)": (1,), "(1,1)": (1, 1)}[p["tensor_form"]]
        sa, sb = torch.rand(shape, device="cuda") + 0.5, torch.rand(shape, device="cuda") + 0.5
    if p["negative_scale"]:
        sa = -sa
    nan_row = None
    if p["nan_scale"] == "a_tensor":
        sa.fill_(NAN)
    elif p["nan_scale"] == "a_row":
        nan_row = (M - 1) // 2
        sa[nan_row] = NAN
    bias = None
    if p["bias"] != "none":
        bias = _randn(N, od if p["bias"] == "out" else torch.float32)
    fast = p["fast_accum"]
    try:
        got = warpspec.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=od, use_fast_accum=fast)
    except ValueError as e:
        if p["a_col"] and "a.stride" in str(e):
            return "refused as documented (column-major FP8 a)"
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None
    torch.cuda.synchronize()
    assert tuple(got.shape) == (M, N) and got.dtype == od, f"got {tuple(got.shape)} {got.dtype}"
    fa, fb = expand_blocks(sa, sb, M, N, K) if p["scaling"] == "block" else (sa, sb)
    want = reference(a, b, fa, fb, bias)
    rel = FAST if fast else PROMOTED
    if p["nan_scale"] == "a_tensor":
        assert torch.isnan(got).all(), f"a NaN scale_a: {int((~torch.isnan(got)).sum())} elements are not NaN"
        return None
    keep = slice(None)
    if nan_row is not None:  # NaN scales are data, not bad input: that row is NaN, the rest exact
        assert torch.isnan(got[nan_row]).all(), f"row {nan_row} has a NaN scale but non-NaN output"
        keep = torch.ones(M, dtype=torch.bool, device="cuda")
        keep[nan_row] = False
        if not keep.any():
            return None
    a_k = a if nan_row is None else a.double()[keep]  # (float8 tensors have no boolean indexing)
    fa_k = fa[keep] if (nan_row is not None and fa.dim() == 2 and fa.shape[0] == M) else fa
    got_k, want_k = got[keep], want[keep]
    if od == torch.float16:
        # Block scales (2^-6 .. 2^6 each) can take a product past float16's largest finite
        # value, 65504: there the result is inf of the product's sign, as torch's float16
        # would be. Within the error bound of the threshold (65520 rounds to inf) either
        # is right; those elements leave the check.
        near = want_k.abs() >= 65504 * (1 - 2 ** -8)
        past = want_k.abs() > 65520 * (1 + 2 ** -8)
        over = got_k[past]
        assert (over.isinf() & (over.double().sign() == want_k[past].sign())).all(), \
            f"{int(past.sum())} results past float16's range are not inf of their sign"
        assert not got_k[~near].isinf().any(), \
            f"inf where the product is in float16's range (max |product| there {want_k[~near].abs().max().item():.6g})"
        got_k, want_k = got_k.masked_fill(near, 0), want_k.masked_fill(near, 0)
    try:
        check(got_k, want_k, a_k, b, fa_k, fb, rel)
    except AssertionError as e:
        err = (got_k.double() - want_k).abs().nan_to_num(float("inf")).max().item()
        raise AssertionError(f"against the float64 reference: {_one_line(e)} (max error {err:.4g})") from None
    if p["scaling"] == "block" or p["nan_scale"] or p["a_col"]:
        return None
    try:  # torch._scaled_mm, where it accepts the case (its layouts, sizes and scales)
        peer = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=od, use_fast_accum=fast)
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - a combination this torch / cuBLASLt does not take
        return None
    if isinstance(peer, tuple):  # torch < 2.4 returned (out, amax)
        peer = peer[0]
    mag = (a.double().abs() * sa.double().abs()) @ (b.double().abs() * sb.double().abs())
    eps = {torch.bfloat16: 2 ** -8, torch.float16: 2 ** -11, torch.float32: 2 ** -20}[od]
    tol = 4 * eps * want.abs() + 2 * rel * mag + 2e-6
    diff = (got.double() - peer.double()).abs()
    if not (diff <= tol).all():
        peer_err = (peer.double() - want).abs().max().item()
        raise AssertionError(f"differs from torch._scaled_mm by {diff.max().item():.4g} (> twice the bound); "
                             f"torch's own error against the float64 reference {peer_err:.4g}")
    return None


# ------------------------------------------------------------------ attention


def _bshd(b, s, h, d, dtype, layout):
    """A random (b, s, h, d) tensor laid out as `layout` says."""
    if layout == "contig":
        return torch.randn(b, s, h, d, device="cuda", dtype=dtype)
    if layout == "bhsd":  # BHSD memory seen as BSHD
        return torch.randn(b, h, s, d, device="cuda", dtype=dtype).transpose(1, 2)
    if layout == "batch_stride":
        return torch.randn(2 * b, s, h, d, device="cuda", dtype=dtype)[::2]
    if layout == "odd_offset":  # 2 bytes off 16-byte alignment: computed through a copy
        return torch.randn(b * s * h * d + 1, device="cuda", dtype=dtype)[1:].view(b, s, h, d)
    if layout == "headdim_strided":  # head dim not contiguous: copied first, as FA3
        return torch.randn(b, s, h, d, 2, device="cuda", dtype=dtype)[..., 0]
    if layout == "padded_heads":  # rows of a wider head dim (16-byte strides)
        return torch.randn(b, s, h, d + 8, device="cuda", dtype=dtype)[..., :d]
    if layout == "odd_pad":  # strides that are not 16-byte multiples: through a copy
        return torch.randn(b, s, h, d + 3, device="cuda", dtype=dtype)[..., :d]
    raise ValueError(layout)


def _packed_rows(total, h, d, dtype, layout):
    """A random (total, h, d) tensor (a packed varlen side) laid out as `layout` says."""
    if layout == "contig":
        return torch.randn(total, h, d, device="cuda", dtype=dtype)
    if layout == "padded_heads":
        return torch.randn(total, h, d + 8, device="cuda", dtype=dtype)[..., :d]
    if layout == "odd_offset":
        return torch.randn(total * h * d + 1, device="cuda", dtype=dtype)[1:].view(total, h, d)
    raise ValueError(layout)


def _mask_kwargs(p, sink):
    return {"window": p["window"], "softcap": p["softcap"], "sink": sink, "chunk": p["chunk"]}


def _attention_call_kwargs(p, sink):
    kw = dict(softmax_scale=p["softmax_scale"], causal=p["causal"], window_size=p["window"],
              attention_chunk=p["chunk"], softcap=p["softcap"], num_splits=p["num_splits"], pack_gqa=p["pack_gqa"],
              deterministic=p["deterministic"], return_attn_probs=p["return_lse"])
    if sink is not None:
        kw["learnable_sink"] = sink
    return kw


def _check_attention(q, k, v, out, lse, p, sink):
    """test_attention.check (FA3's rule, capped by the kernel's own bound) for one dense
    (b, s, h, d) problem; without a returned LSE, only out is judged."""
    from test_attention import attention_ref, check

    if lse is None:
        _, lse = attention_ref(q, k, v, p["softmax_scale"], p["causal"], **_mask_kwargs(p, sink))
    check(q, k, v, out.contiguous(), lse, p["softmax_scale"], p["causal"], "attention", **_mask_kwargs(p, sink))


def _attention_qkv(p, dt):
    """A dense case's q, k, v: sliced from one (b, s, h + 2 hk, d) tensor ("packed_qkv"),
    or each in its own drawn layout."""
    b, sq, sk, h, hk, d = p["batch"], p["sq"], p["sk"], p["h"], p["hk"], p["d"]
    if p["layout"] == "packed_qkv":
        qkv = torch.randn(b, sq, h + 2 * hk, d, device="cuda", dtype=dt)
        return qkv[:, :, :h], qkv[:, :, h:h + hk], qkv[:, :, h + hk:]
    lq, lk, lv = p["layout"].split("/")
    return _bshd(b, sq, h, d, dt, lq), _bshd(b, sk, hk, d, dt, lk), _bshd(b, sk, hk, d, dt, lv)


def run_attention(p):
    _need_gpu()
    import warpspec
    from test_attention import poison

    dt = _dt(p["dtype"])
    b, sq, h = p["batch"], p["sq"], p["h"]
    q, k, v = _attention_qkv(p, dt)
    sink = torch.randn(h, device="cuda") * 2 if p["sink"] else None
    kw = _attention_call_kwargs(p, sink)
    q_ref, out, base = q, None, None
    if p["out"] == "inplace_q":  # out may be q itself (the very same view)
        q_ref, out, base = q.clone(), q, q
    elif p["out"] != "none":
        out, base = _nan_buffer_view(q.shape, dt, p["out"])
    if out is not None:
        kw["out"] = out
    else:
        poison(q)
    result = _call(warpspec.flash_attn_func, q, k, v, **kw)
    torch.cuda.synchronize()
    got, lse = result if p["return_lse"] else (result, None)
    if p["return_lse"]:
        assert isinstance(result, tuple) and len(result) == 2, "return_attn_probs=True: not (out, lse)"
        assert tuple(lse.shape) == (b, h, sq) and lse.dtype == torch.float32, f"lse {tuple(lse.shape)} {lse.dtype}"
    else:
        assert isinstance(result, torch.Tensor), "return_attn_probs=False: not a tensor"
    if out is not None:
        assert got is out, "out= given but another tensor was returned"
        assert _outside_untouched(base, out), "out=: memory outside the view was written"
    _check_attention(q_ref, k, v, got, lse, p, sink)
    return None


def run_varlen(p):
    _need_gpu()
    import warpspec

    dt = _dt(p["dtype"])
    h, hk, d = p["h"], p["hk"], p["d"]
    sq, sk = p["seqlens_q"], p["seqlens_k"]
    b = len(sq)
    q_packed = p["mode"] in ("packed", "packed_q_dense_k")
    k_packed = p["mode"] in ("packed", "dense_q_packed_k")

    def cu(lengths):
        starts = [0]
        for x in lengths:
            starts.append(starts[-1] + x)
        return starts, torch.tensor(starts, dtype=torch.int32, device="cuda")

    (q_starts, cu_q), (k_starts, cu_k) = cu(sq), cu(sk)
    if p["layout"] == "packed_qkv":
        qkv = torch.randn(q_starts[-1], h + 2 * hk, d, device="cuda", dtype=dt)
        q, k, v = qkv[:, :h], qkv[:, h:h + hk], qkv[:, h + hk:]
    else:
        lq, lk, lv = p["layout"].split("/")
        q = _packed_rows(q_starts[-1], h, d, dt, lq) if q_packed else _bshd(b, sq[0] if b else 0, h, d, dt, "contig")
        if k_packed:
            k, v = _packed_rows(k_starts[-1], hk, d, dt, lk), _packed_rows(k_starts[-1], hk, d, dt, lv)
        else:
            k, v = (_bshd(b, sk[0] if b else 0, hk, d, dt, "contig") for _ in range(2))
    used_q = p["seqused_q"] or sq
    used_k = p["seqused_k"] or sk
    seqused_q = torch.tensor(p["seqused_q"], dtype=torch.int32, device="cuda") if p["seqused_q"] else None
    seqused_k = torch.tensor(p["seqused_k"], dtype=torch.int32, device="cuda") if p["seqused_k"] else None
    max_q = (max(sq) if sq else 0) + p["max_seqlen_q_extra"]
    max_k = (max(sk) if sk else 0) if p["max_seqlen_k"] else None
    sink = torch.randn(h, device="cuda") * 2 if p["sink"] else None
    kw = _attention_call_kwargs(p, sink)
    kw.update(seqused_q=seqused_q, seqused_k=seqused_k)
    out = base = None
    if p["out"] != "none":
        out, base = _nan_buffer_view(q.shape, dt, p["out"])
        kw["out"] = out
    else:  # leave NaN blocks of the outputs' sizes in the caching allocator
        torch.full((q.numel() + 64,), NAN, dtype=dt, device="cuda")
    result = _call(warpspec.flash_attn_varlen_func, q, k, v, cu_q if q_packed else None,
                   cu_k if k_packed else None, max_q if q_packed else None, max_k, **kw)
    torch.cuda.synchronize()
    got, lse = result if p["return_lse"] else (result, None)
    assert tuple(got.shape) == tuple(q.shape), f"out shape {tuple(got.shape)}, want {tuple(q.shape)}"
    if lse is not None:
        want_lse = (h, q.shape[0]) if q_packed else (b, h, q.shape[1])
        assert tuple(lse.shape) == want_lse, f"lse shape {tuple(lse.shape)}, want {want_lse}"
    if out is not None:
        assert got is out, "out= given but another tensor was returned"
        assert _outside_untouched(base, out), "out=: memory outside the view was written"
    for i in range(b):
        uq, uk = used_q[i], used_k[i]
        if uq == 0:
            continue  # nothing to compute (and rows past seqused_q are not written)
        if q_packed:
            rows = slice(q_starts[i], q_starts[i] + uq)
            qi, oi = q[rows][None], got[rows][None]
            li = lse[:, rows][None] if lse is not None else None
        else:
            qi, oi = q[i:i + 1, :uq], got[i:i + 1, :uq]
            li = lse[i:i + 1, :, :uq] if lse is not None else None
        if k_packed:
            keys = slice(k_starts[i], k_starts[i] + uk)
            ki, vi = k[keys][None], v[keys][None]
        else:
            ki, vi = k[i:i + 1, :uk], v[i:i + 1, :uk]
        try:
            _check_attention(qi, ki, vi, oi, li, p, sink)
        except AssertionError as e:
            raise AssertionError(f"sequence {i} (q rows {uq}, keys {uk}): {_one_line(e)}") from None
    return None


# ------------------------------------------------------------------ kvcache


def _kv_case(p):
    from test_kvcache import Case

    return Case(batch=p["batch"], seqlen_q=p["seqlen_q"], heads=p["heads"], heads_kv=p["heads_kv"], d=p["d"],
                dtype=_dt(p["dtype"]), cache_len=p["cache_len"], new=p["new"], page=p["page"],
                batch_idx=p.get("batch_idx", False), leftpad=p.get("leftpad", False), rotary=p.get("rotary"))


def run_kvcache(p):
    _need_gpu()
    from test_kvcache import check_out

    case = _kv_case(p)
    kc, vc, appended, ref_out, ref_lse, low = case.reference(p["causal"], p["window"], p["softmax_scale"])
    k_cache, v_cache = case.k_cache.clone(), case.v_cache.clone()
    out, lse = _call(case.call, k_cache, v_cache, causal=p["causal"], window_size=p["window"],
                     num_splits=p["num_splits"], pack_gqa=p["pack_gqa"], softmax_scale=p["softmax_scale"])
    torch.cuda.synchronize()
    assert tuple(out.shape) == tuple(case.q.shape) and out.dtype == case.q.dtype, f"out {tuple(out.shape)}"
    # As test_kvcache.run: every cache row outside the appended ones bit-identical; the
    # appended rows as the reference wrote them (rotary: one float32 rotation's rounding).
    assert torch.equal(k_cache[~appended], kc[~appended]), "k_cache: a row outside the appended ones changed"
    assert torch.equal(v_cache[~appended], vc[~appended]), "v_cache: a row outside the appended ones changed"
    assert torch.equal(v_cache[appended], vc[appended]), "v_cache: appended rows differ from v"
    if case.rotary is None:
        assert torch.equal(k_cache[appended], kc[appended]), "k_cache: appended rows differ from k"
    else:
        torch.testing.assert_close(k_cache[appended].float(), kc[appended].float(), atol=2e-2, rtol=1e-2)
    check_out(out, lse, ref_out, ref_lse, low)
    return None


# ------------------------------------------------------------------ bad input


def _expect_refusal(call, types, names, what):
    """call() must raise one of `types` (names of builtin exceptions) with a message
    containing one of `names`."""
    classes = tuple(getattr(__import__("builtins"), t) for t in types)
    try:
        call()
    except classes as e:
        msg = str(e)
        if not any(n in msg for n in names):
            raise AssertionError(f"{what}: {type(e).__name__} does not name {' or '.join(map(repr, names))}: "
                                 f"{_one_line(msg)}") from None
        return
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what}: raised {type(e).__name__}, not {'/'.join(types)}: {_one_line(e)}") from None
    raise AssertionError(f"{what}: accepted (no exception); expected {'/'.join(types)} naming "
                         f"{' or '.join(map(repr, names))}")


def _expect_same_refusal(call, describe_call, types, names, what):
    """The call must refuse (as _expect_refusal), and describe_call with the very same
    exception type and message (describe "refuses what the call refuses")."""
    def outcome(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - compared below
            return e
        return None

    e1, e2 = outcome(call), outcome(describe_call)

    def again():
        if e1 is not None:
            raise e1

    _expect_refusal(again, types, names, what.replace("describe_", "") + " (the call itself)")
    if e2 is None:
        raise AssertionError(f"{what}: accepted what the call refuses ({type(e1).__name__}: {_one_line(e1)})")
    if type(e2) is not type(e1) or str(e2) != str(e1):
        raise AssertionError(f"{what}: {type(e2).__name__}: {_one_line(e2)}; the call raises "
                             f"{type(e1).__name__}: {_one_line(e1)}")


def _other16(dt):
    return torch.float16 if dt == torch.bfloat16 else torch.bfloat16


def _bad_gemm(p, corruption):
    import warpspec

    dt = _dt(p["dtype"])
    M, N, K = p["M"], p["N"], p["K"]
    a = _randn(M * K, dt).view(M, K)
    b = _randn(N * K, dt).view(N, K).t() if p["b_col"] else _randn(K * N, dt).view(K, N)
    c = None
    kw = {"out_dtype": dt}
    if p["bias"]:
        kw["bias"] = _randn(N, dt)
    # The valid call first: the corruption alone must make the difference.
    _call(warpspec.gemm, a, b, c, **kw)
    if p["target"] == "describe_gemm":
        _call(warpspec.describe_gemm, a, b, c, out_dtype=dt)
    a_, b_ = a, b
    if corruption == "a_fp32":
        a_ = a.float()
    elif corruption == "a_int":
        a_ = torch.randint(-3, 4, (M, K), device="cuda", dtype=torch.int32)
    elif corruption == "b_other_dtype":
        b_ = b.to(_other16(dt))
    elif corruption == "a_cpu":
        a_ = a.cpu()
    elif corruption == "b_cpu":
        b_ = b.cpu()
    elif corruption == "c_cpu":
        c, kw["beta"] = _randn(M * N, dt).view(M, N).cpu(), 0.5
    elif corruption == "k_mismatch":
        b_ = _randn((K + 8) * N, dt).view(K + 8, N)
    elif corruption == "a_rank1":
        a_ = a[0]
    elif corruption == "a_rank4":
        a_ = a[None, None]
    elif corruption == "b_rank1":
        b_ = b[:, 0]
    elif corruption == "batch_mismatch":
        a_, b_ = _randn(2 * M * K, dt).view(2, M, K), _randn(3 * K * N, dt).view(3, K, N)
    elif corruption == "c_shape":
        c, kw["beta"] = _randn((M + 1) * N, dt).view(M + 1, N), 0.5
    elif corruption == "c_dtype":
        c, kw["beta"] = _randn(M * N, _other16(dt)).view(M, N), 0.5
    elif corruption == "beta_without_c":
        kw["beta"] = 0.5
    elif corruption == "alpha_inf":
        kw["alpha"] = float("inf")
    elif corruption == "alpha_huge":
        kw["alpha"] = 1e39
    elif corruption == "beta_nan":
        c, kw["beta"] = _randn(M * N, dt).view(M, N), NAN
    elif corruption == "activation_unknown":
        kw["activation"] = "tanh"
    elif corruption == "bias_dtype":
        kw["bias"] = _randn(N, _other16(dt))
    elif corruption == "bias_shape":
        kw["bias"] = _randn(N + 1, dt)
    elif corruption == "bias_2d":
        kw["bias"] = _randn(N, dt).view(1, N)
    elif corruption == "bias_strided":
        kw["bias"] = _randn(2 * N, dt)[::2]
    elif corruption == "bias_cpu":
        kw["bias"] = kw["bias"].cpu()
    elif corruption == "bias_b_row_major":
        b_ = b.contiguous()
    elif corruption == "bias_out_fp32":  # an fp32 bias, so that only D's dtype breaks the rule
        kw["out_dtype"], kw["bias"] = torch.float32, _randn(N, torch.float32)
    elif corruption in ("out_dtype_conflicts_out", "out_dtype_conflicts_out_bias"):
        kw["out_dtype"] = torch.float32
    elif corruption == "out_dtype_other_16bit":
        kw["out_dtype"] = _other16(dt)
    elif corruption == "out_dtype_int64":
        kw["out_dtype"] = torch.int64
    elif corruption == "a_not_a_tensor":
        a_ = [[1.0] * K] * M
    elif corruption == "alpha_str":
        kw["alpha"] = "2"
    elif corruption == "alpha_none":
        kw["alpha"] = None
    elif corruption == "alpha_nan":
        kw["alpha"] = NAN
    elif corruption in ("beta_inf", "beta_neg_inf", "beta_huge"):
        c = _randn(M * N, dt).view(M, N)
        kw["beta"] = {"beta_inf": math.inf, "beta_neg_inf": -math.inf, "beta_huge": -1e39}[corruption]
    elif corruption == "out_dtype_not_a_dtype":
        kw["out_dtype"] = "float32"
    out = base = None
    protect = None  # an input whose memory out= shares: it must not change
    if p["with_out"]:
        result_dtype = torch.float32 if corruption == "bias_out_fp32" else dt
        if corruption == "out_cpu":
            out = torch.full((M, N), NAN, dtype=dt)
        elif corruption == "out_shape":
            out = torch.full((M, N + 1), NAN, dtype=dt, device="cuda")
        elif corruption == "out_dtype_mismatch":
            out = torch.full((M, N), NAN, dtype=_other16(dt), device="cuda")
        elif corruption == "out_elements_overlap":
            out = torch.full((1, N), NAN, dtype=result_dtype, device="cuda").expand(M, N)
        elif corruption == "out_overlaps_a":
            buf = _randn(max(M * K, M * N), dt)
            a_ = buf[: M * K].view(M, K)
            out = buf[: M * N].view(M, N)
            protect = buf.clone()
        else:
            out = torch.full((M, N), NAN, dtype=result_dtype, device="cuda")
        base = out
        kw["out"] = out
    if p["target"] == "describe_gemm":
        dkw = {key: kw[key] for key in ("alpha", "beta", "out_dtype") if key in kw}
        _expect_same_refusal(lambda: warpspec.gemm(a_, b_, c, **kw), lambda: warpspec.describe_gemm(a_, b_, c, **dkw),
                             *CORRUPTIONS["gemm"][corruption][:2], "warpspec.describe_gemm")
    else:
        _expect_refusal(lambda: warpspec.gemm(a_, b_, c, **kw), *CORRUPTIONS["gemm"][corruption][:2], "warpspec.gemm")
    torch.cuda.synchronize()  # nothing launched that could fail
    if protect is not None:
        assert torch.equal(buf, protect), "out= overlapping a: a's memory was written"
    elif base is not None:
        assert torch.isnan(base.float()).all(), "out= was written by a refused call"


def _bad_scaled_mm(p, corruption):
    import warpspec

    e4m3 = _dt("e4m3")
    M, N, K = p["M"], p["N"], p["K"]
    od = _dt(p["out_dtype"])
    a = _randn(M * K, e4m3).view(M, K)
    b = _randn(N * K, e4m3).view(N, K).t()
    if p["scaling"] == "block":
        from test_scaled_mm import block_scales

        sa, sb = block_scales(M, N, K)
    elif p["scaling"] == "row":
        sa, sb = torch.rand(M, 1, device="cuda") + 0.5, torch.rand(1, N, device="cuda") + 0.5
    else:
        sa, sb = torch.rand((), device="cuda") + 0.5, torch.rand((), device="cuda") + 0.5
    kw = {"out_dtype": od}
    if p["bias"]:
        kw["bias"] = _randn(N, od)
    _call(warpspec.scaled_mm, a, b, sa, sb, **kw)
    if corruption == "b_row_major":
        b = b.contiguous()
    elif corruption == "scale_a_shape":
        sa = torch.ones(M + 1, 1, device="cuda")
    elif corruption == "scale_b_fp16":
        sb = sb.half()
    elif corruption == "scale_a_fp64":
        sa = sa.double()
    elif corruption == "scale_a_row_strided":
        sa = (torch.rand(M, 2, device="cuda") + 0.5)[:, :1]
    elif corruption == "scale_a_cpu":
        sa = sa.cpu()
    elif corruption == "out_dtype_none":  # torch's default, a's dtype: e5m2 here (an e4m3 result is built)
        del kw["out_dtype"]
        a = a.float().to(_dt("e5m2"))
    elif corruption == "out_dtype_fp8":  # an e5m2 result: not built
        kw["out_dtype"] = _dt("e5m2")
    elif corruption == "amax_16bit_result":  # amax only with an e4m3 result
        kw["amax"] = torch.zeros((), device="cuda")
    elif corruption == "e4m3_amax_shape":
        kw.update(out_dtype=e4m3, amax=torch.zeros(2, device="cuda"))
        kw.pop("bias", None)
    elif corruption == "e4m3_scale_result_fp16":
        kw.update(out_dtype=e4m3, scale_result=torch.ones((), device="cuda", dtype=torch.float16))
        kw.pop("bias", None)
    elif corruption == "e4m3_mixed_formats":  # an e4m3 result is built for e4m3 a and b only
        kw["out_dtype"] = e4m3
        kw.pop("bias", None)
        b = b.float().to(_dt("e5m2"))
    elif corruption == "bias_shape":
        kw["bias"] = _randn(N - 1, od)
    elif corruption == "bias_dtype":
        kw["bias"] = _randn(N, torch.float16 if od != torch.float16 else torch.bfloat16)
    elif corruption == "both_e5m2":
        e5m2 = _dt("e5m2")
        a, b = a.float().to(e5m2), b.float().to(e5m2)
    elif corruption == "a_bf16":
        a = a.float().to(torch.bfloat16)
    elif corruption == "a_cpu":
        a = a.cpu()
    elif corruption == "block_fast_accum":
        kw["use_fast_accum"] = True
    _expect_refusal(lambda: warpspec.scaled_mm(a, b, sa, sb, **kw), *CORRUPTIONS["scaled_mm"][corruption][:2],
                    "warpspec.scaled_mm")
    torch.cuda.synchronize()


def _bad_attention(p, corruption):
    import warpspec

    dt = _dt(p["dtype"])
    b, sq, sk, hk, d = p["batch"], p["sq"], p["sk"], p["hk"], p["d"]
    h = hk * p["g"]
    q, k, v = (torch.randn(b, s, n, d, device="cuda", dtype=dt) for s, n in ((sq, h), (sk, hk), (sk, hk)))
    kw = {}
    _call(warpspec.flash_attn_func, q, k, v)
    if p["target"] == "describe_attention":
        _call(warpspec.describe_attention, q, k, v)
    if corruption == "q_fp32":
        q, k, v = q.float(), k.float(), v.float()
    elif corruption == "k_dtype":
        k = k.to(_other16(dt))
    elif corruption == "v_dtype":
        v = v.to(_other16(dt))
    elif corruption == "q_cpu":
        q = q.cpu()
    elif corruption == "k_cpu":
        k = k.cpu()
    elif corruption in ("head_dim_not_multiple_of_8", "head_dim_264"):
        d2 = d + 4 if corruption == "head_dim_not_multiple_of_8" else 264
        q, k, v = (torch.randn(*t.shape[:3], d2, device="cuda", dtype=dt) for t in (q, k, v))
    elif corruption == "heads_not_multiple":
        k, v = (torch.randn(b, sk, h + 1, d, device="cuda", dtype=dt) for _ in range(2))
    elif corruption == "kv_seqlen_mismatch":
        v = torch.randn(b, sk + 1, hk, d, device="cuda", dtype=dt)
    elif corruption == "batch_mismatch":
        k, v = (torch.randn(b + 1, sk, hk, d, device="cuda", dtype=dt) for _ in range(2))
    elif corruption == "kv_head_dim_mismatch":
        k = torch.randn(b, sk, hk, d + 8, device="cuda", dtype=dt)
    elif corruption == "q_rank3":
        q = q[0]
    elif corruption == "k_rank3":
        k, v = k[0], v[0]
    elif corruption == "softmax_scale_negative":
        kw["softmax_scale"] = -0.5
    elif corruption == "softmax_scale_zero":
        kw["softmax_scale"] = 0.0
    elif corruption == "softmax_scale_nan":
        kw["softmax_scale"] = NAN
    elif corruption == "softcap_negative":
        kw["softcap"] = -1.0
    elif corruption == "window_left_below_minus_1":
        kw["window_size"] = (-3, 0)
    elif corruption == "window_right_below_minus_1":
        kw["window_size"] = (4, -5)
    elif corruption == "window_not_a_pair":
        kw["window_size"] = 5
    elif corruption == "sink_shape":
        kw["learnable_sink"] = torch.zeros(h + 1, device="cuda")
    elif corruption == "sink_dtype":
        kw["learnable_sink"] = torch.zeros(h, device="cuda", dtype=torch.bfloat16)
    elif corruption == "sink_cpu":
        kw["learnable_sink"] = torch.zeros(h)
    elif corruption == "num_splits_negative":
        kw["num_splits"] = -1
    elif corruption == "num_splits_129":
        kw["num_splits"] = 129
    elif corruption == "attention_chunk_negative":
        kw["attention_chunk"] = -5
    elif corruption == "pack_gqa_not_bool":
        kw["pack_gqa"] = "yes"
    elif corruption in ("pack_gqa_group_of_3", "pack_gqa_head_dim_256"):
        kw["pack_gqa"] = True
    elif corruption == "splits_head_dim_256":
        kw["num_splits"] = 3
    elif corruption == "chunk_head_dim_256":
        kw["attention_chunk"] = 64
    elif corruption == "qv_given":
        kw["qv"] = torch.ones(b, sq, h, d, device="cuda", dtype=dt)
    elif corruption == "sm_margin":
        kw["sm_margin"] = 8
    elif corruption == "descale_with_16bit":
        kw["q_descale"] = torch.ones(b, hk, device="cuda")
    elif corruption == "q_not_a_tensor":
        q = None
    elif corruption == "softmax_scale_inf":
        kw["softmax_scale"] = math.inf
    elif corruption == "softmax_scale_tiny":
        kw["softmax_scale"] = 1e-50
    elif corruption == "softmax_scale_str":
        kw["softmax_scale"] = "0.125"
    elif corruption == "softcap_nan":
        kw["softcap"] = NAN
    elif corruption == "softcap_inf":
        kw["softcap"] = math.inf
    elif corruption == "softcap_tiny_negative":
        kw["softcap"] = -1e-50
    elif corruption == "softcap_str":
        kw["softcap"] = "30"
    elif corruption == "attention_chunk_2_31":
        kw["attention_chunk"] = 2 ** 31
    elif corruption == "attention_chunk_float":
        kw["attention_chunk"] = 64.0
    elif corruption == "window_float":
        kw["window_size"] = (8.0, 0)
    elif corruption == "num_splits_float":
        kw["num_splits"] = 2.0
    elif corruption == "sink_rank2":
        kw["learnable_sink"] = torch.zeros(1, h, device="cuda")
    elif corruption == "sink_strided":
        kw["learnable_sink"] = torch.zeros(2 * h, device="cuda")[::2]
    out = protect = None
    if p["with_out"]:
        if corruption == "out_shape":
            out = torch.full((b, sq + 1, h, d), NAN, dtype=dt, device="cuda")
        elif corruption == "out_dtype":
            out = torch.full((b, sq, h, d), NAN, dtype=_other16(dt), device="cuda")
        elif corruption == "out_cpu":
            out = torch.full((b, sq, h, d), NAN, dtype=dt)
        elif corruption == "out_elements_overlap":  # rows 8 elements apart, each d = 64 wide
            out = torch.full((b * sq * h * d + d,), NAN, dtype=dt, device="cuda").as_strided(
                (b, sq, h, d), (sq * h * d, 8, d, 1))
        elif corruption == "out_overlaps_k":
            buf = torch.randn(max(k.numel(), b * sq * h * d), device="cuda", dtype=dt)
            k = buf[: k.numel()].view(k.shape)
            out = buf[: b * sq * h * d].view(b, sq, h, d)
            protect = buf.clone()
        elif isinstance(q, torch.Tensor) and q.dim() == 4:
            out = torch.full(q.shape, NAN, dtype=q.dtype, device="cuda")
        if out is not None:
            kw["out"] = out
    if p["target"] == "describe_attention":
        dkw = {key: kw[key] for key in ("softmax_scale", "pack_gqa") if key in kw}
        _expect_same_refusal(lambda: warpspec.flash_attn_func(q, k, v, **kw),
                             lambda: warpspec.describe_attention(q, k, v, **dkw),
                             *CORRUPTIONS["attention"][corruption][:2], "warpspec.describe_attention")
    else:
        _expect_refusal(lambda: warpspec.flash_attn_func(q, k, v, **kw), *CORRUPTIONS["attention"][corruption][:2],
                        "warpspec.flash_attn_func")
    torch.cuda.synchronize()
    if protect is not None:
        assert torch.equal(buf, protect), "out= overlapping k: k's memory was written"
    elif out is not None:
        assert torch.isnan(out.float()).all(), "out= was written by a refused call"


def _bad_varlen(p, corruption):
    import warpspec

    dt = _dt(p["dtype"])
    hk, d = p["hk"], p["d"]
    h = hk * p["g"]
    sq, sk = p["seqlens_q"], p["seqlens_k"]
    b = len(sq)

    def cu(lengths):
        return torch.tensor([0] + [sum(lengths[: i + 1]) for i in range(len(lengths))], dtype=torch.int32,
                            device="cuda")

    cu_q, cu_k = cu(sq), cu(sk)
    q = torch.randn(sum(sq), h, d, device="cuda", dtype=dt)
    k, v = (torch.randn(sum(sk), hk, d, device="cuda", dtype=dt) for _ in range(2))
    args = [q, k, v, cu_q, cu_k, max(sq), max(sk)]
    kw = {}
    _call(warpspec.flash_attn_varlen_func, *args)
    if corruption == "cu_seqlens_q_int64":
        args[3] = cu_q.long()
    elif corruption == "cu_seqlens_q_float":
        args[3] = cu_q.float()
    elif corruption == "cu_seqlens_q_cpu":
        args[3] = cu_q.cpu()
    elif corruption == "cu_seqlens_k_cpu":
        args[4] = cu_k.cpu()
    elif corruption == "cu_seqlens_q_strided":
        wide = torch.zeros(2 * (b + 1), dtype=torch.int32, device="cuda")
        wide[::2] = cu_q
        args[3] = wide[::2]
    elif corruption == "cu_seqlens_k_length":
        args[4] = torch.cat([cu_k, cu_k[-1:]])
    elif corruption == "max_seqlen_q_none":
        args[5] = None
    elif corruption == "max_seqlen_q_negative":
        args[5] = -1
    elif corruption == "max_seqlen_k_not_int":
        args[6] = "many"
    elif corruption == "q_rank4":
        args[0] = q[None]
    elif corruption == "seqused_k_length":
        kw["seqused_k"] = torch.tensor(sk + [0], dtype=torch.int32, device="cuda")
    elif corruption == "seqused_q_int64":
        kw["seqused_q"] = torch.tensor(sq, dtype=torch.int64, device="cuda")
    elif corruption == "cu_seqlens_k_int16":
        args[4] = cu_k.to(torch.int16)
    elif corruption == "cu_seqlens_q_rank2":
        args[3] = cu_q[None]
    elif corruption == "max_seqlen_q_float":
        args[5] = float(max(sq))
    elif corruption == "max_seqlen_q_2_63":
        args[5] = 2 ** 63
    elif corruption == "seqused_k_float":
        kw["seqused_k"] = torch.tensor(sk, dtype=torch.float32, device="cuda")
    out = None
    if p["with_out"]:
        out = torch.full(q.shape, NAN, dtype=dt, device="cuda")
        kw["out"] = out
    _expect_refusal(lambda: warpspec.flash_attn_varlen_func(*args, **kw), *CORRUPTIONS["varlen"][corruption][:2],
                    "warpspec.flash_attn_varlen_func")
    torch.cuda.synchronize()
    if out is not None:
        assert torch.isnan(out.float()).all(), "out= was written by a refused call"


def _bad_kvcache(p, corruption):
    import warpspec

    case = _kv_case({**p, "heads": p["heads_kv"] * p["g"]})
    dt = case.dtype
    kw = dict(k=case.k, v=case.v, rotary_cos=case.cos, rotary_sin=case.sin, cache_seqlens=case.cache_seqlens,
              page_table=case.page_table, rotary_interleaved=True)
    if not p["new"]:
        kw.update(k=None, v=None, rotary_cos=None, rotary_sin=None)
    _call(warpspec.flash_attn_with_kvcache, case.q, case.k_cache.clone(), case.v_cache.clone(), **kw)
    q, k_cache, v_cache = case.q, case.k_cache, case.v_cache
    if corruption == "k_without_v":
        kw["v"] = None
    elif corruption == "k_without_cache_seqlens":
        kw["cache_seqlens"] = None
    elif corruption == "rotary_cos_only":
        kw["rotary_sin"] = None
    elif corruption == "rotary_without_k":
        kw.update(rotary_cos=case.cos, rotary_sin=case.sin)
    elif corruption == "rotary_table_short":
        kw.update(rotary_cos=case.cos[: p["cache_len"] - 1], rotary_sin=case.sin[: p["cache_len"] - 1])
    elif corruption == "rotary_with_cu_seqlens_q":
        kw.update(cu_seqlens_q=torch.arange(p["batch"] + 1, dtype=torch.int32, device="cuda") * p["seqlen_q"],
                  max_seqlen_q=p["seqlen_q"])
    elif corruption == "num_splits_negative":
        kw["num_splits"] = -1
    elif corruption == "num_splits_129":
        kw["num_splits"] = 129
    elif corruption == "v_new_seqlen":
        kw["v"] = case.v[:, :1]
    elif corruption == "page_size_40":
        bad = _kv_case({**p, "heads": p["heads_kv"] * p["g"], "page": 40})
        k_cache, v_cache, kw["page_table"] = bad.k_cache, bad.v_cache, bad.page_table
    elif corruption == "page_table_int64":
        kw["page_table"] = case.page_table.long()
    elif corruption == "page_table_strided":
        pt = case.page_table
        wide = torch.zeros(pt.shape[0], 2 * pt.shape[1], dtype=torch.int32, device="cuda")
        wide[:, ::2] = pt
        kw["page_table"] = wide[:, ::2]
    elif corruption == "batch_idx_with_pages":
        kw["cache_batch_idx"] = torch.arange(p["batch"], dtype=torch.int32, device="cuda")
    elif corruption == "leftpad_with_pages":
        kw["cache_leftpad"] = torch.zeros(p["batch"], dtype=torch.int32, device="cuda")
    elif corruption == "k_cache_head_dim_strided":
        wide = torch.stack([k_cache, torch.randn_like(k_cache)], dim=-1)
        k_cache = wide[..., 0]
    elif corruption == "k_cache_dtype":
        k_cache, v_cache = k_cache.to(_other16(dt)), v_cache.to(_other16(dt))
    elif corruption in ("cache_seqlens_cpu_with_k", "cache_seqlens_cpu_without_k"):
        kw["cache_seqlens"] = case.cache_seqlens.cpu()
    elif corruption == "cache_seqlens_length":
        kw["cache_seqlens"] = torch.cat([case.cache_seqlens, case.cache_seqlens[:1]])
    elif corruption == "splits_head_dim_256":
        kw["num_splits"] = 3
    elif corruption == "q_cpu":
        q = q.cpu()
    elif corruption == "qv_given":
        kw["qv"] = torch.ones_like(case.q)
    elif corruption == "cu_seqlens_k_new_given":
        kw["cu_seqlens_k_new"] = torch.zeros(p["batch"] + 1, dtype=torch.int32, device="cuda")
    elif corruption == "rotary_seqlens_given":
        kw["rotary_seqlens"] = torch.zeros(p["batch"], dtype=torch.int32, device="cuda")
    elif corruption == "scheduler_metadata_given":
        kw["scheduler_metadata"] = torch.zeros(4, dtype=torch.int32, device="cuda")
    elif corruption == "cache_seqlens_int64":
        kw["cache_seqlens"] = case.cache_seqlens.long()
    elif corruption == "cache_seqlens_rank2":
        kw["cache_seqlens"] = case.cache_seqlens[None]
    elif corruption == "cache_seqlens_int_2_31":
        kw["cache_seqlens"] = 2 ** 31
    elif corruption == "softcap_nan":
        kw["softcap"] = NAN
    elif corruption == "window_left_below_minus_1":
        kw["window_size"] = (-3, -1)
    snapshot = k_cache.clone(), v_cache.clone()
    _expect_refusal(lambda: warpspec.flash_attn_with_kvcache(q, k_cache, v_cache, **kw),
                    *CORRUPTIONS["kvcache"][corruption][:2], "warpspec.flash_attn_with_kvcache")
    torch.cuda.synchronize()
    assert torch.equal(k_cache, snapshot[0]) and torch.equal(v_cache, snapshot[1]), \
        "a refused call wrote the cache"


# ------------------------------------------------------------------ combine


def _combine_partials(p):
    """(out_partial, lse_partial) laid out as p says, and their values as plain tensors."""
    S, b, s, h, d = p["splits"], p["batch"], p["seqlen"], p["heads"], p["d"]
    lay = p["op_layout"]
    if lay == "expand":  # split stride 0: every split the same partial
        op = torch.randn(1, b, s, h, d, device="cuda").expand(S, b, s, h, d)
    else:
        op = {"contig": lambda: torch.empty(S, b, s, h, d, device="cuda"),
              "split_strided": lambda: torch.empty(2 * S, b, s, h, d, device="cuda")[::2],
              "padded_d": lambda: torch.empty(S, b, s, h, d + 5, device="cuda")[..., :d],
              "odd_offset": lambda: torch.empty(S * b * s * h * d + 1, device="cuda")[1:].view(S, b, s, h, d),
              "bhsd": lambda: torch.empty(S, b, h, s, d, device="cuda").transpose(2, 3)}[lay]()
        op.copy_(torch.randn(S, b, s, h, d, device="cuda"))
    lse = torch.randn(S, b, s, h, device="cuda") * p["lse_scale"] + p["lse_shift"]
    if p["neg_inf"]:
        lse[torch.rand(S, b, s, h, device="cuda") < 0.3] = -math.inf
    if p["dead_row"]:
        lse[:, b - 1, s - 1, h - 1] = -math.inf
    if p["nan"]:
        lse[S // 2, 0, s // 2, 0] = NAN
    lay = p["lp_layout"]
    if lay == "expand":
        lse = lse[:1].expand(S, b, s, h)
        lp = lse
    else:
        lp = {"contig": lambda: torch.empty(S, b, s, h, device="cuda"),
              "bhs": lambda: torch.empty(S, b, h, s, device="cuda").transpose(2, 3),
              "split_strided": lambda: torch.empty(2 * S, b, s, h, device="cuda")[::2],
              "odd_offset": lambda: torch.empty(S * b * s * h + 1, device="cuda")[1:].view(S, b, s, h)}[lay]()
        lp.copy_(lse)
    return op, lp


def run_combine(p):
    _need_gpu()
    import warpspec
    from test_kvcache import combine_ref

    b, s, h, d = p["batch"], p["seqlen"], p["heads"], p["d"]
    op, lp = _combine_partials(p)
    od = torch.float32 if p["out_dtype"] in ("none", "fp32") else _dt(p["out_dtype"])
    kw = {}
    if p["out_dtype"] != "none" and (p["out"] == "none" or p["pass_out_dtype"]):
        kw["out_dtype"] = od
    out = base = None
    if p["out"] != "none":
        out, base = _nan_buffer_view((b, s, h, d), od, p["out"])
        kw["out"] = out
    snapshot = op.clone(), lp.clone()
    got, lse = _call(warpspec.flash_attn_combine, op, lp, **kw)
    torch.cuda.synchronize()
    assert torch.equal(op, snapshot[0]) and torch.equal(lp.nan_to_num(0.0), snapshot[1].nan_to_num(0.0)), \
        "the partials changed"
    assert tuple(got.shape) == (b, s, h, d) and got.dtype == od, f"out {tuple(got.shape)} {got.dtype}"
    assert tuple(lse.shape) == (b, s, h) and lse.dtype == torch.float32, f"lse {tuple(lse.shape)} {lse.dtype}"
    if out is not None:
        assert got is out, "out= given but another tensor was returned"
        assert _outside_untouched(base, out), "out=: memory outside the view was written"
    op64, lp64 = op.double(), lp.double()
    ref, ref_lse = combine_ref(op64, lp64)  # test_kvcache's logsumexp merge, in float64
    nan_row = torch.isnan(lp64).any(0)  # (b, s, h): NaN propagates to the row
    assert torch.isnan(lse[nan_row]).all() and torch.isnan(got[nan_row].float()).all(), "a NaN LSE did not propagate"
    keep = ~nan_row
    dead = keep & (ref_lse == -math.inf)  # no split saw a key: out = 0, lse = -inf
    assert (lse[dead] == -math.inf).all(), "a row no split saw a key: lse is not -inf"
    assert (got[dead].float() == 0).all(), "a row no split saw a key: out is not 0"
    live = keep & ~dead
    lmax = lp64[:, live].abs().nan_to_num(0.0, posinf=0.0, neginf=0.0).max().item() if live.any() else 0.0
    lse_err = (lse.double() - ref_lse).abs()[live]
    lse_tol = (8 * (lmax + 1) + 2 * p["splits"]) * 2.0 ** -24
    assert not (lse_err > lse_tol).any() and not lse_err.isnan().any(), \
        f"lse: max error {lse_err.max().item():.3g} > {lse_tol:.3g}"
    w = torch.exp(lp64 - ref_lse.unsqueeze(0)).nan_to_num(0.0)
    mag = (op64.abs() * w.unsqueeze(-1)).sum(0)  # the merge's sum of absolute terms
    eps = {torch.float32: 2.0 ** -24, torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}[od]
    tiny = 2.0 ** -24 if od == torch.float16 else 1e-30  # float16's subnormal spacing
    tol = (2 * p["splits"] + 8 * (lmax + 1)) * 2.0 ** -24 * mag + 2 * eps * ref.abs() + tiny
    err = (got.double() - ref).abs()
    bad = ~(err <= tol) & live.unsqueeze(-1)
    if bad.any():
        i = torch.nonzero(bad)[0].tolist()
        raise AssertionError(f"{int(bad.sum())} of {got.numel()} elements out of tolerance; first at {tuple(i)}: got "
                             f"{got[tuple(i)].item():.6g}, want {ref[tuple(i)].item():.6g}")
    return None


# ------------------------------------------------------------------ gemm_fp8_fp8_bf16_nt


def run_fp8_gemm(p):
    _need_gpu()
    import warpspec
    from test_scaled_mm import PROMOTED, block_scales, check, expand_blocks, reference

    e4m3 = _dt("e4m3")
    M, N, K = p["M"], p["N"], p["K"]
    a, w = _randn(M * K, e4m3).view(M, K), _randn(N * K, e4m3).view(N, K)
    sa, sb = block_scales(M, N, K, p["a_scale_m_major"])  # sb: (ceil(K/128), ceil(N/128)), scaled_mm's
    sw = sb.t()  # DeepGEMM's (ceil(N/128), ceil(K/128)) for w (N, K)
    out, base = _nan_buffer_view((M, N), torch.bfloat16, p["out"])
    result = _call(warpspec.gemm_fp8_fp8_bf16_nt, (a, sa), (w, sw), out)
    torch.cuda.synchronize()
    assert result is None, "gemm_fp8_fp8_bf16_nt returned something (it writes out in place)"
    assert _outside_untouched(base, out), "out: memory outside the view was written"
    fa, fb = expand_blocks(sa, sb, M, N, K)
    try:
        check(out, reference(a, w.t(), fa, fb), a, w.t(), fa, fb, PROMOTED)
    except AssertionError as e:
        raise AssertionError(f"against the float64 reference: {_one_line(e)}") from None
    same = _call(warpspec.scaled_mm, a, w.t(), sa, sb, out_dtype=torch.bfloat16)
    assert torch.equal(out, same), "differs from scaled_mm with the same block scales (the same kernel)"
    return None


# ------------------------------------------------------------------ describe_gemm / describe_attention


def run_describe(p):
    """describe_* on a valid case: one line, no exception; then the call itself runs (both
    refuse or neither)."""
    _need_gpu()
    import warpspec

    if p["api"] == "gemm":
        dt = _dt(p["dtype"])
        od = _dt({"default": p["dtype"], "same": p["dtype"], "fp32": "fp32"}[p["out_dtype"]])
        a, b = _gemm_operand(p, "a", p["M"], p["K"], dt), _gemm_operand(p, "b", p["K"], p["N"], dt)
        c = None
        if p["c"] != "none":
            res3d = a.dim() == 3 or b.dim() == 3
            c_batch = (max(a.shape[0] if a.dim() == 3 else 1, b.shape[0] if b.dim() == 3 else 1),) \
                if (p["c_batch"] == "full" and res3d) else ()
            c = _strided(c_batch, p["M"], p["N"], od, col=p["c_col"], pad=p["c_pad"])
        kw = {"alpha": p["alpha"], "beta": p["beta"]}
        if p["out_dtype"] != "default":
            kw["out_dtype"] = od
        line = _call(warpspec.describe_gemm, a, b, c, **kw)
        _call(warpspec.gemm, a, b, c, **kw)
        head = "gemm "
    else:
        q, k, v = _attention_qkv(p, _dt(p["dtype"]))
        kw = dict(softmax_scale=p["softmax_scale"], causal=p["causal"])
        line = _call(warpspec.describe_attention, q, k, v, pack_gqa=p["pack_gqa"], **kw)
        _call(warpspec.flash_attn_func, q, k, v, pack_gqa=p["pack_gqa"], **kw)
        head = "attention "
    torch.cuda.synchronize()
    assert isinstance(line, str) and line.startswith(head) and "\n" not in line, f"not one {head.strip()} line: {line!r}"
    return None


# ------------------------------------------------------------------ bad input: combine, fp8 gemm


def _bad_combine(p, corruption):
    import warpspec

    S, b, s, h, d = p["splits"], p["batch"], p["seqlen"], p["heads"], p["d"]
    od = torch.float32 if p["out_dtype"] in ("none", "fp32") else _dt(p["out_dtype"])
    op, lp = torch.randn(S, b, s, h, d, device="cuda"), torch.randn(S, b, s, h, device="cuda")
    kw = {} if p["out_dtype"] == "none" else {"out_dtype": od}
    _call(warpspec.flash_attn_combine, op, lp, **kw)
    protect = None
    if corruption == "out_partial_bf16":
        op = op.to(torch.bfloat16)
    elif corruption == "out_partial_fp64":
        op = op.double()
    elif corruption == "lse_partial_fp16":
        lp = lp.half()
    elif corruption == "out_partial_rank4":
        op = op[0]
    elif corruption == "lse_partial_rank3":
        lp = lp[0]
    elif corruption == "lse_partial_heads":
        lp = torch.randn(S, b, s, h + 1, device="cuda")
    elif corruption == "lse_partial_fewer_splits":  # the kernel would read past lse_partial's end
        lp = lp[: S - 1]
    elif corruption == "lse_partial_more_splits":
        lp = torch.randn(S + 2, b, s, h, device="cuda")
    elif corruption == "out_partial_cpu":
        op = op.cpu()
    elif corruption == "lse_partial_cpu":
        lp = lp.cpu()
    elif corruption == "splits_0":
        op, lp = op[:0], lp[:0]
    elif corruption == "splits_129":
        op, lp = torch.randn(129, b, s, h, d, device="cuda"), torch.randn(129, b, s, h, device="cuda")
    elif corruption == "out_dtype_int32":
        kw["out_dtype"] = torch.int32
    elif corruption == "out_dtype_fp64":
        kw["out_dtype"] = torch.float64
    elif corruption == "out_partial_not_a_tensor":
        op = op.tolist()
    out = None
    if p["with_out"]:
        if corruption == "out_shape":
            out = torch.full((b, s, h, d + 1), NAN, dtype=od, device="cuda")
        elif corruption == "out_dtype_conflicts_out":
            out = torch.full((b, s, h, d), NAN, dtype=torch.float16 if od != torch.float16 else torch.bfloat16,
                             device="cuda")
            kw["out_dtype"] = od
        elif corruption == "out_cpu":
            out = torch.full((b, s, h, d), NAN, dtype=od).cpu()
        elif corruption == "out_overlaps_out_partial":
            out, protect = op[S - 1], (op, op.clone())
        elif corruption == "out_overlaps_lse_partial":
            buf = torch.randn(max(S * b * s * h, b * s * h * d), device="cuda")
            lp = buf[: S * b * s * h].view(S, b, s, h)
            out, protect = buf[: b * s * h * d].view(b, s, h, d), (buf, buf.clone())
        elif corruption == "out_not_a_tensor":
            out = [[0.0]]
        else:
            out = torch.full((b, s, h, d), NAN, dtype=od, device="cuda")
        kw["out"] = out
    _expect_refusal(lambda: warpspec.flash_attn_combine(op, lp, **kw), *CORRUPTIONS["combine"][corruption][:2],
                    "warpspec.flash_attn_combine")
    torch.cuda.synchronize()
    if protect is not None:
        assert torch.equal(protect[0], protect[1]), "out= overlapping an input: its memory was written"
    elif isinstance(out, torch.Tensor) and out.numel() and out.is_cuda:
        assert torch.isnan(out.float()).all(), "out= was written by a refused call"


def _bad_fp8_gemm(p, corruption):
    import warpspec

    standin = CORRUPTIONS["fp8_gemm"][corruption][3].get("standin", False)
    try:
        e4m3 = _dt("e4m3")
    except FuzzSkip:
        if not standin:
            raise
        e4m3 = None  # bfloat16 stand-ins: refused before the inputs' dtype matters
    M, N, K = p["M"], p["N"], p["K"]
    dt = e4m3 or torch.bfloat16
    a, w = _randn(M * K, dt).view(M, K), _randn(N * K, dt).view(N, K)
    kb, nb = -(-K // 128), -(-N // 128)
    sa = torch.rand(kb, M, device="cuda").t() + 0.5  # DeepGEMM's M-major a_scales
    sw = torch.rand(nb, kb, device="cuda") + 0.5
    out = torch.full((M, N), NAN, dtype=torch.bfloat16, device="cuda")
    if e4m3 is not None:
        _call(warpspec.gemm_fp8_fp8_bf16_nt, (a, sa), (w, sw), out)
        out.fill_(NAN)
    lhs, rhs, o = (a, sa), (w, sw), out
    if corruption == "out_fp32":
        o = torch.full((M, N), NAN, device="cuda")
    elif corruption == "out_shape":
        o = torch.full((M, N + 1), NAN, dtype=torch.bfloat16, device="cuda")
    elif corruption == "out_not_a_tensor":
        o = None
    elif corruption == "out_cpu":
        o = out.cpu()
    elif corruption == "lhs_not_a_pair":
        lhs = a
    elif corruption == "a_rank3":
        lhs = (a[None], sa)
    elif corruption == "w_rank1":
        rhs = (w[0], sw)
    elif corruption == "a_scales_shape":
        lhs = (a, torch.rand(M, kb + 1, device="cuda"))
    elif corruption == "w_scales_shape":
        rhs = (w, torch.rand(nb + 1, kb, device="cuda"))
    elif corruption == "a_scales_fp16":
        lhs = (a, sa.half())
    elif corruption == "a_cpu":
        lhs = (a.cpu(), sa)
    elif corruption == "a_bf16":
        lhs = (a.float().to(torch.bfloat16), sa)
    elif corruption == "w_column_major":
        rhs = (w.t().contiguous().t(), sw)
    elif corruption == "k_mismatch":
        rhs = (_randn(N * (K + 128), dt).view(N, K + 128), torch.rand(nb, kb + 1, device="cuda"))
    _expect_refusal(lambda: warpspec.gemm_fp8_fp8_bf16_nt(lhs, rhs, o), *CORRUPTIONS["fp8_gemm"][corruption][:2],
                    "warpspec.gemm_fp8_fp8_bf16_nt")
    torch.cuda.synchronize()
    assert torch.isnan(out.float()).all(), "out was written by a refused call"


def run_bad(p):
    _need_gpu()
    {"gemm": _bad_gemm, "scaled_mm": _bad_scaled_mm, "attention": _bad_attention, "varlen": _bad_varlen,
     "kvcache": _bad_kvcache, "combine": _bad_combine, "fp8_gemm": _bad_fp8_gemm, "describe_gemm": _bad_gemm,
     "describe_attention": _bad_attention}[p["target"]](p, p["corruption"])
    return None


# ------------------------------------------------------------------ the case functions

# ------------------------------------------------------------------ FP8 attention


def run_attention_fp8(p):
    _need_gpu()
    import warpspec
    from test_attention import attention_ref
    from test_attention_fp8 import dequantize, quantize, score_magnitude

    e4m3 = _dt("e4m3")
    b, sq, sk, h, hk, d = p["batch"], p["sq"], p["sk"], p["h"], p["hk"], p["d"]

    def operand(t, s_, heads):
        x = torch.randn(b, s_, heads, d, device="cuda")
        if p[t + "_descale"] == "pow2":
            x8, desc = quantize(x, hk)
            xf = dequantize(x8, desc)
        else:
            x8, desc = x.to(e4m3), None
            xf = x8.float()
        if p[t + "_view"] == "padded_heads":  # a head more in the buffer, NaN (e4m3 0x7F) there
            buf = torch.empty(b, s_, heads + 1, d, device="cuda", dtype=e4m3)
            buf.view(torch.uint8).fill_(0x7F)
            buf[:, :, :heads].copy_(x8)
            x8 = buf[:, :, :heads]
        return x8, desc, xf

    (q8, qd, qf), (k8, kd, kf), (v8, vd, vf) = operand("q", sq, h), operand("k", sk, hk), operand("v", sk, hk)
    kw = dict(softmax_scale=p["softmax_scale"], causal=p["causal"], q_descale=qd, k_descale=kd, v_descale=vd,
              return_attn_probs=p["return_lse"])
    out, base = None, None
    if p["out"] != "none":
        out, base = _nan_buffer_view((b, sq, h, d), torch.bfloat16, p["out"])
        kw["out"] = out
    try:
        result = warpspec.flash_attn_func(q8, k8, v8, **kw)
    except Exception as e:  # noqa: BLE001 - a refusal of a supported case is the finding
        if "WARPSPEC_FP8_ATTENTION" in str(e):  # a library built without the FP8 kernels says so
            raise FuzzSkip(_one_line(e)) from None
        raise AssertionError(f"raised {type(e).__name__}: {_one_line(e)}") from None
    torch.cuda.synchronize()
    got, lse = result if p["return_lse"] else (result, None)
    assert tuple(got.shape) == (b, sq, h, d) and got.dtype == torch.bfloat16, f"out {tuple(got.shape)} {got.dtype}"
    if lse is not None:
        assert tuple(lse.shape) == (b, h, sq) and lse.dtype == torch.float32, f"lse {tuple(lse.shape)} {lse.dtype}"
    if out is not None:
        assert got is out, "out= given but another tensor was returned"
        assert _outside_untouched(base, out), "out=: memory outside the view was written"
    assert not torch.isnan(got.float()).any(), "NaN in out (a read outside a padded view shows so)"
    ref, lse_ref = attention_ref(qf, kf, vf, softmax_scale=p["softmax_scale"], causal=p["causal"])
    # test_attention_fp8's bound: P rounded to e4m3 (2^-4), O to bf16 (2^-9), fp32 order (2^-10).
    vmax = vf.abs().max().item() if vf.numel() else 0.0
    err = (got.float() - ref).abs().max().item() if got.numel() else 0.0
    bound = (2.0 ** -4 + 2.0 ** -9 + 2.0 ** -10) * vmax
    assert err <= bound, f"out: max error {err:.4g} > (2^-4 + 2^-9 + 2^-10) * max|v| = {bound:.4g}"
    no_key = torch.isinf(lse_ref)  # rows that see no key (causal sq > sk, or sk = 0): out 0
    rows = no_key.permute(0, 2, 1)  # (b, sq, h)
    assert torch.all(got.float()[rows] == 0), "a row that sees no key is not 0"
    if lse is not None:
        assert torch.equal(torch.isinf(lse) & (lse < 0), no_key), "lse: -inf where a row sees keys, or not where none"
        if (~no_key).any():
            scale = p["softmax_scale"] if p["softmax_scale"] is not None else d ** -0.5
            accum = (d / 32) * 2.0 ** -13 * scale * score_magnitude(qf, kf).item()
            tol = 1e-3 + 1e-4 * lse_ref[~no_key].abs().max().item() + accum
            lse_err = (lse[~no_key] - lse_ref[~no_key]).abs().max().item()
            assert lse_err <= tol, f"lse: max error {lse_err:.4g} > {tol:.4g} (accumulation term {accum:.4g})"
    return None


_RUN = {"gemm": run_gemm, "scaled_mm": run_scaled_mm, "attention": run_attention, "varlen": run_varlen,
        "kvcache": run_kvcache, "bad": run_bad, "combine": run_combine, "fp8_gemm": run_fp8_gemm,
        "describe": run_describe, "attention_fp8": run_attention_fp8}


def run_case(family, seed, corruption=None):
    """Draw `family`'s case for `seed`, run it through warpspec and PyTorch; AssertionError
    with a one-line reproducible description on a mismatch, FuzzSkip where it cannot run.
    Returns None, or a note (a documented refusal that was accepted). corruption: as draw's."""
    params = draw(family, seed, corruption)
    if torch is not None:
        torch.manual_seed(seed)  # the data: same seed, same tensors (the GPU generators too)
    try:
        return _RUN[family](params)
    except FuzzSkip:
        raise
    except AssertionError as e:
        raise AssertionError(f"{describe(family, seed, params, corruption)}: "
                             f"{_one_line(e) or 'assertion failed'}") from None
    except Exception as e:  # noqa: BLE001 - the fuzz's own failure, still one reproducible line
        raise AssertionError(f"{describe(family, seed, params, corruption)}: {type(e).__name__} in the fuzz: "
                             f"{_one_line(e)}") from None


# ------------------------------------------------------------------ CLI


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=25, help="cases per family (default 25)")
    ap.add_argument("--seed", type=int, default=0, help="the first case's seed (default 0)")
    ap.add_argument("--family", choices=FAMILIES, action="append",
                    help="one family (repeatable); default every family")
    ap.add_argument("--corruption", metavar="TARGET:NAME", choices=all_corruptions(),
                    help="with --family bad: only this corruption (e.g. gemm:a_fp32)")
    ap.add_argument("--all-corruptions", action="store_true",
                    help="with --family bad: every corruption in turn, --cases seeds each")
    ap.add_argument("--dry-run", action="store_true", help="print the drawn cases without running them (no torch)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case, not only failures")
    args = ap.parse_args(argv)
    families = args.family or list(FAMILIES)
    seeds = range(args.seed, args.seed + args.cases)
    if (args.corruption or args.all_corruptions) and families != ["bad"]:
        ap.error("--corruption and --all-corruptions go with --family bad")
    corruptions = all_corruptions() if args.all_corruptions else [args.corruption]
    runs = [(family, c) for family in families for c in (corruptions if family == "bad" else [None])]
    if args.dry_run:
        for family, c in runs:
            for s in seeds:
                print(describe(family, s, draw(family, s, c), c))
        return 0
    try:
        _need_gpu()
    except FuzzSkip as e:
        print(f"SKIP: {e}")
        return 77
    torch.backends.cuda.matmul.allow_tf32 = False  # the references are exact float32 (as conftest.py)
    torch.backends.cudnn.allow_tf32 = False
    total_failed = total_passed = 0
    summary = []
    counts = {}
    for family, c in runs:
        ran, failed, skipped = counts.get(family, (0, 0, 0))
        for s in seeds:
            ran += 1
            try:
                note = run_case(family, s, c)
            except FuzzSkip as e:
                skipped += 1
                if args.verbose:
                    print(f"SKIP {family} seed={s}{' ' + c if c else ''}: {e}")
                continue
            except AssertionError as e:
                failed += 1
                print(f"FAIL {e}", flush=True)
                continue
            if args.verbose:
                print(f"ok   {describe(family, s, draw(family, s, c), c)}" + (f" ({note})" if note else ""),
                      flush=True)
        counts[family] = (ran, failed, skipped)
    for family, (ran, failed, skipped) in counts.items():
        total_failed += failed
        total_passed += ran - failed - skipped
        summary.append(f"{family}: {ran} cases run, {failed} failed, {skipped} skipped")
    for line in summary:
        print(line)
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
