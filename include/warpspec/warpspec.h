/* warpspec: the C ABI over the C++ API (warpspec.hpp), for FFI: Python's ctypes,
 * Rust, anything that can call C. Plain C99; compiles as C++ too.
 *
 * Conventions
 * - Every entry point that can fail returns a warpspec_status (0 = OK). The same
 *   call sets the calling thread's last error: "" on success, else
 *   "<code name>: <message>", the message naming the argument and the rule it broke.
 *   warpspec_last_error() returns it; the pointer stays valid until the next
 *   warpspec call on the same thread.
 * - Tensors cross as strided views (warpspec_tensor): no ownership, no copies, shape
 *   and strides in elements, outermost first (like PyTorch's sizes()/strides()).
 * - Argument structs are extensible: the first field, struct_size, is the size of the
 *   struct as the caller compiled it. A later version appends fields only; the
 *   library reads the fields the caller's size covers and defaults the rest, and
 *   refuses (WARPSPEC_UNSUPPORTED) a larger struct whose unknown tail is not all
 *   zero, so a new option is never silently ignored; a struct_size above 4096
 *   bytes is refused (the library reads that far), and so is one below the
 *   library's own size that is no earlier version's (it would end inside a field). Fill a struct from its
 *   *_default() function, then set fields.
 * - Memory: every non-empty tensor must be device memory of the current device (or
 *   managed memory); host memory and other devices' memory are refused. An output
 *   must not share memory with an input, except the exact in-place cases each
 *   function names. Empty tensors (a zero extent) may have any data pointer.
 * - Each family (GEMM, attention) has its own functions and args struct; a new
 *   family arrives the same way;
 *   existing symbols and layouts never change within an ABI version.
 * - Streams are cudaStream_t passed as void* (NULL = the legacy default stream).
 *   Calls are graph-capturable: no allocation while a stream is being captured (the
 *   library's cached buffers grow on eager calls only), no synchronisation. */
#ifndef WARPSPEC_WARPSPEC_H_
#define WARPSPEC_WARPSPEC_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define WARPSPEC_API
#else
/* Exported even if the library is built with -fvisibility=hidden. */
#define WARPSPEC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when a symbol or a struct layout changes incompatibly. Callers
 * compare it with warpspec_abi_version() at load time. */
#define WARPSPEC_ABI_VERSION 1

/* ------------------------------------------------------------------ status */

/* The values of warpspec::StatusCode. */
typedef enum warpspec_status {
  WARPSPEC_OK = 0,
  WARPSPEC_INVALID_ARGUMENT = 1, /* a value the API can never accept (shape, dtype, null) */
  WARPSPEC_MISALIGNED = 2,       /* pointer or stride that TMA cannot address */
  WARPSPEC_UNSUPPORTED = 3,      /* valid in principle, not built (dtype pair, option) */
  WARPSPEC_NO_DEVICE = 4,        /* no CUDA device, or not a Hopper (sm_90) device */
  WARPSPEC_CUDA_ERROR = 5,       /* the CUDA runtime or driver reported an error */
  WARPSPEC_INTERNAL = 6          /* a bug in warpspec */
} warpspec_status;

/* "ok", "invalid argument", ...; "unknown status" for other values. Static storage. */
WARPSPEC_API const char* warpspec_status_name(int status);

/* The calling thread's last error ("" after a successful call). Thread-local: a
 * failure on one thread never shows up on another. */
WARPSPEC_API const char* warpspec_last_error(void);

/* ------------------------------------------------------------------ version */

/* "MAJOR.MINOR.PATCH" of the library loaded. Static storage. */
WARPSPEC_API const char* warpspec_version(void);
WARPSPEC_API int warpspec_version_major(void);
WARPSPEC_API int warpspec_version_minor(void);
WARPSPEC_API int warpspec_version_patch(void);
/* WARPSPEC_ABI_VERSION of the library loaded. */
WARPSPEC_API int warpspec_abi_version(void);

/* ------------------------------------------------------------------ device */

/* OK when `device` (the calling thread's current CUDA device if negative) is a
 * Hopper GPU the library runs on; WARPSPEC_NO_DEVICE with the reason otherwise. */
WARPSPEC_API warpspec_status warpspec_check_device(int device);

/* ------------------------------------------------------------------ tensors */

