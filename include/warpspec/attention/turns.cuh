#pragma once
// The consumer warpgroups' turns on the tensor cores, tile by tile (the schedule in
// mainloop.cuh's header comment): `open` (a tile's first S alone), `blocks` (each further
// S beside the previous block's P·V), then `close` (the last P·V alone) or
// `close_and_open` (the last P·V beside the next tile's first S, the epilogue while that
// S runs). attention/kernel.cuh strings them together; the issue helpers, the operand
// layouts and the producer are Mainloop's.
#include "warpspec/attention/mainloop.cuh"

namespace warpspec::attention_impl {

// Where O's rescale by the softmax's α runs. Beside S (FlashAttention-3's order): kept
// in Acc::alpha and applied between the next turn's S and P·V issues, while the S runs,
// so the end of a turn (P·V wait → pack → next issue) is shorter by the multiply; a
// wgmma fence orders the multiply before the P·V reads O. After the wait: right after
// the P·V that O came from completes (the multiply on the path to the next issue). The
// configuration table picks per kernel (config.hpp: rescale_beside_s); head dim 192
// cannot take it (α live across the turn spilled 12 bytes there).
template <class Softmax, bool kBesideS>
struct OScale {
  // Between the S and P·V issues of a turn.
  template <class Acc>
  WARPSPEC_DEVICE static void before_pv(Acc& a) {
    if constexpr (kBesideS) {
      if (a.accumulate) Softmax::rescale(a.o, a.alpha);
      hopper::wgmma_fence();
    }
  }
  // After a block's softmax (α) and its P·V wait.
  template <class Acc>
  WARPSPEC_DEVICE static void after_pv(Acc& a, const float (&alpha)[2]) {
    if constexpr (kBesideS) {
      a.alpha[0] = alpha[0], a.alpha[1] = alpha[1];
    } else {
      Softmax::rescale(a.o, alpha);
    }
  }
};

template <AttentionConfig kCfg>
struct Turns : Mainloop<kCfg> {
  using ML = Mainloop<kCfg>;
  using typename ML::Acc;
  using typename ML::Cursor;
  using typename ML::Descale;
  using typename ML::Pipe;
  using typename ML::QRel;
  using typename ML::Softmax;
  using typename ML::State;
  using typename ML::Storage;
  using typename ML::Tile;
  using typename ML::VPipe;
  using typename ML::VState;
  using ML::kBlockM;
  using ML::kBlockN;
  using ML::kHeadDim;
  using ML::fence_p;
  using ML::issue_pv;
  using ML::issue_qk;
  using ML::pack_p;
  using ML::pingpong_arrive;
  using ML::pingpong_sync;
  using ML::prepare_scores;
  using ML::q_addr;
  using ML::q_empty;
  using Scale = OScale<Softmax, kCfg.shape.rescale_beside_s>;

  // The first block's S of tile `t` has completed: hand back its K stage (and Q, if it
  // was the tile's only block; the previous tile's Q slot where that waits for this
  // point), mask, start the softmax and pack P.
  template <class Ctx>
  __device__ __forceinline__ static void first_scores(Ctx& c, Cursor& cur, int wg, const Tile& t, Acc& a,
                                                      Softmax& sm) {
    const bool releaser = (threadIdx.x % 32) == 0;  // one arrival per consumer warp
    hopper::wgmma_fence_operands(a.s);
    if (releaser) c.kpipe.consumer_release(cur.k);
    cur.k.advance();
    QRel::after_last_qk(q_empty(c, t.q_iter), releaser && t.kb.count() == 1);  // (q_release.cuh)
    if (t.q_iter > 0 && threadIdx.x % hopper::kWarpgroupSize == 0) QRel::after_first_qk(q_empty(c, t.q_iter - 1));
    prepare_scores(c.p, t.sq, a.s, MaskedBlocks<kBlockM, kBlockN, ML::kMask>(c.p, t.sq, t.w.m_block * kBlockM),
                   t.kb.hi - 1, t.row0(wg));
    float alpha[2];
    sm.template update<true>(a.s, alpha);
    pack_p(a.s, a.pf);
    a.accumulate = false;
  }

  // The waits before a tile's first S: its Q, its first K block.
  template <class Ctx>
  __device__ __forceinline__ static void wait_first(Ctx& c, Cursor& cur, Tile& t) {
    t.q_iter = cur.q_iter++;
    hopper::mbarrier_wait(&c.s.q_full[QRel::slot(t.q_iter)], QRel::phase(t.q_iter));
    c.kpipe.consumer_wait(cur.k);
  }

