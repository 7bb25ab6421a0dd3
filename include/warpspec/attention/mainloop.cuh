#pragma once
// Attention mainloop: the TMA producer that streams Q once per tile and K, V blocks
// through their own pipelines, and the consumer warpgroups' wgmma + online softmax.
//
// Shared-memory tiles are swizzled columns of one span each (SW128, or SW64 for FP8 head
// dim 64), one TMA box per column (operands.hpp holds the table):
//   Q: kBlockM x d, K-major A of S = Q·Kᵀ        (box {cols, g, kBlockM/g}: kBlockM rows
//      of g heads x kBlockM/g positions, pack_gqa.cuh; g = 1 without pack-GQA)
//   K: block_n x d, K-major B of S               (box {cols, block_n})
//   V: 16-bit: block_n x d, N-major B of O += P·V (the same box as K: V's rows are the
//      P·V reduction dim, its columns O's N, so K and V tiles are byte-identical).
//      FP8: V lands like K in the pump's vload ring; the consumers' V ring holds Vᵀ
//      (d x block_n, K-major), which the pump writes (v_transpose.cuh). The V path is
//      one type, VDirect or VTransposePump, with the same calls.
// hopper::WgmmaOperandLayout names the same layouts for the descriptors.
//
// Consumer schedule per tile (FlashAttention-3, HOPPER-FACTS §9), blocks from the last
// key block down:
//   S = Q·K(last)ᵀ; softmax → P
//   for each further block n:  issue S = Q·K(n)ᵀ and O += P·V(n+1) together; wait for
//     S only (wait_group 1) and run softmax(n) while P·V runs; then wait for P·V,
//     rescale O, pack P from S
//   O += P·V(0), alone (close) or, where the next tile's Q is resident beside this
//     tile's O staging, with the next tile's first S (close_and_open: the epilogue
//     runs while that S does; turns.cuh, strung together by attention/kernel.cuh)
// Ping-pong: every batch of wgmma issues is bracketed by named barriers so the two
// consumer warpgroups take turns on the tensor cores, one issuing while the other
// does its softmax (HOPPER-FACTS §6).
#include <type_traits>

