#!/usr/bin/env bash
# Fuzzes every input format the project reads. Builds the libFuzzer targets of fuzz/ with clang
# under AddressSanitizer and UBSan (FUZZ_BUILD_DIR, default build-fuzz/), seeds each corpus from
# examples/ and small slices of ../shared (cut here, never committed), replays the crash inputs
# kept in fuzz/regressions/<target>/, then runs every target for FUZZ_SECONDS (default 20), as
# many at a time as there are cores. A crash, a timeout (an input taking over 10 s) or running out
# of memory fails the script; the input is copied to fuzz/regressions/<target>/ to be committed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILD_DIR:-build-fuzz}
shared=${ARCHIMEDES_SHARED_DIR:-../shared}
traces=$shared/traces

cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DARCHIMEDES_FUZZ=ON -DARCHIMEDES_BUILD_BENCH=OFF -DARCHIMEDES_UNITY=ON >/dev/null
ninja -C "$build" -j "$(nproc)" fuzz_targets

corpus=$build/corpus
rm -rf "$build/seeds" "$build/artifacts"
mkdir -p "$build/seeds" "$build/artifacts"

# seed TARGET FILE [LINES]: FILE (its first LINES lines when given) becomes a seed of TARGET; a
# missing file is skipped, since seeds only speed the search up.
seed() {
  local target=$1 file=$2 lines=${3:-}
  [ -f "$file" ] || return 0
  mkdir -p "$build/seeds/$target"
  local out
  out="$build/seeds/$target/$(echo "$file" | tr '/' '_')"
  if [ -n "$lines" ]; then head -n "$lines" "$file" >"$out"; else cp "$file" "$out"; fi
}
# text TARGET NAME TEXT: a synthetic seed.
text() {
  mkdir -p "$build/seeds/$1"
  printf '%b' "$3" >"$build/seeds/$1/$2"
}

for q in 0 500m 4Gi 1.5 10G 1e3 -2 0.000000001 8Ei 123456789012345678901234567890 1.5e-3m; do
  text quantity_fuzz "q-$q" "$q"
done
if [ -f "$shared/k8s-fixtures/quantity-vectors.csv" ]; then
  n=0
  tail -n +2 "$shared/k8s-fixtures/quantity-vectors.csv" | head -n 60 | cut -d, -f1 |
    while IFS= read -r q; do n=$((n + 1)); text quantity_fuzz "vector-$n" "$q"; done
