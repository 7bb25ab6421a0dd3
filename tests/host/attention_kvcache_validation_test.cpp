// Refusals of the serving options (num_splits, workspace, cache_batch_idx, cache_leftpad,
// page_table), attention_combine and kvcache_append: each names the argument, before
// anything touches the device. Also the split-KV helpers (schedule/split_kv.hpp) and the
// scheduler's split coordinate, on the CPU.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "host/expect_status.hpp"
#include "host/test_memory.hpp"
#include "src/attention/plan.hpp"
#include "testing/views.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/schedule/attention.hpp"
#include "warpspec/schedule/split_kv.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_kvcache_validation_test {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }
TensorView bshd(int64_t b, int64_t s, int64_t h, int64_t d, DType t, void* data) {
  return warpspec::testbed::bshd_contiguous(data, t, b, s, h, d);
}
TensorView i32(int64_t n, void* data) {
  TensorView v;
  v.data = data, v.dtype = DType::kI32, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}
TensorView table(int64_t b, int64_t pages, void* data) {
  TensorView v;
  v.data = data, v.dtype = DType::kI32, v.rank = 2, v.shape[0] = b, v.shape[1] = pages, v.stride[0] = pages, v.stride[1] = 1;
  return v;
}

AttentionArgs decode(int64_t d = 128) {
  AttentionArgs a;
  a.q = bshd(2, 1, 8, d, DType::kBF16, fake());
  a.k = bshd(2, 4096, 2, d, DType::kBF16, fake(0x1000000));
  a.v = bshd(2, 4096, 2, d, DType::kBF16, fake(0x2800000));
  a.o = bshd(2, 1, 8, d, DType::kBF16, fake(0x5000000));
  a.seqused_k = i32(2, fake(0x5100000));
  return a;
}
AttentionArgs paged(int64_t page = 64, int64_t d = 128) {
  AttentionArgs a = decode(d);
  a.k = bshd(20, page, 2, d, DType::kBF16, fake(0x1000000));
  a.v = bshd(20, page, 2, d, DType::kBF16, fake(0x2800000));
  a.page_table = table(2, 50, fake(0x5200000));
  return a;
}

using warpspec::test::accepted;
void expect_refused(const AttentionArgs& a, StatusCode code, const std::string& needle) {
  warpspec::test::expect_check_refuses(a, code, needle);
}

TEST(KvCacheValidation, ValidServingCallsAreAccepted) {
  for (int splits : {0, 1, 3, 128}) {
    AttentionArgs a = decode();
    a.num_splits = splits;
    EXPECT_TRUE(accepted(warpspec::check(a))) << splits;
  }
  // Head dims up to 64 split on the head dim 128 kernel (their own has no partial
  // epilogue): accepted like any other, paged too.
  for (int64_t d : {8, 40, 64}) {
    for (int splits : {0, 2, 128}) {
      AttentionArgs a = decode(d);
      a.num_splits = splits;
      const warpspec::Status s = warpspec::check(a);
      EXPECT_TRUE(accepted(s)) << "head_dim " << d << ", num_splits " << splits << ": " << s.to_string();
      AttentionArgs pg = paged(64, d);
      pg.num_splits = splits;
      const warpspec::Status sp = warpspec::check(pg);
      EXPECT_TRUE(accepted(sp)) << "paged, head_dim " << d << ", num_splits " << splits << ": " << sp.to_string();
    }
  }
  for (int64_t page : {16, 48, 64, 128, 256, 1024}) {
    const warpspec::Status s = warpspec::check(paged(page));
    EXPECT_TRUE(accepted(s)) << page << ": " << s.to_string();
  }
  AttentionArgs b = decode();
  b.k = bshd(7, 4096, 2, 128, DType::kBF16, fake(0x1000000));
  b.v = bshd(7, 4096, 2, 128, DType::kBF16, fake(0x2800000));
  b.cache_batch_idx = i32(2, fake(0x5300000));
  b.cache_leftpad = i32(2, fake(0x5400000));
  EXPECT_TRUE(accepted(warpspec::check(b)));
}

// The plan's kernel and split-KV count (attention.cpp: plan_splits) on an H200's 132 SMs,
// without a device. Head dims up to 64 split on the hd128 kernel (their own has no partial
// epilogue), but only where the hd128 plan splits too; FP8 and head dim 256 never split.
TEST(KvCacheValidation, SplitKernelChoice) {
  namespace ai = warpspec::attention_impl;
  const auto plan = [](AttentionArgs a, int num_splits = 0) {  // 0: the heuristic's
    a.num_splits = num_splits;
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    EXPECT_TRUE(st.ok()) << st.to_string();
    return s;
  };
  for (int64_t d : {40, 64}) {
    const AttentionArgs a = decode(d);  // 2 sequences, 8 query heads over 2, one query, 4096 keys
    ai::PlanSummary s = plan(a);        // the heuristic splits this decode step
    EXPECT_EQ(s.kernel_d, 128) << d;
    EXPECT_GT(s.splits, 1) << d;
    EXPECT_EQ(s.pack_shift, 2) << d << ": packed by the fill rule of the kernel that runs";
    s = plan(a, 3);
    EXPECT_EQ(s.kernel_d, 128) << d;
    EXPECT_EQ(s.splits, 3) << d;
    s = plan(a, 1);
    EXPECT_EQ(s.kernel_d, 64) << d << ": unsplit, its own kernel";
    EXPECT_EQ(s.splits, 1) << d;
  }
  {  // Split on hd64's 192-row tiles (4 shares) but not on hd128's 128-row ones: stays on hd64.
    AttentionArgs a;
    a.q = bshd(1, 1024, 16, 64, DType::kBF16, fake());
    a.k = bshd(1, 8192, 8, 64, DType::kBF16, fake(0x1000000));
    a.v = bshd(1, 8192, 8, 64, DType::kBF16, fake(0x2000000));
    a.o = bshd(1, 1024, 16, 64, DType::kBF16, fake(0x3000000));
    a.causal = true;
    const ai::PlanSummary s = plan(a);
    EXPECT_EQ(s.kernel_d, 64);
    EXPECT_EQ(s.splits, 1);
  }
  const ai::PlanSummary d128 = plan(decode(128));
  EXPECT_EQ(d128.kernel_d, 128);
  EXPECT_GT(d128.splits, 1);
  const ai::PlanSummary d256 = plan(decode(256));
  EXPECT_EQ(d256.kernel_d, 256);
  EXPECT_EQ(d256.splits, 1) << "no partial epilogue at head dim 256: the heuristic does not split";
  {  // FP8 never splits (its kernels have no partial epilogue), head dim 64 included.
    AttentionArgs a;
    a.q = bshd(2, 1, 8, 64, DType::kE4M3, fake());
    a.k = bshd(2, 4096, 2, 64, DType::kE4M3, fake(0x1000000));
    a.v = bshd(2, 4096, 2, 64, DType::kE4M3, fake(0x2000000));
    a.o = bshd(2, 1, 8, 64, DType::kBF16, fake(0x3000000));
    const ai::PlanSummary s = plan(a);
    EXPECT_EQ(s.kernel_d, 64);
    EXPECT_EQ(s.splits, 1);
  }
}

