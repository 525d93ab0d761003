#!/usr/bin/env bash
# Configures and builds Archimedes into build/ (Release with debug info). Extra arguments go to
# CMake, e.g. scripts/build.sh -DARCHIMEDES_SANITIZE=ON with BUILD_DIR=build-asan.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja "$@" >/dev/null
ninja -C "$build_dir" -j "$(nproc)"
