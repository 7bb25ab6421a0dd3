"""ctest `package.pip_wheel`: `pip install .` as a user runs it, offline, on any machine.

    pip_wheel.py BUILD_DIR

1. `pip wheel --no-index .` at the repository root with pip's build isolation (so the
   repository's own backend must need nothing but the standard library), reusing
   BUILD_DIR's library through WARPSPEC_BUILD_DIR (CI compiles it once);
2. checks the wheel: named warpspec-<VERSION>+cu<major>-py3-none-<platform>.whl,
   platlib, with libwarpspec.so and the package inside and a RECORD that matches;
3. installs it with `pip install --no-index --target` into an empty folder, and in a
   fresh interpreter started elsewhere (no WARPSPEC_LIBRARY, no user site, no checkout
   on the path) imports warpspec and loads the library: library_path() must be the
   copy inside the installed package, and the versions must be VERSION's.

Import and library load only: no GPU and no PyTorch are needed (the ops say they need
torch when it is missing). Exit 77 (skipped) when this Python has no pip.
"""

import base64
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = 77


def fail(message: str) -> int:
    print(f"FAILED: {message}")
    return 1


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], text=True, capture_output=True, **kw)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: pip_wheel.py BUILD_DIR", file=sys.stderr)
        return 2
    build_dir = Path(sys.argv[1]).resolve()
    if importlib.util.find_spec("pip") is None:
        print(f"SKIP: pip is not installed for {sys.executable}")
        return SKIP
    version = (ROOT / "VERSION").read_text().strip()
    clean_env = {k: v for k, v in os.environ.items()
                 if k not in ("WARPSPEC_LIBRARY", "PYTHONPATH", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")}
    clean_env["PIP_NO_INDEX"] = "1"  # offline: a missing build requirement fails here, not later
    clean_env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    with tempfile.TemporaryDirectory(prefix="warpspec-pip-") as tmp:
        tmp = Path(tmp)
        # 1. the wheel, as `pip install .` builds it
        r = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-cache-dir",
                 "-w", tmp / "dist", ROOT], env={**clean_env, "WARPSPEC_BUILD_DIR": str(build_dir)})
        if r.returncode != 0:
            return fail(f"pip wheel exited {r.returncode}\n{r.stdout}\n{r.stderr}")
        wheels = sorted((tmp / "dist").glob("*.whl"))
        if len(wheels) != 1:
            return fail(f"expected one wheel, found {[w.name for w in wheels]}")
        wheel = wheels[0]
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        pattern = rf"warpspec-{re.escape(version)}\+cu(\d+)-py3-none-{re.escape(platform)}\.whl"
        m = re.fullmatch(pattern, wheel.name)
        if not m:
            return fail(f"wheel name {wheel.name} does not match {pattern}")
        print(f"wheel: {wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)")

        # 2. its contents
        dist_info = f"warpspec-{version}+cu{m.group(1)}.dist-info"
        with zipfile.ZipFile(wheel) as z:
            names = set(z.namelist())
            for need in ("warpspec/__init__.py", "warpspec/_lib.py", "warpspec/ops.py", "warpspec/_version.py",
                         "warpspec/libwarpspec.so", f"{dist_info}/METADATA", f"{dist_info}/WHEEL",
                         f"{dist_info}/RECORD"):
                if need not in names:
                    return fail(f"{need} is not in the wheel: {sorted(names)}")
            if z.read("warpspec/libwarpspec.so")[:4] != b"\x7fELF":
                return fail("warpspec/libwarpspec.so in the wheel is not an ELF file")
            wheel_meta = z.read(f"{dist_info}/WHEEL").decode()
            if "Root-Is-Purelib: false" not in wheel_meta or f"Tag: py3-none-{platform}" not in wheel_meta:
                return fail(f"WHEEL says:\n{wheel_meta}")
            if f"Version: {version}+cu{m.group(1)}\n" not in z.read(f"{dist_info}/METADATA").decode():
                return fail("METADATA's version is not the wheel's")
            record = z.read(f"{dist_info}/RECORD").decode().splitlines()
            listed = {}
            for line in record:
                path, digest, size = line.rsplit(",", 2)
                listed[path] = (digest, size)
            if set(listed) != names:
                return fail(f"RECORD lists {sorted(set(listed) ^ names)} differently from the archive")
            for path, (digest, size) in listed.items():
                if path.endswith("RECORD"):
                    continue
                data = z.read(path)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                if digest != want or int(size) != len(data):
                    return fail(f"RECORD's hash or size of {path} is wrong")

        # 3. install and import elsewhere, in a fresh interpreter
        target = tmp / "site"
        r = run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", target, wheel],
                env=clean_env)
        if r.returncode != 0:
            return fail(f"pip install exited {r.returncode}\n{r.stdout}\n{r.stderr}")
        probe = (
            "import warpspec\n"
            "print(warpspec.library_path())\n"
            "print(warpspec.__version__)\n"
            "print(warpspec.library_version())\n"
        )
        elsewhere = tmp / "elsewhere"
        elsewhere.mkdir()
        r = run([sys.executable, "-s", "-c", probe], cwd=elsewhere, env={**clean_env, "PYTHONPATH": str(target)})
        if r.returncode != 0:
            return fail(f"import warpspec exited {r.returncode}\n{r.stdout}\n{r.stderr}")
        lines = r.stdout.split()
        print(r.stdout, end="")
        expected = (target / "warpspec" / "libwarpspec.so").resolve()
        if len(lines) != 3 or Path(lines[0]).resolve() != expected:
            return fail(f"library_path() should be the installed package's {expected}, got {r.stdout!r}")
        if lines[1] != version or lines[2] != version:
            return fail(f"__version__ and library_version() should be {version}, got {lines[1:]}")
    print("ok: the wheel builds offline, installs, imports and loads its own library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
