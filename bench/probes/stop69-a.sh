#!/usr/bin/env bash
# Stop 69's first device call (~330 s), .dev/xz/{cta,pairfix,build,narrow64}.tar.xz carried:
# the pair fixes (pairfix-run.sh), then v91 with one pass of each build (narrow64-run.sh).
timeout 260 bash bench/probes/pairfix-run.sh
PASSES=1 timeout 110 bash bench/probes/narrow64-run.sh
