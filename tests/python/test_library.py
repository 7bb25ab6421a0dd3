"""The ctypes layer without PyTorch: finding libwarpspec (and saying where it looked
when it cannot), the version, refusals through the C ABI with the library's codes
and messages, and the thread-local last error. Runs on any machine."""

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import warpspec
from warpspec import _lib

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lib():
    return _lib.library()


def test_library_version_matches_package_and_project(lib):
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)\n?", (ROOT / "VERSION").read_text())
    assert m, "VERSION holds the project version (CMake and the wheel read it)"
    project = tuple(int(x) for x in m.groups())
    assert lib.version_tuple() == project
    assert lib.version() == "%d.%d.%d" % project
    assert warpspec.library_version() == lib.version()
    assert warpspec.__version__ == lib.version()
    assert lib.abi_version() == _lib.ABI_VERSION
    assert Path(warpspec.library_path()).is_file()


def test_explicit_library_that_does_not_exist_is_named(tmp_path):
    missing = tmp_path / "nowhere" / "libwarpspec.so"
    with pytest.raises(warpspec.LibraryNotFoundError) as e:
        _lib.load(environ={"WARPSPEC_LIBRARY": str(missing)})
    message = str(e.value)
    assert f"WARPSPEC_LIBRARY={missing}: no such file" in message
    assert "pip install ." in message
    assert isinstance(e.value, RuntimeError)


def test_explicit_file_that_is_not_a_library_says_why(tmp_path):
    bogus = tmp_path / "libwarpspec.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(warpspec.LibraryNotFoundError) as e:
        _lib.load(environ={"WARPSPEC_LIBRARY": str(bogus)})
    assert str(bogus) in str(e.value)


