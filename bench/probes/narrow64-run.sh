#!/usr/bin/env bash
# On the device, with .dev/xz/{build,narrow64}.tar.xz carried: v91, the swapped 64 x 64 narrow
# tile (13 stages) for 33-64 rows, against main's 128 x 64 tile (half its A rows zero-filled at
# M = 64). Narrow tests on the probe, then the rows on main and the probe, PASSES times (default
# 2), each against cuBLAS.
export PATH=/usr/local/cuda/bin:$PATH
R="--shape 64x8192x8192 --shape 48x8192x8192 --shape 64x28672x8192 --shape 64x4096x4096 --shape 40x8192x28672"
rm -rf build && tar xJf .dev/xz/narrow64.tar.xz
timeout 120 build/tests/warpspec_gpu_tests --gtest_filter='Narrow/*:GemmNarrow*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -8
for b in $(for i in $(seq ${PASSES:-2}); do echo build narrow64; done); do
  rm -rf build && tar xJf .dev/xz/$b.tar.xz
  timeout 100 build/warpspec bench gemm $R --rounds 3 2>&1 | grep -E "^[0-9]|geometric" | sed "s/^/$b: /"
done
