#!/usr/bin/env bash
# The actions long-poll fan-out of `archimedes serve` on loopback: AGENTS simulated agents long-poll
# their node's actions, one scheduling cycle gives each node one action, and bench/agent_fanout.cc
# times each agent's receipt. Starts its own server (virtual clock, a fresh data folder, enough
# HTTP threads for every waiting poll) and stops it.
# Usage: bench/agent_fanout.sh [BUILD_DIR, default build] [AGENTS, default 1000]
#        [CONNECTS_AT_ONCE, default 4; AGENTS: every agent connecting at the same moment]
set -euo pipefail
build=${1:-build}
agents=${2:-1000}
at_once=${3:-4}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
out=$(mktemp)
"$build/archimedes" serve --listen 127.0.0.1:0 --data "$data" --clock virtual --policy k8s-default \
  --http-threads $((agents + 64)) >"$out" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data" "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out")
for _ in $(seq 100); do curl -sf "$url/readyz" >/dev/null && break; sleep 0.1; done
"$build/agent_fanout" "$url" "$agents" "$at_once"
