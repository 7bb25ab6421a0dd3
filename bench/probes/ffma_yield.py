#!/usr/bin/env python3
"""On the device machine (needs cuobjdump): rewrite the control bits of the long FFMA runs
in a library's FP8 kernels (the promotions into the fp32 accumulator), in a copy.

sm_90 SASS is 128 bits an instruction; cuobjdump prints the low and the high 64-bit words
as two hex comments. In the high word bit 59 is an operand's register-reuse flag and bit
45 the yield flag (the public fact DeepGEMM's FFMA interleaving rests on: toggling both on
part of a promotion's FFMAs lets the scheduler switch warps there). This probe asks whether
that moves our block-scaled and tensor-wise FP8 kernels.

  ffma_yield.py LIB OUT [--fraction F] [--min-run N] [--filter QGMMA]

Within each run of at least N (16) consecutive FFMAs in a function whose SASS holds the
filter's opcode, among the first F (9/16) of the run's FFMAs: --mode reuse, those that carry
the reuse flag lose it and get their yield flag toggled (stop 53: 1-2% slower); --mode
plain, every E-th (2) of those that carry no reuse flag and whose yield bit is set get it
cleared (stop 53: 4-6% slower; bit 59 is one operand slot's reuse flag, not every
slot's); --mode set, the yield bit set on every FFMA of the run that lacks it. Each run's bytes are found in the file (every copy of
the exact run) and rewritten; the counts go to stdout.
"""
import argparse
import re
import shutil
import subprocess
import sys
from fractions import Fraction

REUSE = 1 << 59
YIELD = 1 << 45
HEX = re.compile(r"/\*\s*(0x[0-9a-fA-F]{16})\s*\*/")
INSTR = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?);\s*/\*\s*0x[0-9a-fA-F]{16}")


def functions(sass):
    """(name, [(text, low, high)]) for each function in cuobjdump -sass output."""
    name, instrs, pending = None, [], None
    for line in sass.splitlines():
        if "Function :" in line:
            if name:
                yield name, instrs
            name, instrs, pending = line.split("Function :", 1)[1].strip(), [], None
            continue
        words = HEX.findall(line)
        if not words:
            continue
        m = INSTR.search(line)
        if m:
            pending = (m.group(1).strip(), int(words[0], 16))
        elif pending:
            instrs.append((pending[0], pending[1], int(words[0], 16)))
            pending = None
    if name:
        yield name, instrs


def runs(instrs, min_run):
    start = None
    for i, (text, _, _) in enumerate(instrs + [("END", 0, 0)]):
        is_ffma = re.match(r"(@!?U?P\w+\s+)?FFMA\b", text) is not None
        if is_ffma and start is None:
            start = i
        elif not is_ffma and start is not None:
            if i - start >= min_run:
                yield start, i
            start = None


def encode(instrs):
    return b"".join(lo.to_bytes(8, "little") + hi.to_bytes(8, "little") for _, lo, hi in instrs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("out")
    ap.add_argument("--fraction", default="9/16")
    ap.add_argument("--min-run", type=int, default=16)
    ap.add_argument("--filter", default="QGMMA")
    ap.add_argument("--mode", choices=["reuse", "plain", "set"], default="reuse")
    ap.add_argument("--every", type=int, default=2)
    ap.add_argument("--show", type=int, default=2, help="print this many changed runs")
    a = ap.parse_args()
    frac = Fraction(a.fraction)
    sass = subprocess.run(["cuobjdump", "-sass", a.lib], check=True, capture_output=True, text=True).stdout
    shutil.copyfile(a.lib, a.out)
    data = bytearray(open(a.out, "rb").read())
    show = a.show
    n_runs = n_changed = n_sites = n_missing = 0
    stats = {"ffma": 0, "reuse": 0, "yield": 0}
    for name, instrs in functions(sass):
        if not any(a.filter in t for t, _, _ in instrs):
            continue
        for s, e in runs(instrs, a.min_run):
            run = instrs[s:e]
            for _, _, hi in run:
                stats["ffma"] += 1
                stats["reuse"] += bool(hi & REUSE)
                stats["yield"] += bool(hi & YIELD)
            limit = int(len(run) * frac)
            if a.mode == "reuse":
                new = [(t, lo, (hi ^ (REUSE | YIELD)) if (i < limit and hi & REUSE) else hi)
                       for i, (t, lo, hi) in enumerate(run)]
            elif a.mode == "set":  # the yield bit set on every FFMA of the run without it
                new = [(t, lo, hi | YIELD if i < limit else hi) for i, (t, lo, hi) in enumerate(run)]
            else:  # "plain": the yield flag cleared on every `every`-th FFMA that reuses nothing
                new, j = [], 0
                for i, (t, lo, hi) in enumerate(run):
                    if i < limit and not hi & REUSE and hi & YIELD:
                        if j % a.every == 0:
                            hi ^= YIELD
                        j += 1
                    new.append((t, lo, hi))
            old_b, new_b = encode(run), encode(new)
            if old_b == new_b:
                continue
            n_runs += 1
            n_changed += sum(1 for x, y in zip(run, new) if x != y)
            if show:
                show -= 1
                print(f"{name[:100]}: run of {len(run)} FFMAs, first 12 (reuse, yield) before -> after")
                for (t, _, hi), (_, _, h2) in list(zip(run, new))[:12]:
                    print(f"  {t:40s} {int(bool(hi & REUSE))}{int(bool(hi & YIELD))} -> {int(bool(h2 & REUSE))}{int(bool(h2 & YIELD))}")
            at = data.find(old_b)
            if at < 0 and data.find(new_b) < 0:  # (found already rewritten: an identical run elsewhere)
                n_missing += 1
            while at >= 0:
                data[at:at + len(old_b)] = new_b
                n_sites += 1
                at = data.find(old_b, at + len(old_b))
    open(a.out, "wb").write(data)
    print(f"ffma_yield {a.fraction}: FFMAs in runs {stats['ffma']} (reuse {stats['reuse']}, yield {stats['yield']}); "
          f"runs changed {n_runs}, FFMAs changed {n_changed}, sites rewritten {n_sites}, runs not found {n_missing}")
    return 1 if n_missing or n_sites == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
