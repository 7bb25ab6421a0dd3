#!/usr/bin/env bash
# On the device, with a build in ./build: where does our pair lose to our own 1 x 1? One ncu
# launch each (caches flushed) of the 128 x 256 tile at 1x1, 2x1 and 1x2 on the rows where the
# pair loses most (stop 68, H100: 1x2 at 4096 x 8192 x 28672 1.093, 4096^3 1.059): time, tensor
# pipe, DRAM bytes, L2 hit rate and L2 -> SM sectors. If the pair moves fewer bytes and still
# loses, the wait is in the lock-step; if it moves more, the pair's tile order is the cause.
export PATH=/usr/local/cuda/bin:$PATH
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_active.avg,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for shape in ${SHAPES:-4096x8192x28672 4096x4096x4096}; do
  for c in 1x1 2x1 1x2; do
    echo "== $shape cluster $c"
    timeout 90 ncu --metrics $M -k regex:ws_kernel -c 1 build/warpspec bench gemm --shape $shape --tile-n 256 --cluster $c --rounds 1 --iters 1 --warmup-s 0 2>&1 |
      grep -E "gpu__|sm__|dram__|lts__|smsp__" | awk '{print "   ", $1, $(NF-1), $NF}'
  done
done
