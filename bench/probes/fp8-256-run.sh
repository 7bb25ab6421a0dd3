#!/usr/bin/env bash
# On the device machine, from the repository root: the FP8 head dim 256 probes of stop 55
# (bench/NOTES.md), each against main (v72: 128-key blocks, no turns, O rescaled after the
# P·V wait): `fp8-256-turns` (the consumers take turns on the tensor cores) and
# `fp8-256-beside` (O's rescale beside the next S), in one ABBA comparison.
#   bench/probes/fp8-256-run.sh [DIR]   (DIR: build-libs.sh's libraries, default .dev/probes)
# The C++ tests cannot check a probe that changes a configuration: the test program holds
# its own copy of config.hpp's tables, which the library's reads of them resolve to
# (symbol interposition), so its plan names main's kernel. The Python suite runs the
# library alone.
set -u
dir=${1:-.dev/probes}
out=${OUT:-/tmp}
libs=(--lib main=$dir/main.so.0.xz)
for name in fp8-256-turns fp8-256-beside; do
  d=/tmp/probe-$name
  mkdir -p $d && xz -dc $dir/$name.so.0.xz > $d/libwarpspec.so.0 && ln -sf libwarpspec.so.0 $d/libwarpspec.so
  WARPSPEC_LIBRARY=$d/libwarpspec.so.0 PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -x \
    tests/python/test_attention_fp8.py > $out/$name-pytest.log 2>&1
  echo "$name FP8 pytest rc=$? $(tail -1 $out/$name-pytest.log)"
  libs+=(--lib $name=$dir/$name.so.0.xz)
done
# Head dim 256, long and short rows, full and causal (ABBA by library; each e4m3 row also
# times our bf16 kernel).
timeout 400 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 256 \
  --seqlens 1024 4096 8192 16384 --rounds 2