/* The values of warpspec::DType. */
typedef enum warpspec_dtype {
  WARPSPEC_DTYPE_BF16 = 0,
  WARPSPEC_DTYPE_FP16 = 1,
  WARPSPEC_DTYPE_FP32 = 2,
  WARPSPEC_DTYPE_E4M3 = 3,
  WARPSPEC_DTYPE_E5M2 = 4,
  WARPSPEC_DTYPE_I32 = 5
} warpspec_dtype;

#define WARPSPEC_MAX_RANK 4

/* A strided view of device memory (80 bytes). `dtype` holds a warpspec_dtype;
 * shape[i] and stride[i] for i < rank, in elements; entries past rank are ignored.
 * data == NULL marks an absent optional tensor. */
typedef struct warpspec_tensor {
  void* data;
  int32_t dtype;
  int32_t rank;
  int64_t shape[WARPSPEC_MAX_RANK];
  int64_t stride[WARPSPEC_MAX_RANK];
} warpspec_tensor;

/* Option bits of the args structs' `flags`. */
/* Programmatic dependent launch (warpspec::GemmArgs::pdl, AttentionArgs::pdl): the
 * kernel may start during the previous kernel's tail on the stream and waits for it
 * before touching global memory. */
#define WARPSPEC_FLAG_PDL 1u
/* Attention only: window_left / window_right are given (each -1 for unbounded or
 * >= 0). Without it there is no sliding window, so a zero-filled struct means none. */
#define WARPSPEC_FLAG_WINDOW 2u
/* Attention only (version 3): num_splits is given (0: a heuristic picks, 1..128: that
 * many). Without it num_splits must be 0 and the call does not split, so a zero-filled
 * struct means what it meant before split-KV existed. */
#define WARPSPEC_FLAG_NUM_SPLITS 4u
/* Attention only: pack-GQA (warpspec::AttentionArgs::pack_gqa): WARPSPEC_FLAG_PACK_GQA
 * packs the query heads of one KV head into one tile, WARPSPEC_FLAG_NO_PACK_GQA never
 * does; with neither the library decides (the C++ default); both is refused. */
#define WARPSPEC_FLAG_PACK_GQA 8u
#define WARPSPEC_FLAG_NO_PACK_GQA 16u
#define WARPSPEC_FLAG_KNOWN (WARPSPEC_FLAG_PDL)
#define WARPSPEC_ATTENTION_FLAG_KNOWN                                                  \
  (WARPSPEC_FLAG_PDL | WARPSPEC_FLAG_WINDOW | WARPSPEC_FLAG_NUM_SPLITS | WARPSPEC_FLAG_PACK_GQA | \
   WARPSPEC_FLAG_NO_PACK_GQA)

/* ------------------------------------------------------------------ GEMM */

/* warpspec::GemmRaster. */
typedef enum warpspec_gemm_raster {
  WARPSPEC_GEMM_RASTER_HEURISTIC = 0,
  WARPSPEC_GEMM_RASTER_ALONG_M = 1,
  WARPSPEC_GEMM_RASTER_ALONG_N = 2
} warpspec_gemm_raster;

/* warpspec::GemmDecomposition: how the K loop is shared between CTAs. */
typedef enum warpspec_gemm_decomposition {
  WARPSPEC_GEMM_DECOMPOSITION_HEURISTIC = 0,
  WARPSPEC_GEMM_DECOMPOSITION_DATA_PARALLEL = 1,
  WARPSPEC_GEMM_DECOMPOSITION_SPLIT_K = 2,
  WARPSPEC_GEMM_DECOMPOSITION_STREAM_K = 3
} warpspec_gemm_decomposition;

/* warpspec::GemmSchedule: how a CTA's two consumer warpgroups share its work. */
typedef enum warpspec_gemm_schedule {
  WARPSPEC_GEMM_SCHEDULE_HEURISTIC = 0,
  WARPSPEC_GEMM_SCHEDULE_COOPERATIVE = 1, /* both multiply one tile */
  WARPSPEC_GEMM_SCHEDULE_PING_PONG = 2    /* each its own tile, in turns: one's epilogue beside the other's mainloop */
} warpspec_gemm_schedule;

