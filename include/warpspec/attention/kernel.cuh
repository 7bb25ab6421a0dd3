#pragma once
// The warp-specialized persistent attention forward kernel: roles only (the skeleton,
// ws_kernel.cuh, does the set-up, the register split and PDL).
//
//   warpgroup 0 (producer, 24 registers): one thread of warp 0 loads, per tile, Q once
//     and the tile's K and V blocks (last block first) through TMA pipelines; warps
//     1-3 run the V path's pump (FP8: V -> Vᵀ, v_transpose.cuh; 16-bit: nothing).
//   warpgroups 1, 2 (consumers, 240 registers): query rows 0-63 and 64-127 of the
//     same tile against the same K/V blocks; online softmax, ping-pong on the tensor
//     cores, then the epilogue of their rows.
// All roles walk the same persistent tile sequence and skip the same tiles (those
// none of whose rows sees a key: consumers write zeros; those past a packed
// sequence's end: nothing), so stages pair up. Per tile, SeqInfo (seqlen.cuh) says
// where the batch entry's sequences lie and KeyBlocks (mask.cuh) which key blocks the
// tile reads (narrowed to the work tile's share under split-KV: split_share); under the
// dynamic schedule the producer's key blocks come with the tile (tile_stream.cuh).
#include <climits>

#include "warpspec/attention/config.hpp"
#include "warpspec/attention/epilogue.cuh"
#include "warpspec/attention/epilogue_direct.cuh"
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/attention/mask.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/attention/tile_stream.cuh"
#include "warpspec/attention/turns.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/ws_kernel.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct AttentionKernel : WsRoles<kCfg.shape.consumers, AttentionOperands<kCfg>::kProducerRegs,
                                 AttentionOperands<kCfg>::kConsumerRegs> {
  using Params = AttentionParams;
  using MainloopT = Mainloop<kCfg>;
  // FP8 writes bf16 O from registers (epilogue_direct.cuh); 16-bit stages it in Q.
  using EpilogueT = std::conditional_t<MainloopT::Ops::kFp8, DirectEpilogue<kCfg>, Epilogue<kCfg>>;
  using VPath = typename MainloopT::VPath;
  using Tile = typename MainloopT::Tile;
  using TurnsT = Turns<kCfg>;  // the consumers' turns on the tensor cores (turns.cuh)
  static constexpr int kHeadDim = MainloopT::kHeadDim, kBlockN = MainloopT::kBlockN, kStages = MainloopT::kStages,
                       kVStages = MainloopT::kVStages, kConsumers = MainloopT::kConsumers,
                       kBlockM = MainloopT::kBlockM;

  struct SharedStorage {
    typename MainloopT::Storage tiles;
    typename VPath::Storage vpath;  // the pump's vload ring (empty for 16-bit)
    PipelineStorage<kStages> k_barriers;
    PipelineStorage<kVStages> v_barriers;
    uint64_t q_full[MainloopT::QRel::kCount];   // a Q slot landed (TMA, one expect_tx per tile)
    uint64_t q_empty[MainloopT::QRel::kCount];  // a Q slot free again (q_release.cuh)
    TileRing tiles_ring;  // the dynamic schedule's hand-over (tile_stream.cuh)
  };

  struct Context {
    const Params& p;
    SharedStorage& s;
    Pipeline<kStages> kpipe;
    Pipeline<kVStages> vpipe;
    __device__ __forceinline__ Context(const Params& params, SharedStorage& storage)
        : p(params), s(storage), kpipe(storage.k_barriers), vpipe(storage.v_barriers) {}
  };

  __device__ __forceinline__ static void init_barriers(SharedStorage& s) {
    // 1 expect_tx arrival per stage; released by one lane of each consumer warp.
    Pipeline<kStages>(s.k_barriers).init(1, 4 * kConsumers);
    Pipeline<kVStages>(s.v_barriers).init(VPath::kVFullArrivals, 4 * kConsumers);
    VPath::init(s.vpath);
    for (int i = 0; i < MainloopT::QRel::kCount; ++i) {
      hopper::mbarrier_init(&s.q_full[i], 1);
      hopper::mbarrier_init(&s.q_empty[i], MainloopT::QRel::kArrivals);
    }
    TileStream::init(s.tiles_ring, hopper::kWarpgroupSize * kConsumers);
  }

  __device__ __forceinline__ static void prefetch(const Params& p) {
    hopper::tma_prefetch_descriptor(&p.map_q);
    hopper::tma_prefetch_descriptor(&p.map_k);
    hopper::tma_prefetch_descriptor(&p.map_v);
    hopper::tma_prefetch_descriptor(&p.map_o);
  }

  // What the V path's pump warps see: the storage and the V pipeline.
  struct PumpContext {
    SharedStorage& s;
    Pipeline<kVStages> vpipe;
  };

  // The pump warps' loop in a frame of its own (one call per warp and kernel). Inlined
  // beside the loader, ptxas allocated both roles' 24 registers together and spilled the
  // loader's (68 B at head dim 64 and 128; SASS line info on the H200); apart, neither
  // spills. Only the storage reference crosses the call (a Context would be built on
  // the stack to be passed).
  __device__ __noinline__ static void pump(SharedStorage& s, int warp) {
    PumpContext c{s, Pipeline<kVStages>(s.v_barriers)};
    VPath::pump(c, warp);
  }

  __device__ __forceinline__ static void producer(Context& c, int warp) {
    if (warp != 0) {
      pump(c.s, warp);  // until the loader's end marker
      return;
    }
    if (!hopper::elect_one()) return;
    typename MainloopT::Cursor cur;
    uint32_t passed = 0;  // tiles through the dynamic schedule's ring
    for (auto w = TileStream::first(c.p);; w = TileStream::next(c.p, w)) {
      if (!w.valid) {
        TileStream::publish(c.p, c.s.tiles_ring, passed, w, KeyBlocks{});  // the end
        break;
      }
      const SeqInfo sq = SeqInfo::get(c.p, w.batch);
      const KeyBlocks kb = Tile::blocks(c.p, sq, w);
      TileStream::publish(c.p, c.s.tiles_ring, passed, w, kb);
      if (kb.count() > 0) MainloopT::load(c, cur, w, sq, kb);
    }
    MainloopT::finish(c, cur);
    allow_dependents();  // every load of this CTA is issued
  }

  // Each consumer warpgroup walks the tiles; a run of tiles that read keys is one chain
  // of turns on the tensor cores: where the next tile's Q can be resident beside this
  // tile's O staging (QRel::kNextQBeside), this tile's last P·V and the next tile's
  // first S go in one turn and this tile's epilogue runs while that S does
  // (Mainloop::close_and_open); otherwise the last P·V goes alone and the next tile
  // opens with its first S alone.
  __device__ __forceinline__ static void consumer(Context& c, int consumer) {
    // The first turn on the tensor cores is consumer 0's: the last consumer hands it over.
    if (consumer == kConsumers - 1) MainloopT::pingpong_arrive(kConsumers - 1);
    typename MainloopT::Cursor cur;
    typename MainloopT::Acc a;
    uint32_t passed = 0;  // tiles through the dynamic schedule's ring
    // The next tile's work, and (dynamic: the producer's) its key blocks.
    schedule::AttentionWork w;
    KeyBlocks kb;
    auto next_work = [&](const schedule::AttentionWork* prev) {
      if (TileStream::handed_over(c.p)) {
        TileStream::receive(c.s.tiles_ring, passed, w, kb);
      } else {
        w = prev != nullptr ? c.p.sched.next(*prev) : c.p.sched.first(int(blockIdx.x));
      }
    };
    // The tile as this warpgroup reads it (Tile::trim): opening a chain, any number of
    // its first blocks skipped; joined to the previous tile (close_and_open), no more
    // than the rings hold beside that tile's last V (Turns::skip_k).
    constexpr int kMaxJoinedSkip = (kStages < kVStages ? kStages : kVStages) - 1;
    auto tile = [&](int max_skip) {
      Tile t = TileStream::handed_over(c.p) ? Tile(c.p, w, kb) : Tile(c.p, w);
      if (t.kb.count() > 0) t.trim(c.p, consumer, max_skip);
      return t;
    };
    next_work(nullptr);
    while (w.valid) {
      Tile t = tile(INT_MAX);
      if (t.kb.count() == 0) {
        EpilogueT::store_zero(c.p, consumer, t.w, t.sq);
        next_work(&t.w);
        continue;
      }
      typename MainloopT::Softmax sm(MainloopT::Descale::scale_log2(c.p, t.w));
      TurnsT::open(c, cur, consumer, t, a, sm);
      for (;;) {
        TurnsT::blocks(c, cur, consumer, t, a, sm);
        next_work(&t.w);
        if (MainloopT::QRel::kNextQBeside && w.valid && EpilogueT::stores_o(c.p)) {
          Tile next = tile(kMaxJoinedSkip);
          if (next.kb.count() > 0) {
            TurnsT::close_and_open(c, cur, consumer, a, sm, next,
                                      [&] { EpilogueT::store_o(c, consumer, t, a.o, sm); });
            t = next;
            continue;
          }
        }
        TurnsT::close(c, cur, consumer, a);
        EpilogueT::store(c, consumer, t, a.o, sm);
        break;
      }
    }
    MainloopT::QRel::drain();  // the last O store has read its staging
  }
};

}  // namespace warpspec::attention_impl
