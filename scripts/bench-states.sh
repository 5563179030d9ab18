#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# bench-states.sh - repeat a conq-bench comparison and group the runs by the
# state the machine was in.
#
# The VM this project develops on flips, from minute to minute, between a
# "fast" state (a cache-line round trip between its two vCPUs of ~80 ns) and
# a "slow" one (~330-480 ns), and the ratios between queues differ between
# the two (docs/benchmarks.md). One run of conq-bench interleaves its queues
# round by round, so its ratios are fair, but the run as a whole lands in one
# state or the other. This script runs the comparison N times, brackets each
# run with two line round-trip probes (conq-bench's MachineLimits lineRtt),
# calls a run fast when both probes are below --fast ns, slow when both are
# above --slow ns, and mixed otherwise, and prints per state: each queue's
# median of its per-run medians, and for each ratio asked for the median of
# the per-run ratios with their range.
#
# usage: scripts/bench-states.sh [-n RUNS] [--fast NS] [--slow NS]
#            [--ratio A/B ...] [-- CONQ-BENCH ARGS]
#
#   -n RUNS        runs (default 10)
#   --fast NS      both probes below this: fast (default 150)
#   --slow NS      both probes above this: slow (default 250)
#   --ratio A/B    a ratio to report (queue names as conq-bench's qType);
#                  repeatable; default: each conq:* queue of the run against
#                  each other queue of the same -tg
#   -- ARGS        conq-bench's arguments for one run (default: the SPSC,
#                  MPSC and MPMC contenders at -tg 1,1 (and the MPMC ones at
#                  2,2), -wi 1 -i 4 -r 150ms,
#                  with each conq queue's ratio to the peers of its contract
#                  and conq_mpsc_array's to conq_spsc_array and to the
#                  locked ceiling)
#
# Environment: CONQ_BENCH (default build/bench/conq-bench).
# Exit status: 0 (also for -h); 2 on a usage error; 1 if a run or probe failed.
set -eu