// The key block of head dim 128 (config.hpp: config_for by the keys a row sees on average,
// attention.cpp: mean_visible_keys): 192-key blocks from 3072 keys a row, 128 below, 128
// where the lengths are on the device (seqused_k, page tables), and split-KV always on the
// 128-key configuration (the 192 one has no partial epilogue).
TEST(KvCacheValidation, KeyBlockChoice) {
  namespace ai = warpspec::attention_impl;
  const auto prefill = [](int64_t d, int64_t sq, int64_t sk, DType t = DType::kBF16) {
    AttentionArgs a;
    a.q = bshd(1, sq, 8, d, t, fake());
    a.k = bshd(1, sk, 8, d, t, fake(0x4000000));
    a.v = bshd(1, sk, 8, d, t, fake(0x8000000));
    a.o = bshd(1, sq, 8, d, t == DType::kE4M3 ? DType::kBF16 : t, fake(0xC000000));
    a.num_splits = 1;
    return a;
  };
  const auto block_n = [](const AttentionArgs& a) {
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    EXPECT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(s.kernel_d, ai::kernel_head_dim(a.q.shape[a.q.rank - 1]));
    return s.block_n;
  };
  EXPECT_EQ(block_n(prefill(128, 4096, 4096)), 192);
  EXPECT_EQ(block_n(prefill(128, 2048, 2048)), 128);
  EXPECT_EQ(block_n(prefill(128, 512, 3072)), 192) << "3072 keys a row: the threshold";
  EXPECT_EQ(block_n(prefill(128, 512, 3071)), 128);
  EXPECT_EQ(block_n(prefill(128, 4096, 4096, DType::kFP16)), 192);
  EXPECT_EQ(block_n(prefill(96, 4096, 4096)), 192) << "padded onto head dim 128";
  EXPECT_EQ(block_n(prefill(64, 4096, 4096)), 128) << "head dim 64's configurations both take 128-key blocks";
  EXPECT_EQ(block_n(prefill(128, 4096, 4096, DType::kE4M3)), 192) << "FP8 head dim 128: its one configuration";
  AttentionArgs a = prefill(128, 8192, 8192);
  a.causal = true;  // rows see 4096 keys on average
  EXPECT_EQ(block_n(a), 192);
  a = prefill(128, 4096, 4096);
  a.causal = true;  // 2048
  EXPECT_EQ(block_n(a), 128);
  a = prefill(128, 8192, 8192);
  a.window_left = 1024;  // 1025 to 8192 keys a row, 5k on average
  EXPECT_EQ(block_n(a), 192);
  a.causal = true;  // at most 1025
  EXPECT_EQ(block_n(a), 128);
  a = prefill(128, 8192, 8192);
  a.attention_chunk = 1024;
  EXPECT_EQ(block_n(a), 128);
  a = prefill(128, 16384, 16384);
  a.attention_chunk = 4096;  // 16k keys a row without the chunk
  EXPECT_EQ(block_n(a), 192) << "each row sees its whole chunk";
  a.causal = true;           // about 2k: half of its chunk
  EXPECT_EQ(block_n(a), 128) << "a causal row sees its chunk up to the diagonal";
  // Decode over 4096 keys of a dense cache: unsplit on the 192-key blocks, split on the
  // 128-key ones; with seqused_k (the cache's lengths on the device) on the 128-key ones.
  a = decode(128);
  a.seqused_k = TensorView{};
  EXPECT_EQ(block_n(a), 192) << "num_splits 1";
  a = decode(128);
  EXPECT_EQ(block_n(a), 128) << "num_splits 1, seqused_k: the capacity may be far from the lengths";
  a = decode(128);
  a.num_splits = 0;
  ai::PlanSummary s;
  ASSERT_TRUE(ai::plan_summary(a, 132, &s).ok());
  EXPECT_GT(s.splits, 1);
  EXPECT_EQ(s.block_n, 128) << "the heuristic's splits run on the configuration with the partial epilogue";
  a.num_splits = 2;
  ASSERT_TRUE(ai::plan_summary(a, 132, &s).ok());
  EXPECT_EQ(s.splits, 2);
  EXPECT_EQ(s.block_n, 128);
}

// The query tile of head dim 64 (config.hpp: two configurations at the same min_keys;
// attention.cpp: plan_config): three warpgroups' 192-row tiles (speed 1.15) unless their
// padding (rows past the end, the causal diagonal's or a window's masked blocks) costs
// more than the lean two-warpgroup kernel's 1.03, where its 128-row tiles run; the
// fastest where the lengths are unknown. A call that packs GQA runs the 192-row kernel
// (the lean one has no pack-GQA).
// A dense call of batch 2 and 8 query heads, one split, at fake addresses (planning only).
AttentionArgs dense_call(int64_t sq, int64_t sk, int64_t d, bool causal = false, int64_t heads_kv = 8,
                         DType t = DType::kBF16, int64_t batch = 2) {
  AttentionArgs a;
  a.q = bshd(batch, sq, 8, d, t, fake());
  a.k = bshd(batch, sk, heads_kv, d, t, fake(0x4000000));
  a.v = bshd(batch, sk, heads_kv, d, t, fake(0x8000000));
  a.o = bshd(batch, sq, 8, d, t == DType::kE4M3 ? DType::kBF16 : t, fake(0xC000000));  // e4m3 writes bf16
  a.causal = causal;
  a.num_splits = 1;
  return a;
}

