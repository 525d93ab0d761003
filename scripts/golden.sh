#!/usr/bin/env bash
# Golden reports: the simulator's figures for a fixed set of runs, with timings removed, so that a
# refactor that changes any figure is seen. `record` writes tests/golden/*.json from the binary;
# `check` runs the same commands and diffs against the files. Usage:
#   scripts/golden.sh record|check [BINARY] [NAME...]
# The runs take about half an hour on 2 cores; CI checks only the small one (GoldenReportTest).
# A recording that moves a figure is explained in tests/golden/CHANGES.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?record or check}
bin=${2:-build/archimedes}
shift $(( $# >= 2 ? 2 : $# ))
traces=${ARCHIMEDES_TRACES:-../shared/traces}
all=k8s-default,k8s-binpack,reclaim,archimedes,archimedes-greedy,archimedes-no-health,archimedes-no-borrow

declare -A runs=(
  [small]="simulate --nodes 20 --days 2 --policy $all"
  [default-seed1]="simulate --nodes 200 --days 2 --seed 1 --policy $all"
  [default-seed2]="simulate --nodes 200 --days 2 --seed 2 --policy $all"
  [default-seed3]="simulate --nodes 200 --days 2 --seed 3 --policy $all"
  [surge-seed6]="simulate --nodes 200 --days 2 --surge --seed 6 --policy $all"
  [real]="simulate --scenario real --traces-dir $traces --nodes 200 --days 2 --policy $all"
  [gpu2023]="simulate --trace $traces/alibaba-gpu-v2023/openb_pod_list_default.csv --days 34 --policy $all"
  [faults]="faults"
)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(small default-seed1 default-seed2 default-seed3 surge-seed6 real gpu2023 faults)

# Timings are measured, not simulated: they differ run to run and are left out, as is the report
# object (format, tool version and commit, units), which says what the document is, not a figure.
strip='del(.report) | del(.. | objects | .wall_seconds?) '
strip+='| walk(if type == "object" then with_entries(if (.key | test("latency_us$")) '
strip+='then .value |= del(.p50, .p99) else . end) else . end)'

status=0
for name in "${names[@]}"; do
  out=$(mktemp)
  # shellcheck disable=SC2086
  "$bin" ${runs[$name]} --json "$out.raw" >/dev/null
  jq -S "$strip" "$out.raw" >"$out"
  rm -f "$out.raw"
  if [ "$mode" = record ]; then
    mv "$out" "tests/golden/$name.json"
    echo "recorded $name"
  elif diff -u "tests/golden/$name.json" "$out" >"$out.diff"; then
    echo "same: $name"
    rm -f "$out" "$out.diff"
  else
    echo "DIFFERENT: $name (diff in $out.diff)"
    status=1
  fi
done
exit $status
