// Attention forward host side: argument validation, tensor maps, scheduler, dispatch.
// Nothing is launched or written unless every check passes.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>

#include "../common/config_log.hpp"
#include "../common/device_props.hpp"
#include "../common/entry.hpp"
#include "../common/format.hpp"
#include "../common/views.hpp"
#include "../common/workspace.hpp"
#include "combine.hpp"
#include "describe.hpp"
#include "instances.hpp"
#include "launch.hpp"
#include "plan.hpp"
#include "warpspec/attention/combine_params.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/operands.hpp"
#include "warpspec/attention_api.hpp"
#include "warpspec/describe.hpp"
#include "warpspec/device.hpp"
#include "warpspec/hopper/tma_map.hpp"
#include "warpspec/schedule/attention.hpp"
#include "warpspec/schedule/split_kv.hpp"

namespace warpspec {
namespace {

using attention_impl::AttentionParams;

// Sequence lengths and counts stay below 2^30 so the kernel's int32 index sums
// (row + seqlen_k - seqlen_q, block ends) cannot overflow.
constexpr int64_t kMaxExtent = int64_t(1) << 30;

const char* const kDenseNames[4] = {"batch", "seqlen", "heads", "head_dim"};
const char* const kPackedNames[3] = {"total", "heads", "head_dim"};

// The kernels write `bytes` of the workspace while they read or write every view: no shared memory.
Status workspace_shares_nothing(const AttentionArgs& a, size_t bytes) {
  const TensorView* views[] = {&a.q, &a.k, &a.v, &a.o, &a.lse, &a.sink, &a.tile_counter, &a.cu_seqlens_q,
                               &a.cu_seqlens_k, &a.seqused_q, &a.seqused_k, &a.cache_batch_idx, &a.cache_leftpad,
                               &a.page_table, &a.q_descale, &a.k_descale, &a.v_descale};
  const char* names[] = {"q", "k", "v", "o", "lse", "sink", "tile_counter", "cu_seqlens_q", "cu_seqlens_k",
                         "seqused_q", "seqused_k", "cache_batch_idx", "cache_leftpad", "page_table",
                         "q_descale", "k_descale", "v_descale"};
  static_assert(std::size(views) == std::size(names));
  return check_workspace_disjoint(a.workspace, bytes, views, names, int(std::size(views)));
}

// Rank, dtype, pointer, shape and stride rules shared by q, k, v and o: dense
// (batch, seqlen, heads, head_dim) or packed (total, heads, head_dim). `want`: the
// required extent of each of the view's dims, -1 for any.
Status check_bshd(const TensorView& v, const char* name, DType dtype, const int64_t* want, bool packed) {
  const int rank = packed ? 3 : 4;
  const char* const* names = packed ? kPackedNames : kDenseNames;
  // A default (absent) view: say what is missing rather than that its rank is 0.
  if (v.data == nullptr && v.rank == 0) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.rank != rank)
    return invalid_argument(packed ? fmt("%s.rank: must be 3 (total, heads, head_dim) with cu_seqlens, got %d", name,
                                         v.rank)
                                   : fmt("%s.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must equal q.dtype (%s), got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  for (int i = 0; i < rank; ++i)
    if (want[i] >= 0 && v.shape[i] != want[i])
      return invalid_argument(fmt("%s.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, name, i, names[i], want[i],
                                  v.shape[i]));
  bool empty = false;
  for (int i = 0; i < rank; ++i) {
    if (v.shape[i] < 0)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be >= 0, got %" PRId64, name, i, names[i], v.shape[i]));
    if (v.shape[i] >= kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be < 2^30, got %" PRId64, name, i, names[i], v.shape[i]));
    empty = empty || v.shape[i] == 0;
  }
  if (empty) return Status::Ok();  // no element is addressed: pointer and stride rules do not apply
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (reinterpret_cast<uintptr_t>(v.data) % 16 != 0)
    return misaligned(fmt("%s.data: must be 16-byte aligned for TMA (got %p)", name, v.data));
  if (v.stride[rank - 1] != 1)
    return invalid_argument(fmt("%s.stride[%d] (head_dim): the last dimension must be contiguous (stride 1), got %" PRId64,
                                name, rank - 1, v.stride[rank - 1]));
  const int64_t e = int64_t(dtype_size(dtype));
  for (int i = 0; i < rank - 1; ++i) {
    if (v.shape[i] == 1) continue;  // never stepped over: any stride
    if (v.stride[i] <= 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be positive, got %" PRId64, name, i, names[i], v.stride[i]));
    // Before any product: a huge stride times the element size would overflow.
    if (v.stride[i] >= (int64_t(1) << 40) / e)
      return invalid_argument(fmt("%s.stride[%d] (%s): %" PRId64 " elements is 2^40 bytes or more (TMA's limit)", name,
                                  i, names[i], v.stride[i]));
    if ((v.stride[i] * e) % 16 != 0)
      return misaligned(fmt("%s.stride[%d] (%s): %" PRId64 " elements = %" PRId64
                            " bytes; TMA needs a multiple of 16 bytes (8 elements)",
                            name, i, names[i], v.stride[i], v.stride[i] * e));
  }
  return Status::Ok();
}

// A packed (total, heads, head_dim) view as one batch of a dense one.
TensorView as_bshd(const TensorView& v, bool packed) {
  if (!packed) return v;
  TensorView r = v;
  r.rank = 4;
  for (int i = 3; i >= 1; --i) {
    r.shape[i] = v.shape[i - 1];
    r.stride[i] = v.stride[i - 1];
  }
  r.shape[0] = 1;
  r.stride[0] = 0;
  return r;
}

// An int32 (or fp32 for the sink) vector of `length` elements: rank 1, contiguous,
// 4-byte aligned.
Status check_vector(const TensorView& v, const char* name, DType dtype, int64_t length, const char* what) {
  if (v.rank != 1) return invalid_argument(fmt("%s.rank: must be 1, got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must be %s, got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  if (v.shape[0] != length)
    return invalid_argument(fmt("%s.shape[0]: must be %s = %" PRId64 ", got %" PRId64, name, what, length, v.shape[0]));
  if (length > 1 && v.stride[0] != 1)
    return invalid_argument(fmt("%s.stride[0]: must be 1 (contiguous), got %" PRId64, name, v.stride[0]));
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0)
    return misaligned(fmt("%s.data: must be 4-byte aligned (got %p)", name, v.data));
  return Status::Ok();
}

// An edge of the sliding window: -1 (unbounded) or >= 0; anything from the longest
// possible distance on is unbounded too.
Status window_edge(int64_t w, const char* name, int32_t* out) {
  if (w < -1) return invalid_argument(fmt("%s: must be -1 (unbounded) or >= 0, got %" PRId64, name, w));
  *out = (w < 0 || w >= attention_impl::kUnboundedWindow) ? attention_impl::kUnboundedWindow : int32_t(w);
  return Status::Ok();
}

// Strides in bytes for a TMA map over (d, s, h, b): a dimension of extent 1 is never
// stepped over, so it gets a harmless dense stride whatever the view says.
void tma_strides(const TensorView& v, uint64_t (&out)[3]) {
  const uint64_t e = dtype_size(v.dtype);
  uint64_t dense = uint64_t(v.shape[3]) * e;
  dense = (dense + 15) / 16 * 16;
  // seqlen
  out[0] = v.shape[1] > 1 ? uint64_t(v.stride[1]) * e : dense;
  // heads
  out[1] = v.shape[2] > 1 ? uint64_t(v.stride[2]) * e : out[0] * uint64_t(v.shape[1]);
  // batch
  out[2] = v.shape[0] > 1 ? uint64_t(v.stride[0]) * e : out[1] * uint64_t(v.shape[2]);
}

// The TMA swizzle of a tile whose rows are one wgmma swizzle span (operands.hpp).
hopper::TmaSwizzle tma_swizzle(hopper::WgmmaSwizzle s) {
  return s == hopper::WgmmaSwizzle::k64B ? hopper::TmaSwizzle::k64B : hopper::TmaSwizzle::k128B;
}

Status make_map(CUtensorMap* map, const TensorView& v, uint32_t box_rows, const char* name, uint32_t box_cols = 64,
                hopper::TmaSwizzle swizzle = hopper::TmaSwizzle::k128B) {
  const uint64_t dims[4] = {uint64_t(v.shape[3]), uint64_t(v.shape[1]), uint64_t(v.shape[2]), uint64_t(v.shape[0])};
  uint64_t strides[3];
  tma_strides(v, strides);
  for (uint64_t& st : strides) st = st >= (uint64_t(1) << 40) ? 16 : st;  // only reachable for unit dims
  const uint32_t box[4] = {box_cols, box_rows, 1, 1};
  Status s = hopper::make_tma_map(map, v.dtype, v.data, dims, strides, box, swizzle);
  if (!s.ok()) return Status(s.code(), std::string(name) + ": " + s.message());
  return s;
}

// Q and O under pack-GQA (pack_gqa.cuh): rank 5 over (head_dim, head in group, seqlen,
// group, batch) with boxes {64, g, rows / g}: one box is g heads x rows/g positions,
// position-major, the tile's row order. The head in group steps by the head stride and
// the group by g head strides (both multiples of 16 bytes: check_bshd). g = 1 is the
// unpacked map with a unit dimension.
Status make_qo_map(CUtensorMap* map, const TensorView& v, int64_t g, uint32_t box_rows, const char* name,
                   uint32_t box_cols = 64, hopper::TmaSwizzle swizzle = hopper::TmaSwizzle::k128B) {
  const uint64_t dims[5] = {uint64_t(v.shape[3]), uint64_t(g), uint64_t(v.shape[1]), uint64_t(v.shape[2] / g),
                            uint64_t(v.shape[0])};
  uint64_t bshd[3];  // seqlen, heads, batch
  tma_strides(v, bshd);
  uint64_t strides[4] = {bshd[1], bshd[0], bshd[1] * uint64_t(g), bshd[2]};
  for (uint64_t& st : strides) st = st >= (uint64_t(1) << 40) ? 16 : st;  // only reachable for unit dims
  const uint32_t box[5] = {box_cols, uint32_t(g), box_rows / uint32_t(g), 1, 1};
  Status s = hopper::make_tma_map(map, v.dtype, v.data, dims, strides, box, swizzle);
  if (!s.ok()) return Status(s.code(), std::string(name) + ": " + s.message());
  return s;
}

// Pack-GQA's limits: g a power of two that divides a warpgroup's 64 rows (so every tile
// and warpgroup holds whole positions; the host allows 2..16), and a kernel that builds it.
constexpr int kMaxPackGqa = 16;
bool pack_gqa_group_ok(int64_t g) { return g >= 1 && g <= kMaxPackGqa && (g & (g - 1)) == 0; }

// FlashAttention-3's rule: pack when unpacked tiles would be less than 90% as full as
// packed ones (decode: 1 row of block_m against g).
bool pack_gqa_pays(int64_t rows, int64_t g, int64_t block_m) {
  auto fill = [&](int64_t r) { return double(r) / double((r + block_m - 1) / block_m * block_m); };
  return rows > 0 && fill(rows) < 0.9 * fill(rows * g);
}

// FP8's limits today (attention_api.hpp): each unsupported option refused by name.
Status check_fp8_options(const AttentionArgs& a) {
  const std::pair<const TensorView*, const char*> views[] = {
      {&a.cu_seqlens_q, "cu_seqlens_q"}, {&a.cu_seqlens_k, "cu_seqlens_k"}, {&a.seqused_q, "seqused_q"},
      {&a.seqused_k, "seqused_k"},       {&a.page_table, "page_table"},     {&a.cache_batch_idx, "cache_batch_idx"},
      {&a.cache_leftpad, "cache_leftpad"}, {&a.sink, "sink"}};
  for (const auto& [v, name] : views)
    if (!v->empty()) return unsupported(fmt("%s: not supported with e4m3 inputs yet", name));
  if (a.num_splits > 1)
    return unsupported(fmt("num_splits: split-KV is not supported with e4m3 inputs yet, got %d", a.num_splits));
  if (a.window_left != -1 || (!a.causal && a.window_right != -1))
    return unsupported(fmt("window_left / window_right: sliding windows are not supported with e4m3 inputs yet, got "
                           "(%" PRId64 ", %" PRId64 ")", a.window_left, a.window_right));
  if (a.attention_chunk != 0)
    return unsupported(fmt("attention_chunk: not supported with e4m3 inputs yet, got %" PRId64, a.attention_chunk));
  if (a.softcap != 0.0f) return unsupported(fmt("softcap: not supported with e4m3 inputs yet, got %g", double(a.softcap)));
  if (a.pack_gqa.value_or(false)) return unsupported("pack_gqa: not supported with e4m3 inputs yet");
  return Status::Ok();
}

// An FP8 descale: fp32 (batch, heads_kv), non-negative strides, 4-byte aligned.
Status check_descale(const TensorView& v, const char* name, int64_t batch, int64_t heads_kv) {
  if (v.rank != 2) return invalid_argument(fmt("%s.rank: must be 2 (batch, heads_kv), got %d", name, v.rank));
  if (v.dtype != DType::kFP32) return invalid_argument(fmt("%s.dtype: must be fp32, got %s", name, dtype_name(v.dtype)));
  const int64_t want[2] = {batch, heads_kv};
  const char* names[2] = {"batch", "heads_kv"};
  for (int i = 0; i < 2; ++i) {
    if (v.shape[i] != want[i])
      return invalid_argument(fmt("%s.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, name, i, names[i], want[i],
                                  v.shape[i]));
    if (v.stride[i] < 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be >= 0, got %" PRId64, name, i, names[i], v.stride[i]));
  }
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0)
    return misaligned(fmt("%s.data: must be 4-byte aligned (got %p)", name, v.data));
  return Status::Ok();
}

struct Plan {
  DType dtype = DType::kBF16;  // q, k, v (o: attention_impl::out_dtype)
  bool packed_q = false, packed_k = false;
  TensorView q, k, v, o, lse;  // rank 4 (3 for lse) whatever the caller's layout
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0, heads_q = 0, heads_kv = 0, head_dim = 0;
  int64_t tile_rows = 0;  // query positions the grid covers per sequence (max_seqlen_q when packed)
  int pack_shift = 0;     // pack-GQA: log2 of the query heads per tile (pack_gqa.cuh); 0 off
  int kernel_d = 0;
  attention_impl::HeadDimConfig cfg;  // the configuration that runs kernel_d (make_plan, plan_splits)
  float scale = 0;
  int32_t window_left = attention_impl::kUnboundedWindow, window_right = attention_impl::kUnboundedWindow;
  int32_t chunk = 0;
  float softcap = 0;
  // Paged KV: page size, pages per sequence (page_table's columns), pages in the cache.
  bool paged = false;
  int64_t page_size = 0, pages_per_seq = 0, num_pages = 0;
  // Split-KV: the splits launched (1: none), whether the heuristic chose them, the
  // workspace they use (the caller's or, when null, the cached one) and its layout.
  int splits = 1;
  bool heuristic_splits = false;
  // Dense causal calls cut into L2 sections (schedule/attention.hpp), and head dim 64's
  // full calls from 1k keys, run the dynamic schedule on the library's tile counter
  // (launch()).
  bool l2_dynamic = false;
  void* workspace = nullptr;
  size_t workspace_bytes = 0, lse_offset = 0;
  // The share counters of the in-kernel merge (split_combine.cuh), in the library's own
  // buffer (never the caller's workspace).
  size_t counters_bytes = 0;
  int device = 0, sm_count = 1;
  schedule::AttentionSchedulerArguments sched_args;
};

// Pack-GQA for the plan's kernel: the caller's choice (refused where it cannot run) or
// the fill rule, which reads the kernel's tile rows.
Status plan_pack_gqa(const AttentionArgs& a, Plan* plan) {
  Plan& p = *plan;
  const int64_t g = p.heads_q / p.heads_kv;
  const bool fits = p.seqlen_q * g < kMaxExtent && p.tile_rows * g < kMaxExtent;
  if (a.pack_gqa.value_or(false) && g > 1) {
    if (!pack_gqa_group_ok(g))
      return unsupported(fmt("pack_gqa: needs heads_q / heads_kv a power of two up to %d, got %" PRId64 " / %" PRId64
                             " = %" PRId64, kMaxPackGqa, p.heads_q, p.heads_kv, g));
    if (!attention_impl::kPackGqaHeadDim(p.kernel_d))
      return unsupported(fmt("pack_gqa: not supported with head_dim > 192 yet (the head dim 256 kernel has no "
                             "registers left for the packed row mapping), got head_dim %" PRId64, p.head_dim));
    if (!fits)
      return invalid_argument(fmt("pack_gqa: seqlen_q * (heads_q / heads_kv) must be < 2^30, got %" PRId64
                                  " * %" PRId64, p.seqlen_q, g));
  }
  const bool on = a.pack_gqa.has_value()
                      ? *a.pack_gqa && g > 1
                      : g > 1 && !attention_impl::is_fp8(p.dtype) && pack_gqa_group_ok(g) &&
                            attention_impl::kPackGqaHeadDim(p.kernel_d) && fits &&
                            pack_gqa_pays(p.tile_rows, g, p.cfg.block_m());
  p.pack_shift = 0;
  while (on && (int64_t(1) << p.pack_shift) < g) ++p.pack_shift;
  return Status::Ok();
}

// The keys a query row sees on average, which picks among a head dim's configurations
// (config_for): the mean over 64 rows spread over the sequence of each row's keys inside
// the window (causal: the right edge 0) and its chunk, bottom-right aligned; a packed side
// counts its mean length (total rows / batch). 0 where the lengths are on the device only
// (seqused_q, seqused_k, a page table, cache_leftpad: the capacity may be far longer than
// the sequences), which takes the head dim's default configuration.
int64_t mean_visible_keys(const Plan& p, const AttentionArgs& a) {
  if (p.paged || !a.seqused_q.empty() || !a.seqused_k.empty() || !a.cache_leftpad.empty()) return 0;
  const int64_t batch = std::max<int64_t>(p.batch, 1);
  const int64_t sq = p.packed_q ? p.seqlen_q / batch : p.seqlen_q;
  const int64_t sk = p.packed_k ? p.seqlen_k / batch : p.seqlen_k;
  if (sq <= 0 || sk <= 0) return 0;
  const int64_t left = p.window_left, right = p.window_right;  // causal: right is 0
  constexpr int kRows = 64;
  int64_t sum = 0;
  for (int r = 0; r < kRows; ++r) {
    const int64_t i = (2 * r + 1) * sq / (2 * kRows);  // a row of the query sequence
    const int64_t diag = i + sk - sq;                     // its diagonal key
    int64_t lo = std::max<int64_t>(0, diag - left), hi = std::min<int64_t>(sk - 1, diag + right);
    if (p.chunk > 1) {  // the chunk of the diagonal key (mask.cuh)
      const int64_t c = (diag >= 0 ? diag : diag - p.chunk + 1) / p.chunk * p.chunk;
      lo = std::max(lo, c);
      hi = std::min(hi, c + p.chunk - 1);
    }
    sum += std::max<int64_t>(0, hi - lo + 1);
  }
  return sum / kRows;
}

// Configuration `c`'s tiles on a plan's dense or mean lengths: how many there are per
// (batch, work head), and the key blocks each computes. A tile computes whole blocks of
// block_m rows (rows past the sequence's end too; packed, block_m / g positions of g
// heads) by block_n keys, from its first row's first visible key to its last row's last.
struct TileBlocks {
  int64_t sq = 0, sk = 0, pack = 1, positions = 1, tiles = 0;
  int64_t left = 0, right = 0, chunk = 0, block_n = 1;

  TileBlocks(const Plan& p, const attention_impl::HeadDimConfig& c) {
    const int64_t batch = std::max<int64_t>(p.batch, 1);
    sq = p.packed_q ? p.seqlen_q / batch : p.seqlen_q;
    sk = p.packed_k ? p.seqlen_k / batch : p.seqlen_k;
    pack = int64_t(1) << p.pack_shift;
    positions = std::max<int64_t>(c.block_m() / pack, 1);  // query positions per tile
    tiles = sq > 0 ? (sq + positions - 1) / positions : 0;
    left = p.window_left, right = p.window_right, chunk = p.chunk, block_n = c.block_n;
  }
  // Key blocks of tile m (0 where its rows see no key).
  int64_t blocks(int64_t m) const {
    const auto chunk_start = [&](int64_t key) { return (key >= 0 ? key : key - chunk + 1) / chunk * chunk; };
    const int64_t first = m * positions, last = std::min(sq, first + positions) - 1;
    int64_t lo = std::max<int64_t>(0, first + sk - sq - left), hi = std::min(sk - 1, last + sk - sq + right);
    if (chunk > 1) {
      lo = std::max(lo, chunk_start(first + sk - sq));
      hi = std::min(hi, chunk_start(last + sk - sq) + chunk - 1);
    }
    return hi >= lo ? hi / block_n - lo / block_n + 1 : 0;
  }
};

// The fraction of the (query, key) pairs that configuration `c`'s tiles compute which are
// visible, for a plan whose rows see `mean_keys` keys on average (mean_visible_keys, > 0),
// from up to 64 tiles spread over the sequence.
double visible_fraction(const Plan& p, const attention_impl::HeadDimConfig& c, int64_t mean_keys) {
  const TileBlocks t(p, c);
  if (t.sq <= 0 || t.sk <= 0 || t.tiles <= 0) return 1.0;
  constexpr int64_t kTiles = 64;
  const int64_t samples = std::min(t.tiles, kTiles);
  double blocks = 0;
  for (int64_t i = 0; i < samples; ++i)
    blocks += double(t.blocks(samples == t.tiles ? i : (2 * i + 1) * t.tiles / (2 * samples)));
  const double computed = blocks * double(t.tiles) / double(samples) * double(c.block_m() * c.block_n);
  const double visible = double(mean_keys) * double(t.sq * t.pack);
  return computed > 0 ? std::min(1.0, visible / computed) : 1.0;
}

// The fraction of `sm_count` SMs' time that configuration `c`'s tiles keep busy on the
// static schedule (schedule/attention.hpp: the work list longest first, dealt to
// min(tiles, sm_count) CTAs in serpentine rounds), a tile's time its key blocks: the work
// over the busiest CTA's. Fewer, larger tiles fill fewer SMs: 176 tiles of 192 rows run
// in two rounds on 132 SMs, the second a third full, where 256 of 128 rows run in two
// full ones. Tiles of one length: whole rounds, tiles / (rounds x SMs). Unequal ones are
// dealt out tile by tile up to 16 rounds; past that, the serpentine's last rounds deal the
// shortest tiles and the loads even out: 1. (Packed lengths: the mean's tiles.)
double busy_fraction(const Plan& p, const attention_impl::HeadDimConfig& c, int sm_count) {
  const TileBlocks t(p, c);
  const int64_t per_m = std::max<int64_t>(p.batch, 1) * (p.heads_q / t.pack);  // tiles per m_block
  const int64_t total = t.tiles * per_m;
  if (sm_count <= 0 || t.sk <= 0 || total <= 0) return 1.0;
  const int64_t grid = std::min<int64_t>(total, sm_count);
  constexpr int64_t kSamples = 64;
  const int64_t samples = std::min(t.tiles, kSamples);
  bool equal = true;
  for (int64_t i = 1; i < samples && equal; ++i)
    equal = t.blocks(samples == t.tiles ? i : (2 * i + 1) * t.tiles / (2 * samples)) == t.blocks(0);
  if (equal) return double(total) / double((total + grid - 1) / grid * int64_t(sm_count));
  constexpr int64_t kMax = 16 * 256;  // on the stack: the plan allocates nothing
  if (total > 16 * int64_t(sm_count) || t.tiles > kMax || grid > kMax) return 1.0;
  std::array<int64_t, kMax> len, load;
  for (int64_t m = 0; m < t.tiles; ++m) len[size_t(m)] = t.blocks(m);
  std::sort(len.begin(), len.begin() + t.tiles, std::greater<>());
  std::fill(load.begin(), load.begin() + grid, 0);
  int64_t work = 0;
  for (int64_t i = 0; i < total; ++i) {
    const int64_t round = i / grid, pos = i % grid;
    const int64_t cta = round % 2 == 0 ? pos : grid - 1 - pos;
    load[size_t(cta)] += len[size_t(i / per_m)];
    work += len[size_t(i / per_m)];
  }
  const int64_t busiest = *std::max_element(load.begin(), load.begin() + grid);
  return busiest > 0 ? double(work) / (double(busiest) * double(sm_count)) : 1.0;
}

// The plan's configuration, then its pack-GQA: config_for's choice at the rows' mean keys,
// or, where the lengths are known, of it and its siblings (config.hpp: the same head dim
// and min_keys) the one with the most visible work per unit of time (speed x visible
// fraction of the unpacked rows; ties to config_for's). Scored unpacked, the choice does
// not depend on pack_gqa, so a call with pack_gqa unset runs the configuration that the
// same call with pack_gqa set either way runs (only the packing differs). On a GPU of
// `sm_count` SMs (0: unknown), the visible work per unit of time counts the SMs the
// tiles leave idle too (busy_fraction).
//
// Only configurations that have what the call uses compete (config.hpp: a lean one has no
// pack-GQA, chunks or split-KV): the chunk mask where attention_chunk is set, and
// pack-GQA where the plan packs, which the configuration's tile rows decide (the
// siblings' are the same, so a plan that packs on a lean configuration packs on the
// sibling it moves to).
Status plan_config(const AttentionArgs& a, Plan* plan, int sm_count) {
  Plan& p = *plan;
  p.pack_shift = 0;
  if (a.num_splits > 1) {
    p.cfg = attention_impl::split_config_for(p.kernel_d, p.dtype);
    return plan_pack_gqa(a, &p);
  }
  const int64_t keys = mean_visible_keys(p, a);
  const attention_impl::HeadDimConfig first = attention_impl::config_for(p.kernel_d, p.dtype, keys);
  const auto choose = [&](bool pack) {
    double best = -1.0;
    for (const attention_impl::HeadDimConfig& c : attention_impl::configs_of(p.dtype)) {
      if (c.head_dim != p.kernel_d || c.min_keys != first.min_keys) continue;
      if ((p.chunk > 0 && !attention_impl::chunks(c)) || (pack && !attention_impl::packs_gqa(c))) continue;
      // Where the lengths are on the device, the fastest (config_for's rule).
      const double rate = c.speed * (keys > 0 ? visible_fraction(p, c, keys) * busy_fraction(p, c, sm_count) : 1.0);
      if (rate > best || (rate == best && c == first)) p.cfg = c, best = rate;
    }
  };
  p.cfg = first;
  choose(false);
  WARPSPEC_RETURN_IF_ERROR(plan_pack_gqa(a, &p));
  if (p.pack_shift > 0 && !attention_impl::packs_gqa(p.cfg)) {
    choose(true);
    WARPSPEC_RETURN_IF_ERROR(plan_pack_gqa(a, &p));
  }
  return Status::Ok();
}

// On a GPU of `sm_count` SMs (0: unknown; plan_config).
Status make_plan(const AttentionArgs& a, Plan* plan, int sm_count) {
  Plan p;
  p.packed_q = !a.cu_seqlens_q.empty();
  p.packed_k = !a.cu_seqlens_k.empty();
  const int qrank = p.packed_q ? 3 : 4, krank = p.packed_k ? 3 : 4;
  if (a.q.data == nullptr && a.q.rank == 0) return invalid_argument("q.data: must not be null");
  if (a.q.rank != qrank)
    return invalid_argument(p.packed_q ? fmt("q.rank: must be 3 (total_q, heads, head_dim) with cu_seqlens_q, got %d",
                                             a.q.rank)
                                       : fmt("q.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", a.q.rank));
  if (a.q.dtype != DType::kBF16 && a.q.dtype != DType::kFP16 && a.q.dtype != DType::kE4M3)
    return unsupported(fmt("q.dtype: must be bf16, fp16 or e4m3, got %s", dtype_name(a.q.dtype)));
  p.dtype = a.q.dtype;
  const bool fp8 = attention_impl::is_fp8(p.dtype);
  p.head_dim = a.q.shape[qrank - 1];
  p.kernel_d = attention_impl::kernel_head_dim(p.head_dim);
  if (fp8 && attention_impl::config_for(int(p.head_dim), p.dtype).head_dim == 0)
    return unsupported(fmt("q.shape[%d] (head_dim): e4m3 attention runs head dims 64, 128 and 256 only, got %" PRId64,
                           qrank - 1, p.head_dim));
  if (fp8) WARPSPEC_RETURN_IF_ERROR(check_fp8_options(a));
  // Split-KV runs on a kernel with the partial epilogue: head dim 64's runs on 128's
  // (config.hpp: split_config_for; FP8 never splits; for the heuristic's splits,
  // plan_splits moves the plan).
  if (!fp8 && p.kernel_d != 0 && a.num_splits > 1 && attention_impl::split_config_for(p.kernel_d, p.dtype).head_dim != 0)
    p.kernel_d = attention_impl::split_config_for(p.kernel_d, p.dtype).head_dim;
  if (p.kernel_d == 0)
    return unsupported(fmt("q.shape[%d] (head_dim): must be a multiple of 8 from 8 to 256 (64, 128, 192 and 256 run "
                           "natively, others padded up to the next), got %" PRId64, qrank - 1, p.head_dim));
  const int64_t any[4] = {-1, -1, -1, -1};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.q, "q", p.dtype, any, p.packed_q));
  p.heads_q = a.q.shape[qrank - 2];
  // The batch: cu_seqlens' length - 1, or the dense side's shape[0].
  if (p.packed_q) {
    const TensorView& cu = a.cu_seqlens_q;
    if (cu.rank != 1 || cu.shape[0] < 1)
      return invalid_argument(fmt("cu_seqlens_q: must be rank 1 with batch + 1 >= 1 entries (rank %d, %" PRId64
                                  " entries)", cu.rank, cu.rank >= 1 ? cu.shape[0] : int64_t(0)));
    p.batch = cu.shape[0] - 1;
    if (a.max_seqlen_q < 0)
      return invalid_argument(fmt("max_seqlen_q: must be >= 0 with cu_seqlens_q, got %" PRId64, a.max_seqlen_q));
    // 0 over rows that exist computes nothing and writes nothing: a zero-filled argument
    // struct, not a request (every sequence empty over a padded q takes 1 as well).
    if (a.max_seqlen_q == 0 && p.batch > 0 && a.q.shape[0] > 0)
      return invalid_argument(fmt("max_seqlen_q: required with cu_seqlens_q (at least the longest query sequence), got 0 "
                                  "over %" PRId64 " packed rows",
                                  a.q.shape[0]));
  } else {
    p.batch = a.q.shape[0];
  }
  if (p.batch >= kMaxExtent)
    return invalid_argument(fmt("%s: batch must be < 2^30, got %" PRId64,
                                p.packed_q ? "cu_seqlens_q.shape[0]" : "q.shape[0]", p.batch));
  if (p.packed_q) WARPSPEC_RETURN_IF_ERROR(check_vector(a.cu_seqlens_q, "cu_seqlens_q", DType::kI32, p.batch + 1, "batch + 1"));
  if (p.packed_k) WARPSPEC_RETURN_IF_ERROR(check_vector(a.cu_seqlens_k, "cu_seqlens_k", DType::kI32, p.batch + 1, "batch + 1"));
  if (!a.seqused_q.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.seqused_q, "seqused_q", DType::kI32, p.batch, "batch"));
  if (!a.seqused_k.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.seqused_k, "seqused_k", DType::kI32, p.batch, "batch"));

  if (a.k.rank == krank) {
    p.seqlen_k = a.k.shape[krank - 3];  // seqlen_k, or total_k when packed
    p.heads_kv = a.k.shape[krank - 2];
  }
  // KV cache options: their own rules first (the k/v shapes depend on them).
  p.paged = !a.page_table.empty();
  const bool has_batch_idx = !a.cache_batch_idx.empty(), has_leftpad = !a.cache_leftpad.empty();
  if (has_batch_idx) {
    if (p.packed_k) return unsupported("cache_batch_idx: not with cu_seqlens_k (a packed k/v has no batch entries)");
    if (p.paged) return unsupported("cache_batch_idx: not with page_table (the page table already picks the pages)");
    WARPSPEC_RETURN_IF_ERROR(check_vector(a.cache_batch_idx, "cache_batch_idx", DType::kI32, p.batch, "batch"));
  }
  if (has_leftpad) {
    if (p.packed_k) return unsupported("cache_leftpad: not with cu_seqlens_k");
    if (p.paged) return unsupported("cache_leftpad: not with page_table");
    WARPSPEC_RETURN_IF_ERROR(check_vector(a.cache_leftpad, "cache_leftpad", DType::kI32, p.batch, "batch"));
  }
  if (p.paged) {
    const TensorView& t = a.page_table;
    if (p.packed_k) return unsupported("page_table: not with cu_seqlens_k (paged k/v are (num_pages, page_size, heads_kv, head_dim))");
    if (a.seqused_k.empty())
      return invalid_argument("page_table: needs seqused_k (cache_seqlens), the length of each paged sequence");
    if (t.rank != 2) return invalid_argument(fmt("page_table.rank: must be 2 (batch, max_pages), got %d", t.rank));
    if (t.dtype != DType::kI32) return invalid_argument(fmt("page_table.dtype: must be int32, got %s", dtype_name(t.dtype)));
    if (t.shape[0] != p.batch)
      return invalid_argument(fmt("page_table.shape[0] (batch): must be %" PRId64 ", got %" PRId64, p.batch, t.shape[0]));
    if (t.shape[1] < 1 || t.shape[1] >= kMaxExtent)
      return invalid_argument(fmt("page_table.shape[1] (max_pages): must be from 1 to 2^30 - 1, got %" PRId64, t.shape[1]));
    if (t.shape[1] > 1 && t.stride[1] != 1)
      return invalid_argument(fmt("page_table.stride[1]: must be 1 (contiguous), got %" PRId64, t.stride[1]));
    if (t.shape[0] > 1 && t.stride[0] < 0)
      return invalid_argument(fmt("page_table.stride[0]: must be >= 0, got %" PRId64, t.stride[0]));
    if (reinterpret_cast<uintptr_t>(t.data) % 4 != 0)
      return misaligned(fmt("page_table.data: must be 4-byte aligned (got %p)", t.data));
    p.pages_per_seq = t.shape[1];
    if (a.k.rank == 4) {
      p.num_pages = a.k.shape[0];
      p.page_size = a.k.shape[1];
      if (p.page_size < 16 || p.page_size % 16 != 0 || p.page_size > (int64_t(1) << 20))
        return unsupported(fmt("k.shape[1] (page_size): paged k/v need a page size that is a multiple of 16 from 16 to "
                               "2^20, got %" PRId64, p.page_size));
      if (p.pages_per_seq * p.page_size >= kMaxExtent)
        return invalid_argument(fmt("page_table.shape[1] (max_pages): max_pages * page_size must be < 2^30, got %" PRId64
                                    " * %" PRId64, p.pages_per_seq, p.page_size));
    }
  }
  // k: (batch, seqlen_k, heads_kv, head_dim) or (total_k, heads_kv, head_dim); any batch
  // count with cache_batch_idx, (num_pages, page_size, ...) with a page table.
  const int64_t want_k_dense[4] = {has_batch_idx || p.paged ? -1 : p.batch, -1, -1, p.head_dim};
  const int64_t want_k_packed[3] = {-1, -1, p.head_dim};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.k, "k", p.dtype, p.packed_k ? want_k_packed : want_k_dense, p.packed_k));
  if (p.heads_kv < 1) return invalid_argument(fmt("k.shape[%d] (heads): must be >= 1, got 0", krank - 2));
  const int64_t want_v_dense[4] = {a.k.shape[0], p.seqlen_k, p.heads_kv, p.head_dim};
  const int64_t want_v_packed[3] = {p.seqlen_k, p.heads_kv, p.head_dim};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.v, "v", p.dtype, p.packed_k ? want_v_packed : want_v_dense, p.packed_k));
  if (p.heads_q % p.heads_kv != 0)
    return invalid_argument(fmt("k.shape[%d] (heads): heads_q (%" PRId64 ") must be a multiple of heads_kv (%" PRId64 ")",
                                krank - 2, p.heads_q, p.heads_kv));
  if (p.paged) p.seqlen_k = p.pages_per_seq * p.page_size;  // the longest sequence the table can hold
  if ((p.paged || has_batch_idx) && a.k.shape[0] == 0 && p.seqlen_k > 0)
    return invalid_argument(p.paged ? "k.shape[0] (num_pages): the paged cache has no page"
                                    : "k.shape[0] (batch of the cache): cache_batch_idx needs a cache entry to index");
  p.seqlen_q = a.q.shape[qrank - 3];
  const int64_t want_o_dense[4] = {p.batch, p.seqlen_q, p.heads_q, p.head_dim};
  const int64_t want_o_packed[3] = {p.seqlen_q, p.heads_q, p.head_dim};
  const DType odtype = attention_impl::out_dtype(p.dtype);
  if (fp8 && a.o.rank != 0 && a.o.dtype != odtype)
    return invalid_argument(fmt("o.dtype: must be bf16 with e4m3 inputs, got %s", dtype_name(a.o.dtype)));
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.o, "o", odtype, p.packed_q ? want_o_packed : want_o_dense, p.packed_q));
  WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.o, "o"));
  {
    const std::pair<const TensorView*, const char*> descales[] = {
        {&a.q_descale, "q_descale"}, {&a.k_descale, "k_descale"}, {&a.v_descale, "v_descale"}};
    for (const auto& [v, name] : descales) {
      if (v->empty()) continue;
      if (!fp8)
        return invalid_argument(fmt("%s: descales are for e4m3 inputs only, q.dtype is %s", name, dtype_name(p.dtype)));
      WARPSPEC_RETURN_IF_ERROR(check_descale(*v, name, p.batch, p.heads_kv));
      WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", *v, name, false));
      if (!a.lse.empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
    }
  }
  p.tile_rows = p.packed_q ? std::min(a.max_seqlen_q, p.seqlen_q) : p.seqlen_q;
  if (!a.lse.empty()) {
    const TensorView& l = a.lse;
    const int lrank = p.packed_q ? 2 : 3;
    if (l.rank != lrank)
      return invalid_argument(p.packed_q ? fmt("lse.rank: must be 2 (heads_q, total_q) with cu_seqlens_q, got %d", l.rank)
                                         : fmt("lse.rank: must be 3 (batch, heads_q, seqlen_q), got %d", l.rank));
    if (l.dtype != DType::kFP32) return invalid_argument(fmt("lse.dtype: must be fp32, got %s", dtype_name(l.dtype)));
    const int64_t want_dense[3] = {p.batch, p.heads_q, p.seqlen_q};
    const int64_t want_packed[2] = {p.heads_q, p.seqlen_q};
    const char* names_dense[3] = {"batch", "heads_q", "seqlen_q"};
    const char* names_packed[2] = {"heads_q", "total_q"};
    const int64_t* want = p.packed_q ? want_packed : want_dense;
    const char* const* names = p.packed_q ? names_packed : names_dense;
    for (int i = 0; i < lrank; ++i) {
      if (l.shape[i] != want[i])
        return invalid_argument(fmt("lse.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, i, names[i], want[i], l.shape[i]));
      if (l.shape[i] > 1 && l.stride[i] <= 0)
        return invalid_argument(fmt("lse.stride[%d] (%s): must be positive, got %" PRId64, i, names[i], l.stride[i]));
    }
    if (reinterpret_cast<uintptr_t>(l.data) % 4 != 0)
      return misaligned(fmt("lse.data: must be 4-byte aligned (got %p)", l.data));
    WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(l, "lse"));
  }
  if (!a.sink.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.sink, "sink", DType::kFP32, p.heads_q, "heads_q"));
  if (!a.tile_counter.empty())
    WARPSPEC_RETURN_IF_ERROR(check_vector(a.tile_counter, "tile_counter", DType::kI32, 2, "2 ({next, done})"));
  // o shares no memory with k or v, and with q only as the very same view (in place: a
  // tile reads its own Q rows before it writes the same O rows); lse with none of them;
  // neither with what the kernel reads besides (sink, varlen arrays).
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.k, "k", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.v, "v", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.q, "q", true));
  const std::pair<const TensorView*, const char*> side[] = {{&a.sink, "sink"},
                                                            {&a.tile_counter, "tile_counter"},
                                                            {&a.cu_seqlens_q, "cu_seqlens_q"},
                                                            {&a.cu_seqlens_k, "cu_seqlens_k"},
                                                            {&a.seqused_q, "seqused_q"},
                                                            {&a.seqused_k, "seqused_k"},
                                                            {&a.cache_batch_idx, "cache_batch_idx"},
                                                            {&a.cache_leftpad, "cache_leftpad"},
                                                            {&a.page_table, "page_table"}};
  for (const auto& [v, name] : side) {
    if (v->empty()) continue;
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", *v, name, false));
    if (!a.lse.empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
  }
  if (!a.lse.empty()) {
    const std::pair<const TensorView*, const char*> inputs[] = {{&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.o, "o"}};
    for (const auto& [v, name] : inputs) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
  }
  if (!a.tile_counter.empty()) {  // written by the kernel too
    const std::pair<const TensorView*, const char*> read[] = {
        {&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.sink, "sink"}, {&a.cu_seqlens_q, "cu_seqlens_q"},
        {&a.cu_seqlens_k, "cu_seqlens_k"}, {&a.seqused_q, "seqused_q"}, {&a.seqused_k, "seqused_k"},
        {&a.cache_batch_idx, "cache_batch_idx"}, {&a.cache_leftpad, "cache_leftpad"}, {&a.page_table, "page_table"},
        {&a.q_descale, "q_descale"}, {&a.k_descale, "k_descale"}, {&a.v_descale, "v_descale"}};
    for (const auto& [v, name] : read)
      if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.tile_counter, "tile_counter", *v, name, false));
  }
  if (a.softmax_scale.has_value()) {
    const float sc = *a.softmax_scale;
    if (!std::isfinite(sc) || !(sc > 0.0f))
      return invalid_argument(fmt("softmax_scale: must be positive and finite, got %g", double(sc)));
    p.scale = sc;
  } else {
    p.scale = float(1.0 / std::sqrt(double(p.head_dim)));
  }
  if (!std::isfinite(a.softcap) || a.softcap < 0.0f)
    return invalid_argument(fmt("softcap: must be finite and >= 0 (0: off), got %g", double(a.softcap)));
  p.softcap = a.softcap;
  // The kernel works in base 2 with scale·log2(e) (softcap·log2(e) with a softcap) in
  // fp32, and with a softcap multiplies the raw score by scale / softcap: all finite.
  const double base2 = (p.softcap > 0 ? double(p.softcap) : double(p.scale)) * 1.4426950408889634;
  if (!std::isfinite(float(base2)) || !(float(base2) > 0.0f))
    return invalid_argument(p.softcap > 0
                                ? fmt("softcap: %g is out of range: softcap·log2(e) must be a positive finite fp32",
                                      double(p.softcap))
                                : fmt("softmax_scale: %g is too large: scale·log2(e) overflows fp32 (at most %g)",
                                      double(p.scale), double(3.4028234663852886e38 / 1.4426950408889634)));
  if (p.softcap > 0 && !std::isfinite(float(double(p.scale) / double(p.softcap))))
    return invalid_argument(fmt("softcap: %g is too small for softmax_scale %g: their ratio overflows fp32",
                                double(p.softcap), double(p.scale)));
  WARPSPEC_RETURN_IF_ERROR(window_edge(a.window_left, "window_left", &p.window_left));
  WARPSPEC_RETURN_IF_ERROR(window_edge(a.causal ? 0 : a.window_right, "window_right", &p.window_right));
  if (a.attention_chunk < 0 || a.attention_chunk >= attention_impl::kUnboundedWindow)
    return invalid_argument(fmt("attention_chunk: must be 0 (off) or from 1 to 2^30 - 1, got %" PRId64, a.attention_chunk));
  p.chunk = int32_t(a.attention_chunk);
  if (p.chunk > 1 && !attention_impl::kChunkHeadDim(p.kernel_d))
    return unsupported(fmt("attention_chunk: not supported with head_dim > 192 yet (the head dim 256 kernel has no "
                           "registers left for the chunk mask), got head_dim %" PRId64, p.head_dim));
  if (p.chunk == 1) {  // each query sees the one key on its diagonal: the window (0, 0)
    p.window_left = std::min(p.window_left, 0);
    p.window_right = std::min(p.window_right, 0);
    p.chunk = 0;
  }
  if (a.num_splits < 0 || a.num_splits > schedule::kMaxKvSplits)
    return invalid_argument(fmt("num_splits: must be 0 (heuristic) or from 1 to %d, got %d", schedule::kMaxKvSplits,
                                a.num_splits));
  if (a.num_splits > 1 && attention_impl::split_config_for(p.kernel_d, p.dtype).head_dim != p.kernel_d)
    return unsupported(fmt("num_splits: split-KV is not supported with head_dim > 192 yet (the head dim 256 kernel has "
                           "no registers left for the partial epilogue), got num_splits %d at head_dim %" PRId64,
                           a.num_splits, p.head_dim));
  WARPSPEC_RETURN_IF_ERROR(plan_config(a, &p, sm_count));
  if (a.workspace == nullptr && a.workspace_bytes != 0)
    return invalid_argument(fmt("workspace: null with workspace_bytes %zu; pass both or neither", a.workspace_bytes));
  if (a.workspace != nullptr && reinterpret_cast<uintptr_t>(a.workspace) % 16 != 0)
    return misaligned(fmt("workspace: must be 16-byte aligned (got %p)", a.workspace));
  if (!workspace_wraps(a.workspace, a.workspace_bytes))  // else after planning, on the bytes the plan writes
    WARPSPEC_RETURN_IF_ERROR(workspace_shares_nothing(a, a.workspace_bytes));
  if (a.causal && a.window_right < -1)
    return invalid_argument(fmt("window_right: must be -1 (unbounded) or >= 0, got %" PRId64, a.window_right));
  if (fp8 && !attention_impl::kFp8AttentionBuilt)
    return unsupported("q.dtype: the e4m3 attention kernels are not in this build (configure with "
                       "-DWARPSPEC_FP8_ATTENTION=ON)");
  p.q = as_bshd(a.q, p.packed_q);
  p.o = as_bshd(a.o, p.packed_q);
  p.k = as_bshd(a.k, p.packed_k);
  p.v = as_bshd(a.v, p.packed_k);
  *plan = p;
  return Status::Ok();
}

