// The C ABI (warpspec.h) over the C++ API: struct conversion, the extensible-struct
// rule, the thread-local last error, and no exception ever crossing into C.
#include "warpspec/warpspec.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "common/format.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec {
namespace {

// The C enums are the C++ ones: a mismatch would make every code a lie.
static_assert(WARPSPEC_OK == int(StatusCode::kOk));
static_assert(WARPSPEC_INVALID_ARGUMENT == int(StatusCode::kInvalidArgument));
static_assert(WARPSPEC_MISALIGNED == int(StatusCode::kMisaligned));
static_assert(WARPSPEC_UNSUPPORTED == int(StatusCode::kUnsupported));
static_assert(WARPSPEC_NO_DEVICE == int(StatusCode::kNoDevice));
static_assert(WARPSPEC_CUDA_ERROR == int(StatusCode::kCudaError));
static_assert(WARPSPEC_INTERNAL == int(StatusCode::kInternal));
static_assert(WARPSPEC_DTYPE_BF16 == int(DType::kBF16));
static_assert(WARPSPEC_DTYPE_FP16 == int(DType::kFP16));
static_assert(WARPSPEC_DTYPE_FP32 == int(DType::kFP32));
static_assert(WARPSPEC_DTYPE_E4M3 == int(DType::kE4M3));
static_assert(WARPSPEC_DTYPE_E5M2 == int(DType::kE5M2));
static_assert(WARPSPEC_DTYPE_I32 == int(DType::kI32));
static_assert(WARPSPEC_GEMM_RASTER_HEURISTIC == int(GemmRaster::kHeuristic));
static_assert(WARPSPEC_GEMM_RASTER_ALONG_M == int(GemmRaster::kAlongM));
static_assert(WARPSPEC_GEMM_RASTER_ALONG_N == int(GemmRaster::kAlongN));
static_assert(WARPSPEC_GEMM_DECOMPOSITION_HEURISTIC == int(GemmDecomposition::kHeuristic));
static_assert(WARPSPEC_GEMM_DECOMPOSITION_DATA_PARALLEL == int(GemmDecomposition::kDataParallel));
static_assert(WARPSPEC_GEMM_DECOMPOSITION_SPLIT_K == int(GemmDecomposition::kSplitK));
static_assert(WARPSPEC_GEMM_DECOMPOSITION_STREAM_K == int(GemmDecomposition::kStreamK));
static_assert(WARPSPEC_GEMM_ACTIVATION_NONE == int(GemmActivation::kNone));
static_assert(WARPSPEC_GEMM_ACTIVATION_RELU == int(GemmActivation::kReLU));
static_assert(WARPSPEC_GEMM_ACTIVATION_GELU_TANH == int(GemmActivation::kGeluTanh));
static_assert(WARPSPEC_GEMM_ACTIVATION_GELU_ERF == int(GemmActivation::kGeluErf));
static_assert(WARPSPEC_GEMM_ACTIVATION_SILU == int(GemmActivation::kSiLU));
static_assert(WARPSPEC_MAX_RANK == kMaxTensorRank);
// The layouts FFI callers (python/warpspec/_lib.py) mirror field by field.
static_assert(sizeof(warpspec_tensor) == 80 && offsetof(warpspec_tensor, shape) == 16 &&
              offsetof(warpspec_tensor, stride) == 48, "warpspec_tensor layout is ABI");
static_assert(offsetof(warpspec_gemm_args, a) == 8 && offsetof(warpspec_gemm_args, alpha) == 328 &&
              offsetof(warpspec_gemm_args, flags) == 348,
              "warpspec_gemm_args v1 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_gemm_args, decomposition) == 352 &&
              offsetof(warpspec_gemm_args, splits) == 356 && offsetof(warpspec_gemm_args, workspace) == 360 &&
              offsetof(warpspec_gemm_args, workspace_bytes) == 368,
              "warpspec_gemm_args v2 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_gemm_args, scale_a) == 376 && offsetof(warpspec_gemm_args, scale_b) == 456 &&
              offsetof(warpspec_gemm_args, bias) == 536 && offsetof(warpspec_gemm_args, activation) == 616 &&
              offsetof(warpspec_gemm_args, bias_per_row) == 620 && offsetof(warpspec_gemm_args, use_fast_accum) == 624 &&
              offsetof(warpspec_gemm_args, scaling) == 628,
              "warpspec_gemm_args v3 layout is ABI; append fields, never move them");

static_assert(offsetof(warpspec_attention_args, q) == 8 &&
              offsetof(warpspec_attention_args, lse) == 328 &&
              offsetof(warpspec_attention_args, softmax_scale) == 408 &&
              offsetof(warpspec_attention_args, reserved) == 420,
              "warpspec_attention_args v1 layout is ABI; append fields, never move them");

// Every version's size, oldest first: a struct_size below ours must be one of them
// (a size between two versions would end inside a field).
constexpr std::size_t kGemmArgsSizes[] = {352, 376, 632, 640, 648, 808};
static_assert(offsetof(warpspec_gemm_args, cluster_m) == 632 && offsetof(warpspec_gemm_args, cluster_n) == 636,
              "warpspec_gemm_args v4 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_gemm_args, schedule) == 640 && offsetof(warpspec_gemm_args, reserved5) == 644,
              "warpspec_gemm_args v5 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_gemm_args, scale_result) == 648 && offsetof(warpspec_gemm_args, amax) == 728 &&
                  sizeof(warpspec_gemm_args) == 808,
              "warpspec_gemm_args v6 layout is ABI; append fields, never move them");
constexpr std::size_t kAttentionArgsSizes[] = {424, 944, 1208, 1448};
static_assert(offsetof(warpspec_attention_args, window_left) == 424 &&
              offsetof(warpspec_attention_args, softcap) == 440 && offsetof(warpspec_attention_args, sink) == 448 &&
              offsetof(warpspec_attention_args, cu_seqlens_q) == 528 &&
              offsetof(warpspec_attention_args, max_seqlen_q) == 848 &&
              offsetof(warpspec_attention_args, tile_counter) == 856 &&
              offsetof(warpspec_attention_args, attention_chunk) == 936,
              "warpspec_attention_args v2 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_attention_args, num_splits) == 944 && offsetof(warpspec_attention_args, reserved3) == 948 &&
              offsetof(warpspec_attention_args, workspace) == 952 &&
              offsetof(warpspec_attention_args, workspace_bytes) == 960 &&
              offsetof(warpspec_attention_args, cache_batch_idx) == 968 &&
              offsetof(warpspec_attention_args, cache_leftpad) == 1048 &&
              offsetof(warpspec_attention_args, page_table) == 1128,
              "warpspec_attention_args v3 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_attention_args, q_descale) == 1208 &&
                  offsetof(warpspec_attention_args, k_descale) == 1288 &&
                  offsetof(warpspec_attention_args, v_descale) == 1368 && sizeof(warpspec_attention_args) == 1448,
              "warpspec_attention_args v4 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_combine_args, out_partial) == 8 && offsetof(warpspec_combine_args, num_splits) == 88 &&
              offsetof(warpspec_combine_args, lse_partial) == 104 &&
              offsetof(warpspec_combine_args, lse_partial_split_stride) == 184 &&
              offsetof(warpspec_combine_args, out) == 192 && offsetof(warpspec_combine_args, lse) == 272 &&
              sizeof(warpspec_combine_args) == 352,
              "warpspec_combine_args v1 layout is ABI; append fields, never move them");
static_assert(offsetof(warpspec_kvcache_append_args, k_cache) == 8 &&
              offsetof(warpspec_kvcache_append_args, cache_seqlens) == 328 &&
              offsetof(warpspec_kvcache_append_args, rotary_cos) == 648 &&
              offsetof(warpspec_kvcache_append_args, q_out) == 888 &&
              offsetof(warpspec_kvcache_append_args, rotary_interleaved) == 968 &&
              sizeof(warpspec_kvcache_append_args) == 976,
              "warpspec_kvcache_append_args v1 layout is ABI; append fields, never move them");
static_assert(kGemmArgsSizes[5] == sizeof(warpspec_gemm_args) && kAttentionArgsSizes[3] == sizeof(warpspec_attention_args),
              "a new version: add its size to the list");
constexpr std::size_t kCombineArgsSizes[] = {sizeof(warpspec_combine_args)};
constexpr std::size_t kKvAppendArgsSizes[] = {sizeof(warpspec_kvcache_append_args)};
// The largest struct_size accepted: a newer caller's struct may be longer than ours
// (its tail must be zero, which we read), but not unboundedly: a garbage size would
// have us read far past the caller's object.
constexpr uint64_t kMaxArgsSize = 4096;

thread_local std::string t_last_error;

warpspec_status finish(const Status& s) {
  if (s.ok()) t_last_error.clear();
  else t_last_error = s.to_string();
  return static_cast<warpspec_status>(s.code());
}

// Runs `body` (returning a Status); exceptions become kInternal, never cross into C.
template <class F>
warpspec_status guarded(F&& body) {
  try {
    return finish(body());
  } catch (const std::exception& e) {
    return finish(internal_error(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return finish(internal_error("unexpected exception"));
  }
}

// The extensible-struct rule (warpspec.h): copy what both sides know, default the
// rest; a tail this library does not know must be zero.
template <class T, std::size_t N>
Status read_args(const T* user, const char* name, const std::size_t (&sizes)[N], T* out) {
  if (user == nullptr) return invalid_argument(std::string(name) + ": must not be null");
  const uint64_t size = user->struct_size;
  if (size < sizes[0]) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s.struct_size: %llu is smaller than the first version's %zu bytes; set it to sizeof(%s)",
                  name, static_cast<unsigned long long>(size), sizes[0], name);
    return invalid_argument(buf);
  }
  if (size < sizeof(T)) {
    bool known = false;
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
      known = known || size == sizes[i];
      list += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::to_string(sizes[i]);
    }
    if (!known) {
      char buf[320];
      std::snprintf(buf, sizeof buf, "%s.struct_size: %llu is not the size of any version (%s bytes); set it to sizeof(%s)",
                    name, static_cast<unsigned long long>(size), list.c_str(), name);
      return invalid_argument(buf);
    }
  }
  if (size > kMaxArgsSize) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s.struct_size: %llu is larger than any version of the struct can be (at most %llu); "
                  "set it to sizeof(%s)", name, static_cast<unsigned long long>(size),
                  static_cast<unsigned long long>(kMaxArgsSize), name);
    return invalid_argument(buf);
  }
  std::memcpy(static_cast<void*>(out), user, size < sizeof(T) ? std::size_t(size) : sizeof(T));
  const auto* bytes = reinterpret_cast<const unsigned char*>(user);
  for (uint64_t i = sizeof(T); i < size; ++i) {
    if (bytes[i] != 0) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "%s.struct_size: %llu bytes, but this library (warpspec %s) knows %zu; a field past that "
                    "is set (byte %llu), and ignoring it could change the result",
                    name, static_cast<unsigned long long>(size), version(), sizeof(T),
                    static_cast<unsigned long long>(i));
      return unsupported(buf);
    }
  }
  return Status::Ok();
}

