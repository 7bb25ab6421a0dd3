#!/usr/bin/env bash
# On the device machine, from the repository root: the fp8-128-short probe of stop 55
# (bench/NOTES.md) against main: FP8 head dim 128 on 128-key blocks where 192-key ones pad
# a row by more than 1 / 0.95 (full 512 and 1k: 11%), a second FP8 hd128 kernel.
#   LIBS="main=PATH fp8-128-short=PATH" bench/probes/fp8-128-short-run.sh
# The probe changes config.hpp's tables: the C++ tests cannot check it under a swapped
# library (bench/probes/README.md); the Python FP8 suite and the fuzz's e4m3 family do.
set -u
name=fp8-128-short
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
WARPSPEC_LIBRARY=$d/libwarpspec.so.0 PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -x \
  tests/python/test_attention_fp8.py > $out/$name-pytest.log 2>&1
echo "$name FP8 pytest rc=$? $(tail -1 $out/$name-pytest.log)"
WARPSPEC_LIBRARY=$d/libwarpspec.so.0 PYTHONPATH=$PWD/python timeout 80 python3 tests/python/fuzz_api.py \
  --cases 300 --seed 5507 --family attention_fp8 2>&1 | tail -1
# Head dim 128's short rows (where the plan now takes 128-key blocks) and 2k, 16k (where it
# does not: unchanged expected). ABBA by library; each e4m3 row also times our bf16 kernel.
timeout 300 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 128 \
  --seqlens 512 1024 2048 16384 --rounds 2
