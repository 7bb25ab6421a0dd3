"""The build backend of `pip install .` (PEP 517), run by pip from the repository root.

It builds libwarpspec with CMake and writes a wheel of the pure-Python package
(python/warpspec) with the library inside it, where the loader looks first
(warpspec._lib.search_locations). Nothing is compiled against PyTorch.

Why our own backend: the wheel carries a Linux CUDA binary, so it must be tagged for
the platform (py3-none-linux_x86_64: one wheel serves every Python 3, as the package
loads the library with ctypes and has no extension module), and it must build offline
with what a Debian machine has. setuptools would need the `wheel` module and, under
pip's build isolation, a download; this file needs the standard library alone
(`requires = []` in pyproject.toml), so pip's isolated build environment stays empty.

The version is the repository's VERSION file; the CUDA major the library was built
with is its local part: 0.1.0+cu13.

Environment:
  WARPSPEC_BUILD_DIR   a CMake build directory to reuse (relative to the repository
                       root, as scripts/build takes it). When it is configured already,
                       only the library target is brought up to date there (a no-op when
                       it is); when it does not exist, it is configured there (library
                       only) and kept for the next install. Unset: a fresh temporary
                       build, removed afterwards (about 2 minutes on 2 cores).
  WARPSPEC_CMAKE_ARGS  extra arguments for that configure step (as scripts/build).
  CMAKE                the cmake to run (default: cmake on PATH).
"""

import base64
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "warpspec"
NAME = "warpspec"

# The distribution's metadata (Core Metadata 2.1), in one place.
SUMMARY = "Hopper (sm_90a) GEMM and attention kernels for PyTorch, through libwarpspec's C ABI"
REQUIRES_PYTHON = ">=3.9"
LICENSE = "BSD-3-Clause"
CLASSIFIERS = [
    "License :: OSI Approved :: BSD License",
    "Programming Language :: Python :: 3",
    "Operating System :: POSIX :: Linux",
    "Environment :: GPU :: NVIDIA CUDA",
]


def version() -> str:
    """The project's version, from the VERSION file (CMake reads the same file)."""
    return (ROOT / "VERSION").read_text(encoding="utf-8").strip()


def platform_tag() -> str:
    """linux_x86_64 and the like: the platform the library was built for."""
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def wheel_tag() -> str:
    return f"py3-none-{platform_tag()}"


# ------------------------------------------------------------------ PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    library, info = build_library()
    if info["version"] != version():
        raise RuntimeError(
            f"warpspec: the build directory holds version {info['version']} but VERSION says {version()}: "
            "reconfigure it (or unset WARPSPEC_BUILD_DIR for a fresh build)"
        )
    full_version = f"{version()}+cu{info['cuda_major']}"
    files = {}
    for source in sorted(PACKAGE.glob("*.py")):
        if source.name == "_version.py":
            continue
        files[f"{NAME}/{source.name}"] = source.read_bytes()
    files[f"{NAME}/_version.py"] = (
        "# Written by the build backend (python/pep517/warpspec_backend.py) from the VERSION file.\n"
        f"version = {version()!r}\n"
        f"cuda_major = {int(info['cuda_major'])}\n"
    ).encode()
    files[f"{NAME}/libwarpspec.so"] = library
    name = f"{NAME}-{full_version}-{wheel_tag()}.whl"
    write_wheel(Path(wheel_directory) / name, files, full_version)
    return name


