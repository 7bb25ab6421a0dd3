#!/usr/bin/env bash
# On the device machine, from the repository root, with a build in ./build and the
# libraries of build-libs.sh in DIR (default .dev/probes, carried): every waiting probe in
# one call (~8 minutes). Each run script's output goes to stdout and $OUT.
set -u
dir=${1:-.dev/probes}
L() { echo "$1=$dir/$1.so.0.xz"; }
echo "==== short tiles (issue 15)"
LIBS="$(L main) turns=$dir/hd64-turns.so.0.xz fulldyn=$dir/full-dynamic.so.0.xz" bench/probes/short-tiles-run.sh
echo "==== block-scaled FP8 without the ring's synchronisation (issue 11, diagnostic)"
LIBS="$(L main) nosync=$dir/block-nosync.so.0.xz" bench/probes/block-nosync-run.sh
echo "==== FP8 attention without the V transpose (issue 12, diagnostic)"
LIBS="$(L main) notrans=$dir/fp8-notranspose.so.0.xz" bench/probes/fp8-notranspose-run.sh
echo "==== GEMM mid-M rows in 2x1 clusters (issue 10)"
bench/probes/gemm-cluster-rows.sh
