// `warpspec bench decode`: the serving bar's decode shapes (issue 14): bf16, head dim 128
// (--head-dim for others), 32 query heads over 8 KV heads, one query token, num_splits
// chosen by the heuristic, a dense and a paged (page 64) cache. Memory-bound, so the
// figure is GB/s of K+V read.
// The peer (PyTorch SDPA's cuDNN and flash backends, same process) is
// bench/decode_vs_torch.py: this program cannot call PyTorch.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../testing/views.hpp"
#include "commands.hpp"
#include "json.hpp"
#include "record.hpp"
#include "timing.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {
namespace {

struct DecodeShape {
  int64_t batch, cache;
};

struct BenchDecodeOptions {
  TimingOptions timing;
  std::vector<int64_t> pages{0, 64};  // 0: the dense cache
  int splits = 0;                     // 0: the heuristic
  int64_t heads = 32, heads_kv = 8, head_dim = 128;
};

// Device buffers freed on scope exit.
struct DeviceBuffers {
  std::vector<void*> ptrs;
  Status status;
  void* alloc(size_t bytes, int fill) {
    if (!status.ok()) return nullptr;
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(bytes, 16));
    if (e == cudaSuccess) e = cudaMemset(p, fill, bytes);
    if (e != cudaSuccess) {
      status = cuda_error("cudaMalloc/cudaMemset(" + std::to_string(bytes) + ")", e);
      return nullptr;
    }
    ptrs.push_back(p);
    return p;
  }
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
};

TensorView i32_view(void* p, int64_t n) {
  TensorView v;
  v.data = p, v.dtype = DType::kI32, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}

