// The program's machine-readable side: the JSON writer and the --json records
// (tools/json.hpp, tools/record.hpp), the shapes `bench gemm --shape` takes, the
// --json/--device/--shape/--seqlen options' parsing on every command, and bench/plot.py
// reading the records (validation with any Python 3; the PNG where matplotlib exists).
// On a Hopper machine, real records: one per problem, whose configuration is the line
// WARPSPEC_LOG_CONFIG prints at the launch.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "testing/gemm_check.hpp"
#include "tools/gemm_record.hpp"
#include "tools/json.hpp"
#include "tools/record.hpp"
#include "tools/shapes.hpp"
#include "warpspec/device.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace cli_json_test {

namespace fs = std::filesystem;
namespace tools = warpspec::tools;
namespace json = warpspec::tools::json;

// Runs a shell command; (exit status, stdout). stderr goes to `err` when given, else
// to stdout.
std::pair<int, std::string> sh(const std::string& cmd, std::string* err = nullptr) {
  const fs::path err_file = fs::temp_directory_path() / ("warpspec-cli-json-" + std::to_string(getpid()) + ".err");
  const std::string full = cmd + (err ? " 2>" + err_file.string() : " 2>&1");
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(full.c_str(), "r"), pclose);
  if (!pipe) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  const int status = pclose(pipe.release());
  if (err) {
    std::ifstream in(err_file);
    std::stringstream ss;
    ss << in.rdbuf();
    *err = ss.str();
    fs::remove(err_file);
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string cli() { return WARPSPEC_CLI; }
std::string plot_script() { return std::string(WARPSPEC_SOURCE_DIR) + "/bench/plot.py"; }
std::string compare_script() { return std::string(WARPSPEC_SOURCE_DIR) + "/bench/compare.py"; }
bool have_hopper() { return warpspec::check_device().ok(); }

// A Python 3 that imports `module` ("" for any Python 3), or "".
std::string python_with(const std::string& module) {
  for (const char* py : {"python3", "/usr/bin/python3"}) {
    const std::string probe = std::string(py) + " -c 'import sys" + (module.empty() ? "" : ", " + module) + "'";
    if (sh(probe + " >/dev/null").first == 0) return py;
  }
  return "";
}

TEST(CliJson, WriterEscapesAndWritesNumbers) {
  EXPECT_EQ(json::quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(json::quote("H200 \xc2\xb5s"), "\"H200 \xc2\xb5s\"");  // UTF-8 passes through
  EXPECT_EQ(json::number(3.0), "3");
  EXPECT_EQ(json::number(-2.5), "-2.5");
  EXPECT_EQ(json::number(0.1), "0.10000000000000001");  // 17 digits: round-trips
  EXPECT_EQ(json::number(std::nan("")), "null");
  EXPECT_EQ(json::number(INFINITY), "null");
  EXPECT_EQ(json::number(int64_t(1) << 40), "1099511627776");
  json::Object o;
  o.str("s", "x").num("i", 7).boolean("b", false).null("n").obj("o", json::Object().num("z", 0.5));
  EXPECT_EQ(o.text(), R"({"s":"x","i":7,"b":false,"n":null,"o":{"z":0.5}})");
  EXPECT_EQ(json::array({"1", "\"a\""}), R"([1,"a"])");
  EXPECT_EQ(json::Object().text(), "{}");
}

TEST(CliJson, CallStatsAreTheMedianLeastAndNinetiethPercentile) {
  const tools::CallStats c = tools::call_stats_of({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(c.count, 10);
  EXPECT_DOUBLE_EQ(c.min, 1);
  EXPECT_DOUBLE_EQ(c.median, 5.5);
  EXPECT_DOUBLE_EQ(c.p90, 9);  // the 9th of 10 (nearest rank)
  EXPECT_DOUBLE_EQ(tools::call_stats_of({4, 2, 3}).p90, 4);
  EXPECT_DOUBLE_EQ(tools::call_stats_of({2}).p90, 2);
}

TEST(CliJson, ShapesParseAsMxNxK) {
  tools::GemmShape s;
  EXPECT_EQ(tools::parse_gemm_shape("4096x14336x4096", &s), "");
  EXPECT_EQ(s.m, 4096);
  EXPECT_EQ(s.n, 14336);
  EXPECT_EQ(s.k, 4096);
  EXPECT_EQ(tools::parse_gemm_shape("16X8X2147483647", &s), "");
  EXPECT_EQ(s.k, 2147483647);
  for (const char* bad : {"", "12x34", "1x2x3x4", "0x4x4", "4x-4x4", "axbxc", "4x4x4 ", "4x4x", "4x4x2147483648",
                          "99999999999999999999x1x1"})
    EXPECT_NE(tools::parse_gemm_shape(bad, &s), "") << "'" << bad << "' should be refused";
}

TEST(CliJson, ClustersParseAsMxNOrAuto) {
  int m = -1, n = -1;
  EXPECT_EQ(tools::parse_cluster("auto", &m, &n), "");
  EXPECT_EQ(m, 0);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(tools::parse_cluster("2x1", &m, &n), "");
  EXPECT_EQ(m, 2);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(tools::parse_cluster("1X2", &m, &n), "");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(tools::parse_cluster("2x2", &m, &n), "") << "parsed; the library refuses it by name";
  for (const char* bad : {"", "2", "2x", "x1", "0x1", "1x0", "9x1", "12x1", "2x1 ", "2*1", "-1x1", "Auto"})
    EXPECT_NE(tools::parse_cluster(bad, &m, &n), "") << "'" << bad << "' should be refused";
}

tools::TimingResult fake_timing(double ours_ms, double peer_ms) {
  tools::TimingResult t;
  t.ms = {{ours_ms, ours_ms * 0.98, ours_ms * 1.03}, {peer_ms, peer_ms * 0.99, peer_ms * 1.02}};
  t.ratio = {{1, 1, 1}, {peer_ms / ours_ms, peer_ms / ours_ms * 0.99, peer_ms / ours_ms * 1.01}};
  t.calls = {tools::call_stats_of({ours_ms * 0.97, ours_ms, ours_ms * 1.05}),
             tools::call_stats_of({peer_ms * 0.98, peer_ms, peer_ms * 1.04})};
  return t;
}

tools::RecordContext fake_context(const std::string& command) {
  tools::RecordContext c;
  c.command = command;
  c.device_name = "NVIDIA H200 \"test\"";
  c.sm_count = 132;
  c.version = "0.1.0";
  c.commit = "0123456789ab";
  return c;
}

std::string gemm_record(int64_t m, int64_t n, int64_t k, double ours_ms, double peer_ms, int tile_n = 0) {
  json::Object args;
  args.num("m", m).num("n", n).num("k", k).num("batch", 1).str("layout", "tn").str("dtype", "bf16");
  if (tile_n != 0) args.num("tile_n", tile_n);
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const std::string line = "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                           " l=1 in=bf16 out=bf16 tile=128x256x64 stages=3 cluster=1x1 raster=along_m swizzle=8 grid=132";
  return tools::make_record(fake_context("bench gemm"), "gemm", args, fake_timing(ours_ms, peer_ms), flops,
                            double(m * k + k * n + m * n) * 2, "cuBLAS", line);
}

std::string attention_record(int64_t seqlen, int head_dim, bool causal, double ms) {
  json::Object args;
  args.num("batch", 16384 / seqlen).num("seqlen_q", seqlen).num("seqlen_k", seqlen).num("heads", 2048 / head_dim);
  args.num("heads_kv", 2048 / head_dim).num("head_dim", head_dim).boolean("causal", causal).str("dtype", "bf16");
  tools::TimingResult t = fake_timing(ms, ms);
  t.ms.resize(1), t.ratio.resize(1), t.calls.resize(1);  // no peer in the program
  const std::string line = "attention batch=1 head_dim=" + std::to_string(head_dim) + " kernel_head_dim=" +
                           std::to_string(head_dim) + " order=" + (causal ? "longest_first" : "m_fastest");
  return tools::make_record(fake_context("bench attention"), "attention", args, t, 1e12, 1e9, "", line);
}

TEST(CliJson, RecordHasTheDocumentedShape) {
  const std::string r = gemm_record(4096, 4096, 4096, 0.25, 0.375);
  EXPECT_EQ(r.find('\n'), std::string::npos) << "one record, one line";
  for (const char* part :
       {R"({"schema":1,"command":"bench gemm","family":"gemm","args":{"m":4096,"n":4096,"k":4096,)",
        R"("device":{"index":0,"name":"NVIDIA H200 \"test\"","sm_count":132})",
        R"("warpspec":{"version":"0.1.0","commit":"0123456789ab"})", R"("timing":{"warmup_s":1,"rounds":5,"iters":20})",
        R"("ours":{"time_ms":{"median":0.25,"min":)", R"("calls":3,"round_median":0.25,)",
        R"("peer":{"name":"cuBLAS","time_ms":{"median":0.375,)", R"("ratio":{"median":1.5,)",
        R"("config":{"line":"gemm m=4096 n=4096 k=4096 l=1 in=bf16 out=bf16 tile=128x256x64 stages=3 cluster=1x1 )",
        R"("tile":"128x256x64","stages":3,"cluster":"1x1","raster":"along_m","swizzle":8,"grid":132})"})
    EXPECT_NE(r.find(part), std::string::npos) << "missing " << part << "\nin " << r;
  // TFLOP/s from the median over all calls: 2·4096³ FLOPs in 0.25 ms.
  const double tflops = 2.0 * 4096.0 * 4096.0 * 4096.0 / (0.25 * 1e-3) / 1e12;
  EXPECT_NE(r.find("\"tflops\":" + json::number(tflops)), std::string::npos) << r;
  const std::string a = attention_record(1024, 128, true, 0.5);
  EXPECT_NE(a.find(R"("peer":null,"ratio":null)"), std::string::npos) << a;
  EXPECT_NE(a.find(R"("causal":true)"), std::string::npos) << a;
  EXPECT_EQ(a.find("\"check\""), std::string::npos) << "no check ran: no check member";
}

// FP8 records say how the inputs were scaled; a peer that cannot run the problem is null,
// with the reason, and the plot script reads such a record.
TEST(CliJson, Fp8RecordsNameTheirScaling) {
  tools::GemmProblem p;
  p.in = warpspec::DType::kE4M3, p.out = warpspec::DType::kBF16, p.scale = tools::ScaleMode::kBlock;
  const std::string args = tools::gemm_args_json(p).text();
  EXPECT_NE(args.find(R"("dtype":"e4m3","out_dtype":"bf16","scaling":"block","fast_accum":false,)"), std::string::npos)
      << args;
  p.scale = tools::ScaleMode::kRow, p.fast_accum = true;
  EXPECT_NE(tools::gemm_args_json(p).text().find(R"("scaling":"row","fast_accum":true,)"), std::string::npos);
  const std::string bf16 = tools::gemm_args_json(tools::GemmProblem{}).text();
  EXPECT_NE(bf16.find(R"("dtype":"bf16","out_dtype":"bf16","scaling":"none")"), std::string::npos) << bf16;
  tools::TimingResult t = fake_timing(0.5, 0.5);
  t.ms.resize(1), t.ratio.resize(1), t.calls.resize(1);  // ours alone
  const std::string why = "cuBLASLt has no algorithm for it (cublasLtMatmulAlgoGetHeuristic found none)";
  const std::string r = tools::make_record(fake_context("bench gemm"), "gemm", tools::gemm_args_json(p), t, 1e12, 1e9,
                                           "", "gemm m=4096 n=4096 k=4096 in=e4m3 out=bf16", "", why);
  EXPECT_NE(r.find(R"("peer":null,"ratio":null,"peer_unavailable":")" + why + "\""), std::string::npos) << r;
  const std::string py = python_with("json");
  if (py.empty()) GTEST_SKIP() << "no Python 3 on this machine";
  const fs::path file = fs::temp_directory_path() / ("warpspec-fp8-" + std::to_string(getpid()) + ".jsonl");
  std::ofstream(file) << r << "\n";
  auto [rc, out] = sh(py + " " + plot_script() + " --check " + file.string());
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("1 records ok (1 gemm)"), std::string::npos) << out;
  fs::remove(file);
}

