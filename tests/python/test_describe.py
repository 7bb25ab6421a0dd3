"""warpspec.describe_gemm / describe_attention against what a launch reports: with
WARPSPEC_LOG_CONFIG=1 every call prints the configuration it picked, and describing the
same call without launching must give the same line. Each case runs in a fresh
interpreter (the library reads the variable once). Needs torch and a Hopper GPU."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from torch_support import needs_hopper  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys, torch, warpspec
case = sys.argv[1]
x = lambda *s: torch.randn(*s, device="cuda").to(torch.bfloat16)
if case == "gemm":
    a, w = x(300, 520), x(1000, 520)
    print(warpspec.describe_gemm(a, w.t()), flush=True)
    warpspec.gemm(a, w.t())
elif case == "gemm_forced_copy":  # K = 513: the rows are not 16-byte multiples; gemm copies
    a, b = x(64, 513), x(513, 128)
    print(warpspec.describe_gemm(a, b), flush=True)
    warpspec.gemm(a, b)
else:
    q, k, v = x(2, 700, 8, 96), x(2, 300, 2, 96), x(2, 300, 2, 96)
    print(warpspec.describe_attention(q, k, v, causal=True), flush=True)
    warpspec.flash_attn_func(q, k, v, causal=True)
torch.cuda.synchronize()
"""


def run(case, mode="1"):
    env = dict(os.environ, WARPSPEC_LOG_CONFIG=mode, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", SCRIPT, case], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    logged = [line[len("warpspec: "):] for line in r.stderr.splitlines() if line.startswith("warpspec: ")]
    return r.stdout.strip(), logged


@needs_hopper
@pytest.mark.parametrize("case", ["gemm", "gemm_forced_copy", "attention"])
def test_described_line_is_the_launched_one(case):
    described, logged = run(case)
    assert logged, "WARPSPEC_LOG_CONFIG=1 printed nothing"
    assert logged[-1] == described
    words = dict(w.split("=", 1) for w in described.split() if "=" in w)
    if case == "gemm":
        assert words["m"] == "300" and words["n"] == "1000" and words["k"] == "520"
        assert "tile" in words and "grid" in words and "raster" in words
    if case == "attention":
        assert words["head_dim"] == "96" and words["kernel_head_dim"] == "128"
        assert words["mask"] == "causal" and words["order"] == "longest_first"


@needs_hopper
def test_log_off_prints_nothing():
    _, logged = run("gemm", mode="0")
    assert logged == []
