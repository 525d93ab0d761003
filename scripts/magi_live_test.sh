#!/usr/bin/env bash
# MAGI in the running system: a real three-member etcd cluster, `archimedes serve` on it, five
# `archimedes magi` members taking their nodes from serve's API, and three `archimedes agent`
# machines running a service's replicas and a job's tasks, each process in a network namespace of
# its own (members in PODs pod-a..pod-e), checking that
#   (a) cutting one agent off from one POD declares nothing and moves nothing (that member does not
#       even vote: the node's heartbeat, which serve writes while it hears the agent, is fresh),
#   (b) cutting an agent's namespace off the network gets its node declared offline by quorum
#       (Suspect), then, once the members' migration review passes, NotReady with its replicas and
#       tasks running elsewhere within DEADLINE seconds,
#   (c) bringing it back readmits it: the quorum clears the decision and serve makes it Ready,
#   (d) with two members killed the quorum still decides; with three killed nothing is decided and
#       nothing moves: the silent node is only Suspect,
# and that /metrics counts suspect nodes, decisions and reviews.
#
# Usage: scripts/magi_live_test.sh [path/to/archimedes]   (default: build/archimedes)
# Runs as root in network namespaces (ip netns, veth pairs, a bridge) that it creates and removes;
# where they are forbidden it says so and skips (fails under CI=true). Everything it starts or
# creates is removed on exit. Prints a scenario log and ends with "N passed, N failed".
set -uo pipefail
source "$(dirname "$0")/lib/netns_fleet.sh"

fleet_init magi_live "${1:-build/archimedes}" ml
if ! fleet_namespaces_allowed; then
  log "network namespaces are not permitted here (ip netns add failed): skipping"
  [[ ${CI:-} == true ]] && exit 1
  exit 0
fi

DEADLINE=20     # seconds from a node's loss to its containers running elsewhere
HUB_IP=10.214.0.1
SERVE="http://$HUB_IP:8080"
ETCD_STORE="etcd://$HUB_IP:2379,$HUB_IP:2381,$HUB_IP:2383"
MEMBERS="1=pod-a,2=pod-b,3=pod-c,4=pod-d,5=pod-e"
POD_OF=("" pod-a pod-b pod-c pod-d pod-e)
MEMBER_PID=()
AGENT_PID=()
member_ns() { echo "$TAG-m$1"; }
agent_ns() { echo "$TAG-n$1"; }
member_ip() { echo "10.214.0.1$1"; }
agent_ip() { echo "10.214.0.2$1"; }