def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e .` (PEP 660): a wheel holding only a .pth file that puts the
    checkout's python/ folder on sys.path. Nothing is built: the package finds the
    checkout's build/libwarpspec.so (./scripts/build) or $WARPSPEC_LIBRARY, as it does
    when run from the checkout. No library inside, so no platform tag."""
    files = {f"__editable__.{NAME}.pth": (str(ROOT / "python") + "\n").encode()}
    name = f"{NAME}-{version()}-py3-none-any.whl"
    write_wheel(Path(wheel_directory) / name, files, version(), tag="py3-none-any")
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked source tree (git ls-files in a checkout, else the tree less build
    directories), with PKG-INFO: a wheel builds from it as from the checkout."""
    base = f"{NAME}-{version()}"
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in source_files():
            tar.add(ROOT / rel, arcname=f"{base}/{rel}", recursive=False)
        pkg_info = metadata(version()).encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(pkg_info)
        entry.mode = 0o644
        tar.addfile(entry, io.BytesIO(pkg_info))
    return name


# ------------------------------------------------------------------ the library


def _log(message: str) -> None:
    print(f"warpspec build: {message}", file=sys.stderr, flush=True)


def _run(cmd, env) -> None:
    _log(" ".join(shlex.quote(str(c)) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, env=env, cwd=ROOT)


def build_library():
    """Build (or bring up to date) the library; returns (its bytes, the build info CMake
    wrote: version, CUDA version and major, build type, library path)."""
    env = dict(os.environ)
    cuda_bin = "/usr/local/cuda/bin"  # where the CUDA toolkit installs nvcc; scripts/build does the same
    if shutil.which("nvcc", path=env.get("PATH")) is None and os.path.isdir(cuda_bin):
        env["PATH"] = cuda_bin + os.pathsep + env.get("PATH", "")
    cmake = env.get("CMAKE", "cmake")
    named = env.get("WARPSPEC_BUILD_DIR")
    temporary = None
    if named:
        build = Path(named) if os.path.isabs(named) else ROOT / named
    else:
        temporary = tempfile.mkdtemp(prefix="warpspec-wheel-")
        build = Path(temporary)
    try:
        if not (build / "CMakeCache.txt").is_file():
            configure = [cmake, "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                         "-DWARPSPEC_BUILD_TOOLS=OFF", "-DWARPSPEC_BUILD_TESTS=OFF"]
            if shutil.which("ninja", path=env.get("PATH")):
                configure += ["-G", "Ninja"]
            configure += shlex.split(env.get("WARPSPEC_CMAKE_ARGS", ""))
            _run(configure, env)
        else:
            _log(f"reusing the CMake build directory {build} (WARPSPEC_BUILD_DIR)")
        _run([cmake, "--build", build, "--target", "warpspec", "-j", str(os.cpu_count() or 1)], env)
        info_file = build / "warpspec_build_info.json"
        if not info_file.is_file():
            raise RuntimeError(f"warpspec: {info_file} is missing: {build} was not configured from this source tree")
        info = json.loads(info_file.read_text(encoding="utf-8"))
        library = Path(info["library"])
        if not library.is_file():
            raise RuntimeError(f"warpspec: the build did not produce {library}")
        if info.get("build_type") != "Release":
            _log(f"note: the library is a {info.get('build_type') or 'default'} build, not Release")
        return library.read_bytes(), info  # read before a temporary build directory goes
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


# ------------------------------------------------------------------ wheel and metadata


def metadata(full_version: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {full_version}",
        f"Summary: {SUMMARY}",
        f"License: {LICENSE}",
        f"Requires-Python: {REQUIRES_PYTHON}",
        *[f"Classifier: {c}" for c in CLASSIFIERS],
        "Description-Content-Type: text/markdown",
    ]
    readme = (ROOT / "python" / "README.md").read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(path: Path, files: dict, full_version: str, tag: str = "") -> None:
    """A wheel (PEP 427): the package files, then the .dist-info with RECORD last.
    Root-Is-Purelib is false: it installs into platlib, as a binary must."""
    tag = tag or wheel_tag()
    dist_info = f"{NAME}-{full_version}.dist-info"
    entries = dict(files)
    entries[f"{dist_info}/METADATA"] = metadata(full_version).encode()
    entries[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\n"
        "Generator: warpspec_backend\n"
        f"Root-Is-Purelib: {'true' if tag.endswith('-any') else 'false'}\n"
        f"Tag: {tag}\n"
    ).encode()
    entries[f"{dist_info}/LICENSE"] = (ROOT / "LICENSE").read_bytes()
    record = [f"{name},{_record_hash(data)},{len(data)}" for name, data in entries.items()]
    record.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as whl:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = name.endswith(".so")
            info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
            whl.writestr(info, data)


def source_files():
    """Paths (relative to ROOT) that make up the source distribution."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
        return sorted(n for n in names if (ROOT / n).is_file())
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "__pycache__"}
        found = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d not in skip and not d.startswith("build")]
            for f in filenames:
                found.append(os.path.relpath(os.path.join(dirpath, f), ROOT))
        return sorted(found)
