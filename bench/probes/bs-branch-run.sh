#!/usr/bin/env bash
# The bs-branch probe: bs-always-run.sh under its name.
PROBE=bs-branch exec "$(dirname "$0")/bs-always-run.sh" "$@"
