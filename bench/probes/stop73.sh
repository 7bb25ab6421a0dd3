#!/usr/bin/env bash
# Stop 73's first device call (~200 s): stop 72's probe (v99: the FP8 16-bit D as one kernel,
# its tests, memcheck, fp16 D against 3c37a96's library and against cuBLASLt), then 4096^3 bf16
# timed as CUTLASS's profiler times (`--no-rotate`, short warm-up) beside our default method,
# for issue 10's "CUTLASS's cooperative kernel reached 760 TFLOP/s at 4096^3 (back-to-back)".
export PATH=/usr/local/cuda/bin:$PATH
bench/probes/stop72.sh
W=build/warpspec
for mode in "--no-rotate --warmup-s 0.2" "--no-rotate" ""; do
  timeout 40 $W bench gemm --shape 4096x4096x4096 --shape 8192x8192x8192 --rounds 3 $mode 2>&1 \
    | grep -E "^[0-9]|^# inputs" | sed "s/^/4096 [$mode]: /"
done
for mode in "--no-rotate --warmup-s 0.2" ""; do
  timeout 40 $W bench gemm --shape 4096x4096x4096 --schedule cooperative --tile-n 256 --rounds 3 $mode 2>&1 \
    | grep -E "^[0-9]" | sed "s/^/coop 128x256 [$mode]: /"
done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