TEST(KvCacheValidation, RowBlockChoice) {
  namespace ai = warpspec::attention_impl;
  const auto call = [](int64_t sq, int64_t sk, bool causal, int64_t heads_kv = 8, DType t = DType::kBF16,
                       int64_t batch = 2) { return dense_call(sq, sk, 64, causal, heads_kv, t, batch); };
  const auto block_m = [](const AttentionArgs& a) {
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    EXPECT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(s.kernel_d, 64);
    return s.block_m;
  };
  // Full 512 and 1k: 3 tiles of 192 rows (576 computed for 512), 0.889 x 1.15 = 1.022,
  // against 4 of 128 at 1.03; 2k: 0.970 x 1.15 = 1.115 where the tiles fill the GPU
  // (batch 16: 11 and 16 rounds of 132 tiles, 0.97 busy either way).
  EXPECT_EQ(block_m(call(512, 512, false)), 128);
  EXPECT_EQ(block_m(call(1024, 1024, false)), 128);
  EXPECT_EQ(block_m(call(2048, 2048, false, 8, DType::kBF16, 16)), 192);
  EXPECT_EQ(block_m(call(16384, 16384, false)), 192);
  // Batch 2 at 2k: 176 tiles of 192 rows take two rounds on 132 SMs (2/3 busy), 256 of 128
  // rows two rounds of a shorter tile (0.97 busy): 1.115 x 0.667 against 1.03 x 0.97.
  EXPECT_EQ(block_m(call(2048, 2048, false)), 128) << "192-row tiles would leave a third of the SMs idle";
  // Causal 512: 9 blocks of 192 x 128 against 10 of 128 x 128 for the same visible pairs.
  EXPECT_EQ(block_m(call(512, 512, true)), 128);
  EXPECT_EQ(block_m(call(1024, 1024, true)), 128);
  EXPECT_EQ(block_m(call(2048, 2048, true, 8, DType::kBF16, 16)), 192) << "the diagonal's share falls with the length";
  EXPECT_EQ(block_m(call(8192, 8192, true)), 192);
  EXPECT_EQ(block_m(call(100, 4096, false)), 128) << "a short query side: 100 of 192 rows computed for nothing";
  EXPECT_EQ(block_m(call(100, 4096, false, 8, DType::kFP16)), 128);
  // A causal window of 256: a 192-row tile spans ~448 keys for 257 visible a row, a
  // 128-row one 384.
  AttentionArgs a = call(8192, 8192, true);
  a.window_left = 256;
  EXPECT_EQ(block_m(a), 128);
  a.causal = false;  // 513 keys a row
  a.window_right = 256;
  EXPECT_EQ(block_m(a), 128);
  // Packed GQA (8 query heads over 1, 100 positions): chosen on the unpacked rows (100 of
  // 128 against 100 of 192: the lean 128-row kernel), then packed by FlashAttention-3's
  // rule, which moves the call to the kernel that packs (800 rows in 5 tiles of 192);
  // pack_gqa false keeps the lean kernel.
  a = call(100, 4096, false, 1);
  ai::PlanSummary s;
  for (const std::optional<bool> mode : {std::optional<bool>{}, std::optional<bool>{true}, std::optional<bool>{false}}) {
    a.pack_gqa = mode;
    ASSERT_TRUE(ai::plan_summary(a, 132, &s).ok());
    const bool packs = mode.value_or(true);
    EXPECT_EQ(s.block_m, packs ? 192 : 128);
    EXPECT_EQ(s.pack_shift, packs ? 3 : 0);
    EXPECT_EQ(s.pack_gqa, packs);
  }
  a.pack_gqa.reset();
  // Chunked attention: likewise on the kernel with the chunk mask.
  a = call(512, 512, true);
  a.attention_chunk = 256;
  ASSERT_TRUE(ai::plan_summary(a, 132, &s).ok());
  EXPECT_EQ(s.block_m, 192);
  EXPECT_TRUE(s.chunk);
  // Lengths on the device (seqused_k, seqused_q: the capacity may be far from them): the
  // fastest.
  a = call(512, 512, true);
  a.seqused_k = i32(2, fake(0xE000000));
  EXPECT_EQ(block_m(a), 192);
  a = call(512, 512, true);
  a.seqused_q = i32(2, fake(0xE000000));
  EXPECT_EQ(block_m(a), 192);
  // Split-KV runs on head dim 128's kernel, whatever the padding.
  a = call(512, 512, true);
  a.num_splits = 2;
  ASSERT_TRUE(ai::plan_summary(a, 132, &s).ok());
  EXPECT_EQ(s.kernel_d, 128);
  EXPECT_EQ(s.block_m, 128);
}

// Head dim 256's key block (config.hpp: 80 keys, and 64 at speed 0.94 for calls whose
// 80-key blocks compute more than 1 / 0.94 of what 64-key ones do).
TEST(KvCacheValidation, KeyBlockChoiceHeadDim256) {
  namespace ai = warpspec::attention_impl;
  const auto block_n = [](const AttentionArgs& a) {
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    EXPECT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(s.kernel_d, 256);
    return s.block_n;
  };
  // Causal 512: 18 blocks of 128 x 80 (184320 pairs) against 20 of 128 x 64 (163840).
  EXPECT_EQ(block_n(dense_call(512, 512, 256, true)), 64);
  // Causal 1k: 61 x 80 keys against 72 x 64, 1.059 x: under 1 / 0.94.
  EXPECT_EQ(block_n(dense_call(1024, 1024, 256, true)), 80);
  // Full 512: rows of 7 x 80 = 560 keys against 512.
  EXPECT_EQ(block_n(dense_call(512, 512, 256)), 64);
  EXPECT_EQ(block_n(dense_call(1024, 1024, 256)), 80) << "1040 keys against 1024";
  EXPECT_EQ(block_n(dense_call(4096, 4096, 256)), 80);
  EXPECT_EQ(block_n(dense_call(4096, 4096, 256, true)), 80);
  EXPECT_EQ(block_n(dense_call(64, 100, 256)), 64) << "100 keys: 160 against 128";
  EXPECT_EQ(block_n(dense_call(512, 512, 200, true)), 64) << "head dim 200 runs padded on 256's kernels";
  EXPECT_EQ(block_n(dense_call(512, 512, 256, true, 8, DType::kFP16)), 64);
  // Fewer tiles than SMs: the call takes its longest tile's time (busy_fraction). Causal
  // 333: 384 keys (6 x 64) against 400 (5 x 80), under 1 / 0.94; causal 445: 448 against 480.
  EXPECT_EQ(block_n(dense_call(333, 333, 256, true)), 80);
  EXPECT_EQ(block_n(dense_call(445, 445, 256, true)), 64);
  AttentionArgs a = dense_call(512, 512, 256, true);
  a.seqused_k = i32(2, fake(0xE000000));
  EXPECT_EQ(block_n(a), 80) << "lengths on the device: the fastest";
}