/* warpspec::GemmActivation: applied last in the epilogue. */
typedef enum warpspec_gemm_activation {
  WARPSPEC_GEMM_ACTIVATION_NONE = 0,
  WARPSPEC_GEMM_ACTIVATION_RELU = 1,
  WARPSPEC_GEMM_ACTIVATION_GELU_TANH = 2,
  WARPSPEC_GEMM_ACTIVATION_GELU_ERF = 3,
  WARPSPEC_GEMM_ACTIVATION_SILU = 4
} warpspec_gemm_activation;

/* warpspec::GemmScaling: how scale_a / scale_b are read. */
typedef enum warpspec_gemm_scaling {
  WARPSPEC_GEMM_SCALING_TENSOR_OR_ROW = 0, /* one element, or one per row of A / column of B */
  WARPSPEC_GEMM_SCALING_BLOCK = 1          /* FP8: per 1 x 128 block of A and 128 x 128 block of B */
} warpspec_gemm_scaling;

/* D = alpha * A·B + beta * C, batched; the rules are warpspec::GemmArgs's
 * (gemm_api.hpp): A (M, K) or (L, M, K); B (K, N) or (L, K, N); C, D (M, N) or
 * (L, M, N); each matrix row- or column-major with 16-byte-aligned data and leading
 * dimension; an operand of batch 1 or batch stride 0 broadcasts; A, B bf16 or fp16;
 * D A's dtype or fp32; C D's dtype and layout, read only when beta != 0.
 * Version 1 is 352 bytes with no padding; version 2 appends the K decomposition and
 * the workspace (376 bytes); version 3 the epilogue (632 bytes): scales, bias and
 * activation, D = act(alpha * s_a * s_b * A·B + bias + beta * C), and FP8 inputs (A, B
 * both e4m3, A row-major and B column-major; D bf16, fp16 or fp32; e5m2 is refused).
 * On bf16/fp16 inputs, scales, bias and activation need A row-major, B column-major and
 * D of the input dtype (the fused kernels built). Version 4 (640 bytes) appends the
 * thread-block cluster, cluster_m x cluster_n (warpspec::GemmArgs has the rules): 0 x 0
 * lets the library choose, 1 x 1 is none, 2 x 1 and 1 x 2 are built for bf16 with K
 * contiguous in A and B, D bf16, the 128 x 256 tile, data-parallel. Version 5 (648
 * bytes) appends the consumer warpgroups' schedule (warpspec_gemm_schedule; ping-pong is
 * built for bf16 and fp16 x @ w.t() and, plain, a @ b, data-parallel, no cluster; warpspec::GemmSchedule
 * has the rules). Version 6 (808 bytes) appends the FP8 output's scale_result and amax:
 * with D e4m3 (A and B e4m3, beta 0), D = e4m3(scale_result * x), rounded and saturated to
 * +-448, and amax = max |x| before scale_result (warpspec::GemmArgs has the rules). An
 * older caller gets the defaults for the fields it does not know. */
typedef struct warpspec_gemm_args {
  uint64_t struct_size; /* sizeof(warpspec_gemm_args) as the caller compiled it */
  warpspec_tensor a, b, c, d;
  float alpha;
  float beta;
  int32_t raster;  /* warpspec_gemm_raster */
  int32_t swizzle; /* L2 grouping of tiles: 1, 2, 4, 8 or 16; 0 picks one (8 at most) */
  int32_t tile_n;  /* CTA tile width: 64, 128 or 256, a narrow 16 or 32 (D computed as D^T), or 224 / 160
                      (ping-pong) for bf16 x @ w.t() (GemmArgs::tile_n); 0 picks one */
  uint32_t flags;  /* WARPSPEC_FLAG_* bits; others must be 0 */
  /* version 2 */
  int32_t decomposition;    /* warpspec_gemm_decomposition */
  int32_t splits;           /* split-K ranges per tile, 1..256; 0 picks; 0 unless SPLIT_K */
  void* workspace;          /* fixup workspace (see warpspec_gemm_workspace_size) or NULL */
  uint64_t workspace_bytes; /* its size; 0 with NULL */
  /* version 3 (warpspec::GemmArgs has the rules) */
  warpspec_tensor scale_a;  /* fp32: one element, or (M, 1) / (M,) row-wise; data NULL: 1 */
  warpspec_tensor scale_b;  /* fp32: one element, or (1, N) / (N,) row-wise; data NULL: 1 */
  warpspec_tensor bias;     /* 1-D, D's dtype or fp32, N elements (M with bias_per_row); NULL: none */
  int32_t activation;       /* warpspec_gemm_activation */
  int32_t bias_per_row;     /* 0 or 1 */
  int32_t use_fast_accum;   /* 0 or 1; FP8 only: promote the accumulator once per K range */
  int32_t scaling;          /* warpspec_gemm_scaling (0 before block scaling, when this was reserved) */
  /* version 4 */
  int32_t cluster_m;        /* CTAs per cluster along M: 0 (automatic, with cluster_n 0), 1 or 2 */
  int32_t cluster_n;        /* along N: 0, 1 or 2; 2 x 2 is not built */
  /* version 5 */
  int32_t schedule;         /* warpspec_gemm_schedule */
  int32_t reserved5;        /* must be 0 */
  /* version 6: D e4m3 only */
  warpspec_tensor scale_result; /* fp32, one element, device: D = e4m3(scale_result * x); data NULL: 1 */
  warpspec_tensor amax;         /* fp32, one element, device, written: max |x| before scale_result; NULL: none */
} warpspec_gemm_args;

