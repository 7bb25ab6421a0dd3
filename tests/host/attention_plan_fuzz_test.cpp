// Random attention calls, valid and not, through the host's planning (plan_summary: the
// checks and every choice attention_forward makes before it launches): each is either
// planned within the built kernels' limits or refused with a Status that names an
// argument ("name: rule"), never an internal error; planning is a function of the call
// (the same call twice, the same plan); and without a GPU, check() refuses exactly what
// planning refuses. Pointers are fake (never dereferenced).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "host/fuzz.hpp"
#include "host/test_memory.hpp"
#include "src/attention/plan.hpp"
#include "testing/views.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/schedule/split_kv.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_plan_fuzz_test {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;
namespace ai = warpspec::attention_impl;

using Gen = warpspec::test::FuzzGen;

void* fake(uintptr_t offset) { return warpspec::test::test_pointer(offset); }

TensorView vec(int64_t n, uintptr_t offset, DType t = DType::kI32) { return warpspec::test::fuzz_vector(fake(offset), n, t); }
void mutate(Gen& g, TensorView& v) { warpspec::test::fuzz_corrupt_extent(g, v); }

AttentionArgs random_call(Gen& g) {
  AttentionArgs a;
  const int64_t d = g.pick({8, 40, 64, 64, 96, 128, 128, 160, 192, 256, 0, 7, 264});
  const DType t = DType(g.pick({int64_t(DType::kBF16), int64_t(DType::kBF16), int64_t(DType::kFP16),
                               int64_t(DType::kE4M3), int64_t(DType::kFP32)}));
  const int64_t batch = g.pick({1, 1, 2, 3, 7, 0});
  const int64_t sq = g.pick({1, 3, 100, 128, 191, 192, 513, 1000, 4096, 16384, 0});
  const int64_t sk = g.pick({1, 80, 333, 512, 1031, 3072, 8192, 70000, 0});
  const int64_t hkv = g.pick({1, 2, 3, 8});
  const int64_t hq = hkv * g.pick({1, 2, 3, 4, 8, 16, 32});
  const DType to = t == DType::kE4M3 ? DType::kBF16 : t;
  // Buffers 256 MiB apart: distinct unless a case makes them overlap on purpose.
  uintptr_t next = 0;
  const auto slot = [&] { return next += uintptr_t(1) << 28; };
  const bool packed_q = g.coin(0.15), packed_k = g.coin(0.15), paged = !packed_k && g.coin(0.1);
  const int64_t page = g.pick({16, 64, 96, 256});
  const int64_t pages = (sk + page - 1) / page + 1;
  const auto side = [&](int64_t s, int64_t h, bool packed, DType dt) {
    TensorView v = warpspec::testbed::bshd_contiguous(fake(slot()), dt, packed ? 1 : batch, packed ? s * batch : s, h, d);
    if (packed) {  // (total, heads, head_dim)
      v.rank = 3;
      for (int i = 0; i < 3; ++i) v.shape[i] = v.shape[i + 1], v.stride[i] = v.stride[i + 1];
    }
    return v;
  };
  a.q = side(sq, hq, packed_q, t);
  a.o = side(sq, hq, packed_q, to);
  if (paged) {
    a.k = warpspec::testbed::bshd_contiguous(fake(slot()), t, pages * batch, page, hkv, d);
    a.v = warpspec::testbed::bshd_contiguous(fake(slot()), t, pages * batch, page, hkv, d);
    a.page_table = warpspec::testbed::page_table_view(fake(slot()), batch, pages);
    a.seqused_k = vec(batch, slot());
  } else {
    a.k = side(sk, hkv, packed_k, t);
    a.v = side(sk, hkv, packed_k, t);
  }
  if (packed_q) a.cu_seqlens_q = vec(batch + 1, slot()), a.max_seqlen_q = g.pick({0, sq, sq * 2, -1});
  if (packed_k) a.cu_seqlens_k = vec(batch + 1, slot());
  if (g.coin(0.1)) a.seqused_q = vec(batch, slot());
  if (!paged && g.coin(0.1)) a.seqused_k = vec(batch, slot());
  if (g.coin(0.3)) {
    a.lse = warpspec::testbed::lse_view(static_cast<float*>(fake(slot())), packed_q ? 1 : batch, hq,
                                        packed_q ? sq * batch : sq, hq * sq, sq, 1);
    if (packed_q) {  // (heads, total)
      a.lse.rank = 2;
      a.lse.shape[0] = hq, a.lse.shape[1] = sq * batch, a.lse.stride[0] = sq * batch, a.lse.stride[1] = 1;
    }
  }
  a.causal = g.coin(0.5);
  if (g.coin(0.3)) a.window_left = g.pick({-1, 0, 1, 100, 1000, 5000, int64_t(1) << 31, -7});
  if (g.coin(0.3)) a.window_right = g.pick({-1, 0, 1, 100, 5000, -3});
  if (g.coin(0.1)) a.softcap = float(g.pick({0, 30, -1}));
  if (g.coin(0.1)) a.attention_chunk = g.pick({0, 1, 64, 1000, 4096, -1});
  a.num_splits = int(g.pick({1, 1, 1, 0, 0, 2, 3, 128, 129, -1}));
  if (g.coin(0.3)) a.pack_gqa = g.coin(0.5);
  if (g.coin(0.05)) a.sink = vec(hq, slot(), DType::kFP32);
  if (!paged && !packed_k && g.coin(0.05)) a.cache_batch_idx = vec(batch, slot());
  if (t == DType::kE4M3 && g.coin(0.3)) {
    a.q_descale = TensorView{};
    a.q_descale.data = fake(slot()), a.q_descale.dtype = DType::kFP32, a.q_descale.rank = 2;
    a.q_descale.shape[0] = batch, a.q_descale.shape[1] = hkv, a.q_descale.stride[0] = hkv, a.q_descale.stride[1] = 1;
  }
  if (g.coin(0.05)) a.tile_counter = vec(g.pick({2, 1}), slot());
  if (g.coin(0.05)) a.workspace = fake(slot() + uintptr_t(g.pick({0, 8}))), a.workspace_bytes = size_t(g.pick({0, 16, 1 << 20}));
  if (g.coin(0.05)) a.softcap = g.coin(0.5) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  if (g.coin(0.03)) a.softmax_scale = float(g.pick({-1, 0, 2}));
  if (t != DType::kE4M3 && g.coin(0.03)) a.k_descale = vec(batch * hkv, slot(), DType::kFP32);
  if (g.coin(0.03)) a.v.dtype = DType(g.pick({0, 1, 3}));
  if (!paged && !packed_k && g.coin(0.05)) a.cache_leftpad = vec(batch, slot());
  // Now and then a hostile extent or stride, a wrong output dtype, or two views on one buffer.
  if (g.coin(0.1)) mutate(g, a.q);
  if (g.coin(0.05)) mutate(g, a.k);
  if (g.coin(0.05)) mutate(g, a.o);
  if (g.coin(0.03)) a.o.dtype = DType::kFP32;
  if (g.coin(0.03)) a.o.data = a.q.data;
  return a;
}