using Prepared = PreparedLaunch<Plan, AttentionParams>;

// The split-KV heuristic's count for a plan, from its grid and the longest sequence's key
// blocks (the cache length: per-step lengths are on the device).
int heuristic_splits(const Plan& p, int sm_count) {
  const attention_impl::HeadDimConfig& cfg = p.cfg;
  const int64_t pack = int64_t(1) << p.pack_shift, block_m = cfg.block_m();
  const int64_t tiles = (p.tile_rows * pack + block_m - 1) / block_m * (p.heads_q / pack) * p.batch;
  return schedule::split_heuristic(tiles, sm_count, int((p.seqlen_k + cfg.block_n - 1) / cfg.block_n));
}

// Split-KV for a plan on a GPU of `sm_count` SMs: the caller's count, or the heuristic's;
// 1 where there is no key or the kernel has no partial epilogue (FP8: none yet). Where the
// heuristic would split but this configuration has no partial epilogue (head dim 64, head
// dim 128's 192-key blocks), the plan moves to the one that has one (split_config_for:
// every rule that held holds there; only pack-GQA's fill rule reads the configuration) if
// it splits there too: head dim 128's smaller tiles may fill the GPU unsplit, and then
// the padded kernel would gain nothing.
Status plan_splits(const AttentionArgs& a, Plan* plan, int sm_count) {
  const bool fp8 = attention_impl::is_fp8(plan->dtype);
  const attention_impl::HeadDimConfig split_cfg = attention_impl::split_config_for(plan->kernel_d, plan->dtype);
  if (a.num_splits == 0 && !fp8 && !plan->cfg.split_kv && split_cfg.head_dim != 0 &&
      heuristic_splits(*plan, sm_count) > 1) {
    Plan split_plan = *plan;
    split_plan.kernel_d = split_cfg.head_dim;
    split_plan.cfg = split_cfg;
    WARPSPEC_RETURN_IF_ERROR(plan_pack_gqa(a, &split_plan));
    if (heuristic_splits(split_plan, sm_count) > 1) *plan = split_plan;
  }
  plan->splits = a.num_splits == 0 ? heuristic_splits(*plan, sm_count) : a.num_splits;
  plan->heuristic_splits = a.num_splits == 0;
  if (plan->seqlen_k == 0 || !plan->cfg.split_kv || fp8) plan->splits = 1;
  return Status::Ok();
}

