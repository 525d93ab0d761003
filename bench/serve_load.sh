#!/usr/bin/env bash
# Load on `archimedes serve`, on loopback only, bounded in time: durable job submissions per second
# and their latency, then job reads. Starts its own server (virtual clock, a fresh data folder)
# and stops it. Usage: bench/serve_load.sh [BINARY] [SECONDS per phase, default 10]
set -euo pipefail
binary=${1:-build/archimedes}
seconds=${2:-10}
command -v wrk >/dev/null || { echo "serve_load: needs wrk (apt-get install wrk)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
data=$(mktemp -d)
out=$(mktemp)
"$binary" serve --listen 127.0.0.1:0 --data "$data" --clock virtual --policy k8s-default \
  --http-threads 64 >"$out" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data" "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out")
for _ in $(seq 100); do curl -sf "$url/readyz" >/dev/null && break; sleep 0.1; done
for n in $(seq 1 10); do
  curl -sf -XPUT "$url/v1/nodes/node-$n" \
    -d '{"spec":{"capacity":{"cpu":"64","memory":"256Gi"}}}' >/dev/null
done
echo "== durable submissions: POST /v1/jobs, 2 threads, 32 connections, ${seconds}s"
wrk -t2 -c32 -d"${seconds}s" --latency -s "$here/serve_submit.lua" "$url/v1/jobs"
echo "== reads: GET /v1/jobs/job-1, 2 threads, 32 connections, ${seconds}s"
wrk -t2 -c32 -d"${seconds}s" --latency "$url/v1/jobs/job-1"
echo "== journal: $(du -h "$data/journal.db" | cut -f1) for $(curl -sf "$url/metrics" | grep '^archimedes_jobs{' | awk '{s+=$2} END {print s}') jobs"
