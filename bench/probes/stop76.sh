#!/usr/bin/env bash
# Stop 76's second call (~200 s). Carry .dev/xz/final.tar.xz (main with the test fixes) and
# .dev/xz/ctapairs.tar.xz (4305cb8, v88: the 128 x 64 tile's 1 x 2 pair sharing A). In order of
# value, each under its own timeout:
#  1. the two checks that failed in this stop's gpu-check: the fuzz's varlen seed 670129198
#     under the rounding-aware yardstick, and CliJson on Hopper;
#  2. v101 (H200 only): the library's choice against --tile-n 64, both orders, clocks per row;
#  3. v88's pair against its own 1 x 1 (the commands stop73c filtered away), unfiltered;
#  4. the small-M board question: rotated and --no-rotate in one call;
#  5. the C++ attention tests under the new yardstick, 300 more varlen fuzz cases.
export PATH=/usr/local/cuda/bin:$PATH
clk() { nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader; }
clk
rm -rf build && tar xJf .dev/xz/final.tar.xz
py() { WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python:$PWD/tests/python timeout "$1" python3 "${@:2}"; }
py 60 tests/python/fuzz_api.py --family varlen --seed 670129198 --cases 1 2>&1 | tail -2
timeout 60 build/tests/warpspec_host_tests --gtest_filter='CliJson.RecordsFromARealRunOnHopper:AttentionCheck.*' 2>&1 | tail -2
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 128x28672x8192"
case "$name" in
  *H200*)
    for m in 128 96; do
      WARPSPEC_LOG_CONFIG=1 timeout 30 build/warpspec gemm --m $m --n 8192 --k 8192 --check 2>&1 | grep -E "gemm |check" | cut -c1-200
    done
    timeout 60 build/warpspec bench gemm $S --tile-n 0 --tile-n 64 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk
    timeout 60 build/warpspec bench gemm $S --tile-n 64 --tile-n 0 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk
    ;;
  *) echo "not an H200 ($name): v101 is off here, its rows skipped" ;;
esac
rm -rf build && tar xJf .dev/xz/ctapairs.tar.xz
timeout 30 build/warpspec gemm --m 128 --n 8192 --k 8192 --check 2>&1 | tail -2 | cut -c1-200
timeout 60 build/warpspec bench gemm --shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192 --versus-cluster 1x1 --rounds 3 2>&1 | tail -6
clk
rm -rf build && tar xJf .dev/xz/final.tar.xz
timeout 40 build/warpspec bench gemm --shape 128x8192x8192 --shape 96x8192x8192 --shape 2048x2048x2048 --rounds 3 2>&1 | grep -E "^[0-9]"; clk
timeout 40 build/warpspec bench gemm --shape 128x8192x8192 --shape 96x8192x8192 --shape 2048x2048x2048 --rounds 3 --no-rotate 2>&1 | grep -E "^[0-9]|^#.*rot"; clk
timeout 40 build/warpspec bench gemm --shape 2048x2048x2048 --schedule pingpong --versus-schedule cooperative --rounds 3 2>&1 | grep -E "^[0-9]"
timeout 120 build/tests/warpspec_gpu_tests --gtest_filter='*Attention*:*attention*' 2>&1 | tail -2
py 90 tests/python/fuzz_api.py --family varlen --seed 761000 --cases 300 2>&1 | grep -E "^FAIL|passed" | head -5