/* struct_size set, alpha = 1, everything else zero (beta 0, heuristics). */
static inline warpspec_gemm_args warpspec_gemm_args_default(void) {
  warpspec_gemm_args args;
  size_t i;
  unsigned char* bytes = (unsigned char*)&args;
  for (i = 0; i < sizeof args; ++i) bytes[i] = 0;
  args.struct_size = sizeof args;
  args.alpha = 1.0f;
  return args;
}

/* Can this run? Checks every argument and the device; launches nothing. */
WARPSPEC_API warpspec_status warpspec_gemm_check(const warpspec_gemm_args* args);

/* Run on `stream` (a cudaStream_t). Refusals are warpspec_gemm_check's, and when
 * refused nothing is launched or written. */
WARPSPEC_API warpspec_status warpspec_gemm(const warpspec_gemm_args* args, void* stream);

/* Bytes of fixup workspace the call would need (0 for data-parallel), in *bytes;
 * warpspec::gemm_workspace_size. A caller's workspace is zeroed once before first use
 * and left zeroed by every call that completes; with workspace NULL the library uses a
 * cached one per device and stream (which a stream under graph capture cannot allocate:
 * run once before capturing, or pass one). */
WARPSPEC_API warpspec_status warpspec_gemm_workspace_size(const warpspec_gemm_args* args, uint64_t* bytes);

/* ------------------------------------------------------------------ attention */

/* Attention forward (FlashAttention-3 style), the rules of warpspec::AttentionArgs
 * (attention_api.hpp): O = softmax(scale * Q K^T + mask) V per batch and head.
 * q, o: (batch, seqlen_q, heads_q, head_dim); k, v: (batch, seqlen_k, heads_kv,
 * head_dim); rank 4, bf16 or fp16, all one dtype; last dimension contiguous, other
 * strides 16-byte multiples, data 16-byte aligned; head_dim a multiple of 8 from 8 to 256
 * (64, 128, 192 and 256 run natively, others padded up to the next);
 * heads_q a multiple of heads_kv (GQA / MQA). o must not overlap k or v.
 * lse: optional (data NULL = not computed), (batch, heads_q, seqlen_q) fp32, the
 * natural-log log-sum-exp of each row; -inf for a row that sees no key.
 * Version 1 is 424 bytes with no padding; version 2 appends the sliding window,
 * softcap, sinks and variable length (944 bytes); version 3 the serving options:
 * split-KV, its workspace, cache_batch_idx, cache_leftpad and the page table (1208
 * bytes); version 4 the FP8 descales (1448 bytes). AttentionArgs has the rules of each. An older caller's struct_size gets the
 * defaults for what it lacks (no split, no cache indirection). */
