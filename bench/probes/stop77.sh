#!/usr/bin/env bash
# Stop 77's second call (~150 s). Carry .dev/xz/final.tar.xz (the final tree's build) and
# .dev/xz/ctapairs.tar.xz (4305cb8, v88). In order of value, each under its own timeout:
#  1. the host tests that refused on a GPU for their fake pointers, and the yardstick's;
#  2. the fuzz's varlen seed 670129198 under rounding's bound, printed whole; test_out and
#     test_attention (the yardstick's Python side);
#  3. v101 on an H200, both orders (stop76.sh's rows); v88's pair against its 1 x 1.
export PATH=/usr/local/cuda/bin:$PATH
clk() { nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader; }
clk
rm -rf build && tar xJf .dev/xz/final.tar.xz
timeout 60 build/tests/warpspec_host_tests --gtest_filter='AttentionValidation.*:GemmValidation.*:AttentionCheck.*:KvCache*:GemmEpilogueValidation.*' 2>&1 | grep -E "Failure|FAILED|PASSED|SKIPPED \]" -A3 | head -30
py() { WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python:$PWD/tests/python timeout "$1" python3 "${@:2}"; }
py 60 tests/python/fuzz_api.py --family varlen --seed 670129198 --cases 1 2>&1 | tail -8 | cut -c1-400
(cd tests/python && WARPSPEC_LIBRARY=$PWD/../../build/libwarpspec.so PYTHONPATH=$PWD/../../python timeout 150 python3 -m pytest -q -x test_out.py test_attention.py 2>&1 | tail -4)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 128x28672x8192"
case "$name" in
  *H200*)
    timeout 60 build/warpspec bench gemm $S --tile-n 0 --tile-n 64 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk
    timeout 60 build/warpspec bench gemm $S --tile-n 64 --tile-n 0 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk
    ;;
  *) echo "not an H200 ($name): v101 is off here, its rows skipped" ;;
esac
rm -rf build && tar xJf .dev/xz/ctapairs.tar.xz
export LD_LIBRARY_PATH=$PWD/build  # the worktree's build has its own rpath
timeout 30 build/warpspec gemm --m 128 --n 8192 --k 8192 --check 2>&1 | tail -2 | cut -c1-200
timeout 60 build/warpspec bench gemm --shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192 --versus-cluster 1x1 --rounds 3 2>&1 | tail -6
clk