TensorView to_view(const warpspec_tensor& t) {
  TensorView v;
  v.data = t.data;
  v.dtype = static_cast<DType>(t.dtype);  // validated by the API (dtype_valid)
  v.rank = t.rank;
  for (int i = 0; i < kMaxTensorRank; ++i) {
    v.shape[i] = t.shape[i];
    v.stride[i] = t.stride[i];
  }
  return v;
}

Status check_flags(uint32_t flags, uint32_t known = WARPSPEC_FLAG_KNOWN,
                   const char* names = "WARPSPEC_FLAG_PDL (1)") {
  if ((flags & ~known) == 0) return Status::Ok();
  return unsupported(fmt("flags: unknown option bits 0x%x; the known ones are %s", unsigned(flags & ~known), names));
}

Status to_gemm_args(const warpspec_gemm_args* user, GemmArgs* out) {
  warpspec_gemm_args args = warpspec_gemm_args_default();
  WARPSPEC_RETURN_IF_ERROR(read_args(user, "warpspec_gemm_args", kGemmArgsSizes, &args));
  WARPSPEC_RETURN_IF_ERROR(check_flags(args.flags));
  out->a = to_view(args.a);
  out->b = to_view(args.b);
  out->c = to_view(args.c);
  out->d = to_view(args.d);
  out->alpha = args.alpha;
  out->beta = args.beta;
  out->raster = static_cast<GemmRaster>(args.raster);  // validated by the API
  out->swizzle = args.swizzle;
  out->tile_n = args.tile_n;
  out->pdl = (args.flags & WARPSPEC_FLAG_PDL) != 0;
  out->decomposition = static_cast<GemmDecomposition>(args.decomposition);  // validated by the API
  out->splits = args.splits;
  out->workspace = args.workspace;
  out->workspace_bytes = size_t(args.workspace_bytes);
  if (args.scaling != WARPSPEC_GEMM_SCALING_TENSOR_OR_ROW && args.scaling != WARPSPEC_GEMM_SCALING_BLOCK)
    return invalid_argument("scaling: unknown value " + std::to_string(args.scaling) +
                            " (0 tensor- or row-wise, 1 block-wise)");
  if (args.bias_per_row != 0 && args.bias_per_row != 1)
    return invalid_argument("bias_per_row: must be 0 or 1, got " + std::to_string(args.bias_per_row));
  if (args.use_fast_accum != 0 && args.use_fast_accum != 1)
    return invalid_argument("use_fast_accum: must be 0 or 1, got " + std::to_string(args.use_fast_accum));
  const auto optional = [](const warpspec_tensor& t) { return t.data != nullptr ? to_view(t) : TensorView{}; };
  out->scale_a = optional(args.scale_a);
  out->scale_b = optional(args.scale_b);
  out->bias = optional(args.bias);
  out->bias_per_row = args.bias_per_row == 1;
  out->activation = static_cast<GemmActivation>(args.activation);  // validated by the API
  out->use_fast_accum = args.use_fast_accum == 1;
  out->scaling = static_cast<GemmScaling>(args.scaling);
  out->cluster_m = args.cluster_m;  // validated by the API
  out->cluster_n = args.cluster_n;
  if (args.reserved5 != 0) return unsupported("reserved5: must be 0, got " + std::to_string(args.reserved5));
  out->schedule = static_cast<GemmSchedule>(args.schedule);  // validated by the API
  // Version 6; an older caller's struct leaves both zeroed (data NULL): empty views.
  out->scale_result = optional(args.scale_result);
  out->amax = optional(args.amax);
  return Status::Ok();
}

