#!/usr/bin/env python3
"""One line from bench/attention_vs_torch.py's output: the geometric mean of the ratios to
cuDNN, the number of cells, the lowest cell and how many fall below 0.95 (issue 15's bar).

    python3 bench/sweep_summary.py OUTPUT.txt
"""
import statistics
import sys


def main():
    cells = []
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) < 6 or f[0] not in ("64", "128", "256") or line.count("|") < 2:
            continue
        ratio = line.split("|")[2].split()[0]  # the first "ratio vs" column: cuDNN
        if ratio == "n/a":
            continue
        cells.append((float(ratio), f"hd{f[0]} {f[1]} {f[2]}"))
    if not cells:
        print("no cells (see the output file)")
        return 1
    low = min(cells)
    below = sum(1 for r, _ in cells if r < 0.95)
    print(f"geomean {statistics.geometric_mean([r for r, _ in cells]):.3f} over {len(cells)} cells, "
          f"lowest {low[0]:.3f} ({low[1]}), {below} below 0.95")
    return 0


if __name__ == "__main__":
    sys.exit(main())
