#!/usr/bin/env bash
# On the device machine, from the repository root: the softmax-under-pv probe of stop 56
# (bench/NOTES.md v75) against main. ptxas hoists the P·V's wgmma.wait_group above the
# softmax in every attention kernel; a branch on the row sums keeps it below (every kernel
# but the 16-bit 192-key one, which spills 4 bytes with it).
#   LIBS="main=PATH softmax-under-pv=PATH" bench/probes/softmax-under-pv-run.sh
# No configuration changes: the C++ attention tests run against the probe's library.
set -u
name=softmax-under-pv
libs=() probe=""
for l in ${LIBS:?LIBS=\"main=PATH $name=PATH\"}; do
  libs+=(--lib "$l")
  case $l in "$name"=*) probe=${l#*=} ;; esac
done
out=${OUT:-/tmp}
d=/tmp/probe-$name
mkdir -p $d
case $probe in *.xz) xz -dc "$probe" > $d/libwarpspec.so.0 ;; *) cp "$probe" $d/libwarpspec.so.0 ;; esac
ln -sf libwarpspec.so.0 $d/libwarpspec.so
LD_LIBRARY_PATH=$d timeout 240 build/tests/warpspec_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Attention*:*Fp8*:*Serving*:*LongContext*:*KvCache*:*Softcap*:*Window*:*Varlen*' > $out/$name-gtest.log 2>&1
echo "$name C++ attention tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/$name-gtest.log | tr '\n' ' ')"
LD_LIBRARY_PATH=$d ldd build/tests/warpspec_gpu_tests | grep warpspec
# 16-bit and FP8, short and long rows, full and causal (ABBA by library, two passes).
timeout 330 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --head-dims 64 128 256 \
  --seqlens 1024 16384 --rounds 2
timeout 200 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 128 256 \
  --seqlens 1024 8192 16384 --rounds 2