// Writes a sweep's worth of records, as `bench gemm --json` and `bench attention --json`
// would, to a file; returns its path.
fs::path write_records(const std::string& name) {
  const fs::path file = fs::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".jsonl");
  std::ofstream out(file);
  out << gemm_record(8192, 8192, 8192, 1.62, 1.66) << "\n" << gemm_record(4096, 4096, 4096, 0.21, 0.21) << "\n";
  out << gemm_record(16, 4096, 4096, 0.0129, 0.0092) << "\n\n";  // a blank line is skipped
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (int64_t s : {512, 1024, 2048}) out << attention_record(s, d, causal, 0.1 * double(s) / 512) << "\n";
  return file;
}

TEST(CliJson, PlotScriptReadsTheRecords) {
  const std::string py = python_with("json");
  if (py.empty()) GTEST_SKIP() << "no Python 3 on this machine";
  const fs::path file = write_records("warpspec-records");
  auto [rc, out] = sh(py + " " + plot_script() + " --check " + file.string());
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("15 records ok (12 attention, 3 gemm)"), std::string::npos) << out;
  // A table is not a record: refused, naming the line.
  std::ofstream(file, std::ios::app) << "8192x8192x8192 tn bf16->bf16   1.6200 680.7 (678.1-682.0)\n";
  auto [rc2, out2] = sh(py + " " + plot_script() + " --check " + file.string());
  EXPECT_EQ(rc2, 1) << out2;
  EXPECT_NE(out2.find(file.string() + ":17: not a JSON record"), std::string::npos) << out2;
  // A record without its times is refused, naming the field.
  std::ofstream(file) << R"({"schema":1,"command":"gemm","family":"gemm","args":{"m":1,"n":1,"k":1}})" << "\n";
  auto [rc3, out3] = sh(py + " " + plot_script() + " --check " + file.string());
  EXPECT_EQ(rc3, 1) << out3;
  EXPECT_NE(out3.find("missing"), std::string::npos) << out3;
  fs::remove(file);
}

