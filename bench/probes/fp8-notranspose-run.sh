#!/usr/bin/env bash
# On the device machine, from the repository root: what FP8 attention's in-kernel V
# transpose costs (issue 12: e4m3 1.17x our bf16 at head dim 128, bar 1.5x).
# fp8-notranspose.patch is a DIAGNOSTIC, never merged: the pump warps keep every wait and
# arrive but move nothing (Vt holds whatever it held: wrong results, timing only).
#   LIBS="main=PATH notrans=PATH" bench/probes/fp8-notranspose-run.sh
# notrans / main near 1: the transpose is hidden and the gap is the consumers' (softmax,
# turns); well above 1: the pump (its ldmatrix/stmatrix traffic beside the wgmma reads)
# is on the critical path.
set -u
libs=()
for l in ${LIBS:?LIBS=\"main=PATH notrans=PATH\"}; do libs+=(--lib "$l"); done
timeout 280 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 64 128 256 \
  --seqlens 2048 16384 --rounds 2
