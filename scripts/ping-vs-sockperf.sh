#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# conq-ping against sockperf (Debian package sockperf) on loopback TCP, in
# runs that alternate the two tools (sockperf, conq-ping, sockperf, ...),
# same message size and pinning, in two modes:
#
#   busy   both ends busy-poll a non-blocking socket:
#            sockperf sr/pp --tcp --nonblocked   /  conq-ping -w spin
#   block  both ends block in recv:
#            sockperf sr/pp --tcp                /  conq-ping -w block
#
# sockperf reports one-way latency (RTT/2) unless --full-rtt: it is run with
# --full-rtt, so both columns are round trips in microseconds. Each
# conq-ping run is sized to last about as long as sockperf's (its rate is
# measured once per mode first); warm-up is excluded by both (sockperf's
# own 400 ms, conq-ping's -W of a tenth of the count).
#
# Prints every run, then per mode the median over the runs of each tool's
# p50 and p99, and conq-ping / sockperf for both (target: p50 within 5 %,
# p99 within 10 %), and the median of the per-pair ratios (run i of each
# tool: adjacent in time). Run it on a quiet machine:
#
#   flock -x /tmp/conq-quiet.lock scripts/ping-vs-sockperf.sh build/tools/ping/conq-ping
#
# usage: ping-vs-sockperf.sh [-r RUNS] [-t SECONDS] [-s SIZE] [-S SERVER_CPU]
#                            [-C CLIENT_CPU] [-m MODES] [-p PORT] [CONQ_PING]
#   -r RUNS        runs of each tool per mode (default 5)
#   -t SECONDS     sockperf's -t per run (default 3)
#   -s SIZE        message size in bytes (default 32)
#   -S / -C CPU    server / client CPU (default 0 / 1)
#   -m MODES       comma-separated, of busy,block (default busy,block)
#   -p PORT        first port (default 12100; each run takes the next one)
#   CONQ_PING      the binary (default build/tools/ping/conq-ping)
set -euo pipefail

RUNS=5 SECS=3 SIZE=32 SCPU=0 CCPU=1 MODES=busy,block PORT=12100
usage() { sed -n '/^# usage:/,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
while getopts "r:t:s:S:C:m:p:h" o; do
	case $o in
	r) RUNS=$OPTARG ;; t) SECS=$OPTARG ;; s) SIZE=$OPTARG ;;
	S) SCPU=$OPTARG ;; C) CCPU=$OPTARG ;; m) MODES=$OPTARG ;;
	p) PORT=$OPTARG ;; *) usage ;;
	esac
done
shift $((OPTIND - 1))
PING=${1:-build/tools/ping/conq-ping}
[[ -x $PING ]] || { echo "ping-vs-sockperf: $PING is not executable" >&2; exit 2; }
command -v sockperf >/dev/null || { echo "ping-vs-sockperf: sockperf not found (apt-get install sockperf)" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ && $SECS =~ ^[1-9][0-9]*$ ]] || usage

model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "# ping-vs-sockperf: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), CPU '$model', $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $SIZE-byte messages over TCP 127.0.0.1, server cpu $SCPU, client cpu $CCPU, $RUNS runs of each tool per mode, sockperf -t $SECS"
echo "# $(sockperf --version 2>&1 | head -1); $("$PING" --version)"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One sockperf run: prints "p50 p99" (us, RTT).
run_sockperf() { # extra-flags...
	local port=$PORT out srv
	PORT=$((PORT + 1))
	taskset -c "$SCPU" sockperf sr --tcp -i 127.0.0.1 -p "$port" "$@" >/dev/null 2>&1 &
	srv=$!
	sleep 0.5
	out=$(taskset -c "$CCPU" sockperf pp --tcp -i 127.0.0.1 -p "$port" -m "$SIZE" -t "$SECS" --full-rtt "$@" 2>&1) || true
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	local p50 p99
	p50=$(sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p' <<<"$out")
	p99=$(sed -n 's/.*percentile 99\.000 = *\([0-9.]*\).*/\1/p' <<<"$out")
	[[ -n $p50 && -n $p99 ]] || { echo "ping-vs-sockperf: sockperf failed:" >&2; echo "$out" >&2; exit 1; }
	echo "$p50 $p99"
}

# One conq-ping run of n round trips: prints "p50 p99" (us).
run_ping() { # wait n
	local out
	out=$("$PING" -t tcp -w "$1" -s "$SIZE" -C "$SCPU" -c "$CCPU" -n "$2" -W $(($2 / 10)) --json)
	awk -v o="$out" 'BEGIN {
		match(o, /"p50": [0-9.]+/); p50 = substr(o, RSTART + 7, RLENGTH - 7)
		match(o, /"p99": [0-9.]+/); p99 = substr(o, RSTART + 7, RLENGTH - 7)
		printf "%.3f %.3f\n", p50 / 1000, p99 / 1000 }'
}

