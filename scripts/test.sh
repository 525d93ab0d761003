#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: the GoogleTest suites through
# CTest (real etcd and HTTP servers on loopback included), the live MAGI test (etcd, serve,
# members and agents in network namespaces), and, unless SKIP_SANITIZERS=1, everything that runs
# again under sanitizers: every suite (the command's CLI tests included) and the MAGI fault test
# with real processes in network namespaces under AddressSanitizer and UBSan (SKIP_SANITIZERS=1
# runs that test on the plain build instead), the MAGI member's and the
# service's suites under ThreadSanitizer, and the fuzzers of every input format
# (scripts/fuzz.sh). In CI (CI=true) a test whose inputs (../shared, etcd) are missing fails
# instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
# MAGI in the running system: etcd, serve, members and agents in network namespaces.
bash scripts/magi_live_test.sh build/archimedes
if [ "${SKIP_SANITIZERS:-0}" == 1 ]; then
  bash scripts/magi_fault_test.sh build/archimedes
else
  # The sanitizer builds use clang (with -O1 and line tables, see CMakeLists.txt) and compile each
  # library in batches of files (ARCHIMEDES_UNITY): CI has 45 minutes on 2 cores, and compiling
  # is most of them.
  BUILD_DIR=build-asan CXX=clang++ bash scripts/build.sh -DARCHIMEDES_SANITIZE=ON \
    -DARCHIMEDES_BUILD_BENCH=OFF -DARCHIMEDES_UNITY=ON
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 900
  bash scripts/magi_fault_test.sh build-asan/archimedes
  # ThreadSanitizer over the multi-threaded code: the MAGI member, the service's HTTP threads
  # against its one control plane (the in-process suites: the others run processes), the own
  # Kubernetes scheduler's watches and worker, and the usage history's read-ahead thread and the
  # profiler's applications shared among the cores.
  CXX=clang++ cmake -S . -B build-tsan -G Ninja -DARCHIMEDES_TSAN=ON -DARCHIMEDES_BUILD_BENCH=OFF \
    -DARCHIMEDES_UNITY=ON >/dev/null
  ninja -C build-tsan -j "$(nproc)" magi_test server_test trace_test profile_test
  # tests/tsan.supp says why cpp-httplib's own interceptor calls (and two reports its uninstrumented
  # code causes in ours) are ignored.
  export TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp"
  build-tsan/magi_test
  build-tsan/server_test --gtest_filter='ApiTest.*:ConcurrencyTest.*:KubeSchedulerTest.*'
  build-tsan/trace_test --gtest_filter='UsageHistoryStreamTest.*'
  build-tsan/profile_test --gtest_filter='ProfilerTest.ClassesRecoverSyntheticFamilies'
  bash scripts/fuzz.sh
fi