api() { in_ns "$HUB" curl -sf --max-time 5 "$@"; }
condition() { api "$SERVE/v1/nodes/node-$1" | jq -r .status.condition; }
is_condition() { [[ $(condition "$1") == "$2" ]]; }
on_node() { api "$SERVE/v1/nodes/node-$1" | jq -r .status.containers; }
# Where everything is: each replica's node, each node's containers, the job's running tasks.
placements() {
  api "$SERVE/v1/services/web" | jq -r '.status.replicas[] | "\(.name) \(.node) \(.state)"'
  local i
  for i in 1 2 3; do echo "node-$i holds $(on_node $i)"; done
  echo "tasks running $(api "$SERVE/v1/jobs/$JOB" | jq -r .status.tasks.running)"
}
all_running() {
  [[ $(api "$SERVE/v1/services/web" | jq '[.status.replicas[] | select(.state == "Running")] | length') == 3 &&
    $(api "$SERVE/v1/jobs/$JOB" | jq .status.tasks.running) == 3 ]]
}
left() { [[ $(on_node "$1") == 0 ]] && all_running; }
registered() { [[ $(api "$SERVE/v1/nodes" | jq '[.items[] | select(.spec.address)] | length') == "$1" ]]; }
decision() {  # NODE [KIND]: when the quorum decided KIND (node-offline) on NODE, if on record
  api "$SERVE/v1/magi" |
    jq -r --arg n "$1" --arg k "${2:-node-offline}" '.items[] | select(.kind == $k and .node == $n) | .decided_at'
}
metric() { api "$SERVE/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

start_etcd() {
  local initial="" i
  for i in 0 1 2; do initial+="${initial:+,}e$i=http://$HUB_IP:$((2380 + 2 * i))"; done
  for i in 0 1 2; do
    spawn "$HUB" etcd --name "e$i" --data-dir "$WORK/etcd-$i" \
      --listen-client-urls "http://$HUB_IP:$((2379 + 2 * i))" \
      --advertise-client-urls "http://$HUB_IP:$((2379 + 2 * i))" \
      --listen-peer-urls "http://$HUB_IP:$((2380 + 2 * i))" \
      --initial-advertise-peer-urls "http://$HUB_IP:$((2380 + 2 * i))" \
      --initial-cluster "$initial" --initial-cluster-token "$TAG" >>"$WORK/etcd-$i.log" 2>&1 &
    PIDS+=("$!")
  done
  wait_until 30 in_ns "$HUB" etcdctl --endpoints "http://$HUB_IP:2379" endpoint health
}

start_member() {
  spawn "$(member_ns "$1")" "$BIN" magi --id "$1" --pod "${POD_OF[$1]}" \
    --store "http://$HUB_IP:$((2377 + 2 * ($1 % 3 + 1)))" --nodes-from "$SERVE" \
    --members "$MEMBERS" --quorum 3 --min-pods 2 --window 30 --vote-ttl 10 --failures 3 \
    --probe-interval-ms 500 --probe-timeout-ms 300 --lease-ttl 3 --readmit-after 6 --heartbeat-grace 3 \
    >>"$WORK/member-$1.log" 2>&1 &
  MEMBER_PID[$1]=$!
  PIDS+=("$!")
}

start_agent() {
  spawn "$(agent_ns "$1")" "$BIN" agent --server "$SERVE" --node "node-$1" --pod "rack-$1" \
    --capacity cpu=4,memory=8Gi --state "$WORK/agent-$1" --no-cgroups --poll-wait 2 \
    --usage-every-ms 1000 --stop-grace-ms 500 --health-listen "$(agent_ip "$1"):10248" \
    >>"$WORK/agent-$1.log" 2>&1 &
  AGENT_PID[$1]=$!
  PIDS+=("$!")
}

# cut_path MEMBER AGENT: the two can no longer reach each other.
cut_path() { fleet_blackhole add "$(member_ns "$1")" "$(member_ip "$1")" "$(agent_ns "$2")" "$(agent_ip "$2")"; }
restore_path() { fleet_blackhole del "$(member_ns "$1")" "$(member_ip "$1")" "$(agent_ns "$2")" "$(agent_ip "$2")"; }
# The agent's namespace loses its link: the machine is gone for everyone (its processes live on).
unplug() { ip -n "$HUB" link set "v2$1" down; }
plug() { ip -n "$HUB" link set "v2$1" up; }

# ---------------------------------------------------------------------------------------------
log "setting up: network, etcd cluster, serve, 3 agents, 5 members"
if ! { fleet_hub "$HUB_IP" &&
  for i in 1 2 3 4 5; do fleet_attach "$(member_ns $i)" "$(member_ip $i)" || exit 1; done &&
  for i in 1 2 3; do fleet_attach "$(agent_ns $i)" "$(agent_ip $i)" || exit 1; done; }; then
  fail "could not build the test network"
  finish
fi
start_etcd || { fail "the etcd cluster did not start (see etcd-*.log)"; finish; }
spawn "$HUB" "$BIN" serve --listen "$HUB_IP:8080" --store "$ETCD_STORE" --node-grace 3s --magi-heartbeat 1s \
  --leader-lease 3s --policy k8s-default >>"$WORK/serve.log" 2>&1 &
PIDS+=("$!")
wait_until 30 api "$SERVE/readyz" || { fail "serve did not become ready (see serve.log)"; finish; }
for i in 1 2 3; do start_agent $i; done
wait_until 20 registered 3 || fail "the agents did not register with their addresses"
for i in 1 2 3 4 5; do start_member $i; done

api -X PUT "$SERVE/v1/services/web" -H 'Content-Type: application/json' \
  -d '{"spec":{"replicas":3,"requests":{"cpu":"1","memory":"1Gi"},"command":"sleep 100000"}}' >/dev/null
JOB=$(api -X POST "$SERVE/v1/jobs" -H 'Content-Type: application/json' \
  -d '{"spec":{"kind":"offline","function":"sleep 100000","tasks":3,"requests":{"cpu":"500m","memory":"512Mi"},"durationEstimate":"2h","delayTolerance":"10m"}}' |
  jq -r .metadata.name)
if wait_until 30 all_running; then
  pass "3 replicas and 3 tasks running on the agents: $(placements | grep holds | xargs)"
else
  fail "not everything runs: $(placements | xargs); $JOB: $(api "$SERVE/v1/jobs/$JOB" | jq -c .status)"
fi
sleep 4
if [[ -z "$(api "$SERVE/v1/magi" | jq -r '.items[]')" && $(metric 'archimedes_nodes{condition="Ready"}') == 3 ]]; then
  pass "healthy fleet: no decision, 3 nodes Ready"
else
  fail "healthy fleet: decisions $(api "$SERVE/v1/magi" | jq -c .items), Ready $(metric 'archimedes_nodes{condition="Ready"}')"
fi

# (a) ------------------------------------------------------------------------------------------
before=$(placements)
log "(a) cutting node-1 off from pod-a (member 1)"
cut_path 1 1
sleep 10
# Member 1 loses node-1, but the heartbeat serve writes for it (its agent is heard) is fresh.
if ! grep -q "node node-1 unreachable" "$WORK/member-1.log"; then
  fail "(a) member 1 never lost node-1 (the cut did not take effect)"
elif grep -q "votes yes on node-offline/node-1" "$WORK/member-1.log"; then
  fail "(a) member 1 voted node-1 offline though serve heard its agent: $(grep "node-1" "$WORK/member-1.log" | tail -3 | xargs)"
else
  pass "(a) member 1 lost node-1 and voted nothing: its heartbeat through serve is fresh"
fi
if [[ -z "$(decision node-1)" && $(condition 1) == Ready && "$(placements)" == "$before" ]]; then
  pass "(a) node-1, unreachable from one POD only: no decision, Ready, nothing moved"
else
  fail "(a) decision [$(decision node-1)], condition $(condition 1), moved: $(diff <(echo "$before") <(placements) | xargs)"
fi
restore_path 1 1

# (b) ------------------------------------------------------------------------------------------
lost=$(on_node 2)
log "(b) unplugging node-2 ($lost containers)"
t0=$(date +%s.%N)
unplug 2
if wait_until $DEADLINE is_condition 2 NotReady; then
  t1=$(date +%s.%N)
  pass "(b) node-2 NotReady by MAGI's quorum $(elapsed "$t0" "$t1")s after it was unplugged (offline decided at $(decision node-2), migration approved at $(decision node-2 migrate))"
else
  fail "(b) node-2 is $(condition 2) after ${DEADLINE}s; decisions: $(api "$SERVE/v1/magi" | jq -c '[.items[] | .kind + "/" + .node]')"
fi
if wait_until $DEADLINE left 2; then
  pass "(b) node-2's $lost containers run elsewhere $(elapsed "$t0" "$(date +%s.%N)")s after it was unplugged (limit ${DEADLINE}s)"
else
  fail "(b) after ${DEADLINE}s: $(placements | xargs)"
fi
# Suspect on the offline decision, NotReady (containers moved) only after the migration review.
if grep -E "node node-2 (Suspect|NotReady): MAGI's quorum" "$WORK/serve.log" | cut -d' ' -f5 | xargs |
  grep -qx "Suspect: NotReady:"; then
  pass "(b) serve held node-2 Suspect on the offline decision and moved its containers after the review passed"
else
  fail "(b) serve's log: $(grep "node-2" "$WORK/serve.log" | xargs)"
fi

# (c) ------------------------------------------------------------------------------------------
log "(c) plugging node-2 back in"
t0=$(date +%s.%N)
plug 2
if wait_until 30 is_condition 2 Ready; then
  pass "(c) node-2 readmitted by quorum and Ready $(elapsed "$t0" "$(date +%s.%N)")s after it came back"
else
  fail "(c) node-2 is $(condition 2) 30s after it came back"
fi
if [[ -z "$(decision node-2)" ]] && grep -q "recorded decision readmit node-2" "$WORK"/member-*.log; then
  pass "(c) the quorum cleared node-2's offline decision"
else
  fail "(c) node-2's decision is still on record: $(decision node-2)"
fi

# (d) ------------------------------------------------------------------------------------------
log "(d) killing members 4 and 5, then unplugging node-3"
reap "${MEMBER_PID[4]}"
reap "${MEMBER_PID[5]}"
sleep 4  # their leases (3 s) expire
lost=$(on_node 3)
t0=$(date +%s.%N)
unplug 3
if wait_until $DEADLINE is_condition 3 NotReady; then
  pass "(d) with 3 of 5 members, node-3 NotReady by quorum $(elapsed "$t0" "$(date +%s.%N)")s after it was unplugged"
else
  fail "(d) with 3 of 5 members, node-3 is $(condition 3)"
fi
wait_until $DEADLINE left 3 &&
  pass "(d) node-3's $lost containers left it" || fail "(d) node-3 still holds $(on_node 3) containers"
log "(d) killing member 3 as well, then unplugging node-1"
reap "${MEMBER_PID[3]}"
sleep 4
before=$(placements)
unplug 1
sleep 12
if [[ $(condition 1) == Suspect && -z "$(decision node-1)" && "$(placements)" == "$before" ]]; then
  pass "(d) with 2 of 5 members: node-1 only Suspect, no decision, nothing moved ($(on_node 1) containers stay)"
else
  fail "(d) with 2 of 5 members: node-1 $(condition 1), decision [$(decision node-1)], moved: $(diff <(echo "$before") <(placements) | xargs)"
fi
suspect=$(metric 'archimedes_nodes{condition="Suspect"}')
offline=$(metric 'archimedes_magi_decisions_total{kind="node-offline"}')
reviewed=$(metric 'archimedes_magi_decisions_total{kind="migrate"}')
pending=$(metric archimedes_magi_reviews_pending)
if [[ $suspect == 1 && $offline == 2 && $reviewed == 2 && $pending == 0 ]]; then
  pass "/metrics: 1 suspect node, 2 node-offline decisions, 2 passed migration reviews, 0 pending"
else
  fail "/metrics: suspect $suspect, node-offline $offline, migrate $reviewed, reviews pending $pending"
fi
finish
