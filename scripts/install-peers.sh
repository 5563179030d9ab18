#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Install the peer libraries that conq-bench compares conq against: the
# queues', and those of the UUID, reference-count and pool benchmarks
# (Debian 12 / Ubuntu package names). conq itself needs none of them: the
# bench builds whichever peers it finds and skips the rest.
#
#   scripts/install-peers.sh            install (as root, or through sudo)
#   scripts/install-peers.sh --list     print the package names, one a line
#   scripts/install-peers.sh --missing  print those not installed (dpkg)
#   scripts/install-peers.sh --auto     what `make bench` runs first: when
#       some are missing, install them if it can without asking (root, or
#       sudo without a password; not when CONQ_NO_PEER_INSTALL=1), else say
#       which are missing and how to install them. Never fails: the bench
#       then runs with the peers it has.
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
	uuid-dev                 # util-linux libuuid (Uuid: libuuid:*)
	libsodium-dev            # libsodium randombytes_buf (Uuid: sodium:*)
	libglib2.0-dev           # GLib gatomicrefcount, GThreadPool (Refcount, Pool: glib:*)
	libuv1-dev               # libuv's threadpool, uv_queue_work (Pool: libuv:*)
	liburing-dev             # the journal's io_uring backend (libconq-journal)
	libaio-dev               # the journal's libaio backend
	fio                      # conq-journal-bench's ceilings (fio psync, io_uring, libaio)
	libsqlite3-dev           # conq-journal-bench: SQLite in WAL mode
)

# The packages of PEERS that dpkg does not list as installed.
missing() {
	local p
	for p in "${PEERS[@]}"; do
		[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) == ii* ]] ||
			echo "$p"
	done
}

install() {
	export DEBIAN_FRONTEND=noninteractive
	# Skip `apt-get update` when the caller has just run it
	# (CONQ_APT_UPDATED=1).
	[[ ${CONQ_APT_UPDATED:-0} == 1 ]] || "${SUDO[@]}" apt-get update -q
	"${SUDO[@]}" apt-get install -y -q --no-install-recommends "$@"
}

case ${1:-} in
--list)
	printf '%s\n' "${PEERS[@]}"
	exit 0
	;;
--missing)
	command -v dpkg-query >/dev/null || { echo "$0: no dpkg-query (not Debian)" >&2; exit 1; }
	missing
	exit 0
	;;
--auto) ;;
"") ;;
*)
	echo "usage: $0 [--list | --missing | --auto]" >&2
	exit 2
	;;
esac

SUDO=()
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then
	SUDO=(sudo)
fi

if [[ ${1:-} == --auto ]]; then
	say() { echo "make bench: $*"; }
	how="install them with: sudo scripts/install-peers.sh, then run make bench again (it finds them by itself)"
	if ! command -v dpkg-query >/dev/null; then
		say "not a Debian system: conq-bench compares conq only with the peer libraries CMake finds ($(printf '%s ' "${PEERS[@]}")are their Debian names; conq-bench --list-peers tells which are in)"
		exit 0
	fi
	mapfile -t want < <(missing)
	[[ ${#want[@]} -eq 0 ]] && exit 0
	if [[ ${CONQ_NO_PEER_INSTALL:-0} == 1 ]]; then
		say "peer libraries not installed: ${want[*]}; CONQ_NO_PEER_INSTALL=1, so the table lacks them; $how"
		exit 0
	fi
	if [[ $(id -u) -ne 0 ]] && ! { [[ ${#SUDO[@]} -ne 0 ]] && sudo -n true 2>/dev/null; }; then
		say "peer libraries not installed: ${want[*]}; not root, so the table lacks them; $how"
		exit 0
	fi
	say "installing the peer libraries the table compares against: ${want[*]} (apt-get; CONQ_NO_PEER_INSTALL=1 skips this)"
	log=$(mktemp)
	if install "${want[@]}" >"$log" 2>&1; then
		rm -f "$log"
		say "installed ${#want[@]} package(s)"
	else
		tail -n 5 "$log" | sed 's/^/    /'
		rm -f "$log"
		mapfile -t left < <(missing)
		say "could not install ${left[*]:-them} (no network or no apt source?); the table lacks them; $how"
	fi
	exit 0
fi

if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
	echo "$0: run as root (no sudo found)" >&2
	exit 1
fi
install "${PEERS[@]}"
