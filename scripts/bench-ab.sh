#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# bench-ab.sh - compare builds of conq-bench (an old and a new commit, or
# builds with different tunables) by running them alternately, ROUNDS
# processes each, with the same arguments, and printing per build and per
# point (shape, parameters, qType) the Score of each process and their
# median. Within each process the queues of a point are interleaved as
# conq-bench always does; alternating the processes spreads the machine's
# state changes over the builds.
#
# usage: scripts/bench-ab.sh [-n ROUNDS] NAME=CONQ_BENCH [NAME=CONQ_BENCH ...]
#            -- CONQ-BENCH ARGS
#
# Example (docs/benchmarks.md, "Waiting at the edge"):
#   git worktree add /tmp/old da9127f
#   cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release
#   cmake --build /tmp/old/build --target conq-bench
#   scripts/bench-ab.sh old=/tmp/old/build/bench/conq-bench \
#       new=build/bench/conq-bench -- -tg 1,1 \
#       -p qType=conq:spmc_array,ck:spmc,mutex:ring -wi 1 -w 100ms -i 6 -r 150ms
# Builds with other tunables: configure with, e.g.,
#   -DCMAKE_C_FLAGS='-DCONQ__SPMC_CHASE_SPINS=32 -DCONQ__MPMC_CHASE_SPINS=32u'
set -eu
ROUNDS=3
if [ "${1:-}" = -n ]; then
	ROUNDS=$2
	shift 2
fi
BUILDS=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	*=*) BUILDS="$BUILDS $1" ;;
	*) echo "usage: $0 [-n ROUNDS] NAME=CONQ_BENCH ... -- ARGS" >&2; exit 2 ;;
	esac
	shift
done
[ "${1:-}" = -- ] && shift
[ -n "$BUILDS" ] || { echo "usage: $0 [-n ROUNDS] NAME=CONQ_BENCH ... -- ARGS" >&2; exit 2; }
echo "# $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1); $ROUNDS rounds"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
r=0
while [ $r -lt "$ROUNDS" ]; do
	for nb in $BUILDS; do
		name=${nb%%=*} bin=${nb#*=}
		# The headline rows: the benchmark name with no ":metric" suffix;
		# the point is every column before qType (the first field with a
		# ':' after the name), the Score three fields after it.
		"$bin" "$@" 2>&1 | awk -v b="$name" '
			/^Queue[A-Za-z]+\.[a-z]+  / {
				q = 0
				for (i = 2; i <= NF; i++) if ($i ~ /:/) { q = i; break }
				if (!q) next
				k = b
				for (j = 2; j <= q; j++) k = k " " $j
				print k "\t" $(q + 3)
			}' >>"$OUT"
	done
	r=$((r + 1))
done
sort "$OUT" | awk -F '\t' '
	function flush() {
		if (key == "") return
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%-60s median %8.3f  (", key, m
		for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), v[i]
		printf ")\n"
	}
	$1 != key { flush(); key = $1; n = 0 }
	{ v[++n] = $2 + 0; for (i = n; i > 1 && v[i] < v[i - 1]; i--) { t = v[i]; v[i] = v[i - 1]; v[i - 1] = t } }
	END { flush() }'
