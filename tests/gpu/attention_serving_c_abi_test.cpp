// The serving entry points of the C ABI (warpspec.h, version 3 of the attention struct,
// warpspec_kvcache_append, warpspec_attention_combine) on the GPU: the same call made
// through C and through the C++ API writes the same bits, so every field reaches the
// library where it belongs (a swapped stride, a lost flag or the interleaved default
// would show). The C++ paths themselves are checked against references in
// attention_kvcache_test.cu.
#include <cstring>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/fill.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.h"
#include "warpspec/warpspec.hpp"

namespace attention_serving_c_abi_test {

using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

warpspec_tensor to_c(const TensorView& v) {
  warpspec_tensor t{};
  t.data = v.data, t.dtype = int32_t(v.dtype), t.rank = v.rank;
  for (int i = 0; i < 4; ++i) t.shape[i] = v.shape[i], t.stride[i] = v.stride[i];
  return t;
}

TensorView i32(void* data, int64_t n) {
  TensorView v;
  v.data = data, v.dtype = DType::kI32, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}

template <class T>
std::vector<T> host(const test::DeviceBuffer& b) {
  return test::to_host<T>(b, b.bytes() / sizeof(T));
}

// A paged decode step: append 2 tokens with non-interleaved rotary (q rotated too),
// then attend with num_splits 3, then merge hand-made partials; once through C++,
// once through C, from the same starting state.
TEST(ServingCAbi, SameBitsAsTheCppApi) {
  WARPSPEC_REQUIRE_HOPPER();
  const int B = 2, sq = 2, hq = 8, hkv = 2, d = 128, page = 64, pps = 8, pages = B * pps + 1, rd = 64, ro = 1024;
  const DType t = DType::kBF16;
  const size_t cache_n = size_t(pages) * page * hkv * d, q_n = size_t(B) * sq * hq * d, new_n = size_t(B) * sq * hkv * d;
  test::DeviceBuffer k0(cache_n * 2), v0(cache_n * 2), kn(new_n * 2), vn(new_n * 2), q(q_n * 2);
  test::DeviceBuffer cs(size_t(ro) * rd / 2 * 2), sn(size_t(ro) * rd / 2 * 2);
  CUDA_ASSERT(testbed::fill_normalish(k0.get(), t, cache_n, 1));
  CUDA_ASSERT(testbed::fill_normalish(v0.get(), t, cache_n, 2));
  CUDA_ASSERT(testbed::fill_normalish(kn.get(), t, new_n, 3));
  CUDA_ASSERT(testbed::fill_normalish(vn.get(), t, new_n, 4));
  CUDA_ASSERT(testbed::fill_normalish(q.get(), t, q_n, 5));
  CUDA_ASSERT(testbed::fill_uniform(cs.get(), t, size_t(ro) * rd / 2, 6));
  CUDA_ASSERT(testbed::fill_uniform(sn.get(), t, size_t(ro) * rd / 2, 7));
  std::vector<int32_t> lens = {300, 77}, used = {302, 79}, table;
  for (int i = 0; i < B * pps; ++i) table.push_back((i * 5 + 1) % pages);
  test::DeviceBuffer d_lens = test::to_device(lens), d_used = test::to_device(used), d_table = test::to_device(table);

  struct Out {
    std::vector<uint16_t> k, v, q, o, combined;
    std::vector<float> lse, combined_lse;
  };
  auto step = [&](bool through_c, Out* out) {
    test::DeviceBuffer kc(cache_n * 2), vc(cache_n * 2), qr(q_n * 2), o(q_n * 2), lse(size_t(B) * hq * sq * 4);
    CUDA_ASSERT(cudaMemcpy(kc.get(), k0.get(), cache_n * 2, cudaMemcpyDeviceToDevice));
    CUDA_ASSERT(cudaMemcpy(vc.get(), v0.get(), cache_n * 2, cudaMemcpyDeviceToDevice));
    CUDA_ASSERT(test::poison(o));
    CUDA_ASSERT(test::poison(lse));
    TensorView pt;
    pt.data = d_table.get(), pt.dtype = DType::kI32, pt.rank = 2, pt.shape[0] = B, pt.shape[1] = pps;
    pt.stride[0] = pps, pt.stride[1] = 1;
    TensorView rc, rs;
    for (TensorView* v : {&rc, &rs}) v->dtype = t, v->rank = 2, v->shape[0] = ro, v->shape[1] = rd / 2, v->stride[0] = rd / 2, v->stride[1] = 1;
    rc.data = cs.get(), rs.data = sn.get();

    warpspec::KvAppendArgs ap;
    ap.k_cache = testbed::bshd_contiguous(kc.get(), t, pages, page, hkv, d);
    ap.v_cache = testbed::bshd_contiguous(vc.get(), t, pages, page, hkv, d);
    ap.k_new = testbed::bshd_contiguous(kn.get(), t, B, sq, hkv, d);
    ap.v_new = testbed::bshd_contiguous(vn.get(), t, B, sq, hkv, d);
    ap.cache_seqlens = i32(d_lens.get(), B);
    ap.page_table = pt;
    ap.rotary_cos = rc, ap.rotary_sin = rs, ap.rotary_interleaved = false;
    ap.q = testbed::bshd_contiguous(q.get(), t, B, sq, hq, d);
    ap.q_out = testbed::bshd_contiguous(qr.get(), t, B, sq, hq, d);
    ap.q_per_token = true;

    warpspec::AttentionArgs at;
    at.q = ap.q_out;
    at.k = ap.k_cache, at.v = ap.v_cache;
    at.o = testbed::bshd_contiguous(o.get(), t, B, sq, hq, d);
    at.lse = testbed::lse_contiguous(lse.as<float>(), B, hq, sq);
    at.seqused_k = i32(d_used.get(), B);
    at.page_table = pt;
    at.causal = true;
    at.num_splits = 3;

    if (!through_c) {
      const warpspec::Status s1 = warpspec::kvcache_append(ap, nullptr);
      ASSERT_TRUE(s1.ok()) << s1.to_string();
      const warpspec::Status s2 = warpspec::attention_forward(at, nullptr);
      ASSERT_TRUE(s2.ok()) << s2.to_string();
    } else {
      warpspec_kvcache_append_args ca = warpspec_kvcache_append_args_default();
      ca.k_cache = to_c(ap.k_cache), ca.v_cache = to_c(ap.v_cache), ca.k_new = to_c(ap.k_new), ca.v_new = to_c(ap.v_new);
      ca.cache_seqlens = to_c(ap.cache_seqlens), ca.page_table = to_c(pt);
      ca.rotary_cos = to_c(rc), ca.rotary_sin = to_c(rs), ca.rotary_interleaved = 0;
      ca.q = to_c(ap.q), ca.q_out = to_c(ap.q_out), ca.q_per_token = 1;
      ASSERT_EQ(warpspec_kvcache_append(&ca, nullptr), WARPSPEC_OK) << warpspec_last_error();
      warpspec_attention_args cat = warpspec_attention_args_default();
      cat.q = to_c(at.q), cat.k = to_c(at.k), cat.v = to_c(at.v), cat.o = to_c(at.o), cat.lse = to_c(at.lse);
      cat.seqused_k = to_c(at.seqused_k), cat.page_table = to_c(pt), cat.causal = 1;
      cat.flags = WARPSPEC_FLAG_NUM_SPLITS, cat.num_splits = 3;
      uint64_t ws = 0;
      ASSERT_EQ(warpspec_attention_workspace_size(&cat, &ws), WARPSPEC_OK) << warpspec_last_error();
      EXPECT_GT(ws, 0u) << "three splits need a workspace";
      ASSERT_EQ(warpspec_attention(&cat, nullptr), WARPSPEC_OK) << warpspec_last_error();
    }
    CUDA_ASSERT(cudaDeviceSynchronize());
    out->k = host<uint16_t>(kc), out->v = host<uint16_t>(vc), out->q = host<uint16_t>(qr), out->o = host<uint16_t>(o);
    out->lse = host<float>(lse);

    // Combine: O's rows as 4 "splits" of fp32 partials with made-up LSEs (one -inf).
    const int S = 4, rows = B * sq;
    std::vector<float> op(size_t(S) * rows * hq * d), lp(size_t(S) * rows * hq);
    for (size_t i = 0; i < op.size(); ++i) op[i] = float(int(i % 13) - 6) / 8.0f;
    for (size_t i = 0; i < lp.size(); ++i) lp[i] = (i % 11 == 3) ? -INFINITY : float(int(i % 5) - 2);
    test::DeviceBuffer d_op = test::to_device(op), d_lp = test::to_device(lp);
    test::DeviceBuffer co(size_t(rows) * hq * d * 2), cl(size_t(rows) * hq * 4);
    CUDA_ASSERT(test::poison(co));
    warpspec::CombineArgs cb;
    cb.out_partial = testbed::bshd_contiguous(d_op.get(), DType::kFP32, B, sq, hq, d);
    cb.num_splits = S, cb.out_partial_split_stride = int64_t(rows) * hq * d;
    cb.lse_partial.data = d_lp.get(), cb.lse_partial.dtype = DType::kFP32, cb.lse_partial.rank = 3;
    cb.lse_partial.shape[0] = B, cb.lse_partial.shape[1] = sq, cb.lse_partial.shape[2] = hq;
    cb.lse_partial.stride[0] = sq * hq, cb.lse_partial.stride[1] = hq, cb.lse_partial.stride[2] = 1;
    cb.lse_partial_split_stride = int64_t(rows) * hq;
    cb.out = testbed::bshd_contiguous(co.get(), t, B, sq, hq, d);
    cb.lse = testbed::lse_contiguous(cl.as<float>(), B, hq, sq);
    if (!through_c) {
      const warpspec::Status s3 = warpspec::attention_combine(cb, nullptr);
      ASSERT_TRUE(s3.ok()) << s3.to_string();
    } else {
      warpspec_combine_args cc = warpspec_combine_args_default();
      cc.out_partial = to_c(cb.out_partial), cc.num_splits = S, cc.out_partial_split_stride = cb.out_partial_split_stride;
      cc.lse_partial = to_c(cb.lse_partial), cc.lse_partial_split_stride = cb.lse_partial_split_stride;
      cc.out = to_c(cb.out), cc.lse = to_c(cb.lse);
      ASSERT_EQ(warpspec_attention_combine(&cc, nullptr), WARPSPEC_OK) << warpspec_last_error();
    }
    CUDA_ASSERT(cudaDeviceSynchronize());
    out->combined = host<uint16_t>(co), out->combined_lse = host<float>(cl);
  };
  Out cpp, c;
  step(false, &cpp);
  if (HasFatalFailure()) return;
  step(true, &c);
  if (HasFatalFailure()) return;
  auto same = [](const auto& a, const auto& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
  };
  EXPECT_TRUE(same(cpp.k, c.k)) << "k cache";
  EXPECT_TRUE(same(cpp.v, c.v)) << "v cache";
  EXPECT_TRUE(same(cpp.q, c.q)) << "rotated q";
  EXPECT_TRUE(same(cpp.o, c.o)) << "attention O";
  EXPECT_TRUE(same(cpp.lse, c.lse)) << "attention LSE";
  EXPECT_TRUE(same(cpp.combined, c.combined)) << "combined O";
  EXPECT_TRUE(same(cpp.combined_lse, c.combined_lse)) << "combined LSE";
  EXPECT_FALSE(same(cpp.k, host<uint16_t>(k0))) << "the append wrote nothing";
}

}  // namespace attention_serving_c_abi_test
