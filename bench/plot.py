#!/usr/bin/env python3
"""Bar charts from the program's --json records, in FlashAttention-3's style: one panel per
group (GEMM: one panel of problems; attention: one per head dim and mask), problems along
the x axis, one bar per implementation (warpspec and the peer the record names), the
figure printed on each bar.

    ./build/warpspec bench gemm --json | python3 bench/plot.py -o gemm.png
    ./build/warpspec bench attention --json > att.jsonl; python3 bench/plot.py att.jsonl -o att.png
    python3 bench/plot.py --check records.jsonl      # validate only (no matplotlib needed)

Input: JSON Lines (one record per line, tools/record.hpp), from files or stdin; blank
lines are skipped, anything else that is not a record is an error naming its line.
Records of several runs can be mixed: bars of runs at different commits are labelled
with the commit. Needs matplotlib (Debian: python3-matplotlib) except for --check.
"""

import argparse
import json
import sys
from collections import OrderedDict

SCHEMA = 1
METRICS = {"tflops": "TFLOP/s", "gbps": "GB/s", "ms": "time (ms, median)"}
# warpspec first, peers after, in a fixed palette (the FA3 figures' blue/orange/green family).
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]


class RecordError(ValueError):
    pass


def _need(obj, path, kind, where):
    cur = obj
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            raise RecordError(f"{where}: missing '{path}'")
        cur = cur[key]
    if kind is not None:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # JSON's true/false are Python bools, which are ints too: a number field must not be one.
        if not isinstance(cur, kinds) or (isinstance(cur, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise RecordError(f"{where}: '{path}' should be {names}, got {cur!r}")
    return cur


def validate(rec, where="record"):
    """Raise RecordError unless `rec` is a benchmark record this script can plot."""
    if not isinstance(rec, dict):
        raise RecordError(f"{where}: not a JSON object")
    if rec.get("schema") != SCHEMA:
        raise RecordError(f"{where}: schema {rec.get('schema')!r}, this script reads {SCHEMA}")
    family = _need(rec, "family", str, where)
    if family not in ("gemm", "attention", "decode"):
        raise RecordError(f"{where}: unknown family {family!r}")
    _need(rec, "command", str, where)
    _need(rec, "device.name", str, where)
    _need(rec, "warpspec.commit", str, where)
    keys = {"gemm": ("m", "n", "k"), "attention": ("seqlen_q", "head_dim", "causal"),
            "decode": ("batch", "seqlen_k", "head_dim", "page_size")}[family]
    for key in keys:
        _need(rec, f"args.{key}", (int, bool) if key == "causal" else int, where)
    for key in ("median", "min", "p90"):
        value = _need(rec, f"ours.time_ms.{key}", (int, float), where)
        if not value > 0:
            raise RecordError(f"{where}: ours.time_ms.{key} must be positive, got {value}")
    _need(rec, "ours.tflops", (int, float), where)
    _need(rec, "ours.gbps", (int, float), where)
    _need(rec, "config.line", str, where)
    if rec.get("peer") is not None:
        _need(rec, "peer.name", str, where)
        _need(rec, "peer.tflops", (int, float), where)
        _need(rec, "ratio.median", (int, float), where)
    return rec


def load(streams):
    """Records from (name, text stream) pairs, validated."""
    records = []
    for name, stream in streams:
        for number, line in enumerate(stream, 1):
            line = line.strip()
            if not line:
                continue
            where = f"{name}:{number}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(f"{where}: not a JSON record ({e.msg}); run the command with --json") from None
            if rec.get("command") == "info":
                continue  # `warpspec info --json`: devices, nothing to plot
            records.append(validate(rec, where))
    return records


def _seqlen_label(s):
    return f"{s // 1024}k" if s >= 1024 and s % 1024 == 0 else str(s)


def _value(figures, metric):
    return figures["time_ms"]["median"] if metric == "ms" else figures[metric]


def _gemm_variant(a):
    """What a repeatable or forced `bench gemm` option chose (--tile-n, --cluster,
    --decomposition), so a problem run once per choice keeps one row per choice."""
    parts = []
    if a.get("tile_n", 0):
        parts.append(f"n{a['tile_n']}")
    if a.get("cluster", "auto") not in ("auto", ""):
        parts.append(f"c{a['cluster']}")
    if a.get("decomposition", "auto") not in ("auto", ""):
        parts.append(a["decomposition"] + (f"{a['splits']}" if a.get("splits", 0) else ""))
    return "".join(" " + p for p in parts)


def groups(records, metric):
    """{panel title: {x label: {bar label: value}}}, in first-seen order."""
    commits = {r["warpspec"]["commit"] for r in records}
    panels = OrderedDict()
    for r in records:
        a = r["args"]
        if r["family"] == "gemm":
            title = f"GEMM {a.get('dtype', '')} {a.get('layout', '')}".strip()
            if a.get("scaling", "none") != "none":  # FP8: a panel per scaling (and accumulation)
                title += f", {a['scaling']} scales" + (", fast accumulation" if a.get("fast_accum") else "")
            x = f"{a['m']}x{a['n']}x{a['k']}" + (f" L={a['batch']}" if a.get("batch", 1) > 1 else "")
            x += _gemm_variant(a)
        elif r["family"] == "decode":  # `bench decode`: one panel per cache layout
            title = f"Decode, head dim {a['head_dim']}, " + (f"paged {a['page_size']}" if a["page_size"] else "dense")
            x = f"{a['batch']} x {_seqlen_label(a['seqlen_k'])}"
        else:
            mask = "causal" if a["causal"] else "full"
            title = f"Attention forward, head dim {a['head_dim']}, {mask}"
            x = _seqlen_label(a["seqlen_q"])
        ours = "warpspec" if len(commits) == 1 else f"warpspec {r['warpspec']['commit']}"
        bars = panels.setdefault(title, OrderedDict()).setdefault(x, OrderedDict())
        bars[ours] = _value(r["ours"], metric)
        if r.get("peer"):
            bars[r["peer"]["name"]] = _value(r["peer"], metric)
    return panels


def plot(records, out, metric, title=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = groups(records, metric)
    n = len(panels)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.2 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, (panel, xs) in zip(axes.flat, panels.items()):
        names = list(OrderedDict.fromkeys(name for bars in xs.values() for name in bars))
        width = 0.8 / len(names)
        for i, name in enumerate(names):
            pos = [j + (i - (len(names) - 1) / 2) * width for j in range(len(xs))]
            vals = [bars.get(name, 0.0) for bars in xs.values()]
            rects = ax.bar(pos, vals, width, label=name, color=COLORS[i % len(COLORS)])
            fmt = "{:.3f}" if metric == "ms" else "{:.0f}"
            ax.bar_label(rects, labels=[fmt.format(v) if v else "" for v in vals], fontsize=7, padding=2)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(list(xs), rotation=30 if any(len(x) > 6 for x in xs) else 0, fontsize=8)
        ax.set_title(panel, fontsize=10)
        ax.set_ylabel(METRICS[metric])
        ax.set_xlabel("problem (M x N x K)" if panel.startswith("GEMM") else "sequence length")
        top = max((v for bars in xs.values() for v in bars.values()), default=1.0)
        ax.set_ylim(0, top * 1.25 if top > 0 else 1.0)  # headroom: the legend sits above the tallest bar
        ax.legend(fontsize=8, loc="upper center", ncol=len(names), frameon=False)
    device = records[0]["device"]["name"]
    commits = sorted({r["warpspec"]["commit"] for r in records})
    fig.suptitle(title or f"warpspec on {device} (commit {', '.join(commits)})", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="*", help="JSON Lines files (default / '-': stdin)")
    ap.add_argument("-o", "--output", help="PNG to write (default: warpspec-<family>.png)")
    ap.add_argument("--metric", choices=sorted(METRICS), default="tflops", help="what the bars show")
    ap.add_argument("--title", help="the figure's title (default: device and commit)")
    ap.add_argument("--check", action="store_true", help="validate the records and exit; no plot")
    args = ap.parse_args(argv)

    streams = []
    try:
        for name in args.inputs or ["-"]:
            streams.append(("<stdin>", sys.stdin) if name == "-" else (name, open(name, encoding="utf-8")))
        records = load(streams)
    except (OSError, RecordError) as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    if not records:
        print("plot.py: no benchmark records in the input", file=sys.stderr)
        return 1
    families = sorted({r["family"] for r in records})
    if args.check:
        counts = ", ".join(f"{sum(r['family'] == f for r in records)} {f}" for f in families)
        print(f"{len(records)} records ok ({counts})")
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot.py: needs matplotlib (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 1
    out = args.output or f"warpspec-{'-'.join(families)}.png"
    plot(records, out, args.metric, args.title)
    print(f"wrote {out} ({len(records)} records)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