  // Consumer warpgroup `wg` (0 or 1), tile `t` with t.kb.count() >= 1, nothing in
  // flight: the tile's first S on its own, then its softmax.
  template <class Ctx>
  __device__ __forceinline__ static void open(Ctx& c, Cursor& cur, int wg, Tile& t, Acc& a, Softmax& sm) {
    skip_ahead(c, cur, wg, t);
    wait_first(c, cur, t);
    pingpong_sync(wg);
    hopper::wgmma_fence_operands(a.s);
    hopper::wgmma_fence();
    issue_qk(a.s, q_addr(c, t), hopper::smem_u32(c.s.tiles.k[cur.k.index]), wg);
    hopper::wgmma_commit_group();
    pingpong_arrive(wg);
    hopper::wgmma_wait_group<0>();
    first_scores(c, cur, wg, t, a, sm);
  }

  // The tile's further key blocks, after `open` (or `close_and_open`): S of each block
  // with the previous block's P·V; on return P of the last block is packed and its P·V
  // not issued.
  template <class Ctx>
  __device__ __forceinline__ static void blocks(Ctx& c, Cursor& cur, int wg, const Tile& t, Acc& a, Softmax& sm) {
    const AttentionParams& p = c.p;
    Storage& s = c.s.tiles;
    Pipe& kpipe = c.kpipe;
    VPipe& vpipe = c.vpipe;
    State& kst = cur.k;
    VState& vst = cur.v;
    const bool releaser = (threadIdx.x % 32) == 0;
    const uint32_t q_base = q_addr(c, t);
    const int row0 = t.row0(wg);
    const MaskedBlocks<kBlockM, kBlockN, ML::kMask> mb(p, t.sq, t.w.m_block * kBlockM);
    float alpha[2];
#pragma unroll 1
    for (int n = t.kb.hi - 2; n >= t.kb.lo; --n) {
      kpipe.consumer_wait(kst);
      vpipe.consumer_wait(vst);
      pingpong_sync(wg);
      hopper::wgmma_fence_operands(a.s);
      hopper::wgmma_fence_operands(a.o);
      fence_p(a.pf);
      hopper::wgmma_fence();
      issue_qk(a.s, q_base, hopper::smem_u32(s.k[kst.index]), wg);
      hopper::wgmma_commit_group();
      Scale::before_pv(a);
      issue_pv(a.o, a.pf, hopper::smem_u32(s.v[vst.index]), a.accumulate);
      hopper::wgmma_commit_group();
      pingpong_arrive(wg);
      hopper::wgmma_wait_group<1>();  // S(n) is ready; P·V(n+1) may still run
      hopper::wgmma_fence_operands(a.s);
      if (releaser) kpipe.consumer_release(kst);
      kst.advance();
      QRel::after_last_qk(q_empty(c, t.q_iter), releaser && n == t.kb.lo);  // the tile's last S: Q may go
      prepare_scores(p, t.sq, a.s, mb, n, row0);
      sm.template update<false>(a.s, alpha);
      hopper::wgmma_wait_group<0>();  // P·V(n+1) done: O and P are ours again
      hopper::wgmma_fence_operands(a.o);
      fence_p(a.pf);
      release_v(c, cur);
      Scale::after_pv(a, alpha);
      pack_p(a.s, a.pf);
      a.accumulate = true;
    }
  }

  // The tile's last P·V on its own; on return O is complete.
  template <class Ctx>
  __device__ __forceinline__ static void close(Ctx& c, Cursor& cur, int wg, Acc& a) {
    c.vpipe.consumer_wait(cur.v);
    pingpong_sync(wg);
    hopper::wgmma_fence_operands(a.o);
    fence_p(a.pf);
    hopper::wgmma_fence();
    issue_last_pv(c, cur, a);
    pingpong_arrive(wg);
    hopper::wgmma_wait_group<0>();
    hopper::wgmma_fence_operands(a.o);
    release_v(c, cur);
  }

  // The tile's last P·V and the next tile's first S in one turn on the tensor cores
  // (needs the next tile's Q resident beside the O staging: QRel::kNextQBeside). Once
  // the P·V completes, `epilogue()` stores this tile's O while the S runs; then `sm`
  // starts over for tile `next` and its first block's softmax runs.
  template <class Ctx, class Epilogue>
  __device__ __forceinline__ static void close_and_open(Ctx& c, Cursor& cur, int wg, Acc& a, Softmax& sm,
                                                        Tile& next, Epilogue&& epilogue) {
    c.vpipe.consumer_wait(cur.v);
    skip_k(c, cur, next);
    wait_first(c, cur, next);
    pingpong_sync(wg);
    hopper::wgmma_fence_operands(a.o);
    hopper::wgmma_fence_operands(a.s);
    fence_p(a.pf);
    hopper::wgmma_fence();
    issue_last_pv(c, cur, a);
    issue_qk(a.s, q_addr(c, next), hopper::smem_u32(c.s.tiles.k[cur.k.index]), wg);
    hopper::wgmma_commit_group();
    pingpong_arrive(wg);
    hopper::wgmma_wait_group<1>();  // the P·V is done: O is complete; S may still run
    hopper::wgmma_fence_operands(a.o);
    release_v(c, cur);
    epilogue();
    sm = Softmax(Descale::scale_log2(c.p, next.w));
    hopper::wgmma_wait_group<0>();
    pass_skipped(c, cur, wg, next);
    first_scores(c, cur, wg, next, a, sm);
  }