// Pointers are device memory of the current device (empty views are never read).
Status check_pointers(const AttentionArgs& a, int device) {
  const std::pair<const TensorView*, const char*> views[] = {
      {&a.q, "q"},       {&a.k, "k"},
      {&a.v, "v"},       {&a.o, "o"},
      {&a.lse, "lse"},   {&a.sink, "sink"},
      {&a.cu_seqlens_q, "cu_seqlens_q"}, {&a.cu_seqlens_k, "cu_seqlens_k"},
      {&a.seqused_q, "seqused_q"},       {&a.seqused_k, "seqused_k"},
      {&a.tile_counter, "tile_counter"}, {&a.cache_batch_idx, "cache_batch_idx"},
      {&a.cache_leftpad, "cache_leftpad"}, {&a.page_table, "page_table"},
      {&a.q_descale, "q_descale"},       {&a.k_descale, "k_descale"},
      {&a.v_descale, "v_descale"}};
  for (const auto& [v, name] : views) {
    if (v->empty() && (v != &a.q && v != &a.k && v != &a.v && v != &a.o)) continue;  // optional, not given
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*v, name, &span));
    if (!span.empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device));
  }
  return Status::Ok();
}

Status prepare(const AttentionArgs& a, Prepared* out) {
  // The device's SMs pick the configuration; a call's arguments are judged first.
  DeviceProps device;
  const Status props = current_device_props(&device);
  WARPSPEC_RETURN_IF_ERROR(make_plan(a, &out->plan, props.ok() ? device.sm_count : 0));
  WARPSPEC_RETURN_IF_ERROR(props);
  const Plan* plan = &out->plan;
  AttentionParams* params = &out->params;
  LaunchShape* shape = &out->shape;
  WARPSPEC_RETURN_IF_ERROR(check_pointers(a, device.ordinal));
  if (plan->batch == 0 || plan->tile_rows == 0 || plan->heads_q == 0) {  // nothing to compute; every rule was checked
    shape->grid = 0;
    return Status::Ok();
  }

  WARPSPEC_RETURN_IF_ERROR(plan_splits(a, &out->plan, device.sm_count));

  const Plan& p = *plan;
  const attention_impl::HeadDimConfig& cfg = p.cfg;
  AttentionParams& q = *params;
  const int64_t pack = int64_t(1) << p.pack_shift;  // query heads per tile row group
  // Q, K, V: one swizzle span per box (FP8: 128 e4m3 columns, 64 at head dim 64).
  const uint32_t in_cols = uint32_t(attention_impl::qk_box_cols(p.kernel_d, p.dtype));
  const hopper::TmaSwizzle in_swizzle = tma_swizzle(attention_impl::qk_swizzle(p.kernel_d, p.dtype));
  const int64_t block_m = cfg.block_m();  // query rows per tile
  WARPSPEC_RETURN_IF_ERROR(make_qo_map(&q.map_q, p.q, pack, uint32_t(block_m), "q", in_cols, in_swizzle));
  WARPSPEC_RETURN_IF_ERROR(make_qo_map(&q.map_o, p.o, pack, 64, "o"));
  // Paged: boxes of gcd(page_size, block_n) rows, each inside one page (kv_source.cuh).
  const uint32_t kv_box_rows = p.paged ? uint32_t(std::gcd(p.page_size, int64_t(cfg.block_n))) : uint32_t(cfg.block_n);
  if (p.seqlen_k > 0 && p.k.shape[0] > 0) {
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_k, p.k, kv_box_rows, "k", in_cols, in_swizzle));
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_v, p.v, kv_box_rows, "v", in_cols, in_swizzle));
  } else {  // no key: every tile writes O = 0 and LSE = −inf without loading K or V
    q.map_k = q.map_v = q.map_q;
  }

  schedule::AttentionSchedulerArguments sa;
  // Pack-GQA: a tile row per (position, head of the group), a work head per KV head.
  const int64_t tiles_m = (p.tile_rows * pack + block_m - 1) / block_m;
  const int64_t work_heads = p.heads_q / pack;
  if (tiles_m * work_heads * p.batch >= (int64_t(1) << 30))
    return invalid_argument(fmt("q.shape: %" PRId64 " query tiles of %d rows is too many for one launch (2^30)",
                                tiles_m * work_heads * p.batch, block_m));
  sa.tiles_m = int(tiles_m);
  sa.heads = int(work_heads);
  sa.batch = int(p.batch);
  // Tiles of unequal cost (causal: by m_block; packed: by the unknown lengths, longer
  // sequences owning the high m_blocks) go longest first.
  const bool ragged = p.packed_q || p.packed_k || !a.seqused_q.empty() || !a.seqused_k.empty();
  const bool unequal = a.causal || ragged;
  sa.order = unequal ? schedule::AttentionOrder::kLongestFirst : schedule::AttentionOrder::kMFastest;
  sa.splits = p.splits;
  // Work items (query tiles x splits) are indexed in 32 bits.
  if (tiles_m * work_heads * p.batch * p.splits >= (int64_t(1) << 30))
    return invalid_argument(fmt("num_splits: %d splits x %" PRId64 " query tiles is too many work items for one launch "
                                "(2^30); use fewer splits",
                                p.splits, tiles_m * work_heads * p.batch));
  // L2 sections for dense causal calls whose heads' K/V outgrow half of L2: each section
  // the work heads (whole GQA groups) whose K/V fit there, on the dynamic schedule.
  // (FP8 not yet: its kernels' dynamic schedule is untested on the GPU.)
  if (a.causal && !ragged && !attention_impl::is_fp8(p.dtype) && p.splits == 1 && tiles_m > 1 && device.l2_bytes > 0) {
    const int64_t kv_bytes = std::max<int64_t>(1, p.seqlen_k * p.head_dim * 2 * int64_t(dtype_size(p.dtype)));
    const int64_t kv_heads = std::max<int64_t>(1, device.l2_bytes / 2 / kv_bytes);
    const int64_t section = kv_heads * (p.heads_q / p.heads_kv / pack);
    if (section < work_heads * p.batch) {
      sa.section = int(section);
      out->plan.l2_dynamic = true;
    }
  } else if (!a.causal && !ragged && !attention_impl::is_fp8(p.dtype) && p.splits == 1 && tiles_m > 0 &&
             cfg.head_dim == 64 && p.seqlen_k >= 1024) {
    // Head dim 64's full calls from 1k keys on the dynamic schedule (one section): the
    // consumers take the decoded tile from the loader's ring instead of dividing (v36's
    // handover). Its tiles are the shortest, so that fixed cost shows most. Measured on
    // the H200 against the static order (bench/NOTES.md stop 52): hd64 full 1k +1.8%,
    // 2k +2.2%, 512 -0.7%; head dim 128 full 512 -2.2%, so only head dim 64 from 1k.
    out->plan.l2_dynamic = true;
  }
  sa.grid_size = schedule::attention_grid_size(sa.tiles_m, sa.heads, sa.batch, device.sm_count, sa.splits);
  if (const char* why = schedule::AttentionScheduler::check(sa)) return internal_error(fmt("scheduler: %s", why));
  q.sched = schedule::AttentionScheduler(sa);
  out->plan.sched_args = sa;
  out->plan.device = device.ordinal;
  out->plan.sm_count = device.sm_count;
  if (sa.splits > 1) {
    // Workspace: fp32 partial O (splits, batch, rows, heads, head_dim), then partial LSE
    // (splits, batch, rows, heads), 256-byte aligned; rows the tensor's (total_q packed).
    const int64_t bq = p.packed_q ? 1 : p.batch;
    const int64_t rows = p.seqlen_q;
    // Counted in 128 bits: extents below 2^30 each can multiply past 2^64 (a packed q's
    // total rows, not a tile's, set the partials' rows).
    const __int128 lse_n128 = __int128(sa.splits) * bq * rows * p.heads_q;
    if (lse_n128 * (p.head_dim + 1) * 4 >= (__int128(1) << 62))
      return invalid_argument(fmt("num_splits: the split-KV workspace (%d splits x %" PRId64 " rows x %" PRId64
                                  " heads x (head_dim + 1) fp32) does not fit in 2^62 bytes; use fewer splits",
                                  sa.splits, bq * rows, p.heads_q));
    const int64_t lse_n = int64_t(lse_n128);
    const size_t o_bytes = size_t(lse_n) * size_t(p.head_dim) * 4;
    out->plan.lse_offset = (o_bytes + 255) / 256 * 256;
    out->plan.workspace_bytes = out->plan.lse_offset + (size_t(lse_n) * 4 + 255) / 256 * 256;
    const int64_t query_tiles = int64_t(sa.tiles_m) * sa.heads * sa.batch;
    out->plan.counters_bytes = size_t(query_tiles) * size_t(cfg.consumers) * 4;
    if (a.workspace != nullptr) {
      if (a.workspace_bytes < out->plan.workspace_bytes)
        return invalid_argument(fmt("workspace_bytes: %zu is less than the %zu bytes this call needs "
                                    "(attention_workspace_size)", a.workspace_bytes, out->plan.workspace_bytes));
      WARPSPEC_RETURN_IF_ERROR(workspace_shares_nothing(a, out->plan.workspace_bytes));
      WARPSPEC_RETURN_IF_ERROR(check_device_memory(a.workspace, "workspace", device.ordinal));
      out->plan.workspace = a.workspace;
    }
    attention_impl::CombineParams& c = q.combine;  // the pointers are set at launch (the workspace's)
    c.op_stride_h = p.head_dim;
    c.op_stride_s = p.heads_q * p.head_dim;
    c.op_stride_b = rows * c.op_stride_s;
    c.op_stride_split = bq * c.op_stride_b;
    c.lp_stride_h = 1;
    c.lp_stride_s = p.heads_q;
    c.lp_stride_b = rows * p.heads_q;
    c.lp_stride_split = bq * c.lp_stride_b;
  }
  if (p.paged) {
    q.page_table = static_cast<const int32_t*>(a.page_table.data);
    q.page_table_stride = a.page_table.stride[0];
    q.page_size = int32_t(p.page_size);
    q.page_box_rows = int32_t(kv_box_rows);
    q.pages_per_seq = int32_t(p.pages_per_seq);
    q.num_pages = int32_t(std::min<int64_t>(p.num_pages, INT32_MAX));
  }
  q.kv_batch_idx = static_cast<const int32_t*>(a.cache_batch_idx.data);
  q.leftpad_k = static_cast<const int32_t*>(a.cache_leftpad.data);
  q.seqlen_q = int32_t(p.seqlen_q);
  q.seqlen_k = int32_t(p.seqlen_k);
  q.head_dim = int32_t(p.head_dim);
  q.group = int32_t(p.heads_q / p.heads_kv / pack);  // work heads per KV head
  q.pack_shift = p.pack_shift;
  q.window_left = p.window_left;
  q.window_right = p.window_right;
  q.chunk = p.chunk;
  const schedule::FastDivmod chunk_div(uint32_t(p.chunk >= 2 ? p.chunk : 2));
  q.chunk_mul = chunk_div.multiplier();
  q.chunk_shift = chunk_div.high_shift();
  q.scale_log2 = float((p.softcap > 0 ? double(p.softcap) : double(p.scale)) * 1.4426950408889634);
  q.softcap_prescale = p.softcap > 0 ? float(double(p.scale) / double(p.softcap)) : 0.0f;
  q.cu_seqlens_q = static_cast<const int32_t*>(a.cu_seqlens_q.data);
  q.cu_seqlens_k = static_cast<const int32_t*>(a.cu_seqlens_k.data);
  q.seqused_q = static_cast<const int32_t*>(a.seqused_q.data);
  q.seqused_k = static_cast<const int32_t*>(a.seqused_k.data);
  q.sink = static_cast<const float*>(a.sink.data);
  q.plain_seqs = q.cu_seqlens_q == nullptr && q.cu_seqlens_k == nullptr && q.seqused_q == nullptr &&
                 q.seqused_k == nullptr && q.kv_batch_idx == nullptr && q.leftpad_k == nullptr;
  const auto descale = [](const TensorView& v) {
    return attention_impl::DescaleView{static_cast<const float*>(v.data), v.empty() ? 0 : v.stride[0],
                                       v.empty() ? 0 : v.stride[1]};
  };
  q.q_descale = descale(a.q_descale);
  q.k_descale = descale(a.k_descale);
  q.v_descale = descale(a.v_descale);
  // The dynamic schedule for packed batches (tile costs unknown to the host).
  // The dynamic schedule's counter: the caller's for ragged batches (sectioned dense calls
  // take the library's at launch; a caller's is ignored there, as AttentionArgs documents).
  q.tile_counter = ragged ? static_cast<int32_t*>(a.tile_counter.data) : nullptr;
  q.o = p.o.data;
  q.o_stride_b = p.o.stride[0];
  q.o_stride_s = p.o.stride[1];
  q.o_stride_h = p.o.stride[2];
  q.lse = static_cast<float*>(a.lse.data);
  // (batch, heads, seqlen) dense; (heads, total) packed: one batch.
  const bool lse_given = !a.lse.empty();
  q.lse_stride_b = !lse_given || p.packed_q ? 0 : a.lse.stride[0];
  q.lse_stride_h = !lse_given ? 0 : a.lse.stride[p.packed_q ? 0 : 1];
  q.lse_stride_s = !lse_given ? 0 : a.lse.stride[p.packed_q ? 1 : 2];
  shape->grid = sa.grid_size;
  shape->pdl = a.pdl;
  return Status::Ok();
}