Status to_attention_args(const warpspec_attention_args* user, AttentionArgs* out) {
  warpspec_attention_args args = warpspec_attention_args_default();
  WARPSPEC_RETURN_IF_ERROR(read_args(user, "warpspec_attention_args", kAttentionArgsSizes, &args));
  WARPSPEC_RETURN_IF_ERROR(check_flags(args.flags, WARPSPEC_ATTENTION_FLAG_KNOWN,
                                       "WARPSPEC_FLAG_PDL (1), WARPSPEC_FLAG_WINDOW (2), WARPSPEC_FLAG_NUM_SPLITS (4), "
                                       "WARPSPEC_FLAG_PACK_GQA (8) and WARPSPEC_FLAG_NO_PACK_GQA (16)"));
  if (args.reserved != 0) return unsupported("reserved: must be 0, got " + std::to_string(args.reserved));
  if (args.reserved2 != 0) return unsupported("reserved2: must be 0, got " + std::to_string(args.reserved2));
  if (args.reserved3 != 0) return unsupported("reserved3: must be 0, got " + std::to_string(args.reserved3));
  if (args.causal != 0 && args.causal != 1)
    return invalid_argument("causal: must be 0 or 1, got " + std::to_string(args.causal));
  out->q = to_view(args.q);
  out->k = to_view(args.k);
  out->v = to_view(args.v);
  out->o = to_view(args.o);
  if (args.lse.data != nullptr) out->lse = to_view(args.lse);  // else left empty: not computed
  // 0 is "not given"; anything else (negative, NaN, inf included) goes to the API,
  // which refuses what is not positive and finite.
  if (args.softmax_scale != 0.0f) out->softmax_scale = args.softmax_scale;
  out->causal = args.causal == 1;
  out->pdl = (args.flags & WARPSPEC_FLAG_PDL) != 0;
  if ((args.flags & WARPSPEC_FLAG_PACK_GQA) && (args.flags & WARPSPEC_FLAG_NO_PACK_GQA))
    return invalid_argument("flags: WARPSPEC_FLAG_PACK_GQA (8) and WARPSPEC_FLAG_NO_PACK_GQA (16) together; set one "
                            "or neither (the library decides)");
  if (args.flags & WARPSPEC_FLAG_PACK_GQA) out->pack_gqa = true;
  if (args.flags & WARPSPEC_FLAG_NO_PACK_GQA) out->pack_gqa = false;
  if (args.flags & WARPSPEC_FLAG_WINDOW) {
    out->window_left = args.window_left;
    out->window_right = args.window_right;
  } else if (args.window_left != 0 || args.window_right != 0) {
    return invalid_argument(fmt("window_left, window_right (%lld, %lld): set WARPSPEC_FLAG_WINDOW in flags to use them "
                                "(without it they must be 0 and there is no window)",
                                static_cast<long long>(args.window_left), static_cast<long long>(args.window_right)));
  }
  out->softcap = args.softcap;
  const auto optional = [](const warpspec_tensor& t) { return t.data != nullptr ? to_view(t) : TensorView{}; };
  out->sink = optional(args.sink);
  out->cu_seqlens_q = optional(args.cu_seqlens_q);
  out->cu_seqlens_k = optional(args.cu_seqlens_k);
  out->seqused_q = optional(args.seqused_q);
  out->seqused_k = optional(args.seqused_k);
  out->max_seqlen_q = args.max_seqlen_q;
  out->tile_counter = optional(args.tile_counter);
  out->attention_chunk = args.attention_chunk;
  // Version 3. A struct too short to hold them was defaulted above (num_splits 0 without
  // the flag: no split; null workspace and cache vectors).
  if (args.flags & WARPSPEC_FLAG_NUM_SPLITS) {
    out->num_splits = args.num_splits;  // validated by the API (0 heuristic, 1..128)
  } else if (args.num_splits != 0) {
    return invalid_argument(fmt("num_splits (%d): set WARPSPEC_FLAG_NUM_SPLITS in flags to use it (without it it must "
                                "be 0 and the call does not split)", int(args.num_splits)));
  }
  out->workspace = args.workspace;
  out->workspace_bytes = size_t(args.workspace_bytes);
  out->cache_batch_idx = optional(args.cache_batch_idx);
  out->cache_leftpad = optional(args.cache_leftpad);
  out->page_table = optional(args.page_table);
  // Version 4 (defaulted to none above for an older struct).
  out->q_descale = optional(args.q_descale);
  out->k_descale = optional(args.k_descale);
  out->v_descale = optional(args.v_descale);
  return Status::Ok();
}