  // A tile's last P·V (its pending O rescale first), committed as its own group.
  template <class Ctx>
  __device__ __forceinline__ static void issue_last_pv(Ctx& c, Cursor& cur, Acc& a) {
    Scale::before_pv(a);
    issue_pv(a.o, a.pf, hopper::smem_u32(c.s.tiles.v[cur.v.index]), a.accumulate);
    hopper::wgmma_commit_group();
  }

  // The blocks a warpgroup skips (Tile::trim: the tile's first t.skip) pass through
  // unread: each K and V stage waited for, then handed back (the stage's previous use is
  // then released by every warpgroup, so this arrival cannot complete that use's phase
  // early), and with turns this warpgroup's turn for each passed on, so every warpgroup
  // takes as many turns per tile as before and the turn order stays whole. Stages go in
  // the loader's order, K(n) then V(n), each turn before the stages the other warpgroups'
  // turns free: nothing here waits on what this warpgroup has yet to do.
  //
  // At the start of a chain (open: nothing pending), every skipped block, in that order.
  template <class Ctx>
  __device__ __forceinline__ static void skip_ahead(Ctx& c, Cursor& cur, int wg, Tile& t) {
#pragma unroll 1
    for (; t.skip > 0; --t.skip) {
      pass_turns(wg, 1);
      pass_k(c, cur);
      pass_v(c, cur);
    }
  }
  // At a boundary (close_and_open) this tile's last V is still to be read, so the next
  // tile's skipped V stages go after it (pass_skipped, once that P·V is done) and only
  // its K stages before its first S (skip_k). Its first S then waits on a K block the
  // loader reaches only while the V ring holds that last V beside the skipped ones, and
  // the K ring the skipped K blocks beside it: t.skip <= min(kStages, kVStages) - 1
  // (attention/kernel.cuh: kMaxJoinedSkip, Tile::trim's limit on that path).
  template <class Ctx>
  __device__ __forceinline__ static void skip_k(Ctx& c, Cursor& cur, const Tile& t) {
#pragma unroll 1
    for (int i = 0; i < t.skip; ++i) pass_k(c, cur);
  }
  // The rest of close_and_open's skip, after this tile's last V and epilogue and the next
  // tile's first S: the turns, then the V stages. (Before the S is done, the turns' loop
  // spilled the head dim 64 and 192 kernels: the next tile's state beside this one's O
  // and P, or the S in flight.)
  template <class Ctx>
  __device__ __forceinline__ static void pass_skipped(Ctx& c, Cursor& cur, int wg, Tile& t) {
    pass_turns(wg, t.skip);
#pragma unroll 1
    for (; t.skip > 0; --t.skip) pass_v(c, cur);
  }
  // One skipped block's K or V stage: waited for, handed back unread.
  template <class Ctx>
  __device__ __forceinline__ static void pass_k(Ctx& c, Cursor& cur) {
    c.kpipe.consumer_wait(cur.k);
    if ((threadIdx.x % 32) == 0) c.kpipe.consumer_release(cur.k);
    cur.k.advance();
  }
  template <class Ctx>
  __device__ __forceinline__ static void pass_v(Ctx& c, Cursor& cur) {
    c.vpipe.consumer_wait(cur.v);
    release_v(c, cur);
  }

  // With turns, warpgroup wg's next n turns on the tensor cores passed on unused: n
  // times pingpong_sync and pingpong_arrive. The loop lives in a frame of its own:
  // inlined (in C++ or as one asm loop), ptxas held a register across it and spilled the
  // head dim 64 kernel.
  __device__ __noinline__ static void pass_turns_loop(int wg, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) pingpong_sync(wg), pingpong_arrive(wg);
  }
  __device__ __forceinline__ static void pass_turns(int wg, int n) {
    if constexpr (kCfg.shape.pingpong) {
      if (n > 0) pass_turns_loop(wg, n);
    }
  }

  template <class Ctx>
  __device__ __forceinline__ static void release_v(Ctx& c, Cursor& cur) {
    if ((threadIdx.x % 32) == 0) c.vpipe.consumer_release(cur.v);
    cur.v.advance();
  }
};

}  // namespace warpspec::attention_impl
