#!/usr/bin/env bash
# On the device, with a build in ./build: does the pair's tile order cost it (ncu: 1x2 reads 32%
# more DRAM than 1x1 at 4096 x 8192 x 28672, 2x1 20% less)? Each against cuBLAS, rasters and
# swizzles given; then ncu without clock control at 2048^3 (is the pair's loss in the kernel?).
export PATH=/usr/local/cuda/bin:$PATH
L="--shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672"
timeout 60 build/warpspec bench gemm $L --cluster 1x1 --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/1x1 auto: /"
for c in 2x1 1x2; do
  for o in "--raster m" "--raster n"; do  # (bench gemm takes no --swizzle)
    timeout 60 build/warpspec bench gemm $L --cluster $c $o --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/$c $o: /"
  done
done
[ -n "$NONCU" ] && exit 0
for c in 1x1 2x1; do
  timeout 60 ncu --clock-control none --section SpeedOfLight -k regex:ws_kernel -c 3 build/warpspec bench gemm --shape 2048x2048x2048 --cluster $c --rounds 1 --iters 3 --warmup-s 0 2>&1 | grep -E "Duration|SM Frequency" | sed "s/^/ncu $c: /"
done