// The line describe() returns and WARPSPEC_LOG_CONFIG prints (worded in describe.cpp).
std::string describe_plan(const Prepared& p) {
  const Plan& l = p.plan;
  attention_impl::AttentionChoice c;
  c.dtype = l.dtype;
  c.batch = l.batch, c.seqlen_q = l.seqlen_q, c.seqlen_k = l.seqlen_k;
  c.heads_q = l.heads_q, c.heads_kv = l.heads_kv, c.head_dim = l.head_dim;
  c.window_left = p.params.window_left >= attention_impl::kUnboundedWindow ? -1 : p.params.window_left;
  c.window_right = p.params.window_right >= attention_impl::kUnboundedWindow ? -1 : p.params.window_right;
  c.softcap = l.softcap;
  c.varlen = l.packed_q || l.packed_k || p.params.seqused_q != nullptr || p.params.seqused_k != nullptr;
  c.dynamic = p.params.tile_counter != nullptr || l.l2_dynamic;
  c.page_size = int(l.page_size);
  c.pack_gqa = 1 << l.pack_shift;
  c.kernel = l.cfg;
  c.sched = p.params.sched;
  c.shape = p.shape;
  return attention_impl::describe(c);
}

Status launch_kernel(const Plan& plan, const AttentionParams& params, const LaunchShape& shape, cudaStream_t stream) {
  const attention_impl::AttentionConfig cfg{plan.cfg, plan.dtype};
  // The kernel must have what the parameters use (plan_config picks it so): one without
  // pack-GQA would read packed rows as positions, one without the chunk mask ignore the
  // chunks, one without the partial epilogue write O instead of the partials.
  if ((params.pack_shift > 0 && !attention_impl::packs_gqa(plan.cfg)) ||
      (params.chunk > 0 && !attention_impl::chunks(plan.cfg)) ||
      (params.combine.o_partial != nullptr && !plan.cfg.split_kv))
    return internal_error(fmt("attention: the planned kernel (head dim %d, block_n %d) lacks a feature the call uses "
                              "(pack_shift %d, chunk %d, split-KV %d)",
                              plan.cfg.head_dim, plan.cfg.block_n, params.pack_shift, params.chunk,
                              params.combine.o_partial != nullptr ? 1 : 0));
  if (attention_impl::is_fp8(plan.dtype)) {
    switch (plan.kernel_d) {
      case 64: return attention_impl::launch_attention_e4m3_hd64(cfg, params, shape, stream);
      case 128: return attention_impl::launch_attention_e4m3_hd128(cfg, params, shape, stream);
      case 256: return attention_impl::launch_attention_e4m3_hd256(cfg, params, shape, stream);
      default: return internal_error(fmt("attention: no e4m3 kernel for head dim %d", plan.kernel_d));
    }
  }
  switch (plan.kernel_d) {
    case 64: return attention_impl::launch_attention_hd64(cfg, params, shape, stream);
    case 128: return attention_impl::launch_attention_hd128(cfg, params, shape, stream);
    case 192: return attention_impl::launch_attention_hd192(cfg, params, shape, stream);
    case 256: return attention_impl::launch_attention_hd256(cfg, params, shape, stream);
    default: return internal_error(fmt("attention: no kernel for head dim %d", plan.kernel_d));
  }
}

