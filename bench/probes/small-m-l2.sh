#!/usr/bin/env bash
# On the device, with a build in ./build: is the small-M row L2->SM bound? Every CTA of the
# 128 x 64 tile at 128 x 8192^2 re-reads all of A (2 MiB) beside its 1 MiB slice of B, so
# L2 -> SM carries 3x what DRAM does. ncu's L2 and DRAM rates for ours (library choice and
# 128-wide split-K 2, which halves A's re-reads) and cuBLAS, then the alternatives timed.
export PATH=/usr/local/cuda/bin:$PATH
W=build/warpspec
for args in "" "--tile-n 128 --decomposition splitk --splits 2" "--tile-n 256 --decomposition splitk --splits 4"; do
  echo "== 128x8192x8192 $args"
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_bytes.sum.per_second \
    -k regex:'ws_kernel|nvjet|sm90|gemm' -c 2 $W bench gemm --shape 128x8192x8192 $args --rounds 1 --iters 1 --warmup-s 0 2>&1 |
    grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|lts__|l1tex__"
done
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 256x8192x8192 --shape 128x28672x8192"
timeout 150 $W bench gemm $S --versus-cluster 1x1 --rounds 3 2>&1 | grep -E "^[0-9]"
timeout 100 $W bench gemm $S --tile-n 128 --decomposition splitk --splits 2 --rounds 3 2>&1 | grep -E "^[0-9]"
timeout 100 $W bench gemm $S --tile-n 256 --decomposition splitk --splits 4 --rounds 3 2>&1 | grep -E "^[0-9]"
