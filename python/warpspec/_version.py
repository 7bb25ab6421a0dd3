"""The package's version. In a source checkout it is read from the repository's VERSION
file (which CMake reads too); a wheel carries this file rewritten with the value and
the CUDA major its library was built with (python/pep517/warpspec_backend.py)."""

from pathlib import Path

try:
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text(encoding="utf-8").strip()
except OSError:  # a copy of the package without its checkout or wheel
    version = "0+unknown"
cuda_major = None  # known once built: the wheel's file says