// `bench decode --json`'s records (tools/decode_cmd.cpp): the plot script reads them too.
std::string decode_record(int64_t batch, int64_t cache, int64_t page, double ms) {
  json::Object args;
  args.num("batch", batch).num("seqlen_q", int64_t(1)).num("seqlen_k", cache).num("heads", 32).num("heads_kv", 8);
  args.num("head_dim", 128).str("dtype", "bf16").num("page_size", page).num("num_splits", int64_t(0));
  args.num("kv_bytes", 2.0 * 2.0 * double(batch * cache * 8 * 128));
  tools::TimingResult t = fake_timing(ms, ms);
  t.ms.resize(1), t.ratio.resize(1), t.calls.resize(1);
  return tools::make_record(fake_context("bench decode"), "decode", args, t, 1e9, 1e9, "",
                            "attention batch=1 head_dim=128 kernel_head_dim=128 splits=16 grid=132");
}

TEST(CliJson, PlotScriptReadsDecodeRecords) {
  const std::string py = python_with("json");
  if (py.empty()) GTEST_SKIP() << "no Python 3 on this machine";
  const fs::path file = fs::temp_directory_path() / ("warpspec-decode-" + std::to_string(getpid()) + ".jsonl");
  {
    std::ofstream out(file);
    for (int64_t page : {0, 64}) out << decode_record(1, 131072, page, 0.15) << "\n" << decode_record(32, 4096, page, 0.15) << "\n";
  }
  auto [rc, out] = sh(py + " " + plot_script() + " --check " + file.string());
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("4 records ok (4 decode)"), std::string::npos) << out;
  fs::remove(file);
}