summary=()
for mode in ${MODES//,/ }; do
	case $mode in
	busy) sflags=(--nonblocked) wait=spin ;;
	block) sflags=() wait=block ;;
	*) echo "ping-vs-sockperf: unknown mode '$mode'" >&2; exit 2 ;;
	esac
	rate=$("$PING" -t tcp -w $wait -s "$SIZE" -C "$SCPU" -c "$CCPU" -n 20000 -W 2000 --json |
		sed -n 's/.*"msgs_per_s": \([0-9.]*\).*/\1/p')
	n=$(awk -v r="$rate" -v s="$SECS" 'BEGIN { printf "%d", r * (s - 0.45) }')
	echo "# $mode: sockperf ${sflags[*]:-(blocking)}, conq-ping -w $wait -n $n (measured rate ${rate%.*}/s)"
	echo "# mode  run  tool       p50_us   p99_us"
	sp50=() sp99=() cp50=() cp99=()
	for ((i = 1; i <= RUNS; i++)); do
		read -r a b < <(run_sockperf "${sflags[@]}")
		printf '%-6s %3d  %-9s %8.3f %8.3f\n' "$mode" "$i" sockperf "$a" "$b"
		sp50+=("$a") sp99+=("$b")
		read -r a b < <(run_ping $wait "$n")
		printf '%-6s %3d  %-9s %8.3f %8.3f\n' "$mode" "$i" conq-ping "$a" "$b"
		cp50+=("$a") cp99+=("$b")
	done
	m_s50=$(printf '%s\n' "${sp50[@]}" | median) m_s99=$(printf '%s\n' "${sp99[@]}" | median)
	m_c50=$(printf '%s\n' "${cp50[@]}" | median) m_c99=$(printf '%s\n' "${cp99[@]}" | median)
	# The median of the per-pair ratios (run i of each tool, adjacent in
	# time): less exposed to the machine changing state between runs.
	q50=$(for ((i = 0; i < RUNS; i++)); do awk -v c="${cp50[i]}" -v s="${sp50[i]}" 'BEGIN { print c / s }'; done | median)
	q99=$(for ((i = 0; i < RUNS; i++)); do awk -v c="${cp99[i]}" -v s="${sp99[i]}" 'BEGIN { print c / s }'; done | median)
	summary+=("$(awk -v m="$mode" -v s50="$m_s50" -v s99="$m_s99" -v c50="$m_c50" -v c99="$m_c99" -v q50="$q50" -v q99="$q99" 'BEGIN {
		r50 = c50 / s50; r99 = c99 / s99
		printf "| %s | %.3f | %.3f | %.3f | %.3f | %.3f (%s) | %.3f (%s) | %.3f | %.3f |", m, s50, c50, s99, c99,
			r50, (r50 >= 0.95 && r50 <= 1.05) ? "within 5%" : "OUTSIDE 5%",
			r99, (r99 >= 0.90 && r99 <= 1.10) ? "within 10%" : "OUTSIDE 10%", q50, q99 }')")
done

echo
echo "Medians over $RUNS runs each, RTT in us:"
echo
echo "| mode | sockperf p50 | conq-ping p50 | sockperf p99 | conq-ping p99 | p50 conq-ping/sockperf | p99 conq-ping/sockperf | p50, median of pair ratios | p99, median of pair ratios |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
