#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# bench-growing.sh - the seed's tables for the queues that grow ("Linked
# Array Queues, part 2": ../shared/seeds/000_*.txt), reproduced with
# conq-bench, and issue 11's targets checked against them.
#
# Three conq-bench runs, each interleaving its queues iteration by
# iteration in one process (so the ratios are same-run ratios):
#
#   1. throughput (QueueThroughputBackoffNone, -tg 1,1, qCapacity 131072):
#      conq_spsc_array, conq_spsc_linked, conq_spsc_{growable,chunked,
#      unbounded} with chunk (or initial) sizes 16, 128, 1K and 16K (max
#      capacity 128K), and the peers that grow: moodycamel ReaderWriterQueue
#      and ConcurrentQueue (enqueue, unbounded use), liburcu wfcqueue (a
#      node per element), Boost.Lockfree queue (push);
#   2. burst cost (QueueBurstCost, bursts of 1, 10, 100) of the same queues;
#   3. MPSC throughput at -tg 1,1 and 2,1: conq_mpsc_array, conq_mpsc_
#      {unbounded,chunked,growable} (chunk 1K), conq_mpsc_intrusive,
#      conq_mpsc_linked, liburcu wfcqueue (the bounded adapter and the
#      node-per-element one), moodycamel ConcurrentQueue (both uses).
#
# Prints each table (medians over the measured iterations; failed offers and
# polls beside the score, as the seed's tables) with each queue's ratio of
# medians to its reference, then the targets with the ratio found and
# PASS/MISS. Writes the CSV files, the logs and conq-bench's plots
# (DIR/plots-<run>/, rendered when gnuplot is installed) into DIR.
#
# usage: scripts/bench-growing.sh [--quick] [-o DIR] [--report] [-- EXTRA CONQ-BENCH ARGS]
#   --quick   -wi 1 -i 3 -r 100ms (a look, not a measurement)
#   -o DIR    where the CSV files go (default: a new temporary directory)
#   --report  run nothing: print the tables from the CSV files in DIR
#
# Environment: CONQ_BENCH (default build/bench/conq-bench).
# Exit status: 0 (also when a target is missed: the figures are the output);
# 2 usage error; 1 a conq-bench run failed.
set -eu

BENCH=${CONQ_BENCH:-build/bench/conq-bench}
ITER="-wi 2 -w 200ms -i 8 -r 200ms"
DIR=""
REPORT=0
usage() {
	if [ "${1:-2}" -eq 0 ]; then exec 3>&1; else exec 3>&2; fi
	sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&3
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) ITER="-wi 1 -w 100ms -i 3 -r 100ms" ;;
	--report) REPORT=1 ;;
	-o) [ $# -ge 2 ] || usage; DIR=$2; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	*) usage ;;
	esac
	shift
done
if [ "$REPORT" = 1 ] && [ -z "$DIR" ]; then
	echo "bench-growing.sh: --report needs -o DIR" >&2
	exit 2
fi
[ "$REPORT" = 1 ] || [ -x "$BENCH" ] || { echo "bench-growing.sh: no $BENCH (run make first)" >&2; exit 1; }
if [ -z "$DIR" ]; then
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/conq-growing.XXXXXX")
fi
mkdir -p "$DIR"

SIZES="16 128 1K 16K"
SPSC="conq:spsc_array conq:spsc_linked"
for f in spsc_growable spsc_chunked spsc_unbounded; do
	for s in $SIZES; do SPSC="$SPSC conq:$f.$s"; done
done
PEERS="moodycamel:readerwriterqueue_unbounded moodycamel:concurrentqueue_unbounded urcu:wfcq_mpsc_unbounded boost:queue_unbounded"
MPSC="conq:mpsc_array conq:mpsc_unbounded.1K conq:mpsc_chunked.1K conq:mpsc_growable.1K conq:mpsc_intrusive conq:mpsc_linked urcu:wfcq_mpsc urcu:wfcq_mpsc_unbounded moodycamel:concurrentqueue moodycamel:concurrentqueue_unbounded"

# Keep the queues this build has (a peer may be missing).
have() {
	"$BENCH" -l 2>/dev/null | awk '{print $1}' >"$DIR/adapters.txt"
	out=""
	for q in "$@"; do
		if grep -qx "$q" "$DIR/adapters.txt"; then
			out="$out${out:+,}$q"
		else
			echo "# not in this build: $q" >&2
		fi
	done
	echo "$out"
}
if [ "$REPORT" = 0 ]; then
SPSC_Q=$(have $SPSC $PEERS)
MPSC_Q=$(have $MPSC)

run() { # name args...
	name=$1
	shift
	echo "# conq-bench $*" >&2
	# shellcheck disable=SC2086  # ITER is a list of words
	if ! "$BENCH" $ITER "$@" -rf csv -rff "$DIR/$name.csv" \
		--plot "$DIR/plots-$name" >"$DIR/$name.log" 2>&1; then
		tail -n 20 "$DIR/$name.log" >&2
		echo "bench-growing.sh: conq-bench failed ($name; log in $DIR/$name.log)" >&2
		exit 1
	fi
}
lscpu 2>/dev/null | sed -n 's/^Model name: *//p' >"$DIR/env.txt" || true

run throughput -tg 1,1 -p qCapacity=131072 -p "qType=$SPSC_Q" "$@" '^QueueThroughputBackoffNone\.'
run burst -p qCapacity=131072 -p burstSize=1,10,100 -p "qType=$SPSC_Q" "$@" '^QueueBurstCost\.'
run mpsc -tg 1,1 -tg 2,1 -p qCapacity=131072 -p "qType=$MPSC_Q" "$@" '^QueueThroughputBackoffNone\.'
fi

echo "# CPU (lscpu): $(cat "$DIR/env.txt"); CSV files in $DIR"
sed -n 1p "$DIR/throughput.log"

# CSV: unquote simple fields (no field here holds a comma inside quotes but
# Warnings, which is last and not used).
AWKCSV='
function csvsplit(line, f,   n, i, c, q, cur) {
	n = 0; cur = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c == "\"") { q = !q; continue }
		if (c == "," && !q) { f[++n] = cur; cur = ""; continue }
		cur = cur c
	}
	f[++n] = cur
	return n
}
FNR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
{ csvsplit($0, f) }
'

