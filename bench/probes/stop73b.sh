#!/usr/bin/env bash
# Stop 73's second call (~170 s, the build in .dev/xz/build.tar.xz): is 128 x 8192^2 bound by
# L2 -> SM on the H200? (bench/probes/small-m-l2.sh, never run on an H200; its cluster line
# dropped: no pair is built for the 128 x 64 tile.) The library's 128 x 64 tile re-reads all of
# A (2 MiB) per CTA: ~384 MB of L2 -> SM traffic against B's 134 MB from DRAM; 128-wide split-K 2
# halves it. On the H100 (3.35 TB/s DRAM-bound) split-K lost 3%; the H200's 4.8 TB/s may move
# the bound to L2. ncu's rates first, then each option against cuBLAS (ABBA, 3 rounds).
export PATH=/usr/local/cuda/bin:$PATH
rm -rf build && tar xJf .dev/xz/build.tar.xz
W=build/warpspec
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
for args in "" "--tile-n 128 --decomposition splitk --splits 2"; do
  echo "== 128x8192x8192 $args"
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_bytes.sum.per_second,sm__cycles_active.avg \
    -k regex:'ws_kernel|nvjet|sm90|gemm' -c 2 $W bench gemm --shape 128x8192x8192 $args --rounds 1 --iters 1 --warmup-s 0 2>&1 |
    grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|lts__|l1tex__|sm__cycles"
done
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 256x8192x8192 --shape 128x28672x8192"
for args in "" "--tile-n 128 --decomposition splitk --splits 2" "--tile-n 256 --decomposition splitk --splits 4" "--tile-n 128 --decomposition streamk"; do
  timeout 100 $W bench gemm $S $args --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/[$args] /"
done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
