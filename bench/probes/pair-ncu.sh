#!/usr/bin/env bash
# On the device, with a build in ./build: where does our pair lose to our own 1 x 1? One ncu
# launch each (caches flushed) of the 128 x 256 tile at 1x1, 2x1 and 1x2 on the rows where the
# pair loses most (stop 68, H100: 1x2 at 4096 x 8192 x 28672 1.093, 4096^3 1.059): duration,
# DRAM and L2 rates, L2 hit rate, bytes, cycles per issue and the stall sampling's top lines
# (whole reports in $OUT/pair-ncu-*.txt). If the pair moves fewer bytes and still loses, the
# wait is in the lock-step; if it moves more, the pair's tile order is the cause.
# CLOCK=none: ncu leaves the clocks alone (stop 69: the pair's loss shows at 1.75 GHz, not at
# ncu's locked 1.40 GHz).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-.}
for shape in ${SHAPES:-4096x8192x28672 4096x4096x4096}; do
  for c in 1x1 2x1 1x2; do
    echo "== $shape cluster $c"
    f=$out/pair-ncu-$shape-$c.txt
    timeout 90 ncu ${CLOCK:+--clock-control $CLOCK} --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters \
      --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum -k regex:ws_kernel -c 1 \
      build/warpspec bench gemm --shape $shape --tile-n 256 --cluster $c --rounds 1 --iters 1 --warmup-s 0 > $f 2>&1
    grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L2 Hit Rate|Mem Busy|Warp Cycles Per Issued|dram__bytes_read|lts__t_sectors_srcunit|Compute \(SM\) Throughput" $f | sed 's/  */ /g'
    grep -iE -A8 "Warp Stall Sampling|stall.*samples" $f | head -12 | sed 's/  */ /g'
  done
done
