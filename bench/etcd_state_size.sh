#!/usr/bin/env bash
# What `archimedes serve` keeps in etcd for a fleet: starts a one-member etcd and one replica on
# loopback (ports from BASE_PORT, default 18230), puts NODES nodes and submits JOBS jobs (each with
# an Idempotency-Key), then reads etcd's key count, the bytes of the keys and values, and its
# database size, before and after compaction and defragmentation, and how long a second replica
# takes to replay the log and be ready. Bounded; stops what it started.
# Usage: bench/etcd_state_size.sh [BINARY] [NODES, default 10000] [JOBS, default 100000]
set -euo pipefail
binary=${1:-build/archimedes}
nodes=${2:-10000}
jobs=${3:-100000}
base=${BASE_PORT:-18230}
command -v etcd >/dev/null || { echo "etcd_state_size: needs etcd (apt-get install etcd-server)" >&2; exit 1; }
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
field() { grep -o "\"$1\":\"[0-9]*\"" | sed 's/.*:"\([0-9]*\)"/\1/'; }
# One curl process sends them all, 16 at a time: a config of one transfer per request.
send() {  # KIND COUNT
  awk -v kind="$1" -v count="$2" -v url="$url" 'BEGIN {
    node = "{\"spec\":{\"capacity\":{\"cpu\":\"64\",\"memory\":\"256Gi\"},\"zone\":\"z1\"}," \
           "\"metadata\":{\"labels\":{\"rack\":\"r1\"}}}"
    job = "{\"spec\":{\"kind\":\"offline\",\"function\":\"bench\",\"tasks\":1," \
          "\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"durationEstimate\":\"10m\"," \
          "\"delayTolerance\":\"1h\"}}"
    gsub(/"/, "\\\"", node); gsub(/"/, "\\\"", job)
    for (i = 1; i <= count; i++) {
      if (kind == "nodes") {
        printf "url = \"%s/v1/nodes/node-%d\"\nrequest = \"PUT\"\ndata = \"%s\"\n", url, i, node
      } else {
        printf "url = \"%s/v1/jobs\"\ndata = \"%s\"\nheader = \"Idempotency-Key: bench-%d\"\n", url, job, i
      }
      printf "header = \"Content-Type: application/json\"\noutput = \"/dev/null\"\n"
      printf "write-out = \"%%{http_code}\\\\n\"\n"
      if (i < count) print "next"
    }
  }' >"$dir/$1.curl"
  local start=$SECONDS
  curl -s --parallel --parallel-max 16 -K "$dir/$1.curl" 2>/dev/null | sort | uniq -c | tr '\n' ' '
  echo "($((SECONDS - start)) s)"
}
echo "== $nodes nodes: $(send nodes "$nodes")"
echo "== $jobs jobs: $(send jobs "$jobs")"
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
# A replica that joins replays the whole log before it is ready.
start_ms=$(date +%s%3N)
"$binary" serve --listen "127.0.0.1:$((base + 3))" --data "$dir/data2" --clock virtual \
  --policy k8s-default --store "etcd://127.0.0.1:$base" >"$dir/serve2.log" 2>&1 &
server_pid="$server_pid $!"
for _ in $(seq 6000); do  # at most 5 minutes
  curl -sf "http://127.0.0.1:$((base + 3))/readyz" >/dev/null && break
  sleep 0.05
done
echo "   a joining replica replayed the log and was ready in $(($(date +%s%3N) - start_ms)) ms"
revision=$(status | field revision)
ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" compact "$revision" >/dev/null
ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" defrag >/dev/null
echo "   after compaction and defrag: db size $(status | field dbSize) bytes"