// bench/compare.py (scripts/gpu-bench-compare's table): our figure per build and pass,
// each build's ratio to the first build's over every pair of passes; the peer is ignored.
TEST(CliJson, CompareScriptSetsBuildsSideBySide) {
  const std::string py = python_with("json");
  if (py.empty()) GTEST_SKIP() << "no Python 3 on this machine";
  const std::string script = compare_script();
  std::vector<fs::path> files;
  std::string passes;
  // base, new, new, base: new is twice as fast at attention and half as fast at GEMM, its
  // passes 0.25 and 0.2 ms against base's 0.5 and 0.4 (the GEMM peer at 0.1 ms throughout).
  const std::pair<const char*, double> order[4] = {{"base", 0.5}, {"new", 0.25}, {"new", 0.2}, {"base", 0.4}};
  for (int i = 0; i < 4; ++i) {
    files.push_back(fs::temp_directory_path() / ("warpspec-compare-" + std::to_string(getpid()) + "-" +
                                                 std::to_string(i) + ".jsonl"));
    const double a = order[i].second, g = order[i].first == std::string("new") ? 4 * a : a / 1.25;
    std::ofstream(files.back()) << attention_record(1024, 64, false, a) << "\n"
                                << gemm_record(4096, 4096, 4096, g, 0.1) << "\n";
    passes += std::string(" ") + order[i].first + "=" + files.back().string();
  }
  auto [rc, out] = sh(py + " " + script + passes);
  EXPECT_EQ(rc, 0) << out;
  // Attention: base 2000 and 2500 TFLOP/s, new 4000 and 5000: ratio of means 2, pairs 1.6..2.5.
  EXPECT_NE(out.find("2000.0 / 2500.0"), std::string::npos) << out;
  EXPECT_NE(out.find("2.000 (1.600-2.500)"), std::string::npos) << out;
  // GEMM: base at 0.4 and 0.32 ms, new at 1.0 and 0.8: a third as fast, the peer not in it.
  EXPECT_NE(out.find("0.400 (0.320-0.500)"), std::string::npos) << out;
  EXPECT_EQ(out.find("cuBLAS"), std::string::npos) << out;
  auto [rc2, out2] = sh(py + " " + script + " " + files[0].string());
  EXPECT_EQ(rc2, 1) << out2;
  EXPECT_NE(out2.find("expected LABEL=FILE"), std::string::npos) << out2;
  for (const fs::path& f : files) fs::remove(f);
}

