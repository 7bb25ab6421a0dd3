"""warpspec: Hopper (sm_90a) GEMM and attention kernels for PyTorch.

Pure Python over libwarpspec's C ABI (ctypes): nothing here is compiled against
PyTorch. The shared library is found through $WARPSPEC_LIBRARY, else the package
folder, a source checkout's build/, the install prefixes and the dynamic loader
(warpspec._lib.search_locations); a failure lists every place tried.
"""

from . import _lib
from ._lib import LibraryNotFoundError, WarpspecArgumentError, WarpspecError
from ._version import version as __version__

__all__ = [
    "__version__",
    "LibraryNotFoundError",
    "WarpspecArgumentError",
    "WarpspecError",
    "check_device",
    "describe_attention",
    "describe_gemm",
    "flash_attn_combine",
    "flash_attn_func",
    "flash_attn_varlen_func",
    "flash_attn_with_kvcache",
    "gemm",
    "gemm_fp8_fp8_bf16_nt",
    "library_path",
    "library_version",
    "scaled_mm",
]


def library_version() -> str:
    """The loaded libwarpspec's version, "MAJOR.MINOR.PATCH"."""
    return _lib.library().version()


def library_path() -> str:
    """The file libwarpspec was loaded from."""
    return _lib.library().path


def check_device(device: int = -1) -> None:
    """Raise WarpspecError (code NO_DEVICE) unless `device` (the current CUDA device
    if negative) is a Hopper GPU warpspec runs on."""
    _lib.library().check_device(int(device))


try:
    import torch  # noqa: F401
except ImportError:  # the library layer still works; the ops need PyTorch

    def gemm(*args, **kwargs):
        raise ImportError("warpspec.gemm needs PyTorch (import torch failed)")

    def flash_attn_func(*args, **kwargs):
        raise ImportError("warpspec.flash_attn_func needs PyTorch (import torch failed)")

    def flash_attn_varlen_func(*args, **kwargs):
        raise ImportError("warpspec.flash_attn_varlen_func needs PyTorch (import torch failed)")

    def flash_attn_with_kvcache(*args, **kwargs):
        raise ImportError("warpspec.flash_attn_with_kvcache needs PyTorch (import torch failed)")

    def flash_attn_combine(*args, **kwargs):
        raise ImportError("warpspec.flash_attn_combine needs PyTorch (import torch failed)")

    def scaled_mm(*args, **kwargs):
        raise ImportError("warpspec.scaled_mm needs PyTorch (import torch failed)")

    def gemm_fp8_fp8_bf16_nt(*args, **kwargs):
        raise ImportError("warpspec.gemm_fp8_fp8_bf16_nt needs PyTorch (import torch failed)")

    def describe_gemm(*args, **kwargs):
        raise ImportError("warpspec.describe_gemm needs PyTorch (import torch failed)")

    def describe_attention(*args, **kwargs):
        raise ImportError("warpspec.describe_attention needs PyTorch (import torch failed)")

else:
    from .ops import (describe_attention, describe_gemm, flash_attn_combine, flash_attn_func, flash_attn_varlen_func,
                      flash_attn_with_kvcache, gemm, gemm_fp8_fp8_bf16_nt, scaled_mm)
