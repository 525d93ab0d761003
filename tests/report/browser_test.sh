#!/usr/bin/env bash
# A report as a person sees it: generates it on a small run, then opens it in headless Chromium
# (browser_check.js: no console error, no failed or outgoing request, every chart drew data) and
# saves a screenshot beside it.
#
#   browser_test.sh ARCHIMEDES simulate|profile OUT_DIR
#   browser_test.sh ARCHIMEDES broken OUT_DIR   the check itself fails on a broken page
set -euo pipefail
archimedes=$1
page=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples
mkdir -p "$out"
command -v chromium >/dev/null || { echo "chromium is missing: run scripts/setup.sh" >&2; exit 1; }
case $page in
  simulate)
    "$archimedes" simulate --nodes 20 --days 1 --warmup 21600 --policy k8s-default,archimedes --quiet \
      --report "$out/simulate.html" >/dev/null
    ;;
  profile)
    # Two histories: one of services whose requests the scenario file gives (right-sizing), one
    # of generated services that leak memory (health warnings).
    "$archimedes" simulate --scenario "$examples/small-scenario.json" --policy k8s-default \
      --quiet --record-usage "$out/profile-requested.csv" >/dev/null
    "$archimedes" simulate --nodes 20 --days 2 --policy k8s-default --quiet \
      --set leaks_per_replica_day=0.3 --set leak_growth=0.02 \
      --record-usage "$out/profile-leaking.csv" >/dev/null
    "$archimedes" profile --history "$out/profile-requested.csv" \
      --history "$out/profile-leaking.csv" --scenario "$examples/small-scenario.json" --quiet \
      --report "$out/profile.html" >/dev/null
    ;;
  broken)
    if node "$here/browser_check.js" "$here/broken_page.html" "$out/broken.png" >"$out/broken.log" 2>&1; then
      echo "the check passed a broken page" >&2
      exit 1
    fi
    for expected in "console error: the page logs an error" "request leaves the file" \
                    "uncaught exception" "chart drew no data: an empty chart"; do
      grep -qF "$expected" "$out/broken.log" || { echo "not caught: $expected" >&2; cat "$out/broken.log" >&2; exit 1; }
    done
    exit 0
    ;;
  *)
    echo "unknown page $page" >&2
    exit 2
    ;;
esac
exec node "$here/browser_check.js" "$out/$page.html" "$out/$page.png"
