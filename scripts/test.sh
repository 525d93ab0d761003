#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: the GoogleTest suites through
# CTest (real etcd and HTTP servers on loopback included), the MAGI fault test with real processes
# in network namespaces, and, unless SKIP_SANITIZERS=1, the unit suites again under
# AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
bash scripts/magi_fault_test.sh build/archimedes
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  BUILD_DIR=build-asan bash scripts/build.sh -DARCHIMEDES_SANITIZE=ON -DARCHIMEDES_BUILD_BENCH=OFF
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 900
fi
