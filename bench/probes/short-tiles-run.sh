#!/usr/bin/env bash
# On the device machine, from the repository root: issue 15's two short-tile probes
# (hd64-turns.patch, full-dynamic.patch) against main, ABBA by library in one call.
#   LIBS="main=PATH turns=PATH fulldyn=PATH" bench/probes/short-tiles-run.sh
# PATH: a build folder, a library file or its .xz (scripts/gpu-bench-compare). ./build must
# hold a program (any of the three builds: the program is the same).
set -u
libs=()
for l in ${LIBS:?LIBS=\"main=PATH turns=PATH fulldyn=PATH\"}; do libs+=(--lib "$l"); done
timeout 300 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --head-dims 64 128 \
  --seqlens 512 1024 2048 --rounds 2