// Split-KV: the attention kernel writes partials to the workspace, the combine merges
// them into O and LSE (the sink joins there).
Status launch_split(const Prepared& p, cudaStream_t stream) {
  const Plan& plan = p.plan;
  void* ws = plan.workspace;
  if (ws == nullptr) {
    bool capturing = false;
    const Status s = cached_workspace(WorkspaceKind::kSplitKv, plan.device, stream, plan.workspace_bytes, &ws, &capturing);
    if (!s.ok()) {
      if (!capturing) return s;
      if (plan.heuristic_splits) {  // the heuristic's choice: run unsplit rather than refuse
        Prepared run = p;
        schedule::AttentionSchedulerArguments& sa = run.plan.sched_args;
        sa.splits = 1;
        sa.grid_size = schedule::attention_grid_size(sa.tiles_m, sa.heads, sa.batch, plan.sm_count);
        run.plan.splits = 1;
        run.params.sched = schedule::AttentionScheduler(sa);
        run.shape.grid = sa.grid_size;
        log_config_if_enabled([&] { return describe_plan(run); });  // what runs, not the split plan
        return launch_kernel(run.plan, run.params, run.shape, stream);
      }
      return unsupported(fmt("workspace: num_splits %d needs %zu bytes of split-KV workspace and the stream is being "
                             "captured, where the library cannot allocate its own; pass AttentionArgs::workspace "
                             "(attention_workspace_size), or run the same call once on this stream before capturing",
                             plan.splits, plan.workspace_bytes));
    }
  }
  AttentionParams params = p.params;
  attention_impl::CombineParams& c = params.combine;  // the partials' strides: set by prepare
  c.o_partial = static_cast<float*>(ws);
  c.lse_partial = reinterpret_cast<float*>(static_cast<char*>(ws) + plan.lse_offset);
  c.out = params.o;
  c.out_dtype = plan.dtype;
  c.o_stride_b = params.o_stride_b;
  c.o_stride_s = params.o_stride_s;
  c.o_stride_h = params.o_stride_h;
  c.lse = params.lse;
  c.lse_stride_b = params.lse_stride_b;
  c.lse_stride_h = params.lse_stride_h;
  c.lse_stride_s = params.lse_stride_s;
  c.sink = params.sink;
  c.cu_seqlens_q = params.cu_seqlens_q;
  c.seqused_q = params.seqused_q;
  c.total_rows = int32_t(plan.seqlen_q);
  c.splits = plan.splits;
  c.batch = int32_t(plan.batch);
  c.rows = int32_t(plan.tile_rows);
  c.heads = int32_t(plan.heads_q);
  c.head_dim = int32_t(plan.head_dim);
  // The merge runs in the attention kernel (the tile's last share, split_combine.cuh)
  // when the call uses the library's workspace: its share counters are the library's own
  // too (zeroed at allocation, left zero by every call). With a caller's workspace, or a
  // capture that cannot grow the counters, the combine kernel merges: clearing counters
  // in a caller's workspace would take a memset per call, which cost more than the merge
  // saves (1 x 8192 under a CUDA graph: 1417 -> 1342 GB/s, bench/NOTES.md v14).
  void* counters = nullptr;
  if (plan.workspace == nullptr) {
    bool capturing = false;
    const Status s =
        cached_workspace(WorkspaceKind::kSplitKvCounters, plan.device, stream, plan.counters_bytes, &counters, &capturing);
    if (!s.ok() && !capturing) return s;  // capturing: counters stays null (the combine kernel)
  }
  params.split_counters = static_cast<int32_t*>(counters);
  log_config_if_enabled([&] { return describe_plan(p); });
  WARPSPEC_RETURN_IF_ERROR(launch_kernel(plan, params, p.shape, stream));
  if (counters != nullptr) return Status::Ok();
  return attention_impl::launch_combine(c, stream, /*pdl=*/true);
}

