"""How the comparison scripts in bench/ time: the same method as the warpspec program's
tools/timing.hpp, so a Python row and a `warpspec bench` row mean the same thing.

CUDA events around each call; every candidate's calls queued on the current stream the
same way (no synchronisation between calls for anyone); candidates interleaved call by
call in ABBA order (BAAB on odd rounds) after at least a second of sustained load with
every candidate running; several rounds; the median of the per-round medians and the
least and largest round. The H200 is power-limited: whoever runs first after idle gets
boost clocks (7-16% at 8192^3), so timing one candidate's loop and then the other's
measures the clock as much as the kernel.

Also the FLOP count of attention's causal mask (bottom-right aligned), counted exactly.
"""

import statistics
import time
from dataclasses import dataclass
from typing import Callable, List, Sequence

import torch


@dataclass
class Spread:
    """A figure over rounds: median of the per-round medians, least and largest."""

    median: float
    lo: float
    hi: float

    @staticmethod
    def of(values: Sequence[float]) -> "Spread":
        return Spread(statistics.median(values), min(values), max(values))

    def map(self, f: Callable[[float], float]) -> "Spread":
        """f applied to each end; a decreasing f (a rate from a time) swaps them."""
        a, b = f(self.lo), f(self.hi)
        return Spread(f(self.median), min(a, b), max(a, b))

    def fmt(self, decimals: int = 1) -> str:
        return f"{self.median:.{decimals}f} ({self.lo:.{decimals}f}-{self.hi:.{decimals}f})"


@dataclass
class Result:
    ms: List[Spread]     # per candidate, milliseconds per call
    ratio: List[Spread]  # per candidate c: c's time / candidate 0's, per round, then over rounds


def _block(n: int, reversed_: bool) -> List[int]:
    fwd = list(range(n))
    return fwd[::-1] + fwd if reversed_ else fwd + fwd[::-1]


def time_interleaved(fns: Sequence[Callable[[int], object]], warmup_s: float = 1.0, rounds: int = 5,
                     iters: int = 20) -> Result:
    """fns[c](i) enqueues candidate c's call i (i rotates inputs) on the current stream.
    `iters` timed calls per candidate per round, rounded up to even (ABBA blocks)."""
    n = len(fns)
    calls = [0] * n

    def call(c):
        fns[c](calls[c])
        calls[c] += 1

    # Warm-up: whole blocks until the wall clock says enough, in batches sized from the
    # time a block took so far (the GPU idles only for one synchronisation per batch).
    t0, blocks, batch = time.perf_counter(), 0, 1
    while True:
        for _ in range(batch):
            for c in _block(n, blocks % 2 == 1):
                call(c)
            blocks += 1
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        if elapsed >= warmup_s:
            break
        batch = max(1, min(2048, int((warmup_s - elapsed) / max(elapsed / blocks, 1e-7)) + 1))

    timed = []
    for r in range(rounds):
        for _ in range((iters + 1) // 2):
            for c in _block(n, r % 2 == 1):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                call(c)
                end.record()
                timed.append((r, c, start, end))
    torch.cuda.synchronize()
    per = [[[] for _ in range(rounds)] for _ in range(n)]
    for r, c, start, end in timed:
        per[c][r].append(start.elapsed_time(end))
    med = [[statistics.median(x) for x in per[c]] for c in range(n)]
    return Result(ms=[Spread.of(med[c]) for c in range(n)],
                  ratio=[Spread.of([med[c][r] / med[0][r] for r in range(rounds)]) for c in range(n)])


def sdpa_calls(sets, causal: bool, bshd: bool):
    """(name, fn) for each PyTorch SDPA backend (cuDNN, flash) that runs this shape:
    fn(i) attends over sets[i % len(sets)] = (q, k, v), given as (batch, seqlen, heads,
    head_dim) when `bshd` (viewed as SDPA's (batch, heads, seqlen, head_dim), no copy),
    else already in SDPA's order. A backend that refuses the shape is left out."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    out = []
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        def call(i, backend=backend):
            qkv = sets[i % len(sets)]
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(*(x.transpose(1, 2) if bshd else x for x in qkv),
                                                      is_causal=causal)
        try:
            call(0)
            torch.cuda.synchronize()
        except RuntimeError:
            continue
        out.append((name, call))
    return out


SDPA_BACKENDS = ("cudnn", "flash")


def tflops(ms: Spread, flops: float) -> Spread:
    return ms.map(lambda t: flops / t / 1e9)


def attention_pairs(sq: int, sk: int, causal: bool) -> int:
    """(query, key) pairs attention computes: sq * sk, or under the causal mask aligned to
    the bottom-right corner (query i sees key j iff j <= i + sk - sq) exactly those it
    leaves visible. Equals testing/mask_count.hpp's count."""
    if not causal:
        return sq * sk
    return sum(min(sk, max(0, i + 1 + sk - sq)) for i in range(sq))


def attention_flops(batch: int, heads: int, sq: int, sk: int, head_dim: int, causal: bool) -> float:
    """4 * head_dim FLOPs (two GEMMs) per visible pair, per batch and head."""
    return 4.0 * batch * heads * head_dim * attention_pairs(sq, sk, causal)
