#!/usr/bin/env bash
# Installs what is missing, builds, and runs the default simulation comparison: every policy on the
# generated default scenario (1,000 nodes, 2 days, the first day warm-up), in both regimes — a
# batch stream that fits what the fleet can reclaim, then the overloaded one (docs/generator.md).
# Extra arguments go to `archimedes simulate` (e.g. --nodes 200 --days 2, or --scenario real, which
# has one regime of its own). The results also go to build/simulate[-REGIME].json and, as a page to
# open in a browser, build/simulate[-REGIME].html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
regime=(--regime both)
for arg in "$@"; do
  case $arg in
    --scenario* | --trace* | --regime* | batch_load=* | --list-params) regime=() ;;
  esac
done
exec build/archimedes simulate "${regime[@]}" --json build/simulate.json \
  --report build/simulate.html "$@"
