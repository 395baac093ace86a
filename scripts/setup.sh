#!/usr/bin/env bash
# Installs the Debian packages that fabdiag's build, tests and emulated cluster need.
# Non-interactive and idempotent: runs apt-get only when something is missing. Needs root
# (or sudo) on Debian 12 / Ubuntu 22.04+.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  # required libraries
  libcli11-dev nlohmann-json3-dev doctest-dev libopenmpi-dev openmpi-bin
  # optional libraries (detected by CMake)
  libnl-3-dev libnl-genl-3-dev libibverbs-dev libyaml-cpp-dev
  # tests, emulated cluster and benchmarks (GNU time: peak RSS in scripts/bench-import-memory.sh)
  iproute2 ethtool iperf3 python3 procps util-linux time
  # tests: the sanitizer and fuzz stage (scripts/test-sanitize.sh): clang, its sanitizer and
  # libFuzzer runtimes (a recommends of clang, so named), llvm-symbolizer for the reports
  clang libclang-rt-dev llvm
  # tests: read-only checks of the live host trace fabdiag's system calls
  strace
  # tests: a real node_exporter scrapes the `counters --format prometheus` textfile (the
  # tests start their own on 127.0.0.1; on a systemd host the package also enables a service)
  prometheus-node-exporter
  # tests: headless Chromium renders `fabdiag report --format html`, takes a screenshot and
  # queries the page's DOM (tests/cli/report_browser_test.py)
  chromium fonts-liberation
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