typedef struct warpspec_attention_args {
  uint64_t struct_size; /* sizeof(warpspec_attention_args) as the caller compiled it */
  warpspec_tensor q, k, v, o, lse;
  float softmax_scale; /* 0 means 1/sqrt(head_dim); otherwise positive and finite */
  int32_t causal;      /* 0 or 1: mask aligned to the bottom-right corner (FA2/FA3) */
  uint32_t flags;      /* WARPSPEC_FLAG_* bits; others must be 0 */
  uint32_t reserved;   /* must be 0 */
  /* ---- version 2 (appended) ---- */
  /* Sliding window, read only with WARPSPEC_FLAG_WINDOW: -1 unbounded, else >= 0. */
  int64_t window_left, window_right;
  float softcap;       /* 0: off; else finite and > 0 */
  uint32_t reserved2;  /* must be 0 */
  warpspec_tensor sink; /* fp32 (heads_q,) learnable sink logits; data NULL: none */
  /* Variable length: int32 vectors, data NULL when not given. With cu_seqlens_q, q and
   * o are (total_q, heads_q, head_dim), lse (heads_q, total_q), and max_seqlen_q is
   * needed (>= 1 where q has rows); with cu_seqlens_k, k and v are (total_k, heads_kv, head_dim). */
  warpspec_tensor cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k;
  int64_t max_seqlen_q;
  /* int32 (2,), zero before the first call: the dynamic tile schedule of variable-length
   * batches (AttentionArgs::tile_counter); data NULL: the static schedule. Ignored for
   * dense batches. */
  warpspec_tensor tile_counter;
  int64_t attention_chunk; /* 0: off; else chunked attention (AttentionArgs::attention_chunk) */
  /* ---- version 3 (appended) ---- */
  /* Split-KV, read only with WARPSPEC_FLAG_NUM_SPLITS: 0 a heuristic, 1 no split, 2..128
   * that many (AttentionArgs::num_splits). Head dim 256 does not split. */
  int32_t num_splits;
  uint32_t reserved3; /* must be 0 */
  /* The split-KV workspace (warpspec_attention_workspace_size bytes, 16-byte aligned) or
   * NULL: the library's cached one for the stream (allocated on first use; a stream under
   * graph capture cannot allocate: run once before capturing, or pass one). */
  void* workspace;
  uint64_t workspace_bytes; /* its size; 0 with NULL */
  /* KV cache, int32 device vectors, data NULL when not given (AttentionArgs has the
   * rules): cache_batch_idx (batch,), cache_leftpad (batch,), page_table (batch,
   * max_pages) with k and v (num_pages, page_size, heads_kv, head_dim) and seqused_k. */
  warpspec_tensor cache_batch_idx, cache_leftpad, page_table;
  /* ---- version 4 (appended) ---- */
  /* FP8 (q, k, v e4m3; o bf16): FlashAttention-3's descales, fp32 (batch, heads_kv),
   * data NULL: 1. The inputs hold x / descale; the kernel computes with q * q_descale
   * etc. Only with e4m3 inputs (AttentionArgs::q_descale has the rules). */
  warpspec_tensor q_descale, k_descale, v_descale;
} warpspec_attention_args;

/* struct_size set, everything else zero (default scale, not causal, no lse). */
static inline warpspec_attention_args warpspec_attention_args_default(void) {
  warpspec_attention_args args;
  size_t i;
  unsigned char* bytes = (unsigned char*)&args;
  for (i = 0; i < sizeof args; ++i) bytes[i] = 0;
  args.struct_size = sizeof args;
  return args;
}

/* Can this run? Checks every argument and the device; launches nothing. */
WARPSPEC_API warpspec_status warpspec_attention_check(const warpspec_attention_args* args);

/* Run on `stream` (a cudaStream_t). Refusals are warpspec_attention_check's, and
 * when refused nothing is launched or written. */
WARPSPEC_API warpspec_status warpspec_attention(const warpspec_attention_args* args, void* stream);

/* The split-KV workspace bytes the call would use (0 when it does not split), in *bytes;
 * warpspec::attention_workspace_size. Refusals are the check's, except the workspace's
 * own size. */
WARPSPEC_API warpspec_status warpspec_attention_workspace_size(const warpspec_attention_args* args,
                                                               uint64_t* bytes);

/* FlashAttention-3's flash_attn_combine, warpspec::CombineArgs (attention_api.hpp):
 *   lse = log sum_s exp(lse_partial[s]),  out = sum_s exp(lse_partial[s] - lse) out_partial[s].
 * out_partial: split s is the (batch, seqlen, heads, head_dim) fp32 view at data +
 * s * out_partial_split_stride elements (last dim contiguous, other strides multiples of
 * 4, data 16-byte aligned, head_dim a multiple of 4); lse_partial: (batch, seqlen, heads)
 * fp32 per split, lse_partial_split_stride apart; out: (batch, seqlen, heads, head_dim)
 * bf16, fp16 or fp32; lse: optional (batch, heads, seqlen) fp32. A split whose lse is
 * -inf adds nothing; all -inf gives out = 0, lse = -inf. Deterministic.
 * 352 bytes, no padding. */