std::string shape(const TensorView& v) {
  std::string out = std::string(warpspec::dtype_name(v.dtype)) + "[";
  for (int i = 0; i < v.rank; ++i) out += (i ? "," : "") + std::to_string(v.shape[i]);
  return out + "]";
}
std::string describe(const AttentionArgs& a) {
  return "q " + shape(a.q) + " k " + shape(a.k) + " o " + shape(a.o) + (a.causal ? " causal" : "") +
         " window " + std::to_string(a.window_left) + "," + std::to_string(a.window_right) +
         " chunk " + std::to_string(a.attention_chunk) + " splits " + std::to_string(a.num_splits) +
         (a.page_table.empty() ? "" : " paged") + (a.cu_seqlens_q.empty() ? "" : " packed_q") +
         (a.cu_seqlens_k.empty() ? "" : " packed_k");
}

bool same(const ai::PlanSummary& x, const ai::PlanSummary& y) {
  return x.kernel_d == y.kernel_d && x.block_n == y.block_n && x.block_m == y.block_m &&
         x.pack_shift == y.pack_shift && x.splits == y.splits && x.pack_gqa == y.pack_gqa && x.chunk == y.chunk &&
         x.split_kv == y.split_kv;
}

TEST(AttentionPlanFuzz, EveryCallIsPlannedWithinTheKernelsOrRefusedByName) {
  std::set<int> block_ms, block_ns;
  for (const DType t : {DType::kBF16, DType::kE4M3})
    for (const ai::HeadDimConfig& c : ai::configs_of(t)) block_ms.insert(c.block_m()), block_ns.insert(c.block_n);
  int planned = 0, refused = 0, split = 0, packed = 0, lean = 0;
  std::set<int> tiles_seen;
  const int kCalls = warpspec::test::fuzz_calls(20000);
  const bool no_device = !warpspec::check_device().ok();
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0x5eed0000u + uint64_t(i));
    const AttentionArgs a = random_call(g);
    ai::PlanSummary s;
    const warpspec::Status st = ai::plan_summary(a, 132, &s);
    const std::string what = "call " + std::to_string(i) + " (" + describe(a) + "): " + st.to_string();
    if (no_device) {  // check() plans the same way, then finds no device
      const warpspec::Status c = warpspec::check(a);
      if (st.ok()) ASSERT_EQ(c.code(), StatusCode::kNoDevice) << what << " / check: " << c.to_string();
      else ASSERT_EQ(c.message(), st.message()) << what << " / check: " << c.to_string();
    }
    if (!st.ok()) {
      ++refused;
      ASSERT_NE(st.code(), StatusCode::kInternal) << what;
      const size_t colon = st.message().find(':');
      ASSERT_TRUE(colon != std::string::npos && colon > 0) << "a refusal names the argument first: " << what;
      continue;
    }
    ++planned;
    const int64_t d = a.q.shape[a.q.rank - 1];
    ASSERT_TRUE(s.kernel_d == 64 || s.kernel_d == 128 || s.kernel_d == 192 || s.kernel_d == 256) << what;
    ASSERT_GE(s.kernel_d, d) << what;
    ASSERT_EQ(d % 8, 0) << what;
    ASSERT_TRUE(block_ms.count(s.block_m) && block_ns.count(s.block_n)) << what << " block " << s.block_m << "x" << s.block_n;
    ASSERT_TRUE(s.block_m == 128 || s.kernel_d == 64 || (s.kernel_d == 128 && a.q.dtype == DType::kE4M3))
        << "only head dim 64 and FP8 head dim 128 have 192-row tiles: " << what;
    ASSERT_GE(s.splits, 1) << what;
    ASSERT_LE(s.splits, warpspec::schedule::kMaxKvSplits) << what;
    // The caller's count, except where there is no key to split (plan_splits).
    const int64_t keys = !a.page_table.empty() ? a.page_table.shape[1] * a.k.shape[1] : a.k.shape[a.k.rank == 4 ? 1 : 0];
    if (a.num_splits > 1 && keys > 0) ASSERT_EQ(s.splits, a.num_splits) << what;
    if (a.num_splits == 1) ASSERT_EQ(s.splits, 1) << what;
    ASSERT_GE(s.pack_shift, 0) << what;
    const int64_t hq = a.q.shape[a.q.rank - 2], hkv = a.k.shape[a.k.rank - 2];
    ASSERT_LE(int64_t(1) << s.pack_shift, std::max<int64_t>(hkv > 0 ? hq / hkv : 1, 1)) << what;
    if (a.pack_gqa == false) ASSERT_EQ(s.pack_shift, 0) << what;
    if (a.q.dtype == DType::kE4M3) ASSERT_TRUE(s.splits == 1 && s.pack_shift == 0) << what;
    // The kernel has what the call uses (a lean configuration has none of the three).
    if (s.pack_shift > 0) ASSERT_TRUE(s.pack_gqa) << "packed rows on a kernel without pack-GQA: " << what;
    if (a.attention_chunk > 1) ASSERT_TRUE(s.chunk) << "a chunk on a kernel without the chunk mask: " << what;
    if (s.splits > 1) ASSERT_TRUE(s.split_kv) << "splits on a kernel without the partial epilogue: " << what;
    lean += !s.pack_gqa && !s.chunk && !s.split_kv;
    ai::PlanSummary again;
    ASSERT_TRUE(ai::plan_summary(a, 132, &again).ok()) << what;
    ASSERT_TRUE(same(s, again)) << "the same call planned twice differs: " << what;
    split += s.splits > 1;
    packed += s.pack_shift > 0;
    tiles_seen.insert(s.block_m);
  }
  // The generator reaches both outcomes and the plans' main choices.
  EXPECT_GT(planned, kCalls / 10);
  EXPECT_GT(refused, kCalls / 10);
  EXPECT_GT(split, 100);
  EXPECT_GT(packed, 100);
  EXPECT_GT(lean, 100);
  EXPECT_EQ(tiles_seen, (std::set<int>{128, 192}));
}

}  // namespace attention_plan_fuzz_test