BENCH=${CONQ_BENCH:-build/bench/conq-bench}
RUNS=10
FAST=150
SLOW=250
RATIOS=""
usage() { # [status]: 2 (a usage error, to stderr) unless given
	if [ "${1:-2}" -eq 0 ]; then exec 3>&1; else exec 3>&2; fi
	sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&3
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; RUNS=$2; shift 2 ;;
	--fast) [ $# -ge 2 ] || usage; FAST=$2; shift 2 ;;
	--slow) [ $# -ge 2 ] || usage; SLOW=$2; shift 2 ;;
	--ratio)
		[ $# -ge 2 ] || usage
		case $2 in */*) ;; *) usage ;; esac
		RATIOS="$RATIOS $2"; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
case $RUNS in ''|*[!0-9]*) usage ;; esac
case $FAST$SLOW in *[!0-9]*) usage ;; esac
[ "$RUNS" -ge 1 ] || usage
if [ $# -eq 0 ]; then
	set -- -tg 1,1 -tg 2,2 -p qType=conq:spsc_array,ck:spsc,dpdk:rte_ring_spsc,ceiling:stream,ceiling:stream_locked,conq:mpsc_array,conq:mpmc_array,atomic_queue:mpmc,dpdk:rte_ring_mpmc \
		-wi 1 -w 100ms -i 4 -r 150ms
	# Issue 2's and 3's targets: conq against the peers of its contract.
	[ -n "$RATIOS" ] || RATIOS=" conq:spsc_array/ck:spsc conq:spsc_array/dpdk:rte_ring_spsc conq:spsc_array/ceiling:stream ceiling:stream/ck:spsc conq:mpsc_array/conq:spsc_array conq:mpsc_array/ceiling:stream_locked ceiling:stream_locked/conq:spsc_array conq:mpmc_array/dpdk:rte_ring_mpmc conq:mpmc_array/atomic_queue:mpmc"
fi
[ -x "$BENCH" ] || { echo "bench-states: $BENCH not found (make first)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
data=$tmp/data # state run tg queue median
: >"$data"

# A CSV row of conq-bench (JMH's columns; quoted fields may hold commas),
# as awk: csvsplit(line, f) fills f[1..n]; col[name] from the header row.
CSVAWK='
function csvsplit(line, f,    n, j) {
	n = 0
	while (length(line) > 0) {
		if (substr(line, 1, 1) == "\"") {
			j = index(substr(line, 2), "\"")
			f[++n] = substr(line, 2, j - 1)
			line = substr(line, j + 3)
		} else {
			j = index(line, ",")
			if (j == 0) { f[++n] = line; line = "" }
			else { f[++n] = substr(line, 1, j - 1); line = substr(line, j + 1) }
		}
	}
	return n
}
NR == 1 { n = csvsplit($0, h); for (k = 1; k <= n; k++) col[h[k]] = k; next }
'

# The line round trip (ns): the median of a short MachineLimits run.
probe() {
	"$BENCH" MachineLimits -p limit=lineRtt -wi 1 -w 50ms -i 3 -r 100ms \
		-rf csv -rff "$tmp/probe.csv" >/dev/null 2>&1 || return 1
	awk "$CSVAWK"'
		{ csvsplit($0, f) }
		f[1] == "MachineLimits.limits" { print f[col["Median"]] + 0; exit }' \
		"$tmp/probe.csv"
}

i=1
while [ "$i" -le "$RUNS" ]; do
	r0=$(probe) || { echo "bench-states: probe failed" >&2; exit 1; }
	"$BENCH" "$@" -rf csv -rff "$tmp/run.csv" >"$tmp/run.out" 2>&1 || {
		echo "bench-states: run $i failed:" >&2
		tail -5 "$tmp/run.out" >&2
		exit 1
	}
	r1=$(probe) || { echo "bench-states: probe failed" >&2; exit 1; }
	[ -n "$r0" ] && [ -n "$r1" ] || { echo "bench-states: no probe result" >&2; exit 1; }
	state=$(awk -v a="$r0" -v b="$r1" -v f="$FAST" -v s="$SLOW" 'BEGIN {
		if (a < f && b < f) print "fast";
		else if (a > s && b > s) print "slow";
		else print "mixed" }')
	printf 'run %d/%d: line round trip %.0f ns, %.0f ns: %s\n' \
		"$i" "$RUNS" "$r0" "$r1" "$state" >&2
	# Each Score row (not a secondary ":metric" row): state, run, the
	# benchmark and tg, the queue, its median, the two probes.
	awk "$CSVAWK"'
		{ csvsplit($0, f) }
		f[1] !~ /:/ && ("Param: qType" in col) && f[col["Param: qType"]] != "" {
			print st, run, f[1] "@" f[col["Param: tg"]], \
			    f[col["Param: qType"]], f[col["Median"]], rtt
		}' st="$state" run="$i" rtt="$r0 $r1" "$tmp/run.csv" >>"$data"
	i=$((i + 1))
done
[ -s "$data" ] || { echo "bench-states: the runs reported no queue" >&2; exit 1; }

awk -v ratios="$RATIOS" '
function median(list, n,    a, k, i, j, t) {
	k = split(list, a, " ")
	for (i = 2; i <= k; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function lo(list,    a, k, i, m) {
	k = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= k; i++) if (a[i] + 0 < m) m = a[i] + 0
	return m
}
function hi(list,    a, k, i, m) {
	k = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= k; i++) if (a[i] + 0 > m) m = a[i] + 0
	return m
}
{
	st = $1; run = $2; tg = $3; q = $4; v = $5
	key = st SUBSEP tg SUBSEP q
	if (!(key in vals)) { order[++nq] = key }
	vals[key] = vals[key] " " v
	score[st SUBSEP run SUBSEP tg SUBSEP q] = v
	sr = st SUBSEP run
	if (!(sr in seenrun)) {
		seenrun[sr] = 1; nruns[st]++; runs[st] = runs[st] " " run
		rtt[st] = rtt[st] " " $6 " " $7
	}
	tq = tg SUBSEP q
	if (!(tq in seenq)) { seenq[tq] = 1; tgq[tg] = tgq[tg] " " q }
	if (!(tg in seentg)) { seentg[tg] = 1; tgs[++ntg] = tg }
}
END {
	nst = split("fast slow mixed", sts, " ")
	for (s = 1; s <= nst; s++) {
		st = sts[s]
		if (!(st in nruns)) continue
		printf "\n== %s: %d run%s (line round trip %.0f..%.0f ns)\n", st,
		    nruns[st], (nruns[st] > 1 ? "s" : ""), lo(rtt[st]), hi(rtt[st])
		for (t = 1; t <= ntg; t++) {
			tg = tgs[t]
			printf "%s  Score (median of the per-run medians, min..max over runs)\n", tg
			nqs = split(tgq[tg], qs, " ")
			for (k = 1; k <= nqs; k++) {
				key = st SUBSEP tg SUBSEP qs[k]
				if (!(key in vals)) continue
				printf "  %-30s %9.3f  (%.3f..%.3f)\n", qs[k],
				    median(vals[key]), lo(vals[key]), hi(vals[key])
			}
			# The ratios: asked for, or each conq:* against the rest.
			np = 0
			if (ratios != "") {
				nr = split(ratios, rs, " ")
				for (r = 1; r <= nr; r++) {
					split(rs[r], ab, "/"); pa[++np] = ab[1]; pb[np] = ab[2]
				}
			} else {
				for (a = 1; a <= nqs; a++) {
					if (qs[a] !~ /^conq:/) continue
					for (b = 1; b <= nqs; b++)
						if (b != a && !(qs[b] ~ /^conq:/ && b < a)) {
							pa[++np] = qs[a]; pb[np] = qs[b]
						}
				}
			}
			header = 0
			for (r = 1; r <= np; r++) {
				list = ""; nrun = split(runs[st], rr, " ")
				for (u = 1; u <= nrun; u++) {
					x = (st SUBSEP rr[u] SUBSEP tg SUBSEP pa[r])
					y = (st SUBSEP rr[u] SUBSEP tg SUBSEP pb[r])
					if ((x in score) && (y in score) && score[y] + 0 > 0)
						list = list " " score[x] / score[y]
				}
				if (list == "") continue
				if (!header) {
					printf "%s  ratios (median of the per-run ratios, min..max over runs)\n", tg
					header = 1
				}
				printf "  %-48s %6.2fx  (%.2fx..%.2fx)\n", pa[r] " / " pb[r],
				    median(list), lo(list), hi(list)
			}
		}
	}
}' "$data"
