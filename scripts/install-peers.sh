#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Install the peer queue libraries that conq-bench compares conq against
# (Debian 12 / Ubuntu package names). conq itself needs none of them: the
# bench builds whichever peers it finds and skips the rest.
#
#   scripts/install-peers.sh          install (as root, or through sudo)
#   scripts/install-peers.sh --list   print the package names, one a line
set -euo pipefail

PEERS=(
	libck-dev                # Concurrency Kit: ck_ring (ck:*)
	libdpdk-dev              # DPDK: rte_ring headers + libdpdk.pc (dpdk:*)
	libatomic-queue-dev      # max0x7ba/atomic_queue (atomic_queue:*)
	liburcu-dev              # liburcu: wfcqueue (urcu:*)
	libboost-dev             # Boost.Lockfree queue / spsc_queue (boost:*)
	libtbb-dev               # oneTBB: concurrent_bounded_queue (tbb:*)
	libconcurrentqueue-dev   # moodycamel::ConcurrentQueue
	libreaderwriterqueue-dev # moodycamel::ReaderWriterQueue
)

if [[ ${1:-} == --list ]]; then
	printf '%s\n' "${PEERS[@]}"
	exit 0
fi
if [[ $# -ne 0 ]]; then
	echo "usage: $0 [--list]" >&2
	exit 2
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null || { echo "$0: run as root (no sudo found)" >&2; exit 1; }
	SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Skip `apt-get update` when the caller has just run it (CONQ_APT_UPDATED=1).
[[ ${CONQ_APT_UPDATED:-0} == 1 ]] || "${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${PEERS[@]}"
