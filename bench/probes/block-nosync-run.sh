#!/usr/bin/env bash
# On the device machine, from the repository root: where block-scaled FP8 loses its ~20% to
# tensor-wise (issue 11's bar: 0.9). block-nosync.patch is a DIAGNOSTIC, never merged: the
# block-scale ring without its waits and releases (the loader copies unsynchronised, the
# consumers read whatever the slot holds: wrong results, the same instructions otherwise).
#   LIBS="main=PATH nosync=PATH" bench/probes/block-nosync-run.sh
# nosync / main near 1.2: the ring's synchronisation is the cost (the scales belong in the
# stage, loaded by TMA with it: NOTES "Design for block scales"); near 1.0: it is the
# arithmetic or the registers, and the redesign would not pay.
set -u
libs=()
for l in ${LIBS:?LIBS=\"main=PATH nosync=PATH\"}; do libs+=(--lib "$l"); done
timeout 200 scripts/gpu-bench-compare "${libs[@]}" -- bench gemm --dtype e4m3 --scaling block \
  --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3
# The reference in the same call: tensor-wise on main (its loop across tiles) and on the
# per-unit loop (stream-K leaves the loop across tiles).
timeout 120 build/warpspec bench gemm --dtype e4m3 --scaling tensor --shape 8192x8192x8192 \
  --shape 4096x14336x4096 --rounds 3
timeout 120 build/warpspec bench gemm --dtype e4m3 --scaling tensor --decomposition streamk \
  --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3