int run_bench_decode(const BenchDecodeOptions& o) {
  if (int rc = require_hopper()) return rc;
  const bool json = common_options().json;
  const DecodeShape shapes[] = {{1, 131072}, {1, 8192}, {32, 4096}};
  const int64_t h = o.heads, hk = o.heads_kv, d = o.head_dim;
  if (!json) {
    std::printf("# bf16 d=%ld, %ld q heads / %ld kv heads, seqlen_q 1, num_splits %s; GB/s of K+V read. after %.1f s "
                "of load; median of %d rounds (least-largest). Peer: bench/decode_vs_torch.py\n",
                long(d), long(h), long(hk), o.splits == 0 ? "auto" : std::to_string(o.splits).c_str(),
                o.timing.warmup_seconds, o.timing.rounds);
    std::printf("%-6s %7s %6s %10s %-24s %s\n", "batch", "cache", "page", "ms", "GB/s (K+V)", "config");
  }
  const RecordContext ctx = json ? record_context("bench decode", o.timing) : RecordContext{};
  for (const DecodeShape& sh : shapes)
    for (int64_t page : o.pages) {
      const int64_t kv_elems = sh.batch * sh.cache * hk * d;
      const double kv_bytes = 2.0 * double(kv_elems) * 2.0;
      // Enough copies of the cache that a round does not run from L2 (50 MB on the H200).
      const int sets = int(std::clamp<double>(std::ceil(256e6 / kv_bytes), 1, 8));
      DeviceBuffers mem;
      std::vector<AttentionArgs> args(static_cast<size_t>(sets));
      std::mt19937 rng(uint32_t(sh.batch * 7919 + sh.cache + page));
      std::vector<int32_t> lens(size_t(sh.batch), int32_t(sh.cache));
      void* seqused = mem.alloc(size_t(sh.batch) * 4, 0);
      if (seqused && cudaMemcpy(seqused, lens.data(), lens.size() * 4, cudaMemcpyHostToDevice) != cudaSuccess)
        mem.status = internal_error("cudaMemcpy(seqused_k)");
      void* o_ = mem.alloc(size_t(sh.batch * h * d) * 2, 0);
      void* lse = mem.alloc(size_t(sh.batch * h) * 4, 0);
      for (int s = 0; s < sets && mem.status.ok(); ++s) {
        AttentionArgs& a = args[size_t(s)];
        // 0x3c3c: bf16 0.0115; the values do not change what a memory-bound kernel reads.
        void* q = mem.alloc(size_t(sh.batch * h * d) * 2, 0x3c);
        void* k = mem.alloc(size_t(kv_elems) * 2, 0x3c);
        void* v = mem.alloc(size_t(kv_elems) * 2, 0x3c);
        a.q = testbed::bshd_contiguous(q, DType::kBF16, sh.batch, 1, h, d);
        a.o = testbed::bshd_contiguous(o_, DType::kBF16, sh.batch, 1, h, d);
        a.lse = testbed::lse_contiguous(static_cast<float*>(lse), sh.batch, h, 1);
        a.seqused_k = i32_view(seqused, sh.batch);
        a.num_splits = o.splits;
        if (page == 0) {
          a.k = testbed::bshd_contiguous(k, DType::kBF16, sh.batch, sh.cache, hk, d);
          a.v = testbed::bshd_contiguous(v, DType::kBF16, sh.batch, sh.cache, hk, d);
        } else {
          const int64_t per_seq = (sh.cache + page - 1) / page, pages = sh.batch * per_seq;
          a.k = testbed::bshd_contiguous(k, DType::kBF16, pages, page, hk, d);
          a.v = testbed::bshd_contiguous(v, DType::kBF16, pages, page, hk, d);
          std::vector<int32_t> table(static_cast<size_t>(pages));
          std::iota(table.begin(), table.end(), 0);
          std::shuffle(table.begin(), table.end(), rng);  // pages in random order, as a serving pool leaves them
          void* t = mem.alloc(table.size() * 4, 0);
          if (t && cudaMemcpy(t, table.data(), table.size() * 4, cudaMemcpyHostToDevice) != cudaSuccess)
            mem.status = internal_error("cudaMemcpy(page_table)");
          a.page_table.data = t, a.page_table.dtype = DType::kI32, a.page_table.rank = 2;
          a.page_table.shape[0] = sh.batch, a.page_table.shape[1] = per_seq;
          a.page_table.stride[0] = per_seq, a.page_table.stride[1] = 1;
        }
      }
      if (int rc = report(mem.status)) return rc;
      if (int rc = report(check(args[0]))) return rc;
      TimingStream stream;
      if (int rc = report(stream.status())) return rc;
      std::vector<Candidate> cands(1);
      cands[0].run = [&](int i, cudaStream_t st) { return attention_forward(args[size_t(i % sets)], st); };
      TimingResult t;
      if (int rc = report(time_interleaved(cands, o.timing, stream.get(), &t))) return rc;
      std::string config;
      if (int rc = report(describe(args[0], &config))) return rc;
      // The bytes of the floor: K and V once, plus Q, O and the LSE (small at seqlen_q 1).
      const double bytes = kv_bytes + double(sh.batch * h * d) * 4.0 + double(sh.batch * h) * 4.0;
      if (json) {
        json::Object p;
        p.num("batch", sh.batch).num("seqlen_q", int64_t(1)).num("seqlen_k", sh.cache).num("heads", h);
        p.num("heads_kv", hk).num("head_dim", d).str("dtype", "bf16").num("page_size", page);
        p.num("num_splits", int64_t(o.splits)).num("kv_bytes", kv_bytes);
        std::printf("%s\n", make_record(ctx, "decode", p, t, 4.0 * double(h * d * sh.batch * sh.cache), bytes, "",
                                        config).c_str());
      } else {
        Spread gbs = t.ms[0];
        gbs.median = kv_bytes / (t.ms[0].median * 1e6), gbs.lo = kv_bytes / (t.ms[0].hi * 1e6),
        gbs.hi = kv_bytes / (t.ms[0].lo * 1e6);
        std::string words;  // the split count and grid the heuristic chose
        for (const char* key : {"splits=", "grid="}) {
          const size_t at = config.find(key);
          if (at != std::string::npos) words += config.substr(at, config.find(' ', at) - at) + " ";
        }
        std::printf("%-6ld %7ld %6s %10.4f %-24s %s\n", long(sh.batch), long(sh.cache),
                    page ? std::to_string(page).c_str() : "-", t.ms[0].median, format_spread(gbs, 0).c_str(),
                    words.c_str());
      }
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace

void register_bench_decode(CLI::App* bench, int& exit_code) {
  auto* a = bench->add_subcommand(
      "decode", "decode at the memory limit: bf16 d=128 (--head-dim), 32/8 heads, seqlen_q 1, batch 1 x 128k, 1 x 8k, "
                "32 x 4k, dense and paged (page 64); GB/s of K+V read");
  auto o = std::make_shared<BenchDecodeOptions>();
  add_timing_options(a, o->timing);
  a->add_option("--page-sizes", o->pages, "0 for the dense cache, else page sizes (multiples of 16)")
      ->check(CLI::Range(int64_t(0), int64_t(4096)));
  a->add_option("--num-splits", o->splits, "0: the heuristic (default); 1: no split; up to 128")
      ->check(CLI::Range(0, 128));
  a->add_option("--head-dim", o->head_dim, std::string("head dim, default 128: ") + kHeadDimHelp)
      ->check(CLI::Range(int64_t(8), int64_t(256), "HEAD_DIM"));
  add_common_options(a);
  a->callback([o, &exit_code] { exit_code = run_bench_decode(*o); });
}

}  // namespace warpspec::tools
