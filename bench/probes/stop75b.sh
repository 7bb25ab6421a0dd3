#!/usr/bin/env bash
# Stop 75's second call (~60 s): v101, the small-M rule (tile_choice.cpp wide_split_pays: one
# row tile of 65-128 rows over one wave of 64-wide tiles, K >= 8192, DRAM >= 4 TB/s -> the
# 128-wide tile split in two). Carry .dev/xz/v101.tar.xz. On an H200 the library's choice
# should now read as the probe's "128-wide split-K 2" did (0.846 / 0.891 of cuBLAS against
# 0.769 / 0.834 for the 64-wide tile); on an H100 nothing changes (the rule is off there).
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.memory,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/v101.tar.xz
for m in 128 96; do
  WARPSPEC_LOG_CONFIG=1 timeout 30 build/warpspec gemm --m $m --n 8192 --k 8192 --check 2>&1 | grep -E "gemm |check" | cut -c1-220
done
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 128x28672x8192"
timeout 90 build/warpspec bench gemm $S --tile-n 0 --tile-n 64 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"
timeout 90 build/warpspec bench gemm $S --tile-n 64 --tile-n 0 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
