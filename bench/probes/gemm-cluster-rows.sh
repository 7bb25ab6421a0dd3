#!/usr/bin/env bash
# On the device machine, from the repository root, with a build in ./build: the mid-M rows
# where cuBLAS leads with 2-CTA clusters (bench/NOTES.md v47, "Queued after stop 51"): our
# 128 x 256 tile in a 2 x 1 cluster (the two row tiles of M = 256 share B through
# multicast) beside 1 x 1, and the library's own choice, each against cuBLAS in one process.
set -u
for shape in 256x28672x8192 256x8192x8192 512x28672x8192; do
  timeout 120 build/warpspec bench gemm --shape "$shape" --tile-n 0 --rounds 3
  timeout 120 build/warpspec bench gemm --shape "$shape" --tile-n 256 --cluster 1x1 --cluster 2x1 \
    --decomposition dp --rounds 3
done
