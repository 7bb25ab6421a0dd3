#!/usr/bin/env bash
# The next device call after stop 69 (~230 s, main's build packed in .dev/xz/build.tar.xz):
# v95's default order on the GPU (stop69-d.sh), v96's swizzle 16 against the library's order for
# the cooperative and ping-pong schedules, then where the pair's warps wait at boost clocks.
export PATH=/usr/local/cuda/bin:$PATH
timeout 100 bash bench/probes/stop69-d.sh
W=build/warpspec
timeout 90 $W bench gemm --shape 4096x14336x28672 --shape 4096x8192x28672 --shape 16384x16384x16384 \
  --shape 8192x8192x8192 --shape 4096x4096x4096 --versus-swizzle 16 --rounds 3 2>&1 | grep -E "^#|^[0-9]" | sed "s/^/sw16 coop: /"
timeout 60 $W bench gemm --shape 4096x8192x28672 --shape 4096x14336x16384 --shape 4096x14336x4096 \
  --schedule pingpong --versus-swizzle 16 --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/sw16 pingpong: /"
for sw in 8 16; do
  timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum -k regex:ws_kernel -c 1 \
    $W gemm --m 4096 --n 14336 --k 28672 --swizzle $sw --iters 1 2>&1 | grep -E "gpu__time|dram__bytes" | sed "s/^/ncu sw$sw: /"
done
for c in 1x1 2x1; do
  timeout 60 ncu --clock-control none --section WarpStateStats --section SourceCounters --print-details all \
    -k regex:ws_kernel -c 1 $W bench gemm --shape 2048x2048x2048 --cluster $c --rounds 1 --iters 1 --warmup-s 0 \
    > ${OUT:-.}/stall-$c.txt 2>&1
  grep -iE "Duration|stall|Warp Cycles" ${OUT:-.}/stall-$c.txt | head -20 | sed "s/^/stall $c: /"
done
