#!/usr/bin/env bash
# On the device, with a build in ./build: one ncu launch each of ours and cuBLAS on the GEMM rows
# still under 1.00 on the H200 (bench/NOTES.md stop 67), kernel names, grids, durations and DRAM
# rates, as stop 67 read 128 x 8192^2 and 1 x 8192^2 (what cuBLAS runs where it leads).
export PATH=/usr/local/cuda/bin:$PATH
for s in "${@:-2048x2048x2048 4096x8192x28672 64x8192x8192}"; do
  for shape in $s; do
    echo "== $shape"
    timeout 120 ncu --clock-control none --section SpeedOfLight --section LaunchStats -k regex:'ws_kernel|nvjet|sm90|cutlass|gemm' -c 4 \
      build/warpspec bench gemm --shape "$shape" --rounds 1 --iters 1 --warmup-s 0 2>&1 |
      grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Cluster Size|Registers Per|DRAM Throughput|Compute \(SM\) Throughput|Dynamic Shared|SM Frequency"
  done
done
# The library's own alternatives on the same rows, each against cuBLAS in one interleaving.
for d in dp streamk; do
  timeout 90 build/warpspec bench gemm --shape 2048x2048x2048 --shape 4096x8192x28672 --decomposition $d --rounds 3 2>&1 | tail -3 || true
done
timeout 60 build/warpspec bench gemm --shape 2048x2048x2048 --tile-n 128 --tile-n 224 --tile-n 256 --rounds 3 2>&1 | tail -5 || true