// FP8 head dim 128's key block (config.hpp: 192 keys, 128 at speed 0.95 where 192-key
// blocks pad a row by more than 1 / 0.95, and three warpgroups on 96 keys at long rows).
TEST(KvCacheValidation, KeyBlockChoiceFp8HeadDim128) {
  namespace ai = warpspec::attention_impl;
  const auto block_n = [](int64_t s, bool causal) {
    ai::PlanSummary p;
    const warpspec::Status st = ai::plan_summary(dense_call(s, s, 128, causal, 8, DType::kE4M3), 132, &p);
    EXPECT_TRUE(st.ok()) << st.to_string();
    return p.block_n;
  };
  EXPECT_EQ(block_n(512, false), 128) << "3 x 192 = 576 keys against 512";
  EXPECT_EQ(block_n(1024, false), 128) << "6 x 192 = 1152 keys against 1024";
  EXPECT_EQ(block_n(2048, false), 192) << "11 x 192 = 2112 keys against 2048";
  EXPECT_EQ(block_n(16384, false), 96) << "three warpgroups: 192-row tiles pad little";
  EXPECT_EQ(block_n(512, true), 128);
  EXPECT_EQ(block_n(1024, true), 128) << "192-row tiles pad causal 1k by 30%";
  EXPECT_EQ(block_n(16384, true), 96);
  // The SMs the tiles fill (attention.cpp: busy_fraction). Batch 1 at 16k, 8 heads: 688
  // tiles of 192 rows run in 6 rounds on 132 SMs (0.87 busy), 1024 of 128 rows in 8 (0.97):
  // 1.06 x 0.99 x 0.87 against 0.99 x 0.97.
  ai::PlanSummary p;
  ASSERT_TRUE(ai::plan_summary(dense_call(16384, 16384, 128, false, 8, DType::kE4M3, 1), 132, &p).ok());
  EXPECT_EQ(p.block_n, 192) << "192-row tiles would leave SMs idle in their last round";
  ASSERT_TRUE(ai::plan_summary(dense_call(16384, 16384, 128, false, 8, DType::kE4M3, 1), 0, &p).ok());
  EXPECT_EQ(p.block_n, 96) << "an unknown GPU: the padding alone";
  ASSERT_TRUE(ai::plan_summary(dense_call(16384, 16384, 128, false, 8, DType::kE4M3, 1), 86, &p).ok());
  EXPECT_EQ(p.block_n, 96) << "86 SMs: 688 tiles fill 8 whole rounds";
}

// Head dim 128 under 3072 keys a row has a lean sibling (config.hpp: no pack-GQA, chunks
// or split-KV): a call runs it only where it uses none of the three, and the same tile
// either way.
TEST(KvCacheValidation, LeanConfigurationOnlyWhereNothingItLacksIsUsed) {
  namespace ai = warpspec::attention_impl;
  const auto call = [](int64_t sq, int64_t sk, int64_t heads_kv, int64_t d = 128) {
    return dense_call(sq, sk, d, false, heads_kv);
  };
  const auto plan = [](const AttentionArgs& a) {
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    EXPECT_TRUE(st.ok()) << st.to_string();
    return s;
  };
  const auto lean = [](const ai::PlanSummary& s) { return !s.pack_gqa && !s.chunk && s.splits == 1; };
  // Plain calls: lean, full or causal, 16-bit either way, d 128 or padded to it.
  for (const bool causal : {false, true}) {
    AttentionArgs a = call(512, 512, 8);
    a.causal = causal;
    ai::PlanSummary s = plan(a);
    EXPECT_TRUE(lean(s)) << "causal " << causal;
    EXPECT_EQ(s.kernel_d, 128);
    EXPECT_EQ(s.block_n, 128);
  }
  EXPECT_TRUE(lean(plan(call(2048, 2048, 8, 96))));
  // Rows that see 3072 keys or more: the 192-key configuration (it has both).
  ai::PlanSummary s = plan(call(4096, 4096, 8));
  EXPECT_EQ(s.block_n, 192);
  EXPECT_TRUE(s.pack_gqa && s.chunk);
  // attention_chunk: the sibling with the chunk mask, the same tile.
  AttentionArgs a = call(512, 512, 8);
  a.attention_chunk = 256;
  s = plan(a);
  EXPECT_TRUE(s.chunk);
  EXPECT_EQ(s.block_n, 128);
  // Pack-GQA by the fill rule (8 query heads over 1, 64 positions: one packed tile) or
  // asked for: the sibling that packs; asked off: lean again.
  a = call(64, 2048, 1);
  s = plan(a);
  EXPECT_EQ(s.pack_shift, 3);
  EXPECT_TRUE(s.pack_gqa);
  EXPECT_EQ(s.block_n, 128);
  a.pack_gqa = true;
  EXPECT_TRUE(plan(a).pack_gqa);
  a.pack_gqa = false;
  s = plan(a);
  EXPECT_EQ(s.pack_shift, 0);
  EXPECT_TRUE(lean(s));
  // Split-KV: the configuration with the partial epilogue.
  a = call(64, 2048, 8);
  a.num_splits = 4;
  s = plan(a);
  EXPECT_EQ(s.splits, 4);
  EXPECT_TRUE(s.pack_gqa && s.chunk);
}

