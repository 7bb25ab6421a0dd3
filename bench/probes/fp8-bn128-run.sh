#!/usr/bin/env bash
# On the device machine, from the repository root: the fp8-bn128 probe (FP8 head dim 256 on
# 128-key blocks, FlashAttention-3's FP8 tile, instead of 96-key blocks with a third Vᵀ
# stage; bench/NOTES.md stop 55) against main.
#   LIBS="main=PATH NAME=PATH" bench/probes/NAME-run.sh
set -u
name=${PROBE:-$(basename "$0" -run.sh)}
libs=() probe=""
for l in ${LIBS:?LIBS=\"main=PATH $name=PATH\"}; do
  libs+=(--lib "$l")
  case $l in "$name"=*) probe=${l#*=} ;; esac
done
out=${OUT:-/tmp}
dir=/tmp/probe-$name
lib=$dir/libwarpspec.so.0
mkdir -p $dir
case $probe in *.xz) xz -dc "$probe" > $lib ;; *) cp "$probe" $lib ;; esac
ln -sf libwarpspec.so.0 $dir/libwarpspec.so
# Correctness first: every FP8 attention test, C++ and Python, on the probe.
LD_LIBRARY_PATH=$dir timeout 200 build/tests/warpspec_gpu_tests \
  --gtest_filter='*Fp8*:*FP8*:*E4m3*:*e4m3*' > $out/$name-tests.log 2>&1
echo "probe FP8 tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/$name-tests.log | tr '\n' ' ')"
WARPSPEC_LIBRARY=$lib PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -x tests/python/test_attention_fp8.py \
  > $out/$name-pytest.log 2>&1
echo "probe FP8 pytest rc=$? $(tail -1 $out/$name-pytest.log)"
# Head dim 256, long and short rows, full and causal (ABBA by library; each e4m3 row also
# times our bf16 kernel).
timeout 300 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 256 \
  --seqlens 1024 4096 8192 16384 --rounds 2
