"""pytest setup for the Python binding's tests: import warpspec from the source tree
unless an installed one is already importable (PYTHONPATH=python, or pip install)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if importlib.util.find_spec("warpspec") is None:
    sys.path.insert(0, str(ROOT / "python"))
