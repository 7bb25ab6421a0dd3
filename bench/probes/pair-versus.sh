#!/usr/bin/env bash
# Ours(1 x 1) over ours(2 x 1) and over ours(1 x 2) in one interleaving each, with the build in
# ./build; every line prefixed with the build's name ($1). Shapes: $L, or 2048^3, 4096^3 and
# 4096 x 8192 x 28672.
L=${L:-"--shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672"}
for c in 2x1 1x2; do
  timeout 100 build/warpspec bench gemm $L --cluster 1x1 --versus-cluster $c --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/$1 1x1 over $c: /"
done
