#!/usr/bin/env bash
# `archimedes profile --history` end to end on profile_bench's synthetic fleet (bench/fleet_usage.h):
# APPS applications × 7 days of 5-minute samples (10,000 apps: 20.16 M rows), written once by
# usage_history_gen, then profiled RUNS times with the profiles file written. Prints each run's wall
# time, CPU time and peak resident memory, and checks that every run wrote the same profiles.
# Usage: bench/profile_history.sh [BUILD_DIR, default build] [APPS, default 10000] [RUNS, default 3]
set -euo pipefail
build=${1:-build}
apps=${2:-10000}
runs=${3:-3}
[ -x /usr/bin/time ] || { echo "profile_history: needs GNU time (scripts/setup.sh)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/usage_history_gen" "$apps" "$dir/history.csv"
echo "history: $apps apps, $(($(wc -l <"$dir/history.csv") - 1)) rows, $(du -m "$dir/history.csv" | cut -f1) MB"
for run in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" \
    "$build/archimedes" profile --history "$dir/history.csv" --out "$dir/profiles-$run.json" --quiet \
    >"$dir/stdout-$run"
  read -r wall user system rss_kb <"$dir/time"
  echo "run $run: ${wall} s wall, ${user} s user + ${system} s system, $((rss_kb / 1024)) MB peak"
  if [ "$run" -gt 1 ]; then
    cmp -s "$dir/profiles-1.json" "$dir/profiles-$run.json" || { echo "run $run: profiles differ" >&2; exit 1; }
  fi
done
