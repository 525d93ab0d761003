# Shared by the tests that run real processes as machines in network namespaces
# (scripts/magi_fault_test.sh, scripts/magi_live_test.sh): the scenario log and its tally, process
# handling, and a test network of namespaces joined by veth pairs to a bridge in a hub namespace.
# Source it, then call fleet_init. Everything started (PIDS) or created (NAMESPACES) is removed on
# exit; the work folder's logs are shown when a check failed (or KEEP_LOGS=1).

# fleet_init NAME BINARY TAG_PREFIX: checks the binary and the tools, makes the work folder.
fleet_init() {
  FLEET_NAME=$1
  BIN=$(realpath "$2" 2>/dev/null || true)
  if [[ -z "$BIN" || ! -x "$BIN" ]]; then
    echo "$FLEET_NAME: archimedes binary '$2' not found; build it first" >&2
    exit 2
  fi
  local tool
  for tool in etcd etcdctl ip curl jq; do
    if ! command -v "$tool" >/dev/null; then
      echo "$FLEET_NAME: '$tool' is missing; run scripts/setup.sh" >&2
      exit 2
    fi
  done
  WORK=$(mktemp -d "/tmp/$FLEET_NAME.XXXXXX")
  TAG="$3$$"
  NAMESPACES=()
  PIDS=()
  PASSED=0
  FAILED=0
  START=$(date +%s)
  HUB=""
  trap fleet_cleanup EXIT
  trap 'exit 130' INT TERM
}

log() { printf '[%3ds] %s\n' $(($(date +%s) - START)) "$*"; }
pass() { PASSED=$((PASSED + 1)); log "PASS: $*"; }
fail() { FAILED=$((FAILED + 1)); log "FAIL: $*"; }
# Prints the tally and exits, non-zero when a check failed.
finish() {
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED == 0 ]]
  exit
}

# reap PID: kills PID at once and collects it without the shell's "Killed" notice.
reap() {
  kill -KILL "$1" 2>/dev/null
  { wait "$1"; } 2>/dev/null
}

fleet_cleanup() {
  local pid ns f
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  sleep 0.5
  for pid in "${PIDS[@]}"; do reap "$pid"; done
  for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if [[ $FAILED -gt 0 || ${KEEP_LOGS:-0} == 1 ]]; then
    for f in "$WORK"/*.log; do
      echo "----- last lines of $(basename "$f")"
      tail -n 15 "$f"
    done
  fi
  rm -rf "$WORK"
}

# wait_until SECONDS CMD...: runs CMD (a function of the caller's too) every 0.2 s until it
# succeeds; fails when it never did in time.
wait_until() {
  local until=$(($(date +%s%N) + $1 * 1000000000))
  shift
  while ! "$@" >/dev/null 2>&1; do
    (($(date +%s%N) > until)) && return 1
    sleep 0.2
  done
}
# elapsed T0 T1: seconds between two `date +%s.%N` readings, to a tenth.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }

# Whether this machine lets us make network namespaces.
fleet_namespaces_allowed() {
  ip netns add "$TAG-probe" 2>/dev/null || return 1
  ip netns del "$TAG-probe"
}

# in_ns NAMESPACE CMD...: runs CMD inside NAMESPACE (here when NAMESPACE is empty).
in_ns() {
  local ns=$1
  shift
  if [[ -n $ns ]]; then ip netns exec "$ns" "$@"; else "$@"; fi
}
# spawn NAMESPACE CMD...: for `spawn NS CMD... &`: the background job is CMD itself (not a
# subshell), so that killing $! kills CMD.
spawn() {
  local ns=$1
  shift
  if [[ -n $ns ]]; then exec ip netns exec "$ns" "$@"; else exec "$@"; fi
}

fleet_add_ns() { ip netns add "$1" && NAMESPACES+=("$1") && ip -n "$1" link set lo up; }
# fleet_hub IP: the hub namespace ($HUB) with the bridge br0 at IP/24.
fleet_hub() {
  HUB="$TAG-hub"
  fleet_add_ns "$HUB" && ip -n "$HUB" link add br0 type bridge && ip -n "$HUB" link set br0 up &&
    ip -n "$HUB" addr add "$1/24" dev br0
}
# fleet_attach NAMESPACE IP: a new namespace joined to the hub's bridge by a veth whose hub end is
# v<last byte of IP> (set it down to unplug the namespace), with address IP/24.
fleet_attach() {
  local ns=$1 ip=$2 port="v${2##*.}"
  fleet_add_ns "$ns" &&
    ip -n "$HUB" link add "$port" type veth peer name eth0 netns "$ns" &&
    ip -n "$HUB" link set "$port" master br0 up &&
    ip -n "$ns" addr add "$ip/24" dev eth0 &&
    ip -n "$ns" link set eth0 up
}
# fleet_blackhole add|del NS_A IP_A NS_B IP_B: the two namespaces can no longer reach each other
# (blackhole routes on both sides), or again.
fleet_blackhole() {
  ip -n "$2" route "$1" blackhole "$5/32"
  ip -n "$4" route "$1" blackhole "$3/32"
}
