"""The ctypes layer over libwarpspec's C ABI (include/warpspec/warpspec.h).

No PyTorch here: this module finds and loads the shared library, mirrors the C
structs, and turns a non-OK status into an exception carrying the library's message.
"""

import ctypes
import os
import struct
import sys
import threading
from pathlib import Path

ABI_VERSION = 1  # WARPSPEC_ABI_VERSION this package was written against
MAX_RANK = 4

# warpspec_status (= warpspec::StatusCode)
OK = 0
INVALID_ARGUMENT = 1
MISALIGNED = 2
UNSUPPORTED = 3
NO_DEVICE = 4
CUDA_ERROR = 5
INTERNAL = 6

# warpspec_dtype (= warpspec::DType)
DTYPE_BF16 = 0
DTYPE_FP16 = 1
DTYPE_FP32 = 2
DTYPE_E4M3 = 3
DTYPE_E5M2 = 4
DTYPE_I32 = 5
FLAG_PDL = 1
FLAG_WINDOW = 2
FLAG_NUM_SPLITS = 4
# Pack-GQA (attention): on, off; neither lets the library decide (FlashAttention-3's rule).
FLAG_PACK_GQA = 8
FLAG_NO_PACK_GQA = 16

# warpspec_gemm_activation
# warpspec_gemm_scaling
SCALING_TENSOR_OR_ROW = 0
SCALING_BLOCK = 1

ACTIVATION_NONE = 0
ACTIVATION_RELU = 1
ACTIVATION_GELU_TANH = 2
ACTIVATION_GELU_ERF = 3
ACTIVATION_SILU = 4

# warpspec_gemm_raster
RASTER_HEURISTIC = 0
RASTER_ALONG_M = 1
RASTER_ALONG_N = 2


