#!/usr/bin/env bash
# On the device machine, from the repository root: the finalize-lean probe (the softmax's
# finalize with the MUFU's rcp / lg2 in their ftz forms, no IEEE division; bench/NOTES.md
# stop 54) against main.
#   LIBS="main=PATH NAME=PATH" bench/probes/NAME-run.sh
# PATH: a library file or its .xz (scripts/gpu-bench-compare). ./build holds main's program
# and tests.
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
# Correctness first: every attention, serving and long-context GPU test on the probe (the
# LSE tests hold 1e-5; O changes by at most an ulp of 1/l before its bf16 rounding).
LD_LIBRARY_PATH=$dir timeout 200 build/tests/warpspec_gpu_tests \
  --gtest_filter='Attention*:Serving/*:LongContext*' > $out/$name-tests.log 2>&1
echo "probe attention tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/$name-tests.log | tr '\n' ' ')"
WARPSPEC_LIBRARY=$lib PYTHONPATH=$PWD/python timeout 60 python3 scripts/lse-accuracy.py 2>&1 | tail -6
# The short cells, where a tile's own instructions count (ABBA by library).
timeout 240 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --head-dims 64 128 256 \
  --seqlens 512 1024 2048 --rounds 2