// The library's tile counter for a sectioned call on `stream`, where one may be used: not
// while the stream is being captured (a graph would share it with eager calls and other
// graphs), not when it cannot be allocated. Else null: the call runs the static schedule.
int32_t* library_tile_counter(int device, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (capture != cudaStreamCaptureStatusNone) return nullptr;
  void* counter = nullptr;
  bool capturing = false;
  if (!cached_workspace(WorkspaceKind::kAttentionTileCounter, device, stream, 2 * sizeof(int32_t), &counter, &capturing)
           .ok())
    return nullptr;
  return static_cast<int32_t*>(counter);
}

Status launch(const Prepared& p, cudaStream_t stream) {
  if (p.plan.l2_dynamic) {  // dense, unsplit, not empty (prepare)
    Prepared run = p;
    run.params.tile_counter = library_tile_counter(p.plan.device, stream);
    if (run.params.tile_counter == nullptr) {  // the static schedule, without sections (they need the dynamic one)
      schedule::AttentionSchedulerArguments sa = p.plan.sched_args;
      sa.section = 0;
      run.params.sched = schedule::AttentionScheduler(sa);
      run.plan.sched_args = sa;
      run.plan.l2_dynamic = false;
    }
    log_config_if_enabled([&] { return describe_plan(run); });
    return launch_kernel(run.plan, run.params, run.shape, stream);
  }
  if (p.shape.grid != 0 && p.plan.splits > 1) return launch_split(p, stream);  // logs what it runs
  log_config_if_enabled([&] { return describe_plan(p); });
  if (p.shape.grid == 0) return Status::Ok();  // an empty output
  return launch_kernel(p.plan, p.params, p.shape, stream);
}

}  // namespace

