#pragma once
// The --json records: one JSON object per problem, one per line (JSON Lines), on stdout.
// bench/plot.py reads them; README.md ("Machine-readable results") lists the fields.
// Header-only, from plain values, so the host tests check the exact records.
//
//   {"schema":1, "command":"bench gemm", "family":"gemm",
//    "args":{...the problem as the command line gave it...},
//    "device":{"index":0, "name":"NVIDIA H200", "sm_count":132},
//    "warpspec":{"version":"0.1.0", "commit":"0123456789ab"},
//    "timing":{"warmup_s":1, "rounds":5, "iters":20},
//    "ours":{"time_ms":{"median":..,"min":..,"p90":..,"calls":100,
//                       "round_median":..,"round_min":..,"round_max":..},
//            "tflops":.., "gbps":..},
//    "peer":{"name":"cuBLAS", "time_ms":{...}, "tflops":.., "gbps":..} or null,
//    "ratio":{"median":..,"min":..,"max":..} or null,   ours' speed / the peer's, per round
//    "peer_unavailable":"..." when the command has a peer that cannot run the problem (why),
//    "config":{"line":"gemm m=... tile=128x256x64 ...", "tile":"128x256x64", "stages":3, ...},
//    "check":{...} when --check ran}
//
// Times are milliseconds per call: median, least and 90th percentile over every timed
// call; round_* are the median and extremes of the per-round medians (what the tables
// print). tflops and gbps come from the median over all calls; gbps counts the fewest
// bytes the problem must move (each input read once, each output written once).
#include <cctype>
#include <string>
#include <string_view>

#include "json.hpp"
#include "timing.hpp"

namespace warpspec::tools {

inline constexpr int kRecordSchema = 1;

// What every record says about where and how it was measured.
struct RecordContext {
  std::string command;  // "bench gemm", "gemm", ...
  int device = 0;
  std::string device_name;
  int sm_count = 0;
  std::string version, commit;
  TimingOptions timing;
};

// describe()'s line as an object: "line" holds it whole, and each key=value word becomes
// a member (a number when the value is an integer, else a string).
inline json::Object config_json(std::string_view line) {
  json::Object o;
  o.str("line", line);
  size_t at = 0;
  while (at < line.size()) {
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view word = line.substr(at, end - at);
    at = end + 1;
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    bool integer = !value.empty() && value.size() < 16;
    for (size_t i = 0; i < value.size() && integer; ++i)
      integer = std::isdigit(static_cast<unsigned char>(value[i])) || (i == 0 && value[i] == '-' && value.size() > 1);
    if (integer) o.num(key, static_cast<int64_t>(std::stoll(std::string(value))));
    else o.str(key, value);
  }
  return o;
}

inline json::Object time_json(const CallStats& calls, const Spread& rounds) {
  json::Object o;
  o.num("median", calls.median).num("min", calls.min).num("p90", calls.p90).num("calls", calls.count);
  o.num("round_median", rounds.median).num("round_min", rounds.lo).num("round_max", rounds.hi);
  return o;
}

// One candidate's figures: its name (the peer's), times, TFLOP/s and GB/s at the median
// over all calls.
inline json::Object figures_json(std::string_view name, const CallStats& calls, const Spread& rounds, double flops,
                                 double bytes) {
  json::Object o;
  if (!name.empty()) o.str("name", name);
  o.obj("time_ms", time_json(calls, rounds));
  const double seconds = calls.median * 1e-3;
  o.num("tflops", seconds > 0 ? flops / seconds / 1e12 : 0.0);
  o.num("gbps", seconds > 0 ? bytes / seconds / 1e9 : 0.0);
  return o;
}

// One record. `t` has ours as candidate 0 and, when `peer` is not empty, the peer as
// candidate 1. `check` is an object's JSON text, or empty when no check ran.
// `peer_unavailable`: why the peer did not run (cuBLASLt has no algorithm), or empty.
inline std::string make_record(const RecordContext& ctx, std::string_view family, const json::Object& args,
                               const TimingResult& t, double flops, double bytes, std::string_view peer,
                               std::string_view config_line, const std::string& check = "",
                               std::string_view peer_unavailable = "") {
  json::Object r;
  r.num("schema", kRecordSchema).str("command", ctx.command).str("family", family).obj("args", args);
  r.obj("device", json::Object().num("index", ctx.device).str("name", ctx.device_name).num("sm_count", ctx.sm_count));
  r.obj("warpspec", json::Object().str("version", ctx.version).str("commit", ctx.commit));
  json::Object timing = json::Object()
                           .num("warmup_s", ctx.timing.warmup_seconds)
                           .num("rounds", ctx.timing.rounds)
                           .num("iters", ctx.timing.iters);
  if (t.input_sets > 0) timing.num("input_sets", t.input_sets);
  r.obj("timing", timing);
  if (!t.calls.empty() && !t.ms.empty()) r.obj("ours", figures_json("", t.calls[0], t.ms[0], flops, bytes));
  else r.null("ours");
  if (!peer.empty() && t.calls.size() > 1 && t.ms.size() > 1 && t.ratio.size() > 1) {
    r.obj("peer", figures_json(peer, t.calls[1], t.ms[1], flops, bytes));
    // ratio[1] is the peer's time / ours per round: ours' speed relative to the peer's.
    r.obj("ratio", json::Object().num("median", t.ratio[1].median).num("min", t.ratio[1].lo).num("max", t.ratio[1].hi));
    // bench gemm --control: the peer again, candidate 2; its speed over the first one's.
    if (t.control() > 0) r.num("control", t.control());
  } else {
    r.null("peer").null("ratio");
    if (!peer_unavailable.empty()) r.str("peer_unavailable", peer_unavailable);
  }
  // bench gemm --plain: ours without the fused epilogue, last; the fused call's time over it.
  if (t.has_plain && t.calls.size() > 1) {
    r.obj("plain", figures_json("", t.calls.back(), t.ms.back(), flops, bytes));
    r.num("epilogue_cost", t.plain_cost());
  }
  // bench gemm --versus-schedule: ours with the other schedule; ours' speed over it per round.
  if (t.versus_index > 0 && size_t(t.versus_index) < t.calls.size()) {
    const Spread& v = t.ratio[t.versus_index];
    r.obj("versus", figures_json("", t.calls[t.versus_index], t.ms[t.versus_index], flops, bytes)
                        .obj("ratio", json::Object().num("median", v.median).num("min", v.lo).num("max", v.hi)));
  }
  r.obj("config", config_json(config_line));
  if (!check.empty()) r.raw("check", check);
  return r.text();
}

}  // namespace warpspec::tools