// A problem run once per --tile-n keeps one row per width in the comparison (until v39 the
// rows were keyed by the problem alone and the last width's record hid the others).
TEST(CliJson, CompareKeepsARowPerTileWidth) {
  const std::string py = python_with("json");
  if (py.empty()) GTEST_SKIP() << "no Python 3 on this machine";
  const std::string script = compare_script();
  std::vector<fs::path> files;
  std::string passes;
  // base: 128 wide at 0.2 ms, 256 wide at 0.4; new: 128 wide at 0.1 ms (twice as fast), 256 unchanged.
  for (const char* label : {"base", "new"}) {
    files.push_back(fs::temp_directory_path() /
                    ("warpspec-compare-n-" + std::to_string(getpid()) + "-" + label + ".jsonl"));
    const double n128 = std::string(label) == "new" ? 0.1 : 0.2;
    std::ofstream(files.back()) << gemm_record(4096, 4096, 4096, n128, 0.1, 128) << "\n"
                                << gemm_record(4096, 4096, 4096, 0.4, 0.1, 256) << "\n";
    passes += std::string(" ") + label + "=" + files.back().string();
  }
  auto [rc, out] = sh(py + " " + script + passes);
  EXPECT_EQ(rc, 0) << out;
  const size_t r128 = out.find("4096x4096x4096 n128"), r256 = out.find("4096x4096x4096 n256");
  ASSERT_NE(r128, std::string::npos) << out;
  ASSERT_NE(r256, std::string::npos) << out;
  const std::string row128 = out.substr(r128, out.find('\n', r128) - r128);
  const std::string row256 = out.substr(r256, out.find('\n', r256) - r256);
  EXPECT_NE(row128.find("2.000 (2.000-2.000)"), std::string::npos) << out;
  EXPECT_NE(row256.find("1.000 (1.000-1.000)"), std::string::npos) << out;
  for (const fs::path& f : files) fs::remove(f);
}

