#!/usr/bin/env bash
# The short form of stop 68's queue in one device call (~200 s): v90 without synccheck and the
# ctapairs rows, then v91 with one pass of each build.
QUICK=1 timeout 150 bash bench/probes/cta-acquire-run.sh
PASSES=1 timeout 100 bash bench/probes/narrow64-run.sh
