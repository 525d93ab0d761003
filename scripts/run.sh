#!/usr/bin/env bash
# Installs what is missing, builds, and runs the default simulation comparison: every policy on the
# generated default scenario (1,000 nodes, 2 days, the first day warm-up). Extra arguments go to
# `archimedes simulate` (e.g. --nodes 200 --days 2, or --scenario real). The results also go to
# build/simulate.json and, as a page to open in a browser, build/simulate.html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec build/archimedes simulate --json build/simulate.json --report build/simulate.html "$@"
