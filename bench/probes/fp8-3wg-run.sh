#!/usr/bin/env bash
# On the device machine, from the repository root: stop 57's three-consumer FP8 head dim
# 128 probes (bench/NOTES.md v76) against main. Each adds a configuration of three
# consumer warpgroups (192-row tiles) on 96-key blocks, with turns (pp96), without
# (free96), with turns and O's rescale beside S (pprb96), at a speed that makes every
# e4m3 head dim 128 call take it; and fp8-128-vt3, a third Vᵀ stage for the 192-key kernel.
#   bench/probes/fp8-3wg-run.sh [DIR]   (DIR: build-libs.sh's libraries, default .dev/probes)
# A configuration change: the C++ tests hold their own copy of config.hpp's tables
# (bench/NOTES.md v72), so the probes are checked through the Python FP8 suite.
set -u
dir=${1:-.dev/probes}
out=${OUT:-/tmp}
libs=(--lib main=$dir/main.so.0.xz)
for name in fp8-3wg-pp96 fp8-3wg-free96 fp8-3wg-pprb96 fp8-128-vt3; do
  d=/tmp/probe-$name
  mkdir -p $d && xz -dc $dir/$name.so.0.xz > $d/libwarpspec.so.0 && ln -sf libwarpspec.so.0 $d/libwarpspec.so
  WARPSPEC_LIBRARY=$d/libwarpspec.so.0 PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -x \
    tests/python/test_attention_fp8.py > $out/$name-pytest.log 2>&1
  echo "$name FP8 pytest rc=$? $(tail -1 $out/$name-pytest.log)"
  LD_LIBRARY_PATH=$d timeout 60 build/warpspec attention --dtype e4m3 --head-dim 128 --seqlen-q 1000 --seqlen-k 1000 \
    --heads 16 --batch 2 --causal --check --rounds 1 --json 2>&1 | tr ',' '\n' | grep -i -E 'config|check|error' | head -5
  libs+=(--lib $name=$dir/$name.so.0.xz)
done
# Head dim 128, short and long rows, full and causal (ABBA by library; each e4m3 row also
# times our bf16 kernel).
timeout 300 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 128 \
  --seqlens 1024 8192 16384 --rounds 2
