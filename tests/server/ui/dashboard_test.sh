#!/usr/bin/env bash
# serve's live dashboard as a person sees it: starts `archimedes serve --clock virtual` on a free
# loopback port, opens /ui in headless Chromium and drives the server with a short replay
# (dashboard_scenario.json: 4 nodes, 3 services, 5 jobs over 3 hours, paced at an hour per
# second whatever the machine's speed: unpaced, a fast machine played it within one of the page's
# 1 s polls), checking the page as it changes (dashboard_check.js). The screenshot and the server's log stay in OUT_DIR.
# `undriven` runs a driver that does nothing instead, and passes only if the check then fails:
# a page that does not change is caught.
#
#   dashboard_test.sh ARCHIMEDES OUT_DIR [undriven]
set -euo pipefail
archimedes=$1
out=$2
mode=${3:-replay}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
command -v chromium >/dev/null || { echo "chromium is missing: run scripts/setup.sh" >&2; exit 1; }
data=$(mktemp -d "${TMPDIR:-/tmp}/archimedes-dashboard-XXXXXX")
"$archimedes" serve --clock virtual --policy archimedes --listen 127.0.0.1:0 --data "$data" \
  >"$out/serve-$mode.log" 2>&1 &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$data"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$out/serve-$mode.log" || true)
  [ -n "$url" ] && break
  kill -0 "$serve" 2>/dev/null || { cat "$out/serve-$mode.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "serve did not say where it listens" >&2; cat "$out/serve-$mode.log" >&2; exit 1; }
if [ "$mode" = undriven ]; then
  if node "$here/dashboard_check.js" "$url" "$out/undriven.png" -- sleep 3 >"$out/undriven.log" 2>&1; then
    echo "the check passed a page the server never changed" >&2
    exit 1
  fi
  grep -qF "the page changed 0 times while the server was driven" "$out/undriven.log" ||
    { echo "not caught: an unchanged page" >&2; cat "$out/undriven.log" >&2; exit 1; }
  exit 0
fi
node "$here/dashboard_check.js" "$url" "$out/dashboard.png" -- \
  "$archimedes" replay --server "$url" --policy archimedes \
  --scenario "$here/dashboard_scenario.json" --warmup 1h --pace 1h --quiet