TEST(CliJson, PlotWritesAPng) {
  const std::string py = python_with("matplotlib");
  if (py.empty()) GTEST_SKIP() << "matplotlib is not installed (Debian: python3-matplotlib)";
  const fs::path file = write_records("warpspec-plot");
  const fs::path png = fs::temp_directory_path() / ("warpspec-plot-" + std::to_string(getpid()) + ".png");
  auto [rc, out] = sh("cat " + file.string() + " | " + py + " " + plot_script() + " -o " + png.string());
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  EXPECT_EQ(std::string(magic, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(fs::file_size(png), 20000u) << "five panels of bars and labels";
  fs::remove(file);
  if (std::getenv("WARPSPEC_KEEP_PLOT") == nullptr) fs::remove(png);
  else std::printf("kept %s\n", png.c_str());
}

// --json and --device parse on every command: with every GPU hidden, each exits 3 (no
// GPU) with one line on stderr and nothing on stdout, never 2 (usage).
// bench gemm --control: a third candidate, the peer again; the record gives the peer's
// speed over its second run's, and only when there is a second run.
TEST(CliJson, ControlIsThePeersSpeedOverItsSecondRun) {
  json::Object args;
  args.num("m", 64).num("n", 64).num("k", 64);
  tools::TimingResult t = fake_timing(0.25, 0.30);
  EXPECT_EQ(tools::make_record(fake_context("bench gemm"), "gemm", args, t, 1e9, 1e6, "cuBLAS", "gemm m=64")
                .find("\"control\""),
            std::string::npos);
  t.ms.push_back(tools::Spread{0.33, 0.32, 0.35});
  t.ratio.push_back(tools::Spread{0.33 / 0.25, 0.3, 1.5});
  t.calls.push_back(t.calls[1]);
  // A third candidate that is not the peer's second run (bench gemm --plain's) is no control.
  EXPECT_EQ(tools::make_record(fake_context("bench gemm"), "gemm", args, t, 1e9, 1e6, "cuBLAS", "gemm m=64")
                .find("\"control\""),
            std::string::npos);
  t.has_control = true;
  const std::string r = tools::make_record(fake_context("bench gemm"), "gemm", args, t, 1e9, 1e6, "cuBLAS", "gemm m=64");
  const size_t at = r.find("\"control\":");
  ASSERT_NE(at, std::string::npos) << r;
  EXPECT_NEAR(std::stod(r.substr(at + 10)), 0.30 / 0.33, 1e-6) << r;
}

// bench gemm --plain: ours without the fused epilogue, the last candidate; the record gives
// its figures and the fused call's time over it, beside the peer and a control.
TEST(CliJson, PlainIsOursWithoutTheEpilogueLast) {
  json::Object args;
  args.num("m", 64).num("n", 64).num("k", 64);
  tools::TimingResult t = fake_timing(0.25, 0.30);
  t.ms.push_back(tools::Spread{0.31, 0.30, 0.32});  // the control (the peer again)
  t.ratio.push_back(tools::Spread{0.31 / 0.25, 1.2, 1.3});
  t.calls.push_back(t.calls[1]);
  t.has_control = true;
  t.ms.push_back(tools::Spread{0.20, 0.19, 0.21});  // ours plain
  t.ratio.push_back(tools::Spread{0.8, 0.78, 0.82});
  t.calls.push_back(tools::call_stats_of({0.19, 0.20, 0.22}));
  EXPECT_EQ(tools::make_record(fake_context("bench gemm"), "gemm", args, t, 1e9, 1e6, "cuBLAS", "gemm m=64")
                .find("\"plain\""),
            std::string::npos);  // not without has_plain
  t.has_plain = true;
  EXPECT_NEAR(t.plain_cost(), 0.25 / 0.20, 1e-12);
  EXPECT_NEAR(t.control(), 0.30 / 0.31, 1e-12);
  const std::string r = tools::make_record(fake_context("bench gemm"), "gemm", args, t, 1e9, 1e6, "cuBLAS", "gemm m=64");
  const size_t at = r.find("\"epilogue_cost\":");
  ASSERT_NE(at, std::string::npos) << r;
  EXPECT_NEAR(std::stod(r.substr(at + 16)), 0.25 / 0.20, 1e-6) << r;
  EXPECT_NE(r.find("\"plain\":{"), std::string::npos) << r;
  EXPECT_NE(r.find("\"control\":"), std::string::npos) << r;
}

// --bias and --activation: the problem's name and its record's args say them.
TEST(CliJson, EpilogueOptionsNameTheProblem) {
  tools::GemmProblem p;
  EXPECT_FALSE(p.fused());
  p.bias = true;
  p.activation = warpspec::GemmActivation::kGeluTanh;
  EXPECT_TRUE(p.fused());
  const std::string a = tools::gemm_args_json(p).text();
  EXPECT_NE(a.find("\"bias\":true"), std::string::npos) << a;
  EXPECT_NE(a.find("\"activation\":\"gelu_tanh\""), std::string::npos) << a;
  for (const char* name : tools::kActivationNames) {
    warpspec::GemmActivation act = warpspec::GemmActivation::kReLU;
    ASSERT_TRUE(tools::parse_activation(name, &act)) << name;
    EXPECT_STREQ(tools::activation_name(act), name);
  }
  warpspec::GemmActivation act = warpspec::GemmActivation::kReLU;
  EXPECT_FALSE(tools::parse_activation("gelu-tanh", &act));
  EXPECT_EQ(act, warpspec::GemmActivation::kReLU);
  // The reference's activations at a few points (torch's definitions).
  EXPECT_DOUBLE_EQ(warpspec::testbed::activate(warpspec::GemmActivation::kReLU, -2.0), 0.0);
  EXPECT_NEAR(warpspec::testbed::activate(warpspec::GemmActivation::kGeluErf, 1.0), 0.8413447460685429, 1e-12);
  EXPECT_NEAR(warpspec::testbed::activate(warpspec::GemmActivation::kGeluTanh, 1.0), 0.8411919906082768, 1e-12);
  EXPECT_NEAR(warpspec::testbed::activate(warpspec::GemmActivation::kSiLU, 1.0), 0.7310585786300049, 1e-12);
}

TEST(CliJson, JsonAndDeviceAreAcceptedOnEveryCommand) {
  for (const char* args : {"info --json", "info --json --device 0", "demo --json", "demo --device 1",
                           "gemm --json --device 0 --peer --m 256", "attention --json --device 0 --head-dim 96",
                           "bench gemm --json --shape 64x64x64 --shape 128x256x512 --dtype fp16",
                           "bench gemm --control --shape 64x64x64",
                           "bench gemm --bias --activation gelu_tanh --plain --shape 64x64x64",
                           "gemm --json --bias --activation silu --check --peer",
                           "gemm --json --dtype e4m3 --scaling block --check --peer",
                           "bench gemm --json --dtype e4m3 --scaling row --fast-accum --out-dtype fp16",
                           "bench attention --json --seqlen 512 1024 --head-dim 64 --head-dim 128 --tokens 4096",
                           "bench attention --seqlens 512 --head-dims 64 --causal-only --hidden 1024",
                           "bench decode --json --device 0 --page-sizes 0 64 --num-splits 3",
                           "bench decode --head-dim 64 --page-sizes 0"}) {
    std::string err;
    auto [rc, out] = sh("CUDA_VISIBLE_DEVICES= " + cli() + " " + args, &err);
    EXPECT_EQ(rc, 3) << args << "\n" << out << err;
    EXPECT_EQ(out, "") << args << ": nothing on stdout without a GPU";
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args << "\n" << err;
  }
}

TEST(CliJson, BadShapesDevicesAndListsAreUsageErrors) {
  for (const char* args : {"bench gemm --shape 12x34", "bench gemm --shape 0x4x4", "bench gemm --shape 4x4x4x4",
                           "bench gemm --shape", "gemm --device -2", "gemm --device x", "info --device 1.5",
                           "bench attention --seqlen 0", "bench attention --head-dim 300",
                           "bench attention --causal-only --full-only", "gemm --dtype fp32", "attention --dtype e5m2",
                           "bench gemm --dtype fp32", "gemm --out-dtype fp8", "bench decode --num-splits 200",
                           "bench decode --page-sizes -16", "bench decode --page-sizes x", "bench decode --head-dim 300",
                           "bench decode --head-dim 0", "gemm --activation gelu-tanh", "bench gemm --activation tanh",
                           "bench gemm --plain --shape 64x64x64"}) {
    auto [rc, out] = sh(cli() + " " + args);
    EXPECT_EQ(rc, 2) << args << "\n" << out;
    EXPECT_LT(out.size(), 400u) << args << ": a usage error should be short\n" << out;
  }
  auto [rc, out] = sh(cli() + " bench gemm --shape 12x34");
  EXPECT_NE(out.find("expected MxNxK"), std::string::npos) << out;
}

TEST(CliJson, HelpListsTheNewOptions) {
  auto [rc, out] = sh(cli() + " bench gemm --help");
  EXPECT_EQ(rc, 0) << out;
  for (const char* opt : {"--shape", "--json", "--device", "--dtype"}) EXPECT_NE(out.find(opt), std::string::npos) << opt;
  auto [rc2, out2] = sh(cli() + " bench attention --help");
  EXPECT_EQ(rc2, 0) << out2;
  for (const char* opt : {"--seqlen", "--head-dim", "--tokens", "--hidden", "--json"})
    EXPECT_NE(out2.find(opt), std::string::npos) << opt;
  auto [rc3, out3] = sh(cli() + " bench decode --help");
  EXPECT_EQ(rc3, 0) << out3;
  for (const char* opt : {"--page-sizes", "--num-splits", "--head-dim", "--json", "--rounds"})
    EXPECT_NE(out3.find(opt), std::string::npos) << opt;
}

// On a Hopper GPU: one record per problem on stdout, nothing else there; the record's
// configuration is the line the launch logged (WARPSPEC_LOG_CONFIG=1); the records pass
// the plot script's validation.
TEST(CliJson, RecordsFromARealRunOnHopper) {
  if (!have_hopper()) GTEST_SKIP() << "needs a Hopper GPU (without one, the commands exit 3: tested above)";
  std::string err;
  const std::string fast = " --rounds 2 --iters 2 --warmup-s 0.05";
  auto [rc, out] = sh("WARPSPEC_LOG_CONFIG=1 " + cli() + " gemm --json --peer --check --m 1000 --n 520 --k 264" + fast,
                      &err);
  ASSERT_EQ(rc, 0) << out << err;
  ASSERT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  const size_t at = out.find(R"("line":")");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string line = out.substr(at + 8, out.find('"', at + 8) - at - 8);
  EXPECT_NE(err.find("warpspec: " + line + "\n"), std::string::npos) << "logged:\n" << err << "described:\n" << line;
  for (const char* part : {R"("peer":{"name":"cuBLAS")", R"("check":{)", R"("passed":true)", R"("m":1000)"})
    EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out;
  const fs::path file = fs::temp_directory_path() / ("warpspec-real-" + std::to_string(getpid()) + ".jsonl");
  // --control: the peer's second run in the same interleaving, its ratio in each record.
  auto [rc4, out4] = sh(cli() + " bench gemm --json --control --shape 512x512x256" + fast);
  ASSERT_EQ(rc4, 0) << out4;
  const size_t ctl = out4.find("\"control\":");
  ASSERT_NE(ctl, std::string::npos) << out4;
  const double control = std::stod(out4.substr(ctl + 10));
  EXPECT_GT(control, 0.5) << out4;  // the same call twice: about 1, never a factor of 2 apart
  EXPECT_LT(control, 2.0) << out4;
  // Inputs rotate past L2 by default (512 KB a set: many sets); --no-rotate times one set.
  const size_t sets_at = out4.find("\"input_sets\":");
  ASSERT_NE(sets_at, std::string::npos) << out4;
  EXPECT_GT(std::stoi(out4.substr(sets_at + 13)), 1) << out4;
  auto [rc9, out9] = sh(cli() + " bench gemm --json --no-rotate --shape 512x512x256" + fast);
  ASSERT_EQ(rc9, 0) << out9;
  EXPECT_NE(out9.find(R"("input_sets":1})"), std::string::npos) << out9;
  // --plain: ours without the epilogue beside the fused call; its cost in the record.
  auto [rc5, out5] = sh(cli() + " bench gemm --json --bias --activation gelu_tanh --plain --shape 512x512x256" + fast);
  ASSERT_EQ(rc5, 0) << out5;
  const size_t cost_at = out5.find("\"epilogue_cost\":");
  ASSERT_NE(cost_at, std::string::npos) << out5;
  const double cost = std::stod(out5.substr(cost_at + 16));
  EXPECT_GT(cost, 0.5) << out5;  // the epilogue's extra work: more time, never half or thrice
  EXPECT_LT(cost, 3.0) << out5;
  for (const char* part : {R"("bias":true)", R"("activation":"gelu_tanh")", R"("plain":{)"})
    EXPECT_NE(out5.find(part), std::string::npos) << part << "\n" << out5;
  // --versus-schedule: ours with the other schedule in the same interleaving; its speed ratio.
  auto [rc6, out6] = sh(cli() + " bench gemm --json --schedule pingpong --versus-schedule cooperative --shape 640x512x256" +
                        fast);
  ASSERT_EQ(rc6, 0) << out6;
  for (const char* part : {R"("schedule":"pingpong")", R"("versus":{)", R"(schedule=pingpong)"})
    EXPECT_NE(out6.find(part), std::string::npos) << part << "\n" << out6;
  const std::string vs_key = R"("ratio":{"median":)";
  const size_t vs_at = out6.find(vs_key, out6.find(R"("versus":{)"));
  ASSERT_NE(vs_at, std::string::npos) << out6;
  const double vs = std::stod(out6.substr(vs_at + vs_key.size()));
  EXPECT_GT(vs, 0.33) << out6;  // two kernels of one GEMM: within a factor of 3 of each other
  EXPECT_LT(vs, 3.0) << out6;
  // --raster with --versus-raster: ours along M against ours along N, in the same interleaving.
  auto [rc7, out7] = sh(cli() + " bench gemm --json --raster m --versus-raster n --shape 256x2048x128" + fast);
  ASSERT_EQ(rc7, 0) << out7;
  for (const char* part : {R"("versus":{)", R"(raster=along_m)"})
    EXPECT_NE(out7.find(part), std::string::npos) << part << "\n" << out7;
  // --versus-cluster: ours on the 128 x 256 TN kernel's 2 x 1 pair against its 1 x 1 form.
  auto [rc8, out8] = sh(cli() + " bench gemm --json --tile-n 256 --cluster 2x1 --versus-cluster 1x1 --shape 512x1024x128" + fast);
  ASSERT_EQ(rc8, 0) << out8;
  for (const char* part : {R"("versus":{)", R"(cluster=2x1)"})
    EXPECT_NE(out8.find(part), std::string::npos) << part << "\n" << out8;
  auto [rc2, out2] = sh(cli() + " bench gemm --json --shape 256x256x128 --shape 512x128x64" + fast + " > " +
                        file.string() + " && " + cli() + " bench attention --json --seqlen 256 --head-dim 64 --tokens 512" +
                        fast + " >> " + file.string());
  ASSERT_EQ(rc2, 0) << out2;
  const std::string py = python_with("json");
  if (!py.empty()) {
    auto [rc3, out3] = sh(py + " " + plot_script() + " --check " + file.string());
    EXPECT_EQ(rc3, 0) << out3;
    EXPECT_NE(out3.find("4 records ok (2 attention, 2 gemm)"), std::string::npos) << out3;
  }
  fs::remove(file);
}

// On a Hopper GPU, FP8: a checked record that names its scaling and its peer (cuBLASLt's
// figures, its D checked against the same reference, or null with the reason), and a sweep
// per scaling the plot script reads.
TEST(CliJson, Fp8RecordsFromARealRunOnHopper) {
  if (!have_hopper()) GTEST_SKIP() << "needs a Hopper GPU (without one, the commands exit 3: tested above)";
  const std::string fast = " --rounds 2 --iters 2 --warmup-s 0.05";
  auto [rc, out] =
      sh(cli() + " gemm --json --dtype e4m3 --scaling block --peer --check --m 1000 --n 520 --k 1040" + fast);
  ASSERT_EQ(rc, 0) << out;
  ASSERT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  for (const char* part : {R"("dtype":"e4m3")", R"("scaling":"block")", R"("check":{)", R"("passed":true)"})
    EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out;
  if (out.find(R"("peer":null,"ratio":null,"peer_unavailable":)") == std::string::npos) {
    EXPECT_NE(out.find(R"("peer":{"name":"cuBLASLt")"), std::string::npos) << out;
    EXPECT_NE(out.find(R"("peer":{"name":"cuBLASLt","passed":true,)"), std::string::npos) << "its D checked\n" << out;
  }
  const fs::path file = fs::temp_directory_path() / ("warpspec-fp8-real-" + std::to_string(getpid()) + ".jsonl");
  for (const char* scaling : {"tensor", "row", "block"}) {
    auto [rc2, out2] = sh(cli() + " bench gemm --json --dtype e4m3 --scaling " + scaling +
                          " --shape 256x256x256 --shape 512x384x1024" + fast + " >> " + file.string());
    ASSERT_EQ(rc2, 0) << scaling << "\n" << out2;
  }
  const std::string py = python_with("json");
  if (!py.empty()) {
    auto [rc3, out3] = sh(py + " " + plot_script() + " --check " + file.string());
    EXPECT_EQ(rc3, 0) << out3;
    EXPECT_NE(out3.find("6 records ok (6 gemm)"), std::string::npos) << out3;
  }
  fs::remove(file);
}

}  // namespace cli_json_test