class Tensor(ctypes.Structure):
    """warpspec_tensor: a strided view, shape and strides in elements."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("stride", ctypes.c_int64 * MAX_RANK),
    ]


class GemmArgs(ctypes.Structure):
    """warpspec_gemm_args, version 6. Build it with gemm_args()."""

    _fields_ = [
        ("struct_size", ctypes.c_uint64),
        ("a", Tensor),
        ("b", Tensor),
        ("c", Tensor),
        ("d", Tensor),
        ("alpha", ctypes.c_float),
        ("beta", ctypes.c_float),
        ("raster", ctypes.c_int32),
        ("swizzle", ctypes.c_int32),
        ("tile_n", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
        # version 2
        ("decomposition", ctypes.c_int32),
        ("splits", ctypes.c_int32),
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_uint64),
        # version 3
        ("scale_a", Tensor),
        ("scale_b", Tensor),
        ("bias", Tensor),
        ("activation", ctypes.c_int32),
        ("bias_per_row", ctypes.c_int32),
        ("use_fast_accum", ctypes.c_int32),
        ("scaling", ctypes.c_int32),
        # version 4
        ("cluster_m", ctypes.c_int32),
        ("cluster_n", ctypes.c_int32),
        # version 5
        ("schedule", ctypes.c_int32),
        ("reserved5", ctypes.c_int32),
        # version 6: an e4m3 D's scale (data NULL: 1) and amax (written; NULL: not computed)
        ("scale_result", Tensor),
        ("amax", Tensor),
    ]


class AttentionArgs(ctypes.Structure):
    """warpspec_attention_args, version 4. Build it with attention_args()."""

    _fields_ = [
        ("struct_size", ctypes.c_uint64),
        ("q", Tensor),
        ("k", Tensor),
        ("v", Tensor),
        ("o", Tensor),
        ("lse", Tensor),
        ("softmax_scale", ctypes.c_float),
        ("causal", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        # version 2
        ("window_left", ctypes.c_int64),
        ("window_right", ctypes.c_int64),
        ("softcap", ctypes.c_float),
        ("reserved2", ctypes.c_uint32),
        ("sink", Tensor),
        ("cu_seqlens_q", Tensor),
        ("cu_seqlens_k", Tensor),
        ("seqused_q", Tensor),
        ("seqused_k", Tensor),
        ("max_seqlen_q", ctypes.c_int64),
        ("tile_counter", Tensor),
        ("attention_chunk", ctypes.c_int64),
        # version 3
        ("num_splits", ctypes.c_int32),
        ("reserved3", ctypes.c_uint32),
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_uint64),
        ("cache_batch_idx", Tensor),
        ("cache_leftpad", Tensor),
        ("page_table", Tensor),
        # version 4
        ("q_descale", Tensor),
        ("k_descale", Tensor),
        ("v_descale", Tensor),
    ]


class CombineArgs(ctypes.Structure):
    """warpspec_combine_args (flash_attn_combine)."""

    _fields_ = [
        ("struct_size", ctypes.c_uint64),
        ("out_partial", Tensor),
        ("num_splits", ctypes.c_int64),
        ("out_partial_split_stride", ctypes.c_int64),
        ("lse_partial", Tensor),
        ("lse_partial_split_stride", ctypes.c_int64),
        ("out", Tensor),
        ("lse", Tensor),
    ]


class KvAppendArgs(ctypes.Structure):
    """warpspec_kvcache_append_args (the append half of flash_attn_with_kvcache)."""

    _fields_ = [("struct_size", ctypes.c_uint64)] + [
        (name, Tensor) for name in ("k_cache", "v_cache", "k_new", "v_new", "cache_seqlens", "cache_batch_idx",
                                    "cache_leftpad", "page_table", "rotary_cos", "rotary_sin", "q", "q_out")
    ] + [("rotary_interleaved", ctypes.c_int32), ("q_per_token", ctypes.c_int32)]


# The C side static_asserts the same numbers.
assert ctypes.sizeof(Tensor) == 80, "warpspec_tensor layout"
assert ctypes.sizeof(GemmArgs) == 808 and GemmArgs.flags.offset == 348 and GemmArgs.scale_a.offset == 376 and \
    GemmArgs.activation.offset == 616 and GemmArgs.cluster_m.offset == 632 and GemmArgs.schedule.offset == 640 and \
    GemmArgs.scale_result.offset == 648 and GemmArgs.amax.offset == 728, "warpspec_gemm_args layout"
assert ctypes.sizeof(AttentionArgs) == 1448 and AttentionArgs.tile_counter.offset == 856 and \
    AttentionArgs.softmax_scale.offset == 408 and AttentionArgs.sink.offset == 448 and \
    AttentionArgs.max_seqlen_q.offset == 848 and AttentionArgs.num_splits.offset == 944 and \
    AttentionArgs.page_table.offset == 1128 and AttentionArgs.q_descale.offset == 1208, "warpspec_attention_args layout"
assert ctypes.sizeof(CombineArgs) == 352 and CombineArgs.lse.offset == 272, "warpspec_combine_args layout"
assert ctypes.sizeof(KvAppendArgs) == 976 and KvAppendArgs.rotary_interleaved.offset == 968, \
    "warpspec_kvcache_append_args layout"

# The same structs as struct-module formats, for the per-call path: one pack() call
# builds a whole args struct as bytes (a few hundred ns, against tens of µs for
# filling a ctypes.Structure field by field), and ctypes hands the bytes object's
# buffer to C without a copy (the library only reads it, during the call). The
# fields and their order are the ctypes classes' above; the sizes are checked below.
# A tensor is: data, dtype, rank, shape[4], stride[4].
TENSOR_FORMAT = "Qii4q4q"
GEMM_FORMAT = struct.Struct("<Q" + TENSOR_FORMAT * 4 + "ffiiiI" + "iiQQ" + TENSOR_FORMAT * 3 + "iiiI" + "ii" + "ii"
                            + TENSOR_FORMAT * 2)
ATTENTION_FORMAT = struct.Struct("<Q" + TENSOR_FORMAT * 5 + "fiII" + "qqfI" + TENSOR_FORMAT * 5 + "q" + TENSOR_FORMAT + "q"
                                 + "iIQQ" + TENSOR_FORMAT * 3 + TENSOR_FORMAT * 3)
COMBINE_FORMAT = struct.Struct("<Q" + TENSOR_FORMAT + "qq" + TENSOR_FORMAT + "q" + TENSOR_FORMAT * 2)
APPEND_FORMAT = struct.Struct("<Q" + TENSOR_FORMAT * 12 + "ii")
NULL_TENSOR = (0,) * 11  # data NULL: an absent optional tensor
assert GEMM_FORMAT.size == ctypes.sizeof(GemmArgs), "GEMM_FORMAT mirrors warpspec_gemm_args"
assert ATTENTION_FORMAT.size == ctypes.sizeof(AttentionArgs), "ATTENTION_FORMAT mirrors warpspec_attention_args"
assert COMBINE_FORMAT.size == ctypes.sizeof(CombineArgs), "COMBINE_FORMAT mirrors warpspec_combine_args"
assert APPEND_FORMAT.size == ctypes.sizeof(KvAppendArgs), "APPEND_FORMAT mirrors warpspec_kvcache_append_args"


def gemm_args() -> GemmArgs:
    """warpspec_gemm_args_default(): struct_size set, alpha 1, the rest zero."""
    args = GemmArgs()
    args.struct_size = ctypes.sizeof(GemmArgs)
    args.alpha = 1.0
    return args


def attention_args() -> AttentionArgs:
    """warpspec_attention_args_default(): struct_size set, the rest zero."""
    args = AttentionArgs()
    args.struct_size = ctypes.sizeof(AttentionArgs)
    return args


def tensor(data_ptr: int, dtype: int, shape, stride) -> Tensor:
    if len(shape) != len(stride):
        raise ValueError(f"shape {tuple(shape)} and stride {tuple(stride)} differ in length")
    if len(shape) > MAX_RANK:
        raise ValueError(f"rank {len(shape)}: warpspec tensors have at most {MAX_RANK} dimensions")
    t = Tensor()
    t.data = data_ptr or None
    t.dtype = dtype
    t.rank = len(shape)
    for i, (n, s) in enumerate(zip(shape, stride)):
        t.shape[i] = int(n)
        t.stride[i] = int(s)
    return t


# ------------------------------------------------------------------ errors


class WarpspecError(RuntimeError):
    """The library refused or failed a call. `code` is the warpspec_status (None when
    the library itself could not be loaded), and the message is the library's:
    "<code name>: <argument>: <rule>"."""

    def __init__(self, message: str, code=INTERNAL):
        super().__init__(message)
        self.code = code


class WarpspecArgumentError(WarpspecError, ValueError):
    """Bad input: invalid argument, misaligned pointer or stride, unsupported case."""


class LibraryNotFoundError(WarpspecError):
    """libwarpspec could not be loaded; the message lists every place tried."""


def error_for(code: int, message: str) -> WarpspecError:
    if code in (INVALID_ARGUMENT, MISALIGNED, UNSUPPORTED):
        return WarpspecArgumentError(message, code)
    return WarpspecError(message, code)


# ------------------------------------------------------------------ finding the library

_PACKAGE_DIR = Path(__file__).resolve().parent
_LIBRARY_NAME = "libwarpspec.so"


def search_locations(environ=None, package_dir: Path = _PACKAGE_DIR):
    """The places tried, in order, as (description, path or loader name) pairs.

    1. $WARPSPEC_LIBRARY, when set: that file and nothing else.
    2. The package folder (the library installed with the package).
    3. A source checkout's build tree (python/warpspec -> <repo>/build), when the
       package is imported from the checkout.
    4. <sys.prefix>/lib, then /usr/local/lib (`cmake --install` prefixes).
    5. The dynamic loader by name: LD_LIBRARY_PATH, the ldconfig cache, RUNPATH.
    """
    environ = os.environ if environ is None else environ
    explicit = environ.get("WARPSPEC_LIBRARY")
    if explicit:
        return [("WARPSPEC_LIBRARY", Path(explicit))]
    places = [("the package folder", package_dir / _LIBRARY_NAME)]
    repo = package_dir.parent.parent
    if (repo / "include" / "warpspec" / "warpspec.h").is_file():
        places.append(("the source checkout's build tree", repo / "build" / _LIBRARY_NAME))
    places.append(("the Python prefix", Path(sys.prefix) / "lib" / _LIBRARY_NAME))
    places.append(("/usr/local", Path("/usr/local/lib") / _LIBRARY_NAME))
    ld_path = environ.get("LD_LIBRARY_PATH", "")
    loader = f"the dynamic loader (LD_LIBRARY_PATH={ld_path!r}, ldconfig cache)"
    places.append((loader, _LIBRARY_NAME + ".0"))
    places.append((loader, _LIBRARY_NAME))
    return places


def _declare(cdll: ctypes.CDLL) -> None:
    c_int, c_char_p, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
    args_p = ctypes.POINTER(GemmArgs)
    attention_p = ctypes.POINTER(AttentionArgs)
    signatures = {
        "warpspec_status_name": (c_char_p, [c_int]),
        "warpspec_last_error": (c_char_p, []),
        "warpspec_version": (c_char_p, []),
        "warpspec_version_major": (c_int, []),
        "warpspec_version_minor": (c_int, []),
        "warpspec_version_patch": (c_int, []),
        "warpspec_abi_version": (c_int, []),
        "warpspec_check_device": (c_int, [c_int]),
        "warpspec_gemm_check": (c_int, [args_p]),
        "warpspec_gemm": (c_int, [args_p, c_void_p]),
        "warpspec_attention_check": (c_int, [attention_p]),
        "warpspec_attention": (c_int, [attention_p, c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(cdll, name)  # AttributeError: not this library
        fn.restype = restype
        fn.argtypes = argtypes


class Library:
    """A loaded libwarpspec. Methods raise WarpspecError (WarpspecArgumentError for
    bad input) with the library's message on any non-OK status."""

    def __init__(self, cdll: ctypes.CDLL, path: str):
        self._cdll = cdll
        self.path = path
        # The per-call entry points, a second handle on the same symbols: bytes from
        # GEMM_FORMAT / ATTENTION_FORMAT (c_char_p: the buffer, no copy) and the stream
        # as an int. See gemm_packed().
        for name in ("warpspec_gemm", "warpspec_attention"):
            fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)((name, cdll))
            setattr(self, "_" + name[len("warpspec_"):] + "_packed", fn)
        self._attention_check_packed = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p)(
            ("warpspec_attention_check", cdll))
        try:  # optional, as the serving entry points below (it came with them)
            self._attention_workspace_size_packed = ctypes.CFUNCTYPE(
                ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64))(("warpspec_attention_workspace_size", cdll))
        except AttributeError:
            self._attention_workspace_size_packed = None
        # The serving entry points (split-KV combine, KV-cache append): declared here when
        # the library has them, so that an older library still loads for the other ops
        # (serving() raises then, naming what is missing).
        for name in ("warpspec_attention_combine", "warpspec_kvcache_append"):
            try:
                fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)((name, cdll))
            except AttributeError:
                fn = None
            setattr(self, "_" + name[len("warpspec_"):] + "_packed", fn)

    def _check(self, status: int) -> None:
        if status != OK:
            # Thread-local in the library, and ctypes calls on this same thread.
            raise error_for(status, self._cdll.warpspec_last_error().decode("utf-8", "replace"))

    def version(self) -> str:
        return self._cdll.warpspec_version().decode()

    def version_tuple(self):
        c = self._cdll
        return (c.warpspec_version_major(), c.warpspec_version_minor(), c.warpspec_version_patch())

    def abi_version(self) -> int:
        return self._cdll.warpspec_abi_version()

    def status_name(self, code: int) -> str:
        return self._cdll.warpspec_status_name(code).decode()

    def last_error(self) -> str:
        return self._cdll.warpspec_last_error().decode("utf-8", "replace")

    def check_device(self, device: int = -1) -> None:
        if isinstance(device, bool) or not isinstance(device, int):
            raise TypeError(f"device: must be an int, got {type(device).__name__}")
        if not -1 <= device < 2**31:
            raise ValueError(f"device: must be -1 (the current device) or a device index, got {device}")
        self._check(self._cdll.warpspec_check_device(device))

    def gemm_check(self, args: GemmArgs) -> None:
        self._check(self._cdll.warpspec_gemm_check(ctypes.byref(args)))

    def gemm(self, args: GemmArgs, stream: int = 0) -> None:
        """Launch on `stream` (a cudaStream_t as an int; 0 is the legacy default)."""
        self._check(self._cdll.warpspec_gemm(ctypes.byref(args), ctypes.c_void_p(stream or None)))

    def attention_check(self, args: AttentionArgs) -> None:
        self._check(self._cdll.warpspec_attention_check(ctypes.byref(args)))

    def attention(self, args: AttentionArgs, stream: int = 0) -> None:
        """Launch on `stream` (a cudaStream_t as an int; 0 is the legacy default)."""
        self._check(self._cdll.warpspec_attention(ctypes.byref(args), ctypes.c_void_p(stream or None)))

    # The per-call path of the PyTorch ops: `packed` is GEMM_FORMAT / ATTENTION_FORMAT
    # bytes, `stream` an int. The status is returned, not raised: the caller raises
    # (error()) so that it can add what it knows to the message.
    def gemm_packed(self, packed: bytes, stream: int) -> int:
        return self._gemm_packed(packed, stream)

    def attention_packed(self, packed: bytes, stream: int) -> int:
        return self._attention_packed(packed, stream)

    def serving(self, name: str):
        """The packed entry point `name` ("attention_combine" or "kvcache_append")."""
        fn = getattr(self, "_" + name + "_packed", None)
        if fn is None:
            raise WarpspecError(f"{self.path} has no warpspec_{name}: it is older than this package", INTERNAL)
        return fn

    def error(self, status: int) -> WarpspecError:
        """The exception for a non-OK status of this thread's last call."""
        return error_for(status, self.last_error())


