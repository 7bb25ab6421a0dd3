#!/bin/bash
# usage: ab.sh "bench args" libs...
args=$1; shift
for n in "$@"; do mkdir -p /tmp/l/$n; xz -dc .dev/xz/$n.xz > /tmp/l/$n/libwarpspec.so.0.1.0; ln -sf libwarpspec.so.0.1.0 /tmp/l/$n/libwarpspec.so.0; done
for r in 1 2; do
  order="$*"; [ $r = 2 ] && order=$(echo "$*" | tr ' ' '\n' | tac | tr '\n' ' ')
  for n in $order; do echo "== $n round $r"; LD_LIBRARY_PATH=/tmp/l/$n timeout 120 build/warpspec bench attention $args; done
done
