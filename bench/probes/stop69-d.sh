#!/usr/bin/env bash
# v95 on the device, short (~80 s; .dev/xz/build.tar.xz = main with v95): the cluster and
# schedule GPU tests, then 1 x 2 pairs (now along M) against 1 x 1 in one interleaving.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
timeout 60 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/*:GemmCluster*:GemmSchedule*:*Describe*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -5
timeout 60 build/warpspec bench gemm --shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672 \
  --cluster 1x1 --versus-cluster 1x2 --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/1x1 over 1x2 (along M): /"
