#!/usr/bin/env bash
# MAGI fault test: a real etcd, five real `archimedes magi` members and four health-serving test
# nodes, with links cut and processes killed, checking that
#   (a) a node unreachable from one POD (and cut from the heartbeat channel) is not declared offline,
#   (b) a node that is really down is declared offline by quorum within the configured time,
#   (c) killing two members does not stop decisions, killing three does,
#   (d) restarting etcd or a member loses no recorded decision.
#
# Usage: scripts/magi_fault_test.sh [path/to/archimedes]   (default: build/archimedes)
# Runs as root in network namespaces (ip netns, veth pairs, a bridge) that it creates and removes.
# Where network namespaces are forbidden (or MAGI_FAULT_MODE=loopback), it says so and runs the
# same scenarios on loopback addresses (127.0.1.x) with file-based fault injection instead.
# Everything it starts or creates is removed on exit, failure included. Prints a scenario log and
# ends with "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

source "$(dirname "$0")/lib/netns_fleet.sh"
fleet_init magi-fault "${1:-build/archimedes}" mf
MEMBER_PID=()
NODE_PID=()
ETCD_PID=""
PREFIX=/archimedes/magi/

MODE=${MAGI_FAULT_MODE:-}
if [[ -z "$MODE" ]]; then
  if fleet_namespaces_allowed; then
    MODE=netns
  else
    log "network namespaces are not permitted here (ip netns add failed):"
    log "running the same scenarios on loopback addresses with file-based fault injection"
    MODE=loopback
  fi
fi
log "mode: $MODE; work dir $WORK"

MEMBERS="1=pod-a,2=pod-b,3=pod-c,4=pod-d,5=pod-e"
POD_OF=("" pod-a pod-b pod-c pod-d pod-e)
NODE_POD=("" pod-a pod-b pod-c pod-d)
# Probing every 0.5 s, three failures to suspect, heartbeats older than 4 s are stale, leases of 3 s.
MEMBER_FLAGS=(--members "$MEMBERS" --quorum 3 --min-pods 2 --window 30 --vote-ttl 10
  --failures 3 --heartbeat-grace 4 --probe-interval-ms 500 --probe-timeout-ms 300 --lease-ttl 3)
DECISION_DEADLINE=20  # seconds from a node's death to its recorded offline decision

if [[ $MODE == netns ]]; then
  ETCD_ADDR=10.213.0.1
  ETCD_PORT=2379
  PEER_PORT=2380
  member_ns() { echo "$TAG-m$1"; }
  node_ns() { echo "$TAG-n$1"; }
  member_ip() { echo "10.213.0.1$1"; }
  node_ip() { echo "10.213.0.2$1"; }
  NODE_PORT=8080
  setup_network() {
    fleet_hub "$ETCD_ADDR" || return 1
    local i
    for i in 1 2 3 4 5; do fleet_attach "$(member_ns $i)" "$(member_ip $i)" || return 1; done
    for i in 1 2 3 4; do fleet_attach "$(node_ns $i)" "$(node_ip $i)" || return 1; done
  }
  # cut_path MEMBER NODE: the two can no longer reach each other.
  cut_path() { fleet_blackhole add "$(member_ns "$1")" "$(member_ip "$1")" "$(node_ns "$2")" "$(node_ip "$2")"; }
  restore_path() { fleet_blackhole del "$(member_ns "$1")" "$(member_ip "$1")" "$(node_ns "$2")" "$(node_ip "$2")"; }
  # cut_heartbeat NODE: the node can no longer reach etcd (its API-server channel).
  cut_heartbeat() { ip -n "$(node_ns "$1")" route add blackhole "$ETCD_ADDR/32"; }
  restore_heartbeat() { ip -n "$(node_ns "$1")" route del blackhole "$ETCD_ADDR/32"; }
  # power_off NODE: its health server dies and its link goes down.
  power_off() {
    reap "${NODE_PID[$1]}"
    ip -n "$HUB" link set "v$(node_ip "$1" | cut -d. -f4)" down
  }
else
  ETCD_ADDR=127.0.0.1
  ETCD_PORT=$((20000 + RANDOM % 20000))
  PEER_PORT=$((ETCD_PORT + 1))
  member_ns() { echo ""; }
  node_ns() { echo ""; }
  member_ip() { echo "127.0.0.1$1"; }
  node_ip() { echo "127.0.1.$1"; }
  NODE_PORT=$((ETCD_PORT + 2))
  setup_network() { :; }
  cut_path() { echo "node-$2" >>"$WORK/blocked-$1"; }
  restore_path() { sed -i "/^node-$2\$/d" "$WORK/blocked-$1"; }
  # The node's health server is restarted without a store: its heartbeats stop.
  cut_heartbeat() { reap "${NODE_PID[$1]}"; start_node "$1" nostore; }
  restore_heartbeat() { reap "${NODE_PID[$1]}"; start_node "$1"; }
  power_off() { reap "${NODE_PID[$1]}"; }
