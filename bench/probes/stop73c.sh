#!/usr/bin/env bash
# Stop 73's third call, for an H200 only (~150 s; exits at once on anything else: stop73b.sh
# answered the H100's side). 128 x 8192^2 reads 0.905 of cuBLAS on the H200 and 0.954 on the
# H100; ncu on the H100 (stop73b) has our kernel at 7.7 TB/s of L2 traffic (81% of L2's peak)
# where cuBLAS's 1 x 2 pair asks 27% fewer bytes. If the H200's faster DRAM moves our bound to
# L2, what cuts L2 bytes should win there though it lost on the H100:
#   1. main's build (.dev/xz/build.tar.xz): ncu's L2 rate, and 128-wide split-K 2 vs the library;
#   2. v88's pair of 128 x 64 tiles sharing A by multicast (branch cta-pairs, with v89/v90:
#      .dev/xz/ctapairs.tar.xz), the library's choice there, against its own 1 x 1;
#   3. v94, cuBLAS's own structure (the swapped 128-row weight tile in 1 x 2 pairs sharing the
#      weight; .dev/xz/swap128.tar.xz, WARPSPEC_PROBE_SWAP128=2) against the library's choice (0).
export PATH=/usr/local/cuda/bin:$PATH
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
case "$name" in *H200*) ;; *) echo "not an H200 ($name): nothing to learn here"; exit 0 ;; esac
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192"
tag() { sed "s/^/[$1] /"; }
rm -rf build && tar xJf .dev/xz/build.tar.xz
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed \
  -k regex:'ws_kernel|nvjet' -c 2 build/warpspec bench gemm --shape 128x8192x8192 --rounds 1 --iters 1 --warmup-s 0 2>&1 |
  grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|lts__" | tag ncu
timeout 50 build/warpspec bench gemm $S --rounds 3 2>&1 | grep -E "^[0-9]" | tag main
timeout 50 build/warpspec bench gemm $S --tile-n 128 --decomposition splitk --splits 2 --rounds 3 2>&1 | grep -E "^[0-9]" | tag splitk2
rm -rf build && tar xJf .dev/xz/ctapairs.tar.xz
timeout 30 build/warpspec gemm --m 128 --n 8192 --k 8192 --check 2>&1 | grep -E "^config|check" | cut -c1-200 | tag v88-check
timeout 60 build/warpspec bench gemm $S --versus-cluster 1x1 --rounds 3 2>&1 | grep -E "^[0-9]|^# versus" | tag v88
rm -rf build && tar xJf .dev/xz/swap128.tar.xz
for v in 0 2 2 0; do
  WARPSPEC_PROBE_SWAP128=$v timeout 45 build/warpspec bench gemm $S --rounds 3 2>&1 | grep -E "^[0-9]" | tag swap$v
done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
