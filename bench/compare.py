#!/usr/bin/env python3
"""Builds of the library side by side: the --json records of one benchmark, run once per
build and pass (scripts/gpu-bench-compare runs the builds in the order A B ... B A, each
in its own process, so none always runs first), as one table of our figure per build
and each build's ratio to the first one's.

    python3 bench/compare.py base=base-1.jsonl new=new-1.jsonl new=new-2.jsonl base=base-2.jsonl

Each LABEL=FILE is one pass of build LABEL; a label's passes are listed (their spread is
the noise) and averaged for the ratio, whose range is over every pair of passes. Problems
are matched by plot.py's panel and x label; a problem one build lacks is shown as "-".
Only our figure is compared (the peer, where the records have one, is the same code in
every build).
"""

import argparse
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import METRICS, RecordError, groups, load  # noqa: E402


def table(passes, metric):
    """Lines of the comparison: passes is [(label, records)] in the order given."""
    labels = list(OrderedDict.fromkeys(label for label, _ in passes))
    # {panel: {x: {label: [value per pass]}}}, panels and problems in first-seen order.
    cells = OrderedDict()
    for label, records in passes:
        for panel, xs in groups(records, metric).items():
            for x, bars in xs.items():
                ours = next(iter(bars.values()))  # groups() puts ours first, the peer after
                cells.setdefault(panel, OrderedDict()).setdefault(x, OrderedDict()).setdefault(label, []).append(ours)
    fmt = "{:.4f}" if metric == "ms" else "{:.1f}"
    lines = []
    for panel, xs in cells.items():
        lines.append(f"{panel} ({METRICS[metric]})")
        width = max([14] + [len(x) for x in xs])
        head = [f"{'problem':<{width}}"] + [f"{label:>20}" for label in labels]
        head += [f"{label + ' / ' + labels[0]:>26}" for label in labels[1:]]
        lines.append(" ".join(head))
        for x, by_label in xs.items():
            row = [f"{x:<{width}}"]
            for label in labels:
                vals = by_label.get(label)
                row.append(f"{' / '.join(fmt.format(v) for v in vals) if vals else '-':>20}")
            base = by_label.get(labels[0])
            for label in labels[1:]:
                vals = by_label.get(label)
                if not vals or not base or min(base) <= 0:
                    row.append(f"{'-':>26}")
                    continue
                mean = (sum(vals) / len(vals)) / (sum(base) / len(base))
                lo = min(v / b for v in vals for b in base)
                hi = max(v / b for v in vals for b in base)
                if metric == "ms":  # a time: the ratio of speeds is base / this
                    mean, lo, hi = 1 / mean, 1 / hi, 1 / lo
                row.append(f"{f'{mean:.3f} ({lo:.3f}-{hi:.3f})':>26}")
            lines.append(" ".join(row))
        lines.append("")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("passes", nargs="+", metavar="LABEL=FILE", help="one pass of build LABEL (JSON Lines)")
    ap.add_argument("--metric", choices=sorted(METRICS), default="tflops",
                    help="what is compared (ms: the ratio is still of speeds)")
    args = ap.parse_args(argv)
    passes = []
    try:
        for spec in args.passes:
            label, sep, name = spec.partition("=")
            if not sep or not label or not name:
                raise RecordError(f"{spec}: expected LABEL=FILE")
            with open(name, encoding="utf-8") as stream:
                records = load([(name, stream)])
            if not records:
                raise RecordError(f"{name}: no benchmark records")
            passes.append((label, records))
    except (OSError, RecordError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 1
    print("\n".join(table(passes, args.metric)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
