#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# bench-value.sh - issue 14's value-ring figures: run conq-bench's
# QueueValueThroughput and write markdown tables of the medians (ops/us)
# and of the ratios (the median of the per-round ratios: the queues of a
# point ran interleaved, round k running iteration k of each).
#
# By default it runs `conq-bench --preset value` (conq:spsc_value against
# conq:spsc_array at elemSize 4 and 8, conq:mpsc_value_claim against
# dpdk:rte_ring_mpsc_elem at 64, -tg 1,1, -wi 2 -w 100ms -i 10 -r 200ms)
# and prints the targets' table: one row per run and the median of the
# runs. --all runs the sweep of docs/benchmarks.md instead: every way of
# moving an element for every contract at -tg 1,1 (conq's value rings by
# offer/poll and by claim/commit, conq's pointer rings alone and with
# pooled payloads, DPDK's elem rings and their zero-copy API, atomic_queue's
# AtomicQueueB2) at elemSize 4, 8, 64 and 256, and prints the table by
# element size and contract, then the targets (read from the same runs).
#
# usage: scripts/bench-value.sh [-n RUNS] [--all] [--plot DIR] [-o FILE]
#            [-- CONQ-BENCH ARGS]
#
#   -n RUNS      conq-bench processes, one after the other (default 1)
#   --all        the sweep (see above) instead of the preset
#   --plot DIR   conq-bench's --plot DIR for the first run (bar charts per
#                element size, and the elemSize sweep)
#   -o FILE      also write the tables to FILE
#   -- ARGS      more conq-bench arguments (they override the preset's)
#
# Environment: CONQ_BENCH (default build/bench/conq-bench). Needs jq.
# Exit status: 0 (also for -h); 2 on a usage error; 1 if a run failed.
set -eu

BENCH=${CONQ_BENCH:-build/bench/conq-bench}
RUNS=1
ALL=0
PLOT=""
OUTFILE=""
usage() { # [status]: 2 (a usage error, to stderr) unless given
	if [ "${1:-2}" -eq 0 ]; then exec 3>&1; else exec 3>&2; fi
	sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&3
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; RUNS=$2; shift 2 ;;
	--all) ALL=1; shift ;;
	--plot) [ $# -ge 2 ] || usage; PLOT=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; OUTFILE=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
case $RUNS in ''|*[!0-9]*) usage ;; esac
[ "$RUNS" -ge 1 ] || usage
command -v jq >/dev/null || { echo "bench-value: needs jq (apt-get install jq)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "bench-value: $BENCH not found (make first)" >&2; exit 1; }

if [ "$ALL" -eq 1 ]; then
	set -- --preset value \
		-p 'qType=conq:*_value,conq:*_value_claim,conq:*_array,conq:*_array_pool,dpdk:*_elem,dpdk:*_elem_zc,atomic_queue:*_value' \
		-p elemSize=4,8,64,256 "$@"
else
	set -- --preset value "$@"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)

r=1
while [ "$r" -le "$RUNS" ]; do
	plot=""
	[ "$r" -eq 1 ] && [ -n "$PLOT" ] && plot="--plot $PLOT"
	# shellcheck disable=SC2086
	if ! "$BENCH" "$@" $plot -rf json -rff "$tmp/run$r.json" \
		>"$tmp/run$r.txt" 2>"$tmp/run$r.err"; then
		echo "bench-value: run $r failed:" >&2
		tail -n 20 "$tmp/run$r.err" >&2
		exit 1
	fi
	echo "# run $r of $RUNS done: $(grep -m1 '^# conq-bench' "$tmp/run$r.txt" | cut -c3-)" >&2
	r=$((r + 1))
done

# The jq helpers: the median, a result's per-iteration scores (forks
# concatenated), the median of the per-round ratios a/b.
JQ_LIB='
def med: sort | if length == 0 then null
	elif length % 2 == 1 then .[(length - 1) / 2]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def raw: .primaryMetric.rawData | flatten;
def ratio($a; $b): if $a == null or $b == null then null
	else ($a | raw) as $x | ($b | raw) as $y
	| [range(0; [($x | length), ($y | length)] | min)
	   | $x[.] / $y[.]] | med end;
def f2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
def fx: if . == null then "-" else (f2 + "x") end;
'

