"""pytest setup for the Python binding's tests: import warpspec from the source tree
unless an installed one is already importable (PYTHONPATH=python, or pip install); the
seed of every random test; float32 references without TF32."""

import importlib.util
import os
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

if importlib.util.find_spec("warpspec") is None:
    sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture
def seed():
    """A fresh seed per test, printed (pytest shows a failing test's output);
    WARPSPEC_TEST_SEED=<n> replays one (as in the C++ tests)."""
    env = os.environ.get("WARPSPEC_TEST_SEED", "")
    s = int(env, 0) if env else random.SystemRandom().randrange(2**31)
    print(f"seed={s} (replay: WARPSPEC_TEST_SEED={s})")
    random.seed(s)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(s)
    return s


@pytest.fixture(autouse=True)
def _exact_float32():
    """The references are float32 matmuls: no TF32 while a test runs."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        yield
        return
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = old
