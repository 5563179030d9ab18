#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# run-scaling.sh - the multi-core scaling run of issue 3, for a machine with
# many cores and none of the peer libraries. It travels in the kit that
# `make scaling-kit` builds (the Makefile): a static conq-bench
# with every peer that has a static archive, and this script.
#
# usage: run-scaling.sh [--smoke] [--max-threads N]
#
# Runs, with the kit's conq-bench, in one process per table (the queues of a
# table interleaved round by round, as always):
#   mpmc: conq_mpmc_array and the MPMC peers at -tg 1,1 2,2 4,4 8,8
#   mpsc: conq_mpsc_array (and conq_mpmc_array) and the MPSC peers at
#         -tg 1,1 2,1 4,1 8,1 15,1
# each shape only if its threads fit the CPUs this process may use (no
# oversubscription), 2 warmup + 8 measured iterations of 200 ms (about 3
# minutes on 16 CPUs). --smoke: 1 + 2 iterations of 20 ms (a check that the
# kit runs; any machine). --max-threads caps P + C.
#
# Writes into $OUT (default ./scaling-out): env.txt (machine), and per table
# NAME.txt (conq-bench's report, ratios included) and NAME.json (JMH's
# format). Exit status: conq-bench's (0 ok), or 2 on a usage error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
BENCH=${CONQ_BENCH:-$here/conq-bench}
OUT=${OUT:-./scaling-out}
smoke=0
max=1000000
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1; shift ;;
	--max-threads) [ $# -ge 2 ] || exit 2; max=$2; shift 2 ;;
	-h|--help) sed -n '/^# usage:/,/^# format)/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-scaling: unknown option $1" >&2; exit 2 ;;
	esac
done
case $max in ''|*[!0-9]*) echo "run-scaling: --max-threads N" >&2; exit 2 ;; esac
[ -x "$BENCH" ] || { echo "run-scaling: no conq-bench at $BENCH" >&2; exit 2; }
mkdir -p "$OUT"

# The CPUs this process may run on (taskset/cgroups), else all online.
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ -r /proc/self/status ]; then
	n=$(awk '/^Cpus_allowed_list:/ {
		n = 0; k = split($2, r, ",")
		for (i = 1; i <= k; i++) {
			if (split(r[i], ab, "-") == 2) n += ab[2] - ab[1] + 1; else n++
		}
		print n }' /proc/self/status)
	[ -n "$n" ] && [ "$n" -gt 0 ] && ncpu=$n
fi
[ "$max" -lt "$ncpu" ] && ncpu=$max

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "uname: $(uname -a)"
	echo "cpus usable: $ncpu"
	grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
	echo "load: $(cat /proc/loadavg 2>/dev/null || echo n/a)"
	"$BENCH" --list-peers 2>&1 | grep -E 'compiled in|MISSING' || true
} >"$OUT/env.txt"
cat "$OUT/env.txt"

if [ "$smoke" -eq 1 ]; then
	iters="-wi 1 -w 20ms -i 2 -r 20ms"
else
	iters="-wi 2 -w 200ms -i 8 -r 200ms"
fi

# shapes P,C... -> "-tg P,C" for those with P + C <= ncpu
shapes() {
	for s in "$@"; do
		p=${s%,*}; c=${s#*,}
		[ $((p + c)) -le "$ncpu" ] && printf ' -tg %s' "$s"
	done
	return 0
}

# The queues of a comma list that this conq-bench has (a peer without a
# static archive, TBB on Debian, is not in the kit).
have=$("$BENCH" -l 2>/dev/null | awk '/^  [a-z_]+:[a-z_]+ / { print $1 }')
present() {
	out=
	for q in $(echo "$1" | tr ',' ' '); do
		if echo "$have" | grep -qx "$q"; then
			out=${out:+$out,}$q
		else
			echo "run-scaling: $q is not in this conq-bench: left out" >&2
		fi
	done
	echo "$out"
}

rc=0
run() { # name queues shapes...
	name=$1
	queues=$(present "$2")
	shift 2
	tg=$(shapes "$@")
	if [ -z "$tg" ]; then
		echo "run-scaling: $name: no shape fits $ncpu CPUs" | tee "$OUT/$name.txt"
		return
	fi
	echo "== $name:$tg"
	# shellcheck disable=SC2086  # $tg and $iters are option lists
	"$BENCH" $tg -p qType="$queues" $iters -rf json -rff "$OUT/$name.json" \
		>"$OUT/$name.txt" 2>&1 || rc=$?
	grep -E '^QueueThroughputBackoffNone.tpt  |/ best|/ mutex:ring:' "$OUT/$name.txt" || true
}

run mpmc conq:mpmc_array,ck:mpmc,dpdk:rte_ring_mpmc,dpdk:rte_ring_mpmc_rts,dpdk:rte_ring_mpmc_hts,atomic_queue:mpmc,boost:queue,tbb:concurrent_bounded_queue,moodycamel:concurrentqueue,urcu:wfcq_mpmc,mutex:ring \
	1,1 2,2 4,4 8,8
run mpsc conq:mpsc_array,conq:mpmc_array,ck:mpsc,dpdk:rte_ring_mpsc,urcu:wfcq_mpsc,mutex:ring \
	1,1 2,1 4,1 8,1 15,1
exit "$rc"