tables() {
	echo "CPU: $model; conq-bench $* (QueueValueThroughput, pollsMade ops/us: the median of the iterations; ratios: the median of the per-round ratios)"
	echo
	if [ "$ALL" -eq 1 ]; then
		echo "| run | tg | elemSize | contract | ptr | pool | value | claim | dpdk | dpdk_zc | aq | value/ptr | claim/ptr | value/pool | claim/pool | value/dpdk | claim/dpdk | claim/dpdk_zc | value/aq |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		r=1
		while [ "$r" -le "$RUNS" ]; do
			jq -r --arg run "$r" "$JQ_LIB"'
			  map(select(.benchmark == "QueueValueThroughput.tpt")) as $all
			  | def q($tg; $es; $n): [$all[] | select(.params.tg == $tg and .params.elemSize == $es and .params.qType == $n)] | first;
			  [$all[] | {tg: .params.tg, es: .params.elemSize}] | unique_by([.tg, (.es | tonumber)])[]
			  | . as $p
			  | ["spsc", "mpsc", "spmc", "mpmc"][] as $pc
			  | [q($p.tg; $p.es; "conq:\($pc)_array"), q($p.tg; $p.es; "conq:\($pc)_array_pool"),
			     q($p.tg; $p.es; "conq:\($pc)_value"), q($p.tg; $p.es; "conq:\($pc)_value_claim"),
			     q($p.tg; $p.es; "dpdk:rte_ring_\($pc)_elem"), q($p.tg; $p.es; "dpdk:rte_ring_\($pc)_elem_zc"),
			     (q($p.tg; $p.es; "atomic_queue:\($pc)_value") // q($p.tg; $p.es; "atomic_queue:mpmc_value"))] as $c
			  | select($c[2] != null or $c[3] != null)
			  | "| \($run) | \($p.tg) | \($p.es) | \($pc | ascii_upcase) | "
			    + ([$c[] | if . == null then null else .conqBench.median end | f2] | join(" | "))
			    + " | " + ([ratio($c[2]; $c[0]), ratio($c[3]; $c[0]), ratio($c[2]; $c[1]),
			                ratio($c[3]; $c[1]), ratio($c[2]; $c[4]), ratio($c[3]; $c[4]),
			                ratio($c[3]; $c[5]), ratio($c[2]; $c[6])] | map(fx) | join(" | ")) + " |"
			' "$tmp/run$r.json"
			r=$((r + 1))
		done
		echo
	fi
	echo "Issue 14's targets (-tg 1,1, same run):"
	echo
	echo "| run | 4 B spsc_value | 4 B spsc_array | 4 B ratio (>= 1.6x) | 8 B spsc_value | 8 B spsc_array | 8 B ratio (>= 1x) | 64 B mpsc_value_claim | 64 B rte_ring_mpsc_elem | 64 B ratio (>= 2x) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	r=1
	while [ "$r" -le "$RUNS" ]; do
		jq -r --arg run "$r" "$JQ_LIB"'
		  map(select(.benchmark == "QueueValueThroughput.tpt" and .params.tg == "1,1")) as $all
		  | def q($es; $n): [$all[] | select(.params.elemSize == $es and .params.qType == $n)] | first;
		  def cell($x): if $x == null then "-" else ($x.conqBench.median | f2) end;
		  [["4", "conq:spsc_value", "conq:spsc_array"], ["8", "conq:spsc_value", "conq:spsc_array"],
		   ["64", "conq:mpsc_value_claim", "dpdk:rte_ring_mpsc_elem"]]
		  | map(q(.[0]; .[1]) as $a | q(.[0]; .[2]) as $b
		        | [cell($a), cell($b), (ratio($a; $b) | fx)] | join(" | "))
		  | "| \($run) | " + join(" | ") + " |"
		' "$tmp/run$r.json"
		r=$((r + 1))
	done
	if [ "$RUNS" -gt 1 ]; then
		jq -rs "$JQ_LIB"'
		  def one($j; $es; $a; $b):
		    [$j[] | select(.benchmark == "QueueValueThroughput.tpt" and .params.tg == "1,1" and .params.elemSize == $es)] as $all
		    | ([$all[] | select(.params.qType == $a)] | first) as $x
		    | ([$all[] | select(.params.qType == $b)] | first) as $y
		    | [($x | if . == null then null else .conqBench.median end),
		       ($y | if . == null then null else .conqBench.median end), ratio($x; $y)];
		  . as $runs
		  | [["4", "conq:spsc_value", "conq:spsc_array"], ["8", "conq:spsc_value", "conq:spsc_array"],
		     ["64", "conq:mpsc_value_claim", "dpdk:rte_ring_mpsc_elem"]]
		  | map(. as $t | [$runs[] | one(.; $t[0]; $t[1]; $t[2])] as $v
		        | [([$v[][0] | select(. != null)] | med | f2), ([$v[][1] | select(. != null)] | med | f2),
		           ([$v[][2] | select(. != null)] | med | fx)] | join(" | "))
		  | "| median | " + join(" | ") + " |"
		' "$tmp"/run*.json
	fi
}

if [ -n "$OUTFILE" ]; then
	tables "$@" | tee "$OUTFILE"
else
	tables "$@"
fi