echo
echo "## Throughput, -tg 1,1, qCapacity 131072 (ops/us, medians)"
echo
awk "$AWKCSV"'
{
	b = f[col["Benchmark"]]; q = f[col["Param: qType"]]; m = f[col["Median"]]
	if (!(q in seen)) { seen[q] = 1; order[++nq] = q }
	if (b ~ /:offersFailed$/) of[q] = m
	else if (b ~ /:pollsFailed$/) pf[q] = m
	else if (b ~ /:offersMade$/) om[q] = m
	else if (b !~ /:/) pm[q] = m
}
END {
	ref = pm["conq:spsc_array"]
	printf "| queue | CNK | pollsMade | offersMade | offersFailed | pollsFailed | / conq_spsc_array |\n"
	printf "|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nq; i++) {
		q = order[i]; name = q; cnk = ""
		if (match(q, /\.[0-9]+K?$/)) { cnk = substr(q, RSTART + 1); name = substr(q, 1, RSTART - 1) }
		printf "| %s | %s | %.1f | %.1f | %.2f | %.2f | %.2fx |\n", name, cnk, pm[q], om[q], of[q], pf[q], (ref > 0 ? pm[q] / ref : 0)
	}
}' "$DIR/throughput.csv" | tee "$DIR/throughput.md"

echo
echo "## Burst cost, qCapacity 131072 (ns per burst, medians)"
echo
awk "$AWKCSV"'
$0 !~ /perElement/ {
	q = f[col["Param: qType"]]; bs = f[col["Param: burstSize"]]; m = f[col["Median"]]
	if (!(q in seen)) { seen[q] = 1; order[++nq] = q }
	v[q, bs] = m
}
END {
	printf "| queue | CNK | burst 1 | burst 10 | burst 100 | burst 100 / conq_spsc_array |\n"
	printf "|---|---|---|---|---|---|\n"
	ref = v["conq:spsc_array", 100]
	for (i = 1; i <= nq; i++) {
		q = order[i]; name = q; cnk = ""
		if (match(q, /\.[0-9]+K?$/)) { cnk = substr(q, RSTART + 1); name = substr(q, 1, RSTART - 1) }
		printf "| %s | %s | %.1f | %.1f | %.1f | %.2fx |\n", name, cnk, v[q, 1], v[q, 10], v[q, 100], (ref > 0 ? v[q, 100] / ref : 0)
	}
}' "$DIR/burst.csv" | tee "$DIR/burst.md"