fi
seed scenario_fuzz examples/small-scenario.json
seed jobs_fuzz examples/jobs.json
for f in "$shared"/k8s-fixtures/*.json examples/kubernetes/*.yaml; do seed extender_fuzz "$f"; done
# YAML: the manifests, serve's settings (every key; the ConfigMap holds them too) and the text
# that drove yaml-cpp past 2 GB.
for f in examples/kubernetes/*.yaml fuzz/regressions/yaml_fuzz/*; do seed yaml_fuzz "$f"; done
text yaml_fuzz serve.yaml \
  'listen: 0.0.0.0:8080\ndata: /var/lib/archimedes\nstore: etcd://10.0.0.1:2379,10.0.0.2:2379/a/\nleader-lease: 10s\nadvertise: http://10.0.0.1:8080\npolicy: archimedes\nseed: 1\nclock: virtual\ncycle: 1s\nusage-round: 60s\nmax-body: 1Mi\nhttp-threads: 64\n'
text yaml_fuzz anchors.yaml 'a: &a {cpu: 1, memory: "1Gi"}\nb: [*a, *a]\n*a : x\n---\n- !!str 1\n- |\n  text\n- 1e3\n- ~\n'
text usage_history_fuzz history.csv \
  'time,app,container,cpu,memory,disk,network\n0,web,web-0,500,1e9,0,0\n300,web,web-0,1620.5,2150000000,1048576,2700000\n300,db,"db,0",10,1e6,5,5\n'
text requests_fuzz requests.csv 'app,cpu,memory,disk,network,replicas\nweb,500m,1Gi,0,0,3\n'
# The service's bodies: the first byte picks the decoder (node, service, job, status, usage, clock,
# priors).
text server_requests_fuzz node '\x00{"metadata":{"labels":{"zone":"a"}},"spec":{"capacity":{"cpu":"8","memory":"32Gi","gpu":"1"},"zone":"a"}}'
text server_requests_fuzz service '\x01{"spec":{"replicas":3,"requests":{"cpu":"500m","memory":"1Gi"},"limits":{"memory":"2Gi"},"qos":"Burstable","priority":100}}'
text server_requests_fuzz job '\x02{"spec":{"kind":"serverless","function":"thumb","tasks":4,"requests":{"cpu":"250m","memory":"128Mi"},"durationEstimate":"90s","delayTolerance":"30m","gang":true}}'
text server_requests_fuzz status '\x03{"phase":"OOMKilled","exitCode":137}'
text server_requests_fuzz usage '\x04{"samples":[{"container":"web-1","usage":{"cpu":"350m","memory":"800Mi"}},{"container":"job-0-4","usage":{"cpu":"900m"},"workDone":"2m"}]}'
text server_requests_fuzz node-status '\x05{"metadata":{"resourceVersion":"3"},"status":{"condition":"NotReady","containers":2}}'
text server_requests_fuzz clock '\x06{"advance":"1h30m"}'
text server_requests_fuzz priors '\x07{"taskShapes":[{"requests":{"cpu":"1","memory":"1Gi"},"weight":0.75},{"requests":{"cpu":"4"},"weight":0.25}]}'
seed alibaba_2017_fuzz "$traces/alibaba-v2017/server_event.csv" 30
seed alibaba_2017_fuzz "$traces/alibaba-v2017/batch_task.csv" 30
seed alibaba_2018_fuzz "$traces/alibaba-v2018/machine_meta.csv" 30
seed alibaba_2018_fuzz "$traces/alibaba-v2018/machine_usage.csv" 30
seed alibaba_gpu_2023_fuzz "$traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv" 30
seed alibaba_gpu_2023_fuzz "$traces/alibaba-gpu-v2023/openb_pod_list_default.csv" 30
seed alibaba_dlrm_2025_fuzz "$traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv" 30
for f in "$traces"/google-v2019-instance-usage/113/*.csv; do seed google_2019_fuzz "$f" 30; break; done
for layout in alibaba2018/day_1 google2019/week1 azure_v2/week1; do
  for f in "$traces/datacenter-aggregates/$layout"/*.csv; do seed datacenter_aggregates_fuzz "$f" 30; done
done
# A profiles file needs a profiler's output: the normal build's, from a short recorded run.
if [ -x build/archimedes ]; then
  build/archimedes simulate --nodes 5 --days 1 --warmup 3600 --policy k8s-default \
    --record-usage "$build/seeds/history.csv" >/dev/null
  build/archimedes profile --history "$build/seeds/history.csv" \
    --out "$build/seeds/profiles.json" >/dev/null
  seed profiles_fuzz "$build/seeds/profiles.json"
fi

targets=()
for src in fuzz/*_fuzz.cc; do targets+=("$(basename "$src" .cc)"); done

status=0
for t in "${targets[@]}"; do
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    "$build/$t" -runs=0 fuzz/regressions/"$t"/* >"$build/artifacts/$t-regressions.log" 2>&1 ||
      { echo "REGRESSION: $t (see $build/artifacts/$t-regressions.log)"; status=1; }
  fi
done

run() {
  local t=$1
  mkdir -p "$corpus/$t" "$build/seeds/$t"
  if "$build/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$corpus/$t" "$build/seeds/$t" \
      >"$build/artifacts/$t.log" 2>&1; then
    echo "fuzzed: $t ($(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$build/artifacts/$t.log" | grep -o '[0-9]*$') runs)"
  else
    mkdir -p "fuzz/regressions/$t"
    for crash in "$build/artifacts/$t"-{crash,timeout,oom,leak}-*; do
      [ -f "$crash" ] && cp "$crash" "fuzz/regressions/$t/"
    done
    echo "CRASH: $t (log: $build/artifacts/$t.log; input kept in fuzz/regressions/$t/)"
    return 1
  fi
}
export -f run
export build corpus seconds
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} bash -c 'run {}' || status=1
exit $status
