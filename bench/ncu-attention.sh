#!/usr/bin/env bash
# On a GPU machine: ncu (--set full, one launch each) of our attention kernel and cuDNN's on
# one shape of FlashAttention-3's sweep; the details pages and the SASS source views (CSV,
# warp samples per instruction) go to $OUT, then a summary of each (bench/ncu_attention.py).
#   bench/ncu-attention.sh [HEAD_DIM SEQLEN full|causal]      (default: 64 512 full)
# The library: $WARPSPEC_LIBRARY, else build/libwarpspec.so.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
export WARPSPEC_LIBRARY=${WARPSPEC_LIBRARY:-$PWD/build/libwarpspec.so} PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
shape=("${@:-64 512 full}")
for who in ours cudnn; do
  re=$([ $who = ours ] && echo ws_kernel || echo cudnn)
  timeout 300 ncu --kernel-name "regex:$re" --launch-skip 2 --launch-count 1 --set full --import-source no \
    -f -o "/tmp/ncu-$who" python3 bench/ncu_attention.py run $who ${shape[*]} > "/tmp/ncu-$who.log" 2>&1 ||
    { echo "ncu ($who) failed:"; tail -5 "/tmp/ncu-$who.log"; continue; }
  ncu -i "/tmp/ncu-$who.ncu-rep" --page details > "$out/$who-details.txt" 2>&1
  ncu -i "/tmp/ncu-$who.ncu-rep" --page source --csv --print-source sass > "$out/$who-sass.csv" 2>&1
  grep -E "Duration|SM Active Cycles|Executed Ipc A|Issue Slots Busy|Registers Per" "$out/$who-details.txt"
  python3 bench/ncu_attention.py summary "$out/$who-sass.csv"
done
