#!/usr/bin/env bash
# Stop 69's first device call (~300 s), .dev/xz/{build,cta,narrow64}.tar.xz carried: v90 (quick),
# ncu of the pairs against 1 x 1 on the v90 build, then v91 with one pass of each build.
QUICK=1 timeout 150 bash bench/probes/cta-acquire-run.sh
SHAPES=4096x8192x28672 timeout 90 bash bench/probes/pair-ncu.sh
PASSES=1 timeout 100 bash bench/probes/narrow64-run.sh