// The tile counter is written by the kernel: it may share memory with nothing the kernel
// reads, the cache's index vectors and the page table included.
TEST(KvCacheValidation, TileCounterOverlapsNothingRead) {
  AttentionArgs a = decode();
  a.cache_batch_idx = i32(2, fake(0x5200000));
  a.cache_leftpad = i32(2, fake(0x5300000));
  a.tile_counter = i32(2, fake(0x5400000));
  EXPECT_TRUE(accepted(warpspec::check(a)));
  for (const auto& [at, name] : {std::pair{0x5200000, "cache_batch_idx"}, std::pair{0x5300004, "cache_leftpad"}}) {
    AttentionArgs b = a;
    b.tile_counter = i32(2, fake(uintptr_t(at)));
    expect_refused(b, StatusCode::kInvalidArgument, std::string("tile_counter: overlaps ") + name);
  }
  AttentionArgs p = decode();
  p.k = bshd(8, 64, 2, 128, DType::kBF16, fake(0x1000000));
  p.v = bshd(8, 64, 2, 128, DType::kBF16, fake(0x2800000));
  TensorView table;
  table.data = fake(0x5600000), table.dtype = DType::kI32, table.rank = 2;
  table.shape[0] = 2, table.shape[1] = 4, table.stride[0] = 4, table.stride[1] = 1;
  p.page_table = table;
  p.tile_counter = i32(2, fake(0x5600008));
  expect_refused(p, StatusCode::kInvalidArgument, "tile_counter: overlaps page_table");
}

TEST(KvCacheValidation, NumSplitsAndWorkspace) {
  AttentionArgs a = decode();
  a.num_splits = -1;
  expect_refused(a, StatusCode::kInvalidArgument, "num_splits");
  a.num_splits = 129;
  expect_refused(a, StatusCode::kInvalidArgument, "num_splits");
  AttentionArgs h = decode(256);
  h.num_splits = 2;
  expect_refused(h, StatusCode::kUnsupported, "num_splits");
  h.num_splits = 0;  // the heuristic simply does not split there
  EXPECT_TRUE(accepted(warpspec::check(h)));
  AttentionArgs w = decode();
  w.workspace_bytes = 64;
  expect_refused(w, StatusCode::kInvalidArgument, "workspace");
  w.workspace = fake(0x5500008);
  expect_refused(w, StatusCode::kMisaligned, "workspace");
  // The caller's workspace is written whole: it must not overlap any view (here o, then
  // seqused_k one byte past its end; a workspace just before o is fine).
  w.workspace = w.o.data, w.workspace_bytes = 1 << 20;
  expect_refused(w, StatusCode::kInvalidArgument, "workspace: overlaps o");
  w.workspace = fake(0x5100000 - 256), w.workspace_bytes = 257;
  expect_refused(w, StatusCode::kInvalidArgument, "workspace: overlaps seqused_k");
  w.workspace = fake(0x5000000 - 4096), w.workspace_bytes = 4096;
  EXPECT_TRUE(accepted(warpspec::check(w)));
}

TEST(KvCacheValidation, CacheIndexAndLeftpad) {
  AttentionArgs a = decode();
  a.cache_batch_idx = i32(3, fake(0x5300000));
  expect_refused(a, StatusCode::kInvalidArgument, "cache_batch_idx");
  a.cache_batch_idx = i32(2, fake(0x5300000));
  a.cache_batch_idx.dtype = DType::kFP32;
  expect_refused(a, StatusCode::kInvalidArgument, "cache_batch_idx");
  AttentionArgs l = decode();
  l.cache_leftpad = i32(1, fake(0x5400000));
  expect_refused(l, StatusCode::kInvalidArgument, "cache_leftpad");
  AttentionArgs p = paged();
  p.cache_leftpad = i32(2, fake(0x5400000));
  expect_refused(p, StatusCode::kUnsupported, "cache_leftpad");
  AttentionArgs q = paged();
  q.cache_batch_idx = i32(2, fake(0x5300000));
  expect_refused(q, StatusCode::kUnsupported, "cache_batch_idx");
  AttentionArgs m = decode();  // a cache of another batch count needs the index
  m.k = bshd(7, 4096, 2, 128, DType::kBF16, fake(0x1000000));
  m.v = bshd(7, 4096, 2, 128, DType::kBF16, fake(0x2800000));
  expect_refused(m, StatusCode::kInvalidArgument, "k.shape[0]");
}

TEST(KvCacheValidation, PageTable) {
  expect_refused(paged(40), StatusCode::kUnsupported, "page_size");
  expect_refused(paged(8), StatusCode::kUnsupported, "page_size");
  AttentionArgs a = paged();
  a.seqused_k = {};
  expect_refused(a, StatusCode::kInvalidArgument, "seqused_k");
  AttentionArgs b = paged();
  b.page_table = table(3, 50, fake(0x5200000));
  expect_refused(b, StatusCode::kInvalidArgument, "page_table.shape[0]");
  AttentionArgs c = paged();
  c.page_table.stride[1] = 2;
  expect_refused(c, StatusCode::kInvalidArgument, "page_table.stride[1]");
  AttentionArgs d = paged();
  d.page_table.dtype = DType::kBF16;
  expect_refused(d, StatusCode::kInvalidArgument, "page_table.dtype");
  AttentionArgs e = paged();
  e.page_table.rank = 1;
  expect_refused(e, StatusCode::kInvalidArgument, "page_table.rank");
  AttentionArgs f = paged();
  f.page_table.data = fake(0x5200002);
  expect_refused(f, StatusCode::kMisaligned, "page_table.data");
  AttentionArgs g = paged();
  g.k = bshd(0, 64, 2, 128, DType::kBF16, fake(0x1000000));
  g.v = bshd(0, 64, 2, 128, DType::kBF16, fake(0x2800000));
  expect_refused(g, StatusCode::kInvalidArgument, "num_pages");
}

