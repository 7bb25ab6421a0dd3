#!/usr/bin/env bash
# On the device, with .dev/xz/swap128.tar.xz carried (pairfix + v94): cuBLAS's kernel at
# 128 x 8192^2 in our terms (nvjet 128x64_64x8_1x2 on the swapped problem: a 128-row weight tile
# by 64 activations, 8 stages, 1 x 2 pairs sharing the weight). WARPSPEC_PROBE_SWAP128 = 0: the
# library's choice (128 x 64 unswapped), 1: the swapped tile 1 x 1, 2: the same in pairs.
# Checks against cuBLAS first, then each variant against cuBLAS in its own process.
export PATH=/usr/local/cuda/bin:$PATH
rm -rf build && tar xJf .dev/xz/swap128.tar.xz
for v in 1 2; do
  for s in "--m 128 --n 8192 --k 8192" "--m 100 --n 1000 --k 520" "--m 65 --n 8200 --k 4104 --beta 0.5"; do
    WARPSPEC_PROBE_SWAP128=$v timeout 30 build/warpspec gemm $s --check > /tmp/chk.txt 2>&1; rc=$?
    echo "swap$v $s: rc=$rc $(grep -E '^config|check|error' /tmp/chk.txt | tr '\n' ' ' | cut -c1-300)"
  done
done
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192 --shape 128x8192x28672"
for v in ${VARIANTS:-0 1 2 0 1 2}; do
  WARPSPEC_PROBE_SWAP128=$v timeout 60 build/warpspec bench gemm $S --rounds 3 2>&1 | grep -E "^[0-9]|geometric" | sed "s/^/swap$v: /"
done
