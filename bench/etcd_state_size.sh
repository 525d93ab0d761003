#!/usr/bin/env bash
# What `archimedes serve` keeps in etcd for a fleet: starts a one-member etcd and one replica on
# loopback (ports from BASE_PORT, default 18230), puts NODES nodes and submits JOBS jobs (each with
# an Idempotency-Key), then reads etcd's key count, the bytes of the keys and values, and its
# database size, before and after compaction and defragmentation. Bounded; stops what it started.
# Usage: bench/etcd_state_size.sh [BINARY] [NODES, default 10000] [JOBS, default 100000]
set -euo pipefail
binary=${1:-build/archimedes}
nodes=${2:-10000}
jobs=${3:-100000}
base=${BASE_PORT:-18230}
command -v wrk >/dev/null || { echo "etcd_state_size: needs wrk (apt-get install wrk)" >&2; exit 1; }
command -v etcd >/dev/null || { echo "etcd_state_size: needs etcd (apt-get install etcd-server)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
etcd_url=http://127.0.0.1:$base
etcd --name size --data-dir "$dir/etcd" --listen-client-urls "$etcd_url" \
  --advertise-client-urls "$etcd_url" --listen-peer-urls "http://127.0.0.1:$((base + 1))" \
  --initial-advertise-peer-urls "http://127.0.0.1:$((base + 1))" \
  --initial-cluster "size=http://127.0.0.1:$((base + 1))" >"$dir/etcd.log" 2>&1 &
etcd_pid=$!
server_pid=
trap 'kill $server_pid $etcd_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "$etcd_url/health" >/dev/null && break; sleep 0.1; done
"$binary" serve --listen "127.0.0.1:$((base + 2))" --data "$dir/data" --clock virtual \
  --policy k8s-default --store "etcd://127.0.0.1:$base" >"$dir/serve.log" 2>&1 &
server_pid=$!
url=http://127.0.0.1:$((base + 2))
for _ in $(seq 100); do [ "$(curl -sf "$url/v1/leader" | grep -c '"leader"')" = 1 ] &&
  curl -sf "$url/v1/leader" | grep -q '"role":"leader"' && break; sleep 0.1; done
b64() { printf '%s' "$1" | base64 -w0; }
status() { curl -sf -XPOST "$etcd_url/v3/maintenance/status" -d '{}'; }
field() { grep -o "\"$1\":\"[0-9]*\"" | grep -o '[0-9]*$'; }
echo "== $nodes nodes"
KIND=nodes COUNT=$nodes wrk -t1 -c16 -d600s "$url" -s "$here/etcd_count.lua" | grep -E 'requests in'
echo "== $jobs jobs"
KIND=jobs COUNT=$jobs wrk -t1 -c32 -d1200s "$url" -s "$here/etcd_count.lua" | grep -E 'requests in'
echo "== in the server: $(curl -sf "$url/v1/nodes" | grep -o '"kind":"Node"' | wc -l) nodes," \
  "$(curl -sf "$url/metrics" | grep '^archimedes_jobs{' | awk '{s+=$2} END {print s}') jobs"
keys=$(curl -sf -XPOST "$etcd_url/v3/kv/range" \
  -d "{\"key\":\"$(b64 /archimedes/)\",\"range_end\":\"$(b64 /archimedes0)\",\"count_only\":true}" |
  field count)
# etcdctl prints each key and value on a line of its own: the bytes less two newlines per key.
printed=$(ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" get --prefix /archimedes/ | wc -c)
bytes=$((printed - 2 * keys))
echo "== etcd: $keys keys under /archimedes/, $bytes bytes of keys and values"
echo "   db size $(status | field dbSize) bytes, in use $(status | field dbSizeInUse) bytes"
revision=$(status | grep -o '"revision":"[0-9]*"' | grep -o '[0-9]*$')
ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" compact "$revision" >/dev/null
ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" defrag >/dev/null
echo "   after compaction and defrag: db size $(status | field dbSize) bytes"
