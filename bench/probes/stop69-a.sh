#!/usr/bin/env bash
# Stop 69's first device call (~400 s), .dev/xz/{cta,pairfix,build,narrow64,swap128}.tar.xz
# carried: the pair fixes (pairfix-run.sh, no ncu), v91 with one pass of each build
# (narrow64-run.sh), v94 (swap128-run.sh).
NONCU=1 timeout 200 bash bench/probes/pairfix-run.sh
PASSES=1 timeout 100 bash bench/probes/narrow64-run.sh
timeout 120 bash bench/probes/swap128-run.sh
