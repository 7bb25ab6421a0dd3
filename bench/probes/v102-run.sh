#!/usr/bin/env bash
# v102 (FP8 attention's V transposed before the kernel) on the GPU, decided in one call.
# Build it first: `git apply bench/probes/v102-vt-before.patch && scripts/build &&
# scripts/pack-build .dev/xz/v102.tar.xz` (branch v102-vt-before here), then carry .dev:
#   bash bench/probes/v102-run.sh          (~350 s)
#   bash bench/probes/v102-run.sh --short  (~200 s: 16k full rows only, racecheck only, no
#                                           Python, no v101)
# In order of value, each under its own timeout:
#  1. the same-bits test, then the FP8 reference tests with V transposed before every call;
#  2. bench attention --dtype e4m3, hd128/256, the transpose forced in the kernel and before
#     it, in separate processes, order kernel before before kernel;
#  3. the sanitizers on the reference test with V transposed before every call;
#  4. (full) the Python FP8 tests; v101's small-M rows on an H200.
short=0
[ "${1:-}" = --short ] && short=1
export PATH=/usr/local/cuda/bin:$PATH
clk() { nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader; }
clk
rm -rf build && tar xJf .dev/xz/v102.tar.xz
export LD_LIBRARY_PATH=$PWD/build  # a build packed from another tree keeps that tree's rpath
T=build/tests/warpspec_gpu_tests
timeout 60 $T --gtest_filter='AttentionFp8.VTransposedBeforeTheKernelGivesTheSameBits' 2>&1 |
  grep -E "Failure|Expected|Which is|error|differs|moved|FAILED|PASSED|OK \]" | head -30
echo "== the FP8 tests with V transposed before the kernel on every call"
WARPSPEC_FP8_V_TRANSPOSE=before timeout 60 $T --gtest_filter='AttentionFp8.*:Fp8VTranspose*:Fp8PV*' 2>&1 | tail -2
if [ $short = 1 ]; then
  B="bench attention --dtype e4m3 --head-dims 128 256 --seqlens 16384 --full-only --rounds 2" limit=30 tools=racecheck
else
  B="bench attention --dtype e4m3 --head-dims 128 256 --seqlens 8192 16384 --rounds 3" limit=100
  tools="memcheck racecheck synccheck"
  timeout 60 build/tests/warpspec_host_tests --gtest_filter='KvCache*:Describe*' 2>&1 | tail -2
fi
for m in kernel before before kernel; do
  echo "== WARPSPEC_FP8_V_TRANSPOSE=$m"
  WARPSPEC_FP8_V_TRANSPOSE=$m timeout $limit build/warpspec $B 2>&1 | grep -vE "^#" | tail -9
done
clk
R='--gtest_filter=AttentionFp8.MatchesTheReferenceOfTheStoredValues'
for tool in $tools; do
  WARPSPEC_FP8_V_TRANSPOSE=before timeout 60 compute-sanitizer --tool $tool $T $R 2>&1 |
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | tr '\n' ' '
  echo " [$tool]"
done
[ $short = 1 ] && exit 0
WARPSPEC_LOG_CONFIG=1 timeout 30 build/warpspec attention --dtype e4m3 --head-dim 256 --seqlen-q 16384 --seqlen-k 16384 \
  --batch 1 --heads 8 --check 2>&1 | tail -3 | cut -c1-300
(cd tests/python && WARPSPEC_LIBRARY=$PWD/../../build/libwarpspec.so PYTHONPATH=$PWD/../../python timeout 120 \
  python3 -m pytest -q -x test_attention_fp8.py 2>&1 | tail -3)
# v101 on an H200 only (stop77.sh's rows): the library's small-M choice against --tile-n 64, both orders.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 128x28672x8192"
case "$name" in
  *H200*)
    timeout 60 build/warpspec bench gemm $S --tile-n 0 --tile-n 64 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"
    timeout 60 build/warpspec bench gemm $S --tile-n 64 --tile-n 0 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk ;;
  *) echo "not an H200 ($name): v101's rows skipped" ;;
esac