def test_search_lists_every_place_it_looked(tmp_path):
    # A package folder outside any checkout and an empty loader path: nothing is
    # found unless this machine installed libwarpspec system-wide. In a fresh process:
    # here the library is loaded already, and the loader would return it by soname.
    package = tmp_path / "site-packages" / "warpspec"
    package.mkdir(parents=True)
    places = _lib.search_locations({"LD_LIBRARY_PATH": "/nonexistent"}, package)
    assert [w for w, _ in places][:1] == ["the package folder"]
    assert not any("build tree" in w for w, _ in places)  # not a checkout
    script = (
        "import sys; from pathlib import Path\n"
        f"sys.path.insert(0, {str(ROOT / 'python')!r})\n"
        "from warpspec import _lib\n"
        "try:\n"
        f"    lib = _lib.load({{'LD_LIBRARY_PATH': '/nonexistent'}}, Path({str(package)!r}))\n"
        "except _lib.LibraryNotFoundError as e:\n"
        "    print(e); sys.exit(3)\n"
        "print(lib.path)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("WARPSPEC_LIBRARY", "LD_LIBRARY_PATH")}
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    if r.returncode == 0:
        pytest.skip(f"libwarpspec is installed on this machine ({r.stdout.strip()})")
    assert r.returncode == 3, r.stdout + r.stderr
    message = r.stdout
    assert f"the package folder: {package / 'libwarpspec.so'}: no such file" in message
    assert "the Python prefix" in message and "/usr/local" in message
    assert "LD_LIBRARY_PATH='/nonexistent'" in message
    assert "libwarpspec.so.0" in message
    assert "Set WARPSPEC_LIBRARY" in message


def test_source_checkout_searches_its_build_tree():
    places = dict((str(t), w) for w, t in _lib.search_locations({}, ROOT / "python" / "warpspec"))
    assert places.get(str(ROOT / "build" / "libwarpspec.so")) == "the source checkout's build tree"


def test_refusal_carries_code_and_message(lib):
    args = _lib.gemm_args()  # no operands at all
    with pytest.raises(ValueError) as e:
        lib.gemm_check(args)
    assert isinstance(e.value, warpspec.WarpspecArgumentError)
    assert e.value.code == _lib.INVALID_ARGUMENT
    assert str(e.value) == "invalid argument: d.data: must not be null"
    assert lib.last_error() == str(e.value)
    # The run refuses the same way and launches nothing.
    with pytest.raises(warpspec.WarpspecArgumentError, match="d.data: must not be null"):
        lib.gemm(args, 0)


def test_misaligned_and_unsupported_codes(lib):
    def matrix(addr, dtype, rows, cols, ld):
        return _lib.tensor(addr, dtype, (rows, cols), (ld, 1))

    args = _lib.gemm_args()
    args.a = matrix(0x10000008, _lib.DTYPE_BF16, 64, 64, 64)  # 8 bytes off
    args.b = matrix(0x20000000, _lib.DTYPE_BF16, 64, 64, 64)
    args.d = matrix(0x30000000, _lib.DTYPE_BF16, 64, 64, 64)
    with pytest.raises(warpspec.WarpspecArgumentError) as e:
        lib.gemm_check(args)
    assert e.value.code == _lib.MISALIGNED and "a.data: must be 16-byte aligned" in str(e.value)
    args.a = matrix(0x10000000, _lib.DTYPE_FP32, 64, 64, 64)
    args.b = matrix(0x20000000, _lib.DTYPE_FP32, 64, 64, 64)
    with pytest.raises(warpspec.WarpspecArgumentError) as e:
        lib.gemm_check(args)
    assert e.value.code == _lib.UNSUPPORTED and "a.dtype: fp32 is not supported" in str(e.value)


def test_last_error_is_per_thread(lib):
    bad = _lib.gemm_args()
    bad.swizzle = 3
    bad.d = _lib.tensor(0x30000000, _lib.DTYPE_BF16, (64, 64), (64, 1))
    bad.a = _lib.tensor(0x10000000, _lib.DTYPE_BF16, (64, 64), (64, 1))
    bad.b = _lib.tensor(0x20000000, _lib.DTYPE_BF16, (64, 64), (64, 1))
    with pytest.raises(warpspec.WarpspecArgumentError):
        lib.gemm_check(bad)
    mine = lib.last_error()
    assert "swizzle" in mine

    seen = {}

    def other():
        seen["fresh"] = lib.last_error()
        with pytest.raises(warpspec.WarpspecArgumentError):
            lib.gemm_check(_lib.gemm_args())
        seen["theirs"] = lib.last_error()

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen["fresh"] == ""
    assert "d.data" in seen["theirs"]
    assert lib.last_error() == mine


def test_device_check_says_whether_a_hopper_gpu_is_there(lib):
    try:
        warpspec.check_device()
    except warpspec.WarpspecError as e:
        assert e.code == _lib.NO_DEVICE
        assert not isinstance(e, ValueError)
        assert "Hopper" in str(e)
    else:
        assert lib.last_error() == ""
    with pytest.raises(warpspec.WarpspecError, match="device 4096"):
        warpspec.check_device(4096)


def test_describe_refuses_through_the_c_abi_without_torch(lib):
    """_lib.describe (what warpspec.describe_gemm / describe_attention call) on a
    default struct: refused with the library's code and message, as the _check calls
    refuse it (no torch, no GPU needed: argument checks come first)."""
    with pytest.raises(warpspec.WarpspecArgumentError) as e:
        _lib.describe("gemm", bytes(_lib.gemm_args()))
    assert e.value.code == _lib.INVALID_ARGUMENT
    assert "d.data: must not be null" in str(e.value)
    with pytest.raises(warpspec.WarpspecArgumentError) as e:
        _lib.describe("attention", bytes(_lib.attention_args()))
    assert "q.data: must not be null" in str(e.value)
    with pytest.raises(warpspec.WarpspecArgumentError) as e:
        lib.gemm_check(_lib.gemm_args())
    assert "d.data: must not be null" in str(e.value)