typedef struct warpspec_combine_args {
  uint64_t struct_size; /* sizeof(warpspec_combine_args) as the caller compiled it */
  warpspec_tensor out_partial;
  int64_t num_splits; /* 1 to 128 */
  int64_t out_partial_split_stride;
  warpspec_tensor lse_partial;
  int64_t lse_partial_split_stride;
  warpspec_tensor out;
  warpspec_tensor lse; /* data NULL: not written */
} warpspec_combine_args;

static inline warpspec_combine_args warpspec_combine_args_default(void) {
  warpspec_combine_args args;
  size_t i;
  unsigned char* bytes = (unsigned char*)&args;
  for (i = 0; i < sizeof args; ++i) bytes[i] = 0;
  args.struct_size = sizeof args;
  return args;
}

/* Run on `stream`; refused arguments launch nothing. */
WARPSPEC_API warpspec_status warpspec_attention_combine(const warpspec_combine_args* args, void* stream);

/* The append half of flash_attn_with_kvcache, warpspec::KvAppendArgs: k_new / v_new
 * (batch, seqlen_new, heads_kv, head_dim) written into k_cache / v_cache in place at row
 * cache_seqlens[b] + t (dense (batch_cache, seqlen_cache, heads_kv, head_dim), or paged
 * through page_table), with rotary on the new keys and, when q is given, q rotated into
 * q_out (may be q itself). rotary_cos / rotary_sin: (seqlen_ro, rotary_dim / 2) of the
 * cache's dtype, data NULL for none. Run it before warpspec_attention over the cache
 * with seqused_k = cache_seqlens + seqlen_new. 976 bytes, no padding. */
typedef struct warpspec_kvcache_append_args {
  uint64_t struct_size; /* sizeof(warpspec_kvcache_append_args) as the caller compiled it */
  warpspec_tensor k_cache, v_cache, k_new, v_new;
  warpspec_tensor cache_seqlens; /* int32 (batch,), required */
  warpspec_tensor cache_batch_idx, cache_leftpad, page_table; /* optional, data NULL: none */
  warpspec_tensor rotary_cos, rotary_sin;                     /* optional, both or neither */
  warpspec_tensor q, q_out;                                   /* optional, with rotary */
  int32_t rotary_interleaved; /* 1 (the default): pairs (2i, 2i+1); 0: (i, i + rotary_dim / 2) */
  int32_t q_per_token;        /* 0 or 1: q rotated at each new key's position (causal / local) */
} warpspec_kvcache_append_args;

/* struct_size set, rotary_interleaved = 1 (FlashAttention's default), the rest zero. */
static inline warpspec_kvcache_append_args warpspec_kvcache_append_args_default(void) {
  warpspec_kvcache_append_args args;
  size_t i;
  unsigned char* bytes = (unsigned char*)&args;
  for (i = 0; i < sizeof args; ++i) bytes[i] = 0;
  args.struct_size = sizeof args;
  args.rotary_interleaved = 1;
  return args;
}

/* Run on `stream`; refused arguments launch nothing and write nothing. */
WARPSPEC_API warpspec_status warpspec_kvcache_append(const warpspec_kvcache_append_args* args, void* stream);

/* ------------------------------------------------------------------ introspection */

/* Which configuration a call with these arguments picks, without launching it: the
 * kernel (tile, stages, cluster; the head-dim kernel for attention) and the schedule
 * (raster order and swizzle, or tile order; work tiles, grid), as one NUL-terminated
 * line of `key=value` words written to `out`. It is the line a launch prints to stderr
 * when the environment variable WARPSPEC_LOG_CONFIG is 1 (every call) or "once" (each
 * distinct line once); see warpspec/describe.hpp. Refusals are the _check function's.
 * WARPSPEC_DESCRIPTION_SIZE bytes always hold the line; a smaller `out_size` that
 * cannot is refused (INVALID_ARGUMENT, nothing cut short). */
#define WARPSPEC_DESCRIPTION_SIZE 512
WARPSPEC_API warpspec_status warpspec_gemm_describe(const warpspec_gemm_args* args, char* out, size_t out_size);
WARPSPEC_API warpspec_status warpspec_attention_describe(const warpspec_attention_args* args, char* out,
                                                         size_t out_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WARPSPEC_WARPSPEC_H_ */
