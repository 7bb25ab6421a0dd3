#!/usr/bin/env bash
# On the device machine, from the repository root: the fp8-lean probe of stop 55
# (bench/NOTES.md) against main: the FP8 head dim 64 and 128 kernels without pack-GQA's row
# mapping, the chunk mask and (hd128) split-KV's partial epilogue, which the host never
# asks of an e4m3 call (it refuses all three).
#   bench/probes/fp8-lean-run.sh [DIR]   (DIR: build-libs.sh's libraries, default .dev/probes)
# The C++ tests cannot check a probe that changes a configuration: the test program holds
# its own copy of config.hpp's tables, which the library's reads of them resolve to
# (symbol interposition), so its plan names main's kernel. The Python suite runs the
# library alone.
set -u
dir=${1:-.dev/probes}
out=${OUT:-/tmp}
libs=(--lib main=$dir/main.so.0.xz)
for name in fp8-lean; do
  d=/tmp/probe-$name
  mkdir -p $d && xz -dc $dir/$name.so.0.xz > $d/libwarpspec.so.0 && ln -sf libwarpspec.so.0 $d/libwarpspec.so
  WARPSPEC_LIBRARY=$d/libwarpspec.so.0 PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -x \
    tests/python/test_attention_fp8.py > $out/$name-pytest.log 2>&1
  echo "$name FP8 pytest rc=$? $(tail -1 $out/$name-pytest.log)"
  libs+=(--lib $name=$dir/$name.so.0.xz)
done
# Head dims 64 and 128, short and long rows, full and causal (ABBA by library; each e4m3
# row also times our bf16 kernel).
timeout 400 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 64 128 \
  --seqlens 512 1024 2048 8192 16384 --rounds 2
