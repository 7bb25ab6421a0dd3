#!/usr/bin/env bash
# The short form of stop69-a.sh (~220 s): pairfix's pairs only, no racecheck; v94 one pass; v91
# one pass.
QUICK=1 BUILDS=pairfix timeout 120 bash bench/probes/pairfix-run.sh
VARIANTS="0 1 2" timeout 100 bash bench/probes/swap128-run.sh
PASSES=1 timeout 100 bash bench/probes/narrow64-run.sh