Status check(const AttentionArgs& args) { return check_only<Prepared>(args, prepare); }

namespace attention_impl {

Status plan_summary(const AttentionArgs& args, int sm_count, PlanSummary* out) {
  Plan p;
  WARPSPEC_RETURN_IF_ERROR(make_plan(args, &p, sm_count));
  WARPSPEC_RETURN_IF_ERROR(plan_splits(args, &p, sm_count));
  *out = PlanSummary{p.kernel_d,   p.cfg.block_n,
                     p.cfg.block_m(), p.pack_shift,
                     p.splits,       attention_impl::packs_gqa(p.cfg),
                     attention_impl::chunks(p.cfg), p.cfg.split_kv};
  return Status::Ok();
}

}  // namespace attention_impl

Status describe(const AttentionArgs& args, std::string* out) {
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(args, &p));
  *out = describe_plan(p);
  return Status::Ok();
}

Status attention_forward(const AttentionArgs& args, cudaStream_t stream) {
  return prepare_and_launch<Prepared>(args, stream, prepare, launch);
}

Status attention_workspace_size(const AttentionArgs& args, size_t* bytes) {
  if (bytes == nullptr) return invalid_argument("bytes: must not be null");
  *bytes = 0;
  AttentionArgs sized = args;  // every rule but the workspace's size, which is asked for
  if (sized.workspace != nullptr) sized.workspace_bytes = SIZE_MAX;
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(sized, &p));
  *bytes = p.shape.grid == 0 ? 0 : p.plan.workspace_bytes;
  return Status::Ok();
}

}  // namespace warpspec