Status to_combine_args(const warpspec_combine_args* user, CombineArgs* out) {
  warpspec_combine_args args = warpspec_combine_args_default();
  WARPSPEC_RETURN_IF_ERROR(read_args(user, "warpspec_combine_args", kCombineArgsSizes, &args));
  out->out_partial = to_view(args.out_partial);
  out->num_splits = args.num_splits;
  out->out_partial_split_stride = args.out_partial_split_stride;
  out->lse_partial = to_view(args.lse_partial);
  out->lse_partial_split_stride = args.lse_partial_split_stride;
  out->out = to_view(args.out);
  if (args.lse.data != nullptr) out->lse = to_view(args.lse);  // else left empty: not written
  return Status::Ok();
}

Status to_append_args(const warpspec_kvcache_append_args* user, KvAppendArgs* out) {
  warpspec_kvcache_append_args args = warpspec_kvcache_append_args_default();
  WARPSPEC_RETURN_IF_ERROR(read_args(user, "warpspec_kvcache_append_args", kKvAppendArgsSizes, &args));
  if (args.rotary_interleaved != 0 && args.rotary_interleaved != 1)
    return invalid_argument("rotary_interleaved: must be 0 or 1, got " + std::to_string(args.rotary_interleaved));
  if (args.q_per_token != 0 && args.q_per_token != 1)
    return invalid_argument("q_per_token: must be 0 or 1, got " + std::to_string(args.q_per_token));
  const auto optional = [](const warpspec_tensor& t) { return t.data != nullptr ? to_view(t) : TensorView{}; };
  out->k_cache = to_view(args.k_cache);
  out->v_cache = to_view(args.v_cache);
  out->k_new = to_view(args.k_new);
  out->v_new = to_view(args.v_new);
  out->cache_seqlens = optional(args.cache_seqlens);
  out->cache_batch_idx = optional(args.cache_batch_idx);
  out->cache_leftpad = optional(args.cache_leftpad);
  out->page_table = optional(args.page_table);
  out->rotary_cos = optional(args.rotary_cos);
  out->rotary_sin = optional(args.rotary_sin);
  out->q = optional(args.q);
  out->q_out = optional(args.q_out);
  out->rotary_interleaved = args.rotary_interleaved == 1;
  out->q_per_token = args.q_per_token == 1;
  return Status::Ok();
}

