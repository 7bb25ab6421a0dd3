#pragma once
// GEMM mainloop: the TMA producer that streams A and B tiles into the staged ring, and
// the wgmma consumer that multiplies them into registers.
//
// Shared-memory tiles are SW128, one 128-byte swizzle row per TMA box row (block_k is
// 64 16-bit or 128 8-bit elements: one row):
//   A K-major:  boxes {BK, 64 M};        A M-major: boxes {64 M, 64 K}, 8 KB apart.
//   B K-major:  one box {BK, BN N};      B N-major: BN/64 boxes {64 N, 64 K}.
// In a cluster that shares an operand (gemm/cluster_cast.cuh), its K-major box is cut
// into one box per sharing CTA ({BK, BN/2 N} for 2x1's B: the host encodes the map so),
// and each CTA loads and multicasts only its part of the boxes. A part starts at a
// multiple of 1024 bytes, so the swizzle phase of every row is what it is unshared.
// FP8 operands are K-major only (wgmma has no transpose for 8-bit inputs); their
// consumer is gemm/mma_fp8.cuh, which reuses the loads and layouts here.
// hopper::WgmmaOperandLayout names the same layouts for the descriptors, so the
// loads and the wgmma reads agree by construction.
#include "warpspec/gemm/cluster_cast.cuh"
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/gemm/tail_rows.hpp"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/wgmma.cuh"
#include "warpspec/hopper/wgmma_desc.hpp"
#include "warpspec/pipeline.cuh"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct Mainloop {
  using TIn = hopper::element_t<kCfg.in>;
  static constexpr int kBlockM = kCfg.tile.block_m, kBlockN = kCfg.tile.block_n, kBlockK = kCfg.tile.block_k;
  static constexpr int kStages = kCfg.tile.stages;
  static constexpr bool kAKMajor = kCfg.a_k_major, kBKMajor = kCfg.b_k_major;
  static constexpr int kElemBytes = int(sizeof(TIn));
  static_assert(kElemBytes == 2 || (kElemBytes == 1 && kAKMajor && kBKMajor),
                "16-bit inputs, or 8-bit ones with both operands K-major (wgmma's rule)");
  static_assert(kBlockK * kElemBytes == 128, "one stage's K must be one SW128 row (64 x 16-bit, 128 x 8-bit)");
  static_assert(kBlockM == 64 * kConsumerWarpgroups || kBlockM == 64,
                "each consumer warpgroup owns 64 rows of the tile, or both share 64 (gemm/mma_k_interleaved.cuh)");
  static constexpr int kWarpgroupsPerStage = kConsumerWarpgroups;  // every stage is read by both
  static_assert(kBlockN % 8 == 0 && kBlockN <= 256 && (kBKMajor || kBlockN % 64 == 0),
                "wgmma N is 8..256 in steps of 8; N-major B loads 64-wide boxes");

  static constexpr int kBoxMN = 128 / kElemBytes;  // MN-major boxes: the SW128 span
  // Functions, not static members: a static constexpr object is not addressable from
  // device code, and the layouts' member functions take `this`.
  static constexpr hopper::WgmmaOperandLayout layout_a() {
    return {kAKMajor ? hopper::Major::kK : hopper::Major::kMN, hopper::WgmmaSwizzle::k128B, kElemBytes, kBlockM, kBlockK};
  }
  static constexpr hopper::WgmmaOperandLayout layout_b() {
    return {kBKMajor ? hopper::Major::kK : hopper::Major::kMN, hopper::WgmmaSwizzle::k128B, kElemBytes, kBlockN, kBlockK};
  }
  static constexpr int kBytesA = kBlockM * kBlockK * kElemBytes;
  static constexpr int kBytesB = kBlockN * kBlockK * kElemBytes;
  static_assert(layout_a().bytes() == kBytesA && layout_b().bytes() == kBytesB, "operand layouts must be dense");
  // Every CTA's full barrier expects the whole stage, whichever CTA of a cluster loads
  // which part of it: full boxes, in bounds or not.
  static constexpr uint32_t kStageTxBytes = kBytesA + kBytesB;
  static constexpr int kKSteps = layout_a().k_steps();

  // The loads of one operand as boxes along M (N): A in 64-row boxes; B K-major, one box
  // of all rows (one per sharing CTA when a cluster shares it), MN-major, kBoxMN-wide
  // boxes. A CTA loads the kPerCta consecutive boxes of its part.
  using Cast = ClusterCast<kCfg>;
  static_assert(cluster_cast_supported<kCfg>(), "clusters are 1x1, 2x1 or 1x2 (gemm/cluster_cast.cuh)");
  // A's boxes are 64 rows either way (a warpgroup's rows), so a tile's rows past M can be
  // left unloaded a box at a time (tile_rows_a).
  static constexpr int kBoxesA = kBlockM / 64;
  static constexpr int kBoxesB = kBKMajor ? Cast::kPartsB : kBlockN / kBoxMN;
  static constexpr int kBoxRowsA = kBlockM / kBoxesA, kBoxRowsB = kBlockN / kBoxesB;  // M (N) rows per box
  static constexpr int kPerCtaA = kBoxesA / Cast::kPartsA, kPerCtaB = kBoxesB / Cast::kPartsB;
  static_assert(kAKMajor || kBoxMN == 64, "MN-major A boxes are 64 rows, as K-major ones");
  static_assert(kBoxesA % Cast::kPartsA == 0 && kBoxesB % Cast::kPartsB == 0 && (!kBKMajor || kPerCtaB == 1),
                "a shared operand's boxes must split evenly between the CTAs that share it");
  static_assert(Cast::kCtas == 1 || ((kBoxRowsA * 128) % 1024 == 0 && (kBoxRowsB * 128) % 1024 == 0),
                "each CTA's part of a shared operand must start on an SW128 repeat (8 rows)");

  struct Storage {
    alignas(1024) TIn a[kStages][kBlockM * kBlockK];
    alignas(1024) TIn b[kStages][kBlockN * kBlockK];
  };

  using Pipe = Pipeline<kStages>;
  using State = PipelineState<kStages>;
  // What the consumer keeps beside the stages: nothing here (the k-interleaved
  // consumer's partials: mma_k_interleaved.cuh).
  struct ConsumerStorage {};

  // Rows of A that tile m0's stages hold, a whole number of 64-row boxes (a warpgroup's
  // rows): p.a_rows (64 where M <= 64, else the tile), and for a 16-bit tile that M ends
  // inside, only the boxes up to M's last row. Rows past M reach only accumulator rows past
  // M, which are never stored, so a box wholly past M need not be loaded, nor multiplied
  // (its warpgroup idles, mma below): TMA's zero fill of out-of-bounds rows ran slower than
  // loading the same bytes in bounds (bench/NOTES.md v51: 129 rows took 1.4x the time of 256
  // on the same 128 tiles). A cluster that shares A loads whole tiles (its peer expects
  // them), and the FP8 consumers (mma_fp8.cuh, its loop across tiles) keep p.a_rows.
  __device__ __forceinline__ static int tile_rows_a(const GemmParams& p, int m0) {
    if constexpr (Cast::kPartsA != 1 || kElemBytes != 2 || kBlockM == 64) {
      return p.a_rows;
    } else {
      return whole_box_rows_a(p.m - int64_t(m0), p.a_rows, kBlockM);
    }
  }

  // K-major A of a tile that M ends inside also leaves out the rows past M inside its
  // last loaded box (gemm/tail_rows.hpp: 8-row boxes, or one whole box moved back over the
  // box before it). An 8-row box costs the TMA unit much of what a whole one does, so how
  // many pay depends on the MMA time a stage has to hide them: measured on the H200
  // (bench/NOTES.md v51b), N = K = 8192, ms:
  //   64 wide,  96 rows (4 groups, second box): 8-row boxes 0.0587, moved box 0.0527
  //   128 wide, 160 rows (4 groups, first box of the second row tile): 8-row boxes 0.062,
  //             the whole box zero-filled 0.068
  //   128 wide, 176 rows (6 groups, the same): 8-row boxes 0.0658, whole box 0.0618
  //   128 wide, 129 rows (1 group): 8-row boxes 0.061, a whole tile (256 rows) 0.064
  // so a tile takes block_n / 32 of them. No epilogue reduces across rows, so the stale
  // rows of a stage reach nothing stored. FP8 too: its warpgroups both multiply
  // (tile_rows_a keeps p.a_rows), the rows past M of the second one's box are older rows.
  static constexpr bool kRowGroupsA = kAKMajor && Cast::kPartsA == 1 && kBlockM == 128;
  static constexpr int kMaxRowGroupsA = kRowGroupsA ? kBlockN / 32 : 0;

  // Tile m0's A loads (rows_a = tile_rows_a).
  __device__ __forceinline__ static RowsA tile_loaded_rows_a(const GemmParams& p, int m0, int rows_a) {
    return plan_rows_a(p.m - int64_t(m0), rows_a, kRowGroupsA, kMaxRowGroupsA);
  }

  // Producer (one thread): fill stages for one unit: its tile's k-iterations
  // [t.k_begin, t.k_end), the range the consumers multiply: tile_rows_a rows of A.
  __device__ __forceinline__ static void load(const GemmParams& p, Pipe& pipe, State& st, Storage& s,
                                              const schedule::KWorkUnit& t) {
    const Cast cast;
    const int m0 = t.m_block * kBlockM;
    const int n0 = t.n_block * kBlockN;
    const int la = t.l * p.a_l_mul;
    const int lb = t.l * p.b_l_mul;
    const RowsA rows_a = tile_loaded_rows_a(p, m0, tile_rows_a(p, m0));
#pragma unroll 1
    for (int kt = t.k_begin; kt < t.k_end; ++kt) {
      const int k0 = kt * kBlockK;
      cast.acquire(pipe, st);
      uint64_t* bar = pipe.full_barrier(st);
      pipe.producer_expect_tx(st, kStageTxBytes - (kBlockM - rows_a.tx_rows) * kBlockK * kElemBytes);
      TIn* a = s.a[st.index];
      TIn* b = s.b[st.index];
      // `row`: the box's first row (M or N) in the tile; this CTA's part of the boxes.
#pragma unroll
      for (int j = 0; j < kPerCtaA; ++j) {
        const int row = (cast.part_a() * kPerCtaA + j) * kBoxRowsA;
        if (row + kBoxRowsA <= rows_a.end) {
          if constexpr (kAKMajor) cast.load_a(a + row * kBlockK, &p.map_a, bar, k0, m0 + row, la);
          else cast.load_a(a + row * kBlockK, &p.map_a, bar, m0 + row, k0, la);
        } else if (kRowGroupsA && row < rows_a.end) {  // the tail box (boxes past it: none)
          if (rows_a.end - row <= kRowGroup * kMaxRowGroupsA) {  // tail_in_groups (gemm/tail_rows.hpp)
#pragma unroll 1
            for (int r = row; r < rows_a.end; r += kRowGroup)
              cast.load_a(a + r * kBlockK, &p.map_a8, bar, k0, m0 + r, la);
          } else {  // one whole box ending at `end` (moved back when it is not the first)
            const int r = moved_box_row(rows_a);
            cast.load_a(a + r * kBlockK, &p.map_a, bar, k0, m0 + r, la);
          }
        }
      }
      if constexpr (kBKMajor) {
        const int row = cast.part_b() * kBoxRowsB;
        cast.load_b(b + row * kBlockK, &p.map_b, bar, k0, n0 + row, lb);
      } else {
#pragma unroll
        for (int j = 0; j < kPerCtaB; ++j) {
          const int row = (cast.part_b() * kPerCtaB + j) * kBoxRowsB;
          cast.load_b(b + row * kBlockK, &p.map_b, bar, n0 + row, k0, lb);
        }
      }
      st.advance();
    }
  }

  // Each warpgroup finishes its own rows' units (see MmaKInterleaved for the other way).
  __device__ __forceinline__ static bool combine(int, float (&)[kBlockN / 2], ConsumerStorage&) { return true; }

  // Consumer warpgroup `wg` (0 or 1): acc = A[rows 64wg..] · B over unit t's k-iterations
  // (the producer loaded exactly those stages).
  __device__ __forceinline__ static void mma(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kBlockN / 2],
                                             ConsumerStorage&) {
    mma_rows<1>(p, pipe, st, s, 64 * wg, t, reinterpret_cast<float(&)[1][kBlockN / 2]>(acc));
  }

  // One warpgroup: acc[b] = A[rows row0 + 64b ..] · B over unit t's k-iterations, for
  // kBlocks blocks of 64 rows (1: the cooperative schedule's half tile; 2: a ping-pong
  // warpgroup's whole 128-row tile, gemm/kernel_pingpong.cuh).
  // One wgmma group stays in flight: after committing stage k, wait until only it is
  // pending, then release stage k-1 (its reads are done). Releasing earlier would let
  // TMA overwrite operands under a running wgmma.
  template <int kBlocks>
  __device__ __forceinline__ static void mma_rows(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int row0,
                                                  const schedule::KWorkUnit& t, float (&acc)[kBlocks][kBlockN / 2]) {
    const int k_count = t.k_end - t.k_begin;
    // Row blocks whose rows were not loaded (tile_rows_a) issue no wgmma; their
    // accumulators, never stored (rows >= M), stay defined. A warpgroup with none keeps
    // the pipeline's pace. An empty range (K = 0, or a split-K unit past the last
    // k-iteration): nothing was loaded and the product is 0 (D = beta·C, or a zero partial).
    const int rows = tile_rows_a(p, t.m_block * kBlockM);
    int active = 0;  // leading row blocks with rows loaded
#pragma unroll
    for (int b = 0; b < kBlocks; ++b) active += row0 + 64 * b >= rows ? 0 : 1;
#pragma unroll
    for (int b = 0; b < kBlocks; ++b)
      if (b >= active || k_count == 0) {
#pragma unroll
        for (int i = 0; i < kBlockN / 2; ++i) acc[b][i] = 0.0f;
      }
    if (k_count == 0) return;
    if (kBlocks == 1 || active < kBlocks) {
      mma_loop<kBlocks, 1>(pipe, st, s, row0, k_count, active > 0, acc);
    } else {
      mma_loop<kBlocks, kBlocks>(pipe, st, s, row0, k_count, true, acc);
    }
  }

  // The k loop of mma_rows over its first kActive row blocks (a uniform choice, so no
  // branch sits between the wgmmas of a group).
  template <int kBlocks, int kActive>
  __device__ __forceinline__ static void mma_loop(Pipe& pipe, State& st, Storage& s, int row0, int k_count, bool any,
                                                  float (&acc)[kBlocks][kBlockN / 2]) {
    constexpr hopper::WgmmaOperandLayout la = layout_a(), lb = layout_b();
    const Cast cast;
    const bool releaser = cast.releaser();  // one arrival per consumer warp and CTA of the cluster
    State prev = st;
#pragma unroll 1
    for (int kt = 0; kt < k_count; ++kt) {
      pipe.consumer_wait(st);
      const uint32_t a_base = hopper::smem_u32(s.a[st.index]);
      const uint32_t b_base = hopper::smem_u32(s.b[st.index]);
      if (any) {
        hopper::wgmma_fence();
#pragma unroll
        for (int j = 0; j < kKSteps; ++j) {
#pragma unroll
          for (int b = 0; b < kActive; ++b) {
            const uint64_t da = la.desc(a_base, j, row0 + 64 * b);
            const uint64_t db = lb.desc(b_base, j);
            hopper::mma_async<kBlockN, TIn, kAKMajor ? hopper::Major::kK : hopper::Major::kMN,
                             kBKMajor ? hopper::Major::kK : hopper::Major::kMN>(acc[b], da, db, kt > 0 || j > 0);
          }
        }
        hopper::wgmma_commit_group();
        hopper::wgmma_wait_group<1>();
      }
      if (kt > 0 && releaser) cast.release(pipe, prev);
      prev = st;
      st.advance();
    }
    hopper::wgmma_wait_group<0>();
    if (releaser) cast.release(pipe, prev);
  }
};

}  // namespace warpspec::gemm_impl