// A valid combine of 4 splits (batch 2, seqlen 1, heads 8, head dim 128) into bf16.
warpspec::CombineArgs combine_call() {
  warpspec::CombineArgs a;
  a.out_partial = bshd(2, 1, 8, 128, DType::kFP32, fake());
  a.num_splits = 4;
  a.out_partial_split_stride = 2 * 8 * 128;
  a.lse_partial.data = fake(0x1000000), a.lse_partial.dtype = DType::kFP32, a.lse_partial.rank = 3;
  a.lse_partial.shape[0] = 2, a.lse_partial.shape[1] = 1, a.lse_partial.shape[2] = 8;
  a.lse_partial.stride[0] = 8, a.lse_partial.stride[1] = 8, a.lse_partial.stride[2] = 1;
  a.lse_partial_split_stride = 16;
  a.out = bshd(2, 1, 8, 128, DType::kBF16, fake(0x2000000));
  return a;
}

// A valid append of 3 rows to 2 sequences of a 512-row cache (2 heads, head dim 128).
warpspec::KvAppendArgs append_call() {
  warpspec::KvAppendArgs a;
  a.k_cache = bshd(2, 512, 2, 128, DType::kBF16, fake());
  a.v_cache = bshd(2, 512, 2, 128, DType::kBF16, fake(0x1000000));
  a.k_new = bshd(2, 3, 2, 128, DType::kBF16, fake(0x2000000));
  a.v_new = bshd(2, 3, 2, 128, DType::kBF16, fake(0x2100000));
  a.cache_seqlens = i32(2, fake(0x2200000));
  return a;
}

// attention_combine / kvcache_append refuse `c` with `code`, the message naming `needle`.
void combine_refused(const warpspec::CombineArgs& c, StatusCode code, const std::string& needle) {
  const warpspec::Status s = warpspec::attention_combine(c, nullptr);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}