#include "warpspec/attention/config.hpp"
#include "warpspec/attention/descale.cuh"
#include "warpspec/attention/kv_source.cuh"
#include "warpspec/attention/mask.cuh"
#include "warpspec/attention/operands.hpp"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/attention/q_release.cuh"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/attention/softcap.cuh"
#include "warpspec/attention/softmax.cuh"
#include "warpspec/attention/v_direct.cuh"
#include "warpspec/attention/v_transpose.cuh"
#include "warpspec/attention/warpgroup_rows.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/hopper/wgmma.cuh"
#include "warpspec/hopper/wgmma_desc.hpp"
#include "warpspec/pipeline.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct Mainloop {
  using Ops = AttentionOperands<kCfg>;
  using T = hopper::element_t<kCfg.dtype>;
  static constexpr int kHeadDim = kCfg.shape.head_dim;
  static_assert(is_configured(kCfg.shape, kCfg.dtype), "not a configuration of config.hpp");
  static_assert(sizeof(T) == 2 || kCfg.dtype == DType::kE4M3, "16-bit inputs, or e4m3");
  static constexpr int kBlockN = kCfg.shape.block_n;
  static constexpr int kConsumers = kCfg.shape.consumers;  // consumer warpgroups
  static constexpr int kBlockM = kCfg.shape.block_m();     // query rows per tile
  static constexpr int kStages = kCfg.shape.stages;
  static constexpr int kVStages = kCfg.shape.v_depth();  // the consumers' V (FP8: Vᵀ) ring
  static constexpr int kBoxCols = Ops::kBoxCols;  // one swizzle span of elements
  static constexpr int kCols = Ops::kCols;
  static constexpr int kPvSteps = Ops::kPvSteps;  // P·V k-steps per block (16 or 32 keys each)
  static constexpr MaskFeatures kMask = mask_features(kCfg.shape);  // mask.cuh's switches
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256, "block_n is the wgmma N and a whole number of P·V k-steps");

  static constexpr hopper::WgmmaOperandLayout layout_q() { return Ops::layout_q(); }
  static constexpr hopper::WgmmaOperandLayout layout_k() { return Ops::layout_k(); }
  static constexpr hopper::WgmmaOperandLayout layout_v() { return Ops::layout_pv(); }  // what P·V reads
  static constexpr uint32_t kQBytes = kBlockM * kHeadDim * sizeof(T);
  static constexpr uint32_t kKVBytes = kBlockN * kHeadDim * sizeof(T);
  static_assert(layout_q().bytes() == kQBytes && layout_k().bytes() == kKVBytes && layout_v().bytes() == kKVBytes,
                "operand layouts must be dense boxes");
  static_assert(kKVBytes % 1024 == 0 && (kBlockN * layout_k().row_bytes()) % 1024 == 0,
                "K/V tiles and their columns must stay 1024-byte aligned (the swizzle is on absolute address bits)");

  struct Tiles {
    static constexpr int kHeadDim = Mainloop::kHeadDim;
    static constexpr int kBlockM = Mainloop::kBlockM;
    alignas(1024) T k[kStages][kBlockN * kHeadDim];
    alignas(1024) T v[kVStages][kBlockN * kHeadDim];  // what P·V reads: V, or the pump's Vᵀ (FP8)
  };
  // Q's slots (q[QRel::slot(iter)]), when each goes back to the producer and where the
  // 16-bit epilogue stages O (q_release.cuh).
  using QRel = QRelease<T, kHeadDim, !Ops::kFp8, uint32_t(sizeof(Tiles)), kConsumers>;
  using Storage = typename QRel::template Storage<Tiles>;

  using Pipe = Pipeline<kStages>;
  using State = PipelineState<kStages>;
  using VPipe = Pipeline<kVStages>;
  using VState = PipelineState<kVStages>;

  // V's way into the consumers' ring (v_direct.cuh / v_transpose.cuh): the loader's
  // TMA straight into it, or into the pump's vload ring and through the transpose.
  using VPath = std::conditional_t<Ops::kFp8, VTransposePump<kBlockN, kHeadDim, kStages, kVStages>,
                                   VDirect<kVStages, kKVBytes>>;
  // The softmax (FP8: the 2^7 offset and the lazy max) and the descales (16-bit: none).
  using Softmax = OnlineSoftmax<kBlockN, Ops::kSoftmaxOffset, Ops::kRescaleThresholdTenths>;
  using Descale = std::conditional_t<Ops::kFp8, Fp8Descale, UnitDescale>;

  // What each role carries from tile to tile: its place in the K and V rings (the loader
  // fills VPath's `vload` ring, the consumers read `v`) and its count of Q loads.
  struct Cursor {
    State k;
    VState v;
    typename VPath::LoadState vload;
    uint32_t q_iter = 0;
  };

  // ------------------------------------------------------------------ producer

  using Source = KvSource<T, kBlockN, kCols, kBoxCols>;

  // One K or V block (KvSource: dense, or page by page) into the next stage.
  __device__ __forceinline__ static void load_kv(const AttentionParams& p, const CUtensorMap* map, Pipe& pipe, State& st,
                                                 T* stage_base, const SeqInfo& sq, int n, int head_kv, int b) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, kKVBytes);  // whole boxes, in bounds or not
    Source::load(p, map, pipe.full_barrier(st), stage_base + st.index * (kBlockN * kHeadDim), sq.k_offset + n * kBlockN,
                 n * kBlockN, sq.seqlen_k, head_kv, sq.k_batch, b);
    st.advance();
  }

  // One thread: everything one tile reads. The first K block goes before Q: its stage
  // does not depend on the previous tile's epilogue, which still owns Q's buffer
  // (q_empty) and is what the consumers wait for first anyway.
  // `c`: the kernel's context (params, storage, pipelines and the Q barriers).
  template <class Ctx>
  __device__ __forceinline__ static void load(Ctx& c, Cursor& cur, const schedule::AttentionWork& w, const SeqInfo& sq,
                                              KeyBlocks kb) {
    const AttentionParams& p = c.p;
    Storage& s = c.s.tiles;
    const int head_kv = w.head / p.group;  // the work head is the KV head with pack-GQA (group 1)
    int n = kb.hi - 1;
    load_kv(p, &p.map_k, c.kpipe, cur.k, &s.k[0][0], sq, n, head_kv, w.batch);
    const uint32_t slot = QRel::slot(cur.q_iter);
    if (cur.q_iter >= QRel::kCount) hopper::mbarrier_wait(&c.s.q_empty[slot], QRel::phase(cur.q_iter) ^ 1u);
    hopper::mbarrier_arrive_expect_tx(&c.s.q_full[slot], kQBytes);
#pragma unroll
    for (int col = 0; col < kCols; ++col)
      hopper::tma_load(s.q[slot] + col * kBlockM * kBoxCols, &p.map_q, &c.s.q_full[slot], col * kBoxCols, 0,
                       sq.q_offset + PackGqa::position<kMask.pack_gqa>(p, w.m_block * kBlockM), w.head, sq.q_batch);
    load_v(c, cur, sq, n, head_kv, w.batch);
#pragma unroll 1
    for (n = kb.hi - 2; n >= kb.lo; --n) {
      load_kv(p, &p.map_k, c.kpipe, cur.k, &s.k[0][0], sq, n, head_kv, w.batch);
      load_v(c, cur, sq, n, head_kv, w.batch);
    }
    ++cur.q_iter;
  }

  // One V block through the V path (its stage, its barrier; the boxes as K's).
  template <class Ctx>
  __device__ __forceinline__ static void load_v(Ctx& c, Cursor& cur, const SeqInfo& sq, int n, int head_kv, int b) {
    VPath::load(c, cur.vload, [&](void* dst, uint64_t* bar) {
      Source::load(c.p, &c.p.map_v, bar, static_cast<T*>(dst), sq.k_offset + n * kBlockN, n * kBlockN, sq.seqlen_k,
                   head_kv, sq.k_batch, b);
    });
  }

  // The loader thread, after its last tile: the V path's end of stream.
  template <class Ctx>
  __device__ __forceinline__ static void finish(Ctx& c, Cursor& cur) {
    VPath::finish(c, cur.vload);
  }

  // ------------------------------------------------------------------ consumers

  // Turns on the tensor cores (config.hpp: HeadDimConfig::pingpong): wait for this
  // warpgroup's turn before issuing, hand the turn on after; no-ops without ping-pong.
  __device__ __forceinline__ static void pingpong_sync(int wg) {
    if constexpr (kCfg.shape.pingpong) hopper::named_barrier_sync(kPingPong0 + wg, 2 * hopper::kWarpgroupSize);
  }
  __device__ __forceinline__ static void pingpong_arrive(int wg) {
    if constexpr (kCfg.shape.pingpong)
      hopper::named_barrier_arrive(kPingPong0 + (wg + 1) % kConsumers, 2 * hopper::kWarpgroupSize);
  }

  // S = Q[rows 64wg..] · K(stage)ᵀ (issue only).
  __device__ __forceinline__ static void issue_qk(float (&s)[kBlockN / 2], uint32_t q_base, uint32_t k_base, int wg) {
    constexpr hopper::WgmmaOperandLayout lq = layout_q(), lk = layout_k();
    asm volatile("" : "+r"(q_base));  // rebuilt per block (an add each): hoisted, hd192/256 spilled
#pragma unroll
    for (int j = 0; j < lq.k_steps(); ++j)
      hopper::mma_async<kBlockN, T>(s, lq.desc(q_base, j, 64 * wg), lk.desc(k_base, j), j > 0);
  }

  // O (+)= P · V(stage) (issue only). `accumulate` false overwrites O.
  // FP8: B = Vᵀ, whose keys carry P's permutation σ, so O's columns come out permuted
  // by δ (fp8_layout.hpp: fp8_o_column); the FP8 epilogue stores them where they belong.
  __device__ __forceinline__ static void issue_pv(float (&o)[kHeadDim / 2], const uint32_t (&pf)[kPvSteps][4],
                                                  uint32_t v_base, bool accumulate) {
    constexpr hopper::WgmmaOperandLayout lv = layout_v();
#pragma unroll
    for (int j = 0; j < kPvSteps; ++j)
      hopper::mma_async<kHeadDim, T, Ops::kPvMajor>(o, pf[j], lv.desc(v_base, j), accumulate || j > 0);
  }

  __device__ __forceinline__ static void pack_p(const float (&s)[kBlockN / 2], uint32_t (&pf)[kPvSteps][4]) {
#pragma unroll
    for (int j = 0; j < kPvSteps; ++j) hopper::accum_to_a_fragment<T>(s, j, pf[j]);
  }

  __device__ __forceinline__ static void fence_p(uint32_t (&pf)[kPvSteps][4]) {
#pragma unroll
    for (int j = 0; j < kPvSteps; ++j) hopper::wgmma_fence_operands(pf[j]);
  }

  // Softcap (if any), then the mask on a block that needs one.
  __device__ __forceinline__ static void prepare_scores(const AttentionParams& p, const SeqInfo& sq,
                                                        float (&s)[kBlockN / 2], const MaskedBlocks<kBlockM, kBlockN, kMask>& mb, int n, int row0) {
    Softcap::apply(p.softcap_prescale, s);
    if (mb.needs(n)) apply_mask<kBlockN, kMask>(p, sq, s, n, row0);
  }

  // One tile as a consumer warpgroup sees it: the work, where its sequences lie, which
  // key blocks it reads (narrowed to the work's share under split-KV, then to the
  // warpgroup's own rows: trim), and its Q load's number (QRel: its slot and barriers'
  // parity; set when the consumers wait for it).
  struct Tile {
    schedule::AttentionWork w;
    SeqInfo sq;
    KeyBlocks kb;
    uint32_t q_iter = 0;
    int skip = 0;  // the tile's first key blocks this warpgroup does not read (trim)
    // Work `work`'s tile. Only while work.valid (SeqInfo reads the batch entry's lengths).
    __device__ __forceinline__ Tile(const AttentionParams& p, const schedule::AttentionWork& work)
        : w(work), sq(SeqInfo::get(p, work.batch)), kb(blocks(p, sq, work)) {}
    // The same, its key blocks already worked out (by the producer: tile_stream.cuh).
    __device__ __forceinline__ Tile(const AttentionParams& p, const schedule::AttentionWork& work, const KeyBlocks& k)
        : w(work), sq(SeqInfo::get(p, work.batch)), kb(k) {}
    __device__ __forceinline__ static KeyBlocks blocks(const AttentionParams& p, const SeqInfo& sq,
                                                       const schedule::AttentionWork& work) {
      return split_share(key_blocks<kBlockM, kBlockN, kMask>(p, sq, work.m_block), p, work);
    }
    // Warpgroup wg's share (warpgroup_rows.cuh): the tile's first `skip` blocks dropped
    // from kb, at most max_skip (their stages still pass through: Turns::skip_ahead, or
    // skip_k and pass_skipped). kb.count() >= 1.
    __device__ __forceinline__ void trim(const AttentionParams& p, int wg, int max_skip) {
      skip = min(WarpgroupRows<kBlockM, kBlockN, kMask>::skip(p, sq, kb, w.m_block, wg), max_skip);
      kb.hi -= skip;
    }
    // This thread's first row (its second is 8 below).
    __device__ __forceinline__ int row0(int wg) const {
      const int t = threadIdx.x % hopper::kWarpgroupSize;
      return w.m_block * kBlockM + 64 * wg + 16 * (t / 32) + (t % 32) / 4;
    }
  };

  // A consumer thread's accumulators, carried from block to block and across a tile
  // boundary: O, the latest block's S, P packed from the S before it.
  struct Acc {
    float o[kHeadDim / 2];
    float s[kBlockN / 2];
    uint32_t pf[kPvSteps][4];
    float alpha[2];   // O's pending rescale (turns.cuh: OScale), where it waits for the next P·V
    bool accumulate;  // O holds a P·V of this tile already
  };

  // Tile `t`'s Q: its slot's address, its barriers.
  template <class Ctx>
  __device__ __forceinline__ static uint32_t q_addr(Ctx& c, const Tile& t) {
    return hopper::smem_u32(c.s.tiles.q[QRel::slot(t.q_iter)]);
  }
  template <class Ctx>
  __device__ __forceinline__ static uint64_t* q_empty(Ctx& c, uint32_t q_iter) {
    return &c.s.q_empty[QRel::slot(q_iter)];
  }
};

}  // namespace warpspec::attention_impl