echo
echo "## MPSC throughput, qCapacity 131072 (pollsMade ops/us, medians)"
echo
awk "$AWKCSV"'
$0 ~ /"QueueThroughputBackoffNone.tpt"/ {
	q = f[col["Param: qType"]]; tg = f[col["Param: tg"]]; m = f[col["Median"]]
	if (!(q in seen)) { seen[q] = 1; order[++nq] = q }
	v[q, tg] = m
}
END {
	printf "| queue | 1,1 | / conq_mpsc_array | 2,1 | / conq_mpsc_array |\n"
	printf "|---|---|---|---|---|\n"
	r1 = v["conq:mpsc_array", "1,1"]; r2 = v["conq:mpsc_array", "2,1"]
	for (i = 1; i <= nq; i++) {
		q = order[i]
		printf "| %s | %.1f | %.2fx | %.1f | %.2fx |\n", q, v[q, "1,1"], (r1 > 0 ? v[q, "1,1"] / r1 : 0), v[q, "2,1"], (r2 > 0 ? v[q, "2,1"] / r2 : 0)
	}
}' "$DIR/mpsc.csv" | tee "$DIR/mpsc.md"

echo
echo "## Issue 11's targets (same run)"
echo
awk "$AWKCSV"'
FILENAME ~ /throughput/ && $0 ~ /"QueueThroughputBackoffNone.tpt"/ { t[f[col["Param: qType"]]] = f[col["Median"]] }
FILENAME ~ /burst/ && $0 !~ /perElement/ && f[col["Param: burstSize"]] == 100 { b[f[col["Param: qType"]]] = f[col["Median"]] }
FILENAME ~ /mpsc/ && $0 ~ /"QueueThroughputBackoffNone.tpt"/ { m[f[col["Param: qType"]], f[col["Param: tg"]]] = f[col["Median"]] }
function ratio(a, b) { return b > 0 ? a / b : 0 }
function target(what, r, lo, hi,   ok) {
	ok = (lo == "" || r >= lo) && (hi == "" || r <= hi)
	printf "%-4s %-62s %.2f (%s%s)\n", (ok ? "PASS" : "MISS"), what, r, (lo != "" ? ">= " lo : ""), (hi != "" ? "<= " hi : "")
}
END {
	a = t["conq:spsc_array"]; rwq = t["moodycamel:readerwriterqueue_unbounded"]
	split("16 128 1K 16K", S, " ")
	for (i = 1; i <= 4; i++) {
		s = S[i]
		target("spsc_growable." s " / spsc_array", ratio(t["conq:spsc_growable." s], a), 0.9, "")
		if (i >= 3) {
			target("spsc_unbounded." s " / spsc_array", ratio(t["conq:spsc_unbounded." s], a), 0.8, "")
			target("spsc_chunked." s " / spsc_array", ratio(t["conq:spsc_chunked." s], a), 0.8, "")
		}
		split("spsc_growable spsc_chunked spsc_unbounded", F, " ")
		for (j = 1; j <= 3; j++)
			target(F[j] "." s " / moodycamel RWQ (unbounded)", ratio(t["conq:" F[j] "." s], rwq), 3, "")
		for (j = 1; j <= 3; j++)
			target(F[j] "." s " burst 100 / spsc_array", ratio(b["conq:" F[j] "." s], b["conq:spsc_array"]), "", 1.2)
	}
	target("spsc_linked / urcu wfcqueue (node per element)", ratio(t["conq:spsc_linked"], t["urcu:wfcq_mpsc_unbounded"]), 3, "")
	split("mpsc_unbounded.1K mpsc_chunked.1K mpsc_intrusive", M, " ")
	for (j = 1; j <= 3; j++) {
		q = "conq:" M[j]
		target(M[j] " / mpsc_array, 1,1", ratio(m[q, "1,1"], m["conq:mpsc_array", "1,1"]), 0.8, "")
		split("1,1 2,1", G, " ")
		for (g = 1; g <= 2; g++) {
			target(M[j] " / urcu wfcqueue (bounded adapter), " G[g], ratio(m[q, G[g]], m["urcu:wfcq_mpsc", G[g]]), 1, "")
			target(M[j] " / urcu wfcqueue (node per element), " G[g], ratio(m[q, G[g]], m["urcu:wfcq_mpsc_unbounded", G[g]]), 1, "")
			target(M[j] " / moodycamel CQ, " G[g], ratio(m[q, G[g]], m["moodycamel:concurrentqueue", G[g]]), 1, "")
			target(M[j] " / moodycamel CQ (unbounded), " G[g], ratio(m[q, G[g]], m["moodycamel:concurrentqueue_unbounded", G[g]]), 1, "")
		}
	}
}' "$DIR/throughput.csv" "$DIR/burst.csv" "$DIR/mpsc.csv" | tee "$DIR/targets.txt"
