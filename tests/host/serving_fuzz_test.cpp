// Random attention_combine and kvcache_append calls, valid and not: each is refused with a
// Status that names an argument ("name: rule"), never an internal error, or gets past every
// argument rule to the device check. The pointers are host addresses (never dereferenced),
// so on a Hopper machine the device-memory check refuses what the argument rules let
// through, by name, and nothing launches; without one the device check does.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "host/fuzz.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace serving_fuzz_test {

using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;
using Gen = warpspec::test::FuzzGen;

void* host(uintptr_t offset) { return warpspec::test::host_address(offset); }

TensorView vec(int64_t n, uintptr_t offset, DType t = DType::kI32) { return warpspec::test::fuzz_vector(host(offset), n, t); }
void hostile(Gen& g, TensorView& v) {
  if (g.coin(0.08)) warpspec::test::fuzz_corrupt_extent(g, v);
}

// Tallies outcomes and holds every refusal to naming its argument.
struct Outcomes {
  int accepted = 0, refused = 0;
  void add(const warpspec::Status& s, int i) {
    ASSERT_NE(s.code(), StatusCode::kInternal) << "call " << i << ": " << s.to_string();
    if (s.ok() || s.code() == StatusCode::kNoDevice) {
      ++accepted;
      return;
    }
    ++refused;
    const size_t colon = s.message().find(':');
    ASSERT_TRUE(colon != std::string::npos && colon > 0) << "call " << i << ": a refusal names the argument first: "
                                                         << s.to_string();
  }
  void expect_both(int calls) const {
    if (!warpspec::check_device().ok()) EXPECT_GT(accepted, calls / 20);
    EXPECT_GT(refused, calls / 10);
  }
};

TEST(ServingFuzz, CombineCallsAreRefusedByNameOrReachTheDevice) {
  Outcomes out;
  const int kCalls = warpspec::test::fuzz_calls(10000);
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0xc0b1000u + uint64_t(i));
    const int64_t b = g.pick({0, 1, 3}), s = g.pick({0, 1, 7, 300}), h = g.pick({1, 4, 32});
    const int64_t d = g.pick({4, 8, 64, 128, 256, 6, 0});
    const int64_t splits = g.pick({1, 2, 7, 128, 0, 129, -1});
    warpspec::CombineArgs a;
    a.num_splits = splits;
    a.out_partial = warpspec::testbed::bshd_contiguous(host(1 << 20), DType::kFP32, b, s, h, d);
    a.out_partial_split_stride = g.coin(0.9) ? b * s * h * d : g.pick({0, 1, -5});
    a.lse_partial = warpspec::testbed::lse_view(static_cast<float*>(host(uintptr_t(3) << 30)), b, s, h, s * h, h, 1);
    a.lse_partial.dtype = DType(g.coin(0.95) ? int64_t(DType::kFP32) : g.pick({0, 5}));
    a.lse_partial_split_stride = g.coin(0.9) ? b * s * h : g.pick({0, -1});
    a.out = warpspec::testbed::bshd_contiguous(host(uintptr_t(4) << 30), DType(g.pick({0, 1, 2, 3})), b, s, h, d);
    if (g.coin(0.3))
      a.lse = warpspec::testbed::lse_view(static_cast<float*>(host(uintptr_t(5) << 30)), b, h, s, h * s, s, 1);
    if (g.coin(0.03)) a.out.data = a.out_partial.data;  // over the partials
    hostile(g, a.out_partial);
    hostile(g, a.lse_partial);
    hostile(g, a.out);
    out.add(warpspec::attention_combine(a, nullptr), i);
    if (HasFatalFailure()) return;
  }
  out.expect_both(kCalls);
}

TEST(ServingFuzz, AppendCallsAreRefusedByNameOrReachTheDevice) {
  Outcomes out;
  const int kCalls = warpspec::test::fuzz_calls(10000);
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0xa99e000u + uint64_t(i));
    const int64_t b = g.pick({1, 2, 5, 0}), hkv = g.pick({1, 2, 8}), d = g.pick({64, 128, 256, 40, 7, 0});
    const int64_t cap = g.pick({16, 1000, 4096, 0}), n = g.pick({1, 3, 16, 0}), page = g.pick({16, 64, 100});
    const DType t = DType(g.pick({0, 0, 1, 2, 3}));
    warpspec::KvAppendArgs a;
    const bool paged = g.coin(0.3);
    const int64_t pages = (cap + page - 1) / page;
    if (paged) {
      a.k_cache = warpspec::testbed::bshd_contiguous(host(uintptr_t(1) << 30), t, b * pages + 1, page, hkv, d);
      a.v_cache = warpspec::testbed::bshd_contiguous(host(uintptr_t(2) << 30), t, b * pages + 1, page, hkv, d);
      a.page_table = warpspec::testbed::page_table_view(host(uintptr_t(3) << 30), b, pages);
    } else {
      a.k_cache = warpspec::testbed::bshd_contiguous(host(uintptr_t(1) << 30), t, b, cap, hkv, d);
      a.v_cache = warpspec::testbed::bshd_contiguous(host(uintptr_t(2) << 30), t, b, cap, hkv, d);
      if (g.coin(0.2)) a.cache_batch_idx = vec(b, uintptr_t(4) << 30);
    }
    const DType tn = g.coin(0.95) ? t : DType::kFP16;
    a.k_new = warpspec::testbed::bshd_contiguous(host(uintptr_t(5) << 30), tn, b, n, hkv, d);
    a.v_new = warpspec::testbed::bshd_contiguous(host(uintptr_t(6) << 30), tn, b, n, hkv, d);
    a.cache_seqlens = vec(g.coin(0.95) ? b : b + 1, uintptr_t(7) << 30);
    if (g.coin(0.1)) a.cache_leftpad = vec(b, uintptr_t(8) << 30);
    if (g.coin(0.4)) {
      const int64_t rot = g.pick({d, d / 2, 2, 3, d + 2});
      const int64_t ro = g.pick({paged ? pages * page : cap, 1});
      a.rotary_cos = TensorView::matrix(host(uintptr_t(9) << 30), t, ro, rot / 2, rot / 2);
      a.rotary_sin = TensorView::matrix(host(uintptr_t(10) << 30), t, ro, rot / 2, rot / 2);
      a.rotary_interleaved = g.coin(0.5);
      if (g.coin(0.5)) {
        const int64_t hq = hkv * g.pick({1, 4});
        a.q = warpspec::testbed::bshd_contiguous(host(uintptr_t(11) << 30), t, b, g.pick({1, n}), hq, d);
        a.q_out = g.coin(0.5) ? a.q : warpspec::testbed::bshd_contiguous(host(uintptr_t(12) << 30), t, b, a.q.shape[1], hq, d);
        a.q_per_token = g.coin(0.5);
      }
    }
    if (g.coin(0.03)) a.k_new.data = a.k_cache.data;  // the new rows over the cache
    hostile(g, a.k_cache);
    hostile(g, a.k_new);
    hostile(g, a.rotary_cos);
    out.add(warpspec::kvcache_append(a, nullptr), i);
    if (HasFatalFailure()) return;
  }
  out.expect_both(kCalls);
}

}  // namespace serving_fuzz_test
