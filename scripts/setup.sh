#!/usr/bin/env bash
# Installs every Debian package the build, tests and benchmarks need. Idempotent.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libcpp-httplib-dev libyaml-dev libsqlite3-dev libeigen3-dev
  etcd-server etcd-client iproute2 curl jq wrk prometheus
  time  # GNU time: peak memory in bench/profile_history.sh
  clang-format clang-tidy
  chromium nodejs  # the HTML reports' browser tests (tests/report/)
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
fi
