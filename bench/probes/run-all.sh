#!/usr/bin/env bash
# On the device machine, from the repository root, with a build in ./build and the
# libraries of build-libs.sh in DIR (default .dev/probes, carried): every waiting probe in
# one call. Probe NAME.patch's script NAME-run.sh runs with LIBS="main=... NAME=..."
# (the two libraries' .xz); its output goes to stdout and $OUT.
set -u
dir=${1:-.dev/probes}
shopt -s nullglob
runs=(bench/probes/*-run.sh)
[ ${#runs[@]} -gt 0 ] || { echo "run-all: no probe waiting (bench/probes/README.md)"; exit 0; }
for r in "${runs[@]}"; do
  name=$(basename "$r" -run.sh)
  echo "==== $name"
  LIBS="main=$dir/main.so.0.xz $name=$dir/$name.so.0.xz" "$r"
done