// The caller's buffer, checked before any work.
Status check_out(const char* out, std::size_t out_size) {
  if (out == nullptr) return invalid_argument("out: must not be null");
  if (out_size == 0) return invalid_argument("out_size: must be positive (WARPSPEC_DESCRIPTION_SIZE is enough)");
  return Status::Ok();
}

// describe()'s line into the caller's buffer, whole or not at all.
Status copy_description(const std::string& line, char* out, std::size_t out_size) {
  if (line.size() + 1 > out_size)
    return invalid_argument(fmt("out_size: the description needs %zu bytes, got %zu (WARPSPEC_DESCRIPTION_SIZE is enough)",
                                line.size() + 1, out_size));
  std::memcpy(out, line.c_str(), line.size() + 1);
  return Status::Ok();
}

// MAJOR.MINOR.PATCH parsed once from the version string (CMake's project version).
struct VersionParts {
  int v[3] = {0, 0, 0};
  VersionParts() { std::sscanf(version(), "%d.%d.%d", &v[0], &v[1], &v[2]); }
};

int version_part(int index) {
  static const VersionParts parts;
  return parts.v[index];
}

}  // namespace
}  // namespace warpspec

using namespace warpspec;

extern "C" {

WARPSPEC_API const char* warpspec_status_name(int status) {
  if (status < WARPSPEC_OK || status > WARPSPEC_INTERNAL) return "unknown status";
  return status_code_name(static_cast<StatusCode>(status));
}

WARPSPEC_API const char* warpspec_last_error(void) { return t_last_error.c_str(); }

WARPSPEC_API const char* warpspec_version(void) { return version(); }
WARPSPEC_API int warpspec_version_major(void) { return version_part(0); }
WARPSPEC_API int warpspec_version_minor(void) { return version_part(1); }
WARPSPEC_API int warpspec_version_patch(void) { return version_part(2); }
WARPSPEC_API int warpspec_abi_version(void) { return WARPSPEC_ABI_VERSION; }

WARPSPEC_API warpspec_status warpspec_check_device(int device) {
  return guarded([&] { return check_device(device); });
}

WARPSPEC_API warpspec_status warpspec_gemm_check(const warpspec_gemm_args* args) {
  return guarded([&]() -> Status {
    GemmArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_gemm_args(args, &a));
    return check(a);
  });
}