def _open(target) -> Library:
    """Load one candidate; OSError or ValueError says why it is not usable."""
    if isinstance(target, Path):
        if not target.is_file():
            raise OSError("no such file")
        name = str(target)
    else:
        name = target
    cdll = ctypes.CDLL(name, mode=ctypes.RTLD_LOCAL)
    try:
        _declare(cdll)
    except AttributeError as e:
        raise ValueError(f"not a warpspec library with the C ABI ({e})") from None
    abi = cdll.warpspec_abi_version()
    if abi != ABI_VERSION:
        raise ValueError(f"its C ABI is version {abi}; this package needs {ABI_VERSION}")
    path = name
    if not isinstance(target, Path):  # where did the loader find it?
        try:
            path = os.path.realpath(_loaded_path(cdll) or name)
        except OSError:
            pass
    return Library(cdll, path)


def _loaded_path(cdll: ctypes.CDLL):
    """The file a dlopen'ed handle came from (dladdr on one of its symbols)."""

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        return None
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    info = DlInfo()
    addr = ctypes.cast(cdll.warpspec_version, ctypes.c_void_p)
    if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
        return info.dli_fname.decode()
    return None


def load(environ=None, package_dir: Path = _PACKAGE_DIR) -> Library:
    """Find and load libwarpspec (see search_locations); uncached."""
    tried = []
    for where, target in search_locations(environ, package_dir):
        try:
            return _open(target)
        except (OSError, ValueError) as e:
            label = f"{where}={target}" if where == "WARPSPEC_LIBRARY" else f"{where}: {target}"
            tried.append(f"  {label}: {e}")
    raise LibraryNotFoundError(
        "warpspec: cannot load libwarpspec.so. Looked in, in order:\n" + "\n".join(tried) + "\n"
        "Set WARPSPEC_LIBRARY to the library's path (e.g. build/libwarpspec.so), or install the package "
        "with `pip install .` from the repository root (it builds the library into the package).",
        code=None,
    )


_lock = threading.Lock()
_library = None


def library() -> Library:
    """The process's libwarpspec, loaded on first use."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                _library = load()
    return _library


# ------------------------------------------------------------------ introspection

DESCRIPTION_SIZE = 512  # WARPSPEC_DESCRIPTION_SIZE: a buffer this size always holds the line


def describe(family: str, packed: bytes) -> str:
    """warpspec_<family>_describe ("gemm" or "attention") on GEMM_FORMAT /
    ATTENTION_FORMAT bytes: the configuration that call would pick, as the one line
    WARPSPEC_LOG_CONFIG prints at launch. Raises as the _check call would."""
    lib = library()
    fn = getattr(lib, "_" + family + "_describe", None)
    if fn is None:
        try:  # declared on first use: libraries older than the entry point still load
            fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t)(
                ("warpspec_" + family + "_describe", lib._cdll))
        except AttributeError:
            raise WarpspecError(f"{lib.path} has no warpspec_{family}_describe: it is older than this package",
                                INTERNAL) from None
        setattr(lib, "_" + family + "_describe", fn)
    out = ctypes.create_string_buffer(DESCRIPTION_SIZE)
    lib._check(fn(packed, out, DESCRIPTION_SIZE))
    return out.value.decode()
