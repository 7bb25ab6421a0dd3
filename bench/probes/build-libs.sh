#!/usr/bin/env bash
# Here (no GPU needed): build main's library and each probe patch's into DIR (default
# .dev/probes) as NAME.so.0.xz, for carrying to the device machine (~2 MiB each). Each patch
# is applied to a clean tree, built in ./build (only the units it touches recompile),
# copied, and reverted; ./build ends as main's.
#   bench/probes/build-libs.sh [DIR] [PATCH ...]   (default: every *.patch here)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.dev/probes}
shift || true
patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=(bench/probes/*.patch)
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "build-libs: commit or stash first" >&2; exit 1; }
mkdir -p "$dir"
save() { cmake --build build --target warpspec >/dev/null; xz -T0 -c build/libwarpspec.so.0.1.0 > "$dir/$1.so.0.xz"; echo "$dir/$1.so.0.xz"; }
[ -f build/build.ninja ] || ./scripts/build >/dev/null
save main
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  git apply "$p"
  save "$name" || { git apply -R "$p"; exit 1; }
  git apply -R "$p"
done
cmake --build build --target warpspec >/dev/null