WARPSPEC_API warpspec_status warpspec_gemm(const warpspec_gemm_args* args, void* stream) {
  return guarded([&]() -> Status {
    GemmArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_gemm_args(args, &a));
    return gemm(a, static_cast<cudaStream_t>(stream));
  });
}

WARPSPEC_API warpspec_status warpspec_gemm_workspace_size(const warpspec_gemm_args* args, uint64_t* bytes) {
  return guarded([&]() -> Status {
    if (bytes == nullptr) return invalid_argument("bytes: must not be null");
    *bytes = 0;
    GemmArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_gemm_args(args, &a));
    size_t n = 0;
    WARPSPEC_RETURN_IF_ERROR(gemm_workspace_size(a, &n));
    *bytes = n;
    return Status::Ok();
  });
}

WARPSPEC_API warpspec_status warpspec_attention_check(const warpspec_attention_args* args) {
  return guarded([&]() -> Status {
    AttentionArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_attention_args(args, &a));
    return check(a);
  });
}

WARPSPEC_API warpspec_status warpspec_attention(const warpspec_attention_args* args, void* stream) {
  return guarded([&]() -> Status {
    AttentionArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_attention_args(args, &a));
    return attention_forward(a, static_cast<cudaStream_t>(stream));
  });
}