void append_refused(const warpspec::KvAppendArgs& c, StatusCode code, const std::string& needle) {
  const warpspec::Status s = warpspec::kvcache_append(c, nullptr);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(KvCacheValidation, CombineRefusals) {
  const warpspec::CombineArgs a = combine_call();
  const auto refused = combine_refused;
  EXPECT_TRUE(accepted(warpspec::attention_combine(a, nullptr)));
  warpspec::CombineArgs b = a;
  b.num_splits = 0;
  refused(b, StatusCode::kInvalidArgument, "num_splits");
  b = a, b.out_partial.dtype = DType::kBF16;
  refused(b, StatusCode::kInvalidArgument, "out_partial.dtype");
  b = a, b.out.dtype = DType::kI32;
  refused(b, StatusCode::kUnsupported, "out.dtype");
  b = a, b.out.shape[2] = 4;
  refused(b, StatusCode::kInvalidArgument, "out.shape[2]");
  b = a, b.lse_partial.shape[2] = 4;
  refused(b, StatusCode::kInvalidArgument, "lse_partial.shape[2]");
  b = a, b.out_partial_split_stride = 6;
  refused(b, StatusCode::kMisaligned, "out_partial_split_stride");
  b = a, b.out.data = a.out_partial.data;
  refused(b, StatusCode::kInvalidArgument, "out");
}

// An empty combine (batch, seqlen or heads 0: torch's data pointers are then null) passes
// every rule and launches nothing; head_dim 0 is refused by name.
TEST(KvCacheValidation, CombineOfNothing) {
  warpspec::CombineArgs a;
  a.out_partial = bshd(2, 0, 8, 128, DType::kFP32, nullptr);
  a.num_splits = 3;
  a.out_partial_split_stride = 0;
  a.lse_partial.data = nullptr, a.lse_partial.dtype = DType::kFP32, a.lse_partial.rank = 3;
  a.lse_partial.shape[0] = 2, a.lse_partial.shape[1] = 0, a.lse_partial.shape[2] = 8;
  a.lse_partial.stride[0] = 0, a.lse_partial.stride[1] = 8, a.lse_partial.stride[2] = 1;
  a.out = bshd(2, 0, 8, 128, DType::kBF16, nullptr);
  const warpspec::Status s = warpspec::attention_combine(a, nullptr);
  EXPECT_TRUE(accepted(s)) << s.to_string();
  warpspec::CombineArgs b = a;
  b.out_partial = bshd(2, 1, 8, 0, DType::kFP32, nullptr);
  b.lse_partial.shape[1] = 1;
  b.out = bshd(2, 1, 8, 0, DType::kBF16, nullptr);
  const warpspec::Status r = warpspec::attention_combine(b, nullptr);
  EXPECT_EQ(r.code(), StatusCode::kUnsupported) << r.to_string();
  EXPECT_NE(r.message().find("head_dim"), std::string::npos) << r.message();
}

TEST(KvCacheValidation, AppendRefusals) {
  const warpspec::KvAppendArgs a = append_call();
  const auto refused = append_refused;
  EXPECT_TRUE(accepted(warpspec::kvcache_append(a, nullptr)));
  warpspec::KvAppendArgs b = a;
  b.cache_seqlens = {};
  refused(b, StatusCode::kInvalidArgument, "cache_seqlens");
  b = a, b.v_new = bshd(2, 4, 2, 128, DType::kBF16, fake(0x2100000));
  refused(b, StatusCode::kInvalidArgument, "v_new");
  b = a, b.rotary_cos = bshd(1, 1, 512, 32, DType::kBF16, fake(0x2300000));
  refused(b, StatusCode::kInvalidArgument, "rotary");
  b = a, b.q = bshd(2, 3, 8, 128, DType::kBF16, fake(0x2400000));
  refused(b, StatusCode::kInvalidArgument, "q");
  b = a, b.k_new.data = a.k_cache.data;
  refused(b, StatusCode::kInvalidArgument, "k_cache");
  // q_out is written: refused where it shares memory with anything else the append uses.
  b = a;
  for (TensorView* v : {&b.rotary_cos, &b.rotary_sin})
    v->dtype = DType::kBF16, v->rank = 2, v->shape[0] = 600, v->shape[1] = 32, v->stride[0] = 32, v->stride[1] = 1;
  b.rotary_cos.data = fake(0x2300000), b.rotary_sin.data = fake(0x2340000);
  b.q = bshd(2, 3, 8, 128, DType::kBF16, fake(0x2400000));
  b.q_out = bshd(2, 3, 8, 128, DType::kBF16, fake(0x2500000));
  EXPECT_TRUE(accepted(warpspec::kvcache_append(b, nullptr)));
  b.q_out.data = a.v_new.data;
  refused(b, StatusCode::kInvalidArgument, "q_out: overlaps v_new");
  // Paged: the page size (k_cache.shape[1]) divides the row index, so it must be >= 1.
  b = a;
  b.k_cache = bshd(8, 0, 2, 128, DType::kBF16, fake());
  b.v_cache = bshd(8, 0, 2, 128, DType::kBF16, fake(0x1000000));
  b.page_table = table(2, 4, fake(0x2600000));
  refused(b, StatusCode::kInvalidArgument, "page_size");
  // A sequence's rows (max_pages * page_size) count in 32 bits, as attention's: 2^31 pages
  // of 256 rows once cast to INT32_MIN pages and appended nothing.
  b = a;
  b.k_cache = bshd(8, 256, 2, 128, DType::kBF16, fake());
  b.v_cache = bshd(8, 256, 2, 128, DType::kBF16, fake(0x1000000));
  b.page_table = table(2, 4, fake(0x2600000));
  EXPECT_TRUE(accepted(warpspec::kvcache_append(b, nullptr)));
  b.page_table.shape[1] = int64_t(1) << 22, b.page_table.stride[0] = 0;  // 2^22 x 256 = 2^30 rows
  refused(b, StatusCode::kInvalidArgument, "max_pages * page_size must be < 2^30");
  // Element loads and stores: a 16-bit view at an odd address is refused, not launched.
  for (TensorView warpspec::KvAppendArgs::*m : {&warpspec::KvAppendArgs::k_cache, &warpspec::KvAppendArgs::v_cache,
                                                &warpspec::KvAppendArgs::k_new, &warpspec::KvAppendArgs::v_new}) {
    b = a;
    b.*m = (a.*m);
    (b.*m).data = static_cast<char*>((a.*m).data) + 1;
    refused(b, StatusCode::kMisaligned, "-byte aligned (bf16)");
  }
  // q_out without q: nothing would be rotated into it.
  b = a, b.q_out = bshd(2, 3, 8, 128, DType::kBF16, fake(0x2500000));
  refused(b, StatusCode::kInvalidArgument, "q_out: given without q");
}

TEST(SplitKv, SharesCoverTheRangeOnceInOrder) {
  for (int lo : {0, 3})
    for (int n : {0, 1, 5, 64, 1000})
      for (int splits : {1, 2, 3, 7, 128}) {
        int next = lo;
        for (int s = 0; s < splits; ++s) {
          const auto r = warpspec::schedule::split_blocks(lo, lo + n, s, splits);
          if (r.hi <= r.lo) continue;
          EXPECT_EQ(r.lo, next) << lo << " " << n << " " << splits << " " << s;
          next = r.hi;
        }
        EXPECT_EQ(next, lo + n) << lo << " " << n << " " << splits;
      }
}

TEST(SplitKv, HeuristicSplitsOnlyAnEmptyGrid) {
  using warpspec::schedule::split_heuristic;
  EXPECT_EQ(split_heuristic(132 * 4, 132, 1000), 1);  // a full grid
  EXPECT_EQ(split_heuristic(32, 132, 2), 1);          // too few key blocks
  const int s = split_heuristic(32, 132, 64);          // batch 1, 32 heads, 8k keys
  EXPECT_GE(s, 3);
  EXPECT_LE(s * 32, 2 * 132);
  EXPECT_LE(split_heuristic(1, 132, 1 << 20), warpspec::schedule::kMaxKvSplits);
  // Batch 1, 8 KV heads (pack-GQA: 8 tiles): 16 splits fill 128 of 132 SMs; 14 (112) read
  // 3-4% less of an 8192-key cache (64 blocks) on the H100.
  EXPECT_EQ(split_heuristic(8, 132, 64), 16);
  EXPECT_EQ(split_heuristic(8, 132, 1024), 16);
  EXPECT_EQ(split_heuristic(8, 132, 20), 10);  // at most 20 / 2 splits: 80 of 132 SMs
}

TEST(SplitKv, SchedulerVisitsEveryTileAndSplitOnce) {
  namespace sch = warpspec::schedule;
  for (auto order : {sch::AttentionOrder::kMFastest, sch::AttentionOrder::kLongestFirst}) {
    sch::AttentionSchedulerArguments a;
    a.tiles_m = 3, a.heads = 5, a.batch = 2, a.splits = 4, a.order = order;
    a.grid_size = sch::attention_grid_size(a.tiles_m, a.heads, a.batch, 7, a.splits);
    ASSERT_EQ(sch::AttentionScheduler::check(a), nullptr);
    const sch::AttentionScheduler s(a);
    std::set<std::tuple<int, int, int, int>> seen;
    for (int c = 0; c < a.grid_size; ++c)
      for (auto w = s.first(c); w.valid; w = s.next(w)) {
        EXPECT_TRUE(seen.insert({w.m_block, w.head, w.batch, w.split}).second);
        EXPECT_LT(w.split, 4);
      }
    EXPECT_EQ(seen.size(), size_t(3 * 5 * 2 * 4));
  }
}

// Pack-GQA: refused where it cannot run (g not a power of two up to 16, head dim 256,
// seqlen_q * g past 2^30), accepted with every serving option otherwise; false and
// unset never refuse.
TEST(KvCacheValidation, PackGqaRefusals) {
  for (bool paged_kv : {false, true}) {
    AttentionArgs a = paged_kv ? paged() : decode();  // 8 q heads / 2 kv heads: g 4
    for (int splits : {0, 1, 3}) {
      a.num_splits = splits;
      a.pack_gqa = true;
      EXPECT_TRUE(accepted(warpspec::check(a))) << splits;
      a.pack_gqa = false;
      EXPECT_TRUE(accepted(warpspec::check(a))) << splits;
      a.pack_gqa.reset();
      EXPECT_TRUE(accepted(warpspec::check(a))) << splits;
    }
  }
  {  // g 1: packing is the identity, accepted
    AttentionArgs a = decode();
    a.k = bshd(2, 4096, 8, 128, DType::kBF16, fake(0x1000000));
    a.v = bshd(2, 4096, 8, 128, DType::kBF16, fake(0x2800000));
    a.pack_gqa = true;
    EXPECT_TRUE(accepted(warpspec::check(a)));
  }
  {  // g 3: not a power of two
    AttentionArgs a = decode();
    a.q = bshd(2, 1, 6, 128, DType::kBF16, fake());
    a.o = bshd(2, 1, 6, 128, DType::kBF16, fake(0x5000000));
    a.pack_gqa = true;
    expect_refused(a, StatusCode::kUnsupported, "pack_gqa: needs heads_q / heads_kv a power of two up to 16");
    a.pack_gqa.reset();  // the rule just does not pack
    EXPECT_TRUE(accepted(warpspec::check(a)));
  }
  {  // g 32: past 16
    AttentionArgs a = decode();
    a.q = bshd(2, 1, 64, 128, DType::kBF16, fake());
    a.o = bshd(2, 1, 64, 128, DType::kBF16, fake(0x5000000));
    a.pack_gqa = true;
    expect_refused(a, StatusCode::kUnsupported, "= 32");
    a.pack_gqa.reset();
    EXPECT_TRUE(accepted(warpspec::check(a)));
  }
  {  // head dim 256
    AttentionArgs a = decode(256);
    a.pack_gqa = true;
    expect_refused(a, StatusCode::kUnsupported, "pack_gqa: not supported with head_dim > 192");
    a.pack_gqa.reset();
    EXPECT_TRUE(accepted(warpspec::check(a)));
    AttentionArgs b = decode(192);
    b.pack_gqa = true;
    EXPECT_TRUE(accepted(warpspec::check(b)));
  }
  {  // seqlen_q * g >= 2^30
    AttentionArgs a = decode();
    a.q = bshd(1, int64_t(1) << 28, 8, 128, DType::kBF16, fake());
    a.o = bshd(1, int64_t(1) << 28, 8, 128, DType::kBF16, fake(uintptr_t(1) << 40));
    a.k = bshd(1, 4096, 2, 128, DType::kBF16, fake(0x1000000));
    a.v = bshd(1, 4096, 2, 128, DType::kBF16, fake(0x2800000));
    a.seqused_k = TensorView{};
    a.pack_gqa = true;
    expect_refused(a, StatusCode::kInvalidArgument, "pack_gqa: seqlen_q * (heads_q / heads_kv) must be < 2^30");
  }
}

// Written views address each element once; sizes that overflow 32- or 64-bit counts are
// refused by name instead of wrapping.
TEST(KvCacheValidation, OverlapAndOverflowRefusals) {
  const warpspec::KvAppendArgs a = append_call();
  const auto refused = append_refused;
  ASSERT_TRUE(accepted(warpspec::kvcache_append(a, nullptr)));
  warpspec::KvAppendArgs b = a;
  b.k_cache.stride[1] = 0;  // every new row to one address
  refused(b, StatusCode::kInvalidArgument, "k_cache.stride: elements overlap");
  b = a, b.v_cache.stride[2] = 8;  // heads 8 elements apart, 128 wide
  refused(b, StatusCode::kInvalidArgument, "v_cache.stride: elements overlap");
  b = a;  // 2^20 x 2^29 x 2^14 rows: the count would wrap to 0 in 64 bits
  b.k_new = bshd(int64_t(1) << 20, int64_t(1) << 29, 2, 128, DType::kBF16, fake(0x2000000));
  b.k_new.stride[0] = 0, b.k_new.stride[1] = 0;
  b.v_new = b.k_new, b.v_new.data = fake(0x2100000);
  b.cache_seqlens = i32(int64_t(1) << 20, fake(0x2200000));
  b.cache_batch_idx = i32(int64_t(1) << 20, fake(0x2600000));
  refused(b, StatusCode::kInvalidArgument, "k_new.shape");
  b = a;
  for (TensorView* v : {&b.rotary_cos, &b.rotary_sin})
    v->dtype = DType::kBF16, v->rank = 2, v->shape[0] = (int64_t(1) << 32) + 1, v->shape[1] = 32, v->stride[0] = 0,
    v->stride[1] = 1;
  b.rotary_cos.data = fake(0x2300000), b.rotary_sin.data = fake(0x2340000);
  refused(b, StatusCode::kInvalidArgument, "rotary_cos.shape[0]");

  const warpspec::CombineArgs c = combine_call();
  ASSERT_TRUE(accepted(warpspec::attention_combine(c, nullptr)));
  warpspec::CombineArgs d = c;
  d.out.stride[2] = 0;  // all heads to one address
  combine_refused(d, StatusCode::kInvalidArgument, "out.stride: elements overlap");
  d = c, d.num_splits = 128, d.out_partial_split_stride = 145249953336295684;  // 127 x stride wraps in 64 bits
  combine_refused(d, StatusCode::kInvalidArgument, "out_partial: shape and strides reach past the 64-bit address space");
}

// K and V of one (batch, seqlen, 2, heads, head_dim) cache interleave: their byte ranges
// intersect, their elements never meet, so the append accepts them; V shifted into K's
// half of a row still shares elements and is refused.
TEST(KvCacheValidation, InterleavedCachesAreDisjoint) {
  warpspec::KvAppendArgs a = append_call();
  const int64_t row = 2 * 2 * 128;  // (2, heads 2, head_dim 128) a seqlen step
  for (TensorView* c : {&a.k_cache, &a.v_cache}) c->stride[0] = 512 * row, c->stride[1] = row;
  a.v_cache.data = static_cast<char*>(a.k_cache.data) + 2 * 128 * 2;  // kv[:, :, 1]
  const warpspec::Status s = warpspec::kvcache_append(a, nullptr);
  EXPECT_TRUE(accepted(s)) << s.to_string();
  a.v_cache.data = static_cast<char*>(a.k_cache.data) + 128 * 2;  // one head on: V's head 0 is K's head 1
  append_refused(a, StatusCode::kInvalidArgument, "k_cache: overlaps v_cache");
  a.v_cache.data = static_cast<char*>(a.k_cache.data) + 2 * 128 * 2 + 16;  // 8 elements into K's next row part
  append_refused(a, StatusCode::kInvalidArgument, "overlaps v_cache");
}

}  // namespace attention_kvcache_validation_test
