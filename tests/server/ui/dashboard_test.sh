#!/usr/bin/env bash
# serve's live dashboard as a person sees it: starts `archimedes serve --clock virtual` on a free
# loopback port, opens /ui in headless Chromium and drives the server with a short replay
# (dashboard_scenario.json: 4 nodes, 3 services, 5 jobs over 3 hours, about 5 s), checking the
# page as it changes (dashboard_check.js). The screenshot and the server's log stay in OUT_DIR.
#
#   dashboard_test.sh ARCHIMEDES OUT_DIR
set -euo pipefail
archimedes=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
command -v chromium >/dev/null || { echo "chromium is missing: run scripts/setup.sh" >&2; exit 1; }
data=$(mktemp -d "${TMPDIR:-/tmp}/archimedes-dashboard-XXXXXX")
"$archimedes" serve --clock virtual --policy archimedes --listen 127.0.0.1:0 --data "$data" \
  >"$out/serve.log" 2>&1 &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$data"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$out/serve.log" || true)
  [ -n "$url" ] && break
  kill -0 "$serve" 2>/dev/null || { cat "$out/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "serve did not say where it listens" >&2; cat "$out/serve.log" >&2; exit 1; }
node "$here/dashboard_check.js" "$url" "$out/dashboard.png" -- \
  "$archimedes" replay --server "$url" --policy archimedes \
  --scenario "$here/dashboard_scenario.json" --warmup 1h --quiet