WARPSPEC_API warpspec_status warpspec_attention_workspace_size(const warpspec_attention_args* args,
                                                               uint64_t* bytes) {
  return guarded([&]() -> Status {
    if (bytes == nullptr) return invalid_argument("bytes: must not be null");
    *bytes = 0;
    AttentionArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_attention_args(args, &a));
    size_t n = 0;
    WARPSPEC_RETURN_IF_ERROR(attention_workspace_size(a, &n));
    *bytes = n;
    return Status::Ok();
  });
}

WARPSPEC_API warpspec_status warpspec_attention_combine(const warpspec_combine_args* args, void* stream) {
  return guarded([&]() -> Status {
    CombineArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_combine_args(args, &a));
    return attention_combine(a, static_cast<cudaStream_t>(stream));
  });
}

WARPSPEC_API warpspec_status warpspec_kvcache_append(const warpspec_kvcache_append_args* args, void* stream) {
  return guarded([&]() -> Status {
    KvAppendArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_append_args(args, &a));
    return kvcache_append(a, static_cast<cudaStream_t>(stream));
  });
}

WARPSPEC_API warpspec_status warpspec_gemm_describe(const warpspec_gemm_args* args, char* out, size_t out_size) {
  return guarded([&]() -> Status {
    WARPSPEC_RETURN_IF_ERROR(check_out(out, out_size));
    GemmArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_gemm_args(args, &a));
    std::string line;
    WARPSPEC_RETURN_IF_ERROR(describe(a, &line));
    return copy_description(line, out, out_size);
  });
}

WARPSPEC_API warpspec_status warpspec_attention_describe(const warpspec_attention_args* args, char* out,
                                                         size_t out_size) {
  return guarded([&]() -> Status {
    WARPSPEC_RETURN_IF_ERROR(check_out(out, out_size));
    AttentionArgs a;
    WARPSPEC_RETURN_IF_ERROR(to_attention_args(args, &a));
    std::string line;
    WARPSPEC_RETURN_IF_ERROR(describe(a, &line));
    return copy_description(line, out, out_size);
  });
}

}  // extern "C"