fi
ETCD_URL="http://$ETCD_ADDR:$ETCD_PORT"

ectl() { in_ns "$HUB" etcdctl --endpoints "$ETCD_URL" --command-timeout=2s "$@"; }

start_etcd() {
  spawn "$HUB" etcd --name magi-fault --data-dir "$WORK/etcd-data" \
    --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
    --listen-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-cluster "magi-fault=http://127.0.0.1:$PEER_PORT" >>"$WORK/etcd.log" 2>&1 &
  ETCD_PID=$!
  PIDS+=("$ETCD_PID")
  local i
  for i in $(seq 50); do
    ectl endpoint health >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

stop_etcd() {
  kill -TERM "$ETCD_PID" 2>/dev/null
  { wait "$ETCD_PID"; } 2>/dev/null
}

start_node() {  # start_node N [nostore]
  local store=(--store "$ETCD_URL")
  [[ ${2:-} == nostore ]] && store=()
  spawn "$(node_ns "$1")" "$BIN" magi --serve-health "$(node_ip "$1"):$NODE_PORT" --name "node-$1" \
    "${store[@]}" >>"$WORK/node-$1.log" 2>&1 &
  NODE_PID[$1]=$!
  PIDS+=("$!")
}

start_member() {
  spawn "$(member_ns "$1")" "$BIN" magi --id "$1" --pod "${POD_OF[$1]}" --store "$ETCD_URL" \
    --nodes "$WORK/nodes.json" --blocked-file "$WORK/blocked-$1" "${MEMBER_FLAGS[@]}" \
    >>"$WORK/member-$1.log" 2>&1 &
  MEMBER_PID[$1]=$!
  PIDS+=("$!")
}

kill_member() { reap "${MEMBER_PID[$1]}"; }

decision() { ectl get --print-value-only "${PREFIX}decisions/$1/$2" 2>/dev/null; }
# "create_revision version" of a decision key, empty when absent.
decision_revisions() {
  ectl get "${PREFIX}decisions/$1/$2" -w fields 2>/dev/null |
    awk -F' : ' '/"CreateRevision"/ {c=$2} /"Version"/ {v=$2} END {if (c) print c, v}'
}

# wait_decision KIND NODE SECONDS: prints the seconds it took; fails when none came in time.
wait_decision() {
  local t0 now
  t0=$(date +%s.%N)
  while true; do
    now=$(date +%s.%N)
    if [[ -n "$(decision "$1" "$2")" ]]; then
      awk -v a="$t0" -v b="$now" 'BEGIN {printf "%.1f", b - a}'
      return 0
    fi
    awk -v a="$t0" -v b="$now" -v s="$3" 'BEGIN {exit !(b - a > s)}' && return 1
    sleep 0.5
  done
}

members_alive() { ectl get --prefix --keys-only "${PREFIX}members/" 2>/dev/null | grep -c . ; }

wait_members_alive() {  # wait_members_alive COUNT SECONDS
  local i
  for i in $(seq $(($2 * 2))); do
    [[ $(members_alive) == "$1" ]] && return 0
    sleep 0.5
  done
  return 1
}

# ---------------------------------------------------------------------------------------------
log "setting up: network, etcd, 4 nodes, 5 members"
if ! setup_network; then
  fail "could not build the test network"
  finish
fi
{
  echo '{"nodes": ['
  for i in 1 2 3 4; do
    sep=","
    [[ $i == 4 ]] && sep=""
    echo "  {\"name\": \"node-$i\", \"pod\": \"${NODE_POD[$i]}\", \"address\": \"$(node_ip $i):$NODE_PORT\", \"health_url\": \"http://$(node_ip $i):$NODE_PORT/healthz\"}$sep"
  done
  echo ']}'
} >"$WORK/nodes.json"
if ! start_etcd; then
  fail "etcd did not start (see etcd.log)"
  finish
fi
log "etcd up at $ETCD_URL"
for i in 1 2 3 4; do start_node $i; done
for i in 1 2 3 4 5; do start_member $i; done
if wait_members_alive 5 15; then
  pass "all 5 members heartbeat in etcd"
else
  fail "only $(members_alive) of 5 members heartbeat in etcd"
fi
sleep 3
if [[ -z "$(ectl get --prefix --keys-only "${PREFIX}decisions/")" ]]; then
  pass "healthy fleet: no decision"
else
  fail "healthy fleet got a decision: $(ectl get --prefix --keys-only "${PREFIX}decisions/")"
fi

# (a) ------------------------------------------------------------------------------------------
log "(a) cutting node-2 off from pod-a (member 1) and from its heartbeat channel"
cut_path 1 2
cut_heartbeat 2
sleep 12
if grep -q "opened proposal node-offline/node-2" "$WORK/member-1.log"; then
  pass "(a) member 1 suspected node-2 and opened a proposal"
else
  fail "(a) member 1 never suspected node-2 (the cut did not take effect)"
fi
if [[ -z "$(decision node-offline node-2)" ]]; then
  pass "(a) node-2, unreachable from one POD only, is not declared offline"
else
  fail "(a) node-2 was declared offline: $(decision node-offline node-2)"
fi
restore_path 1 2
restore_heartbeat 2

# (b) ------------------------------------------------------------------------------------------
log "(b) powering off node-3"
power_off 3
if took=$(wait_decision node-offline node-3 $DECISION_DEADLINE); then
  pass "(b) node-3 declared offline by quorum ${took}s after it died (limit ${DECISION_DEADLINE}s)"
  log "    record: $(decision node-offline node-3 | cut -c1-220)..."
else
  fail "(b) no offline decision for node-3 within ${DECISION_DEADLINE}s"
fi
if took=$(wait_decision migrate node-3 10); then
  pass "(b) migration of node-3's containers agreed ${took}s after the offline decision"
else
  fail "(b) no migrate decision for node-3"
fi

# (c) ------------------------------------------------------------------------------------------
log "(c) killing members 4 and 5, then powering off node-4"
kill_member 4
kill_member 5
if wait_members_alive 3 10; then pass "(c) leases of the killed members expired"; else fail "(c) killed members still heartbeat"; fi
power_off 4
if took=$(wait_decision node-offline node-4 $DECISION_DEADLINE); then
  pass "(c) with 3 of 5 members, node-4 declared offline in ${took}s"
else
  fail "(c) with 3 of 5 members, no decision for node-4"
fi
log "(c) killing member 3 as well, then powering off node-1"
kill_member 3
wait_members_alive 2 10
power_off 1
sleep $DECISION_DEADLINE
if [[ -z "$(decision node-offline node-1)" ]]; then
  pass "(c) with 2 of 5 members, no decision on node-1 after ${DECISION_DEADLINE}s"
else
  fail "(c) 2 members decided without quorum: $(decision node-offline node-1)"
fi

# (d) ------------------------------------------------------------------------------------------
before_3=$(decision_revisions node-offline node-3)
before_4=$(decision_revisions node-offline node-4)
log "(d) restarting etcd (decisions: node-3 at [$before_3], node-4 at [$before_4])"
stop_etcd
sleep 2
if start_etcd; then pass "(d) etcd restarted on its data directory"; else fail "(d) etcd did not restart"; fi
log "(d) restarting members 3, 4 and 5, and killing and restarting member 2"
for i in 3 4 5; do start_member $i; done
kill_member 2
start_member 2
if took=$(wait_decision node-offline node-1 $DECISION_DEADLINE); then
  pass "(c) quorum back: node-1 declared offline ${took}s after members returned"
else
  fail "(c) no decision on node-1 after the members returned"
fi
sleep 3
after_3=$(decision_revisions node-offline node-3)
after_4=$(decision_revisions node-offline node-4)
if [[ -n "$before_3" && "$before_3" == "$after_3" && -n "$before_4" && "$before_4" == "$after_4" ]]; then
  pass "(d) decisions survived etcd and member restarts unchanged (create revision, version 1)"
else
  fail "(d) decisions changed: node-3 [$before_3] -> [$after_3], node-4 [$before_4] -> [$after_4]"
fi
if [[ -z "$(decision node-offline node-2)" ]]; then
  pass "(a) node-2 was never declared offline"
else
  fail "(a) node-2 was declared offline later: $(decision node-offline node-2)"
fi
writers=$(grep -h "recorded decision node-offline node-3" "$WORK"/member-*.log | wc -l)
if [[ $writers == 1 ]]; then
  pass "(d) exactly one member recorded node-3's decision"
else
  fail "(d) $writers members claim to have recorded node-3's decision"
fi

log "decision records:"
ectl get --prefix --keys-only "${PREFIX}decisions/" | grep . | sed 's/^/    /'
finish
