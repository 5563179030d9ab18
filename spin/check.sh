#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# spin/check.sh - exhaustive Spin searches of conq's array index protocols
# (spsc.pml, mpsc.pml, spmc.pml, mpmc.pml), of the SPSC linked arrays' chunk
# hand-over (spsc_la.pml), of the MPSC linked arrays' resize (mpsc_la.pml)
# of the intrusive MPSC node protocol (mpsc_node.pml), of the
# eventcount's park/wake under store buffers (eventcount.pml), of the
# XADD queues' chunk protocol (xadd.pml), of conq_mpsc_bytes' claims,
# padding, zeroing and dead-producer reclaim (bytes.pml) and of the value
# rings' tags (value_mpsc.pml, value_mc.pml) and of conq_pool's park/wake
# under store buffers (pool.pml); docs/stress.md, "Spin models".
#
# Usage: spin/check.sh [--bugs] [--only REGEX] [--part K/N] [WORKDIR]
#   For each model and configuration: spin -a, gcc pan.c, then the full
#   search: safety (assertions, invalid end states) and, where marked,
#   progress (non-progress cycles under weak fairness, pan -l -f). Prints
#   states stored and time per search; fails unless every search reports
#   "errors: 0". Ends with "N passed, N failed".
#   --bugs: instead, build each model with each planted bug (-DBUG=n) and
#   fail unless every one of them reports errors > 0.
#   --only REGEX: only the configurations (or, with --bugs, the models)
#   whose name matches the extended regular expression, e.g. '^value'.
#   --part K/N: only every N-th search, from the K-th (1 <= K <= N), in the
#   order of the list (with --bugs, of the model and bug pairs): N entries
#   K = 1..N cover every search once, so that ctest can run them side by
#   side (pan is single-threaded; most of a search is compiling pan.c).
# Exit status: 0 all passed, 1 a failure, 77 spin or a C compiler missing.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
BUGS=0
ONLY=
PART=1/1
while :; do
	case ${1:-} in
	--bugs) BUGS=1; shift ;;
	--only) ONLY=${2:-}; shift 2 ;;
	--part) PART=${2:-}; shift 2 ;;
	*) break ;;
	esac
done
WORK=${1:-}
CC=${CC:-cc}
PART_K=${PART%%/*}
PART_N=${PART#*/}
case $PART_K in '' | *[!0-9]*) PART_K=0 ;; esac
case $PART_N in '' | *[!0-9]*) PART_N=0 ;; esac
if [ "$PART_K" -lt 1 ] || [ "$PART_N" -lt 1 ] || [ "$PART_K" -gt "$PART_N" ]; then
	echo "spin/check.sh: --part wants K/N with 1 <= K <= N, not '$PART'" >&2
	exit 2
fi

# mine: true for the search this part runs (every N-th, from the K-th; the
# count runs over every search that --only lets through).
SEQ=0
mine() {
	SEQ=$((SEQ + 1))
	[ $(((SEQ - 1) % PART_N + 1)) -eq "$PART_K" ]
}

if ! command -v spin >/dev/null 2>&1; then
	echo "SKIP: spin is not installed (Debian: apt-get install spin)"
	exit 77
fi
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "SKIP: no C compiler ($CC) for pan.c"
	exit 77
fi
if [ -z "$WORK" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/conq-spin.XXXXXX") || exit 1
	trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK" && rm -f "$WORK/results" || exit 1
echo "$(spin -V | head -n 1); work directory $WORK${PART:+; part $PART}"

PASSED=0
FAILED=0

# search NAME MODEL MODE "SPIN_DEFINES" -> prints one line, sets $RESULT
# to the errors count (or "?" if pan did not report). MODE: safety|progress.
search() {
	name=$1 model=$2 mode=$3 defs=$4
	dir="$WORK/$name.$mode"
	rm -rf "$dir" && mkdir -p "$dir" && cp "$HERE/$model" "$dir/" || return 1
	if ! (cd "$dir" && spin $defs -a "$model" >spin.log 2>&1); then
		sed 's/^/    /' "$dir/spin.log"
		RESULT="?"
		return 0
	fi
	# pan without optimisation: compiling pan.c at -O2 costs more than
	# the searches gain from it (all 43 on an AMD EPYC Zen 3 guest, this
	# script with the level changed: 192 s at -O2, 147 s at -O1, 136 s at
	# -O0; the longest search, xadd:mpmc,2p2c,per=1, 9 s of pan at -O2
	# and 16 s at -O0). A planted bug shows in a small part of its search.
	if [ "$mode" = progress ]; then
		cflags="-O0 -DNP -DCOLLAPSE" run="-l -f"
	else
		cflags="-O0 -DSAFETY -DCOLLAPSE" run=""
	fi
	if ! (cd "$dir" && $CC $cflags -o pan pan.c >cc.log 2>&1); then
		sed 's/^/    /' "$dir/cc.log"
		RESULT="?"
		return 0
	fi
	# -m: the deepest search here reaches about 1,200 steps; pan allocates
	# the whole stack up front (10^7 steps took half a GB and a second or
	# two of every run), and a search it cuts short fails below.
	(cd "$dir" && ./pan -m100000 $run >pan.log 2>&1)
	RESULT=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$dir/pan.log")
	[ -n "$RESULT" ] || RESULT="?"
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$dir/pan.log")
	secs=$(sed -n 's/.*elapsed time \([0-9.e+]*\) seconds.*/\1/p' "$dir/pan.log")
	first=$(grep -m1 -E '^pan:1:' "$dir/pan.log")
	printf '  %-34s %-8s errors: %s, %s states stored, %s s%s\n' \
		"$name" "$mode" "$RESULT" "${states:-?}" "${secs:-?}" \
		"${first:+ ($first)}"
	if grep -q 'max search depth too small' "$dir/pan.log"; then
		echo "    (max search depth too small: the search was cut short)"
		[ $BUGS -eq 1 ] || RESULT="?"
	fi
	return 0
}

# The configurations: NAME MODEL MODES DEFINES
CONFIGS="
spsc:1p1c               spsc.pml safety,progress
mpsc:2p1c               mpsc.pml safety,progress
spmc:1p2c               spmc.pml safety
mpmc:2p1c               mpmc.pml safety          -DNP=2_-DNC=1
mpmc:2p2c,per=1         mpmc.pml safety          -DNP=2_-DNC=2_-DPER=1_-DSTART=15
mpmc:2p2c,cap=1,per=1   mpmc.pml safety          -DNP=2_-DNC=2_-DPER=1_-DCAP=1_-DSTART=15
mpmc:2p1c,k=2           mpmc.pml safety          -DNP=2_-DNC=1_-DK=2_-DKC=2
mpmc:1p2c,k=2,fill      mpmc.pml safety          -DNP=1_-DNC=2_-DK=2_-DKC=2_-DFILL=1
mpmc:2p1c,cap=1,fill    mpmc.pml safety          -DNP=2_-DNC=1_-DCAP=1_-DFILL=1
mpmc:1p2c,cap=1,fill    mpmc.pml safety          -DNP=1_-DNC=2_-DCAP=1_-DFILL=1
spsc_la:1p1c,r=3        spsc_la.pml safety
mpsc_la:2p1c,c=2        mpsc_la.pml safety
mpsc_node:2p1c          mpsc_node.pml safety
eventcount:1p1c         eventcount.pml safety
eventcount:1p1c,cap=2   eventcount.pml safety    -DCAP=2
eventcount:1p2c         eventcount.pml safety    -DNC=2_-DPER=2
eventcount:1p1c,rmw     eventcount.pml safety    -DRMW=1
eventcount:1p2c,rmw     eventcount.pml safety    -DNC=2_-DPER=2_-DRMW=1
xadd:mpsc,2p            xadd.pml safety          -DMC=0
xadd:mpsc,2p,k=2        xadd.pml safety          -DMC=0_-DK=2
xadd:mpsc,3p,obj=2      xadd.pml safety          -DMC=0_-DNP=3_-DPER=1_-DNOBJ=2
xadd:mpsc,2p,per=3,obj=2 xadd.pml safety         -DMC=0_-DNP=2_-DPER=3_-DNOBJ=2
xadd:mpmc,2p1c,obj=2    xadd.pml safety          -DMC=1_-DNP=2_-DNC=1_-DNOBJ=2
xadd:mpmc,2p1c,k=2,obj=2 xadd.pml safety         -DMC=1_-DNP=2_-DNC=1_-DK=2_-DNOBJ=2
xadd:mpmc,1p2c,per=3,obj=2 xadd.pml safety       -DMC=1_-DNP=1_-DNC=2_-DPER=3_-DNOBJ=2
xadd:mpmc,2p2c,per=1    xadd.pml safety          -DMC=1_-DNP=2_-DNC=2_-DPER=1_-DSTART=3
xadd:mpmc,1p1c,peek,obj=2 xadd.pml safety        -DMC=1_-DNP=1_-DNC=1_-DPER=4_-DNOBJ=2_-DPEEK=1_-DPK=2
bytes:2p,k=1,wrap,dies  bytes.pml safety         -DK=1_-DSTART=15_-DDEAD=-1
bytes:1p,k=3,dies       bytes.pml safety         -DK=3_-DNP=1_-DSTART=15
value_mpsc:2p1c         value_mpsc.pml safety
value_mpsc:2p1c,fill=2  value_mpsc.pml progress  -DPER=0_-DFILL=2
value_mpsc:2p1c,fill=2,abort value_mpsc.pml safety -DPER=0_-DFILL=2_-DABORT=1
value_mc:spmc,1p2c      value_mc.pml safety
value_mc:mpmc,2p1c,abort,fill value_mc.pml safety -DNP=2_-DNC=1_-DPER=0_-DABORT=1_-DFILL=1
pool:2w1s,3t            pool.pml safety          -DPER=3
pool:2w2s,1t            pool.pml safety          -DNS=2_-DPER=1
pool:2w2s,1t,rmw        pool.pml safety          -DNS=2_-DPER=1_-DRMW=1
pool:1w1s,3t            pool.pml safety          -DNW=1_-DPER=3
pool:2w1s,3t,join,rmw   pool.pml safety          -DPER=3_-DJOIN=1_-DRMW=1
pool:2w1s,3t,join       pool.pml safety          -DPER=3_-DJOIN=1
pool:2w2s,1t,join       pool.pml safety          -DNS=2_-DPER=1_-DJOIN=1
"
# Planted bugs per model (each must be caught: errors > 0).
BUGLIST="spsc.pml:1,2,3 mpsc.pml:1,2,3 spmc.pml:1,2,3 mpmc.pml:1,2,3,4,5,6,7 spsc_la.pml:1,2,3,4,5,6 mpsc_la.pml:1,2,3,4 mpsc_node.pml:1,2,3 eventcount.pml:1,2,3,4,5,6,7 xadd.pml:1,2,3,4,5,6,7,8,9,10,11,12 bytes.pml:1,2,3,4,5,6,7 value_mpsc.pml:1,2,3,4,5,6 value_mc.pml:1,2,3,4,5,6,7 pool.pml:1,2,3,4,5,6,7,8,9"

T0=$(date +%s)
if [ $BUGS -eq 0 ]; then
	echo "$CONFIGS" | while read -r name model modes defs; do
		[ -n "$name" ] || continue
		[ -z "$ONLY" ] || echo "$name" | grep -Eq -- "$ONLY" || continue
		defs=$(echo "${defs:-}" | tr '_' ' ')
		for mode in $(echo "$modes" | tr ',' ' '); do
			mine || continue
			search "$name" "$model" "$mode" "$defs"
			if [ "$RESULT" = 0 ]; then
				echo pass
			else
				echo fail
			fi >>"$WORK/results"
		done
	done
else
	for mb in $BUGLIST; do
		model=${mb%%:*}
		[ -z "$ONLY" ] || echo "$model" | grep -Eq -- "$ONLY" || continue
		for b in $(echo "${mb#*:}" | tr ',' ' '); do
			mine || continue
			defs="-DBUG=$b"
			# mpmc: the smallest configuration that shows each bug.
			case $model in
			mpmc.pml)
				case $b in
				4) defs="$defs -DNP=2 -DNC=1 -DK=2" ;;
				5 | 7) defs="$defs -DNP=2 -DNC=1 -DFILL=1" ;;
				*) defs="$defs -DNP=2 -DNC=1" ;;
				esac ;;
			xadd.pml)
				case $b in
				1 | 2 | 3 | 7) defs="$defs -DMC=0" ;;
				9) defs="$defs -DMC=0 -DNP=2 -DPER=3 -DNOBJ=2" ;;
				4 | 8) defs="$defs -DMC=1 -DNP=1 -DNC=2" ;;
				5) defs="$defs -DMC=1 -DNP=1 -DNC=1 -DPER=4 -DPEEK=1" ;;
				6) defs="$defs -DMC=1 -DNP=1 -DNC=1 -DPEEK=1" ;;
				10 | 11) defs="$defs -DMC=1 -DNP=1 -DNC=1 -DPER=4 -DNOBJ=2 -DPEEK=1" ;;
				12) defs="$defs -DMC=1 -DNP=1 -DNC=2 -DPER=4 -DNOBJ=2" ;;
				esac ;;
			bytes.pml)
				case $b in
				4) defs="$defs -DK=2 -DNP=1 -DSTART=15" ;;
				*) defs="$defs -DK=1 -DSTART=15 -DDEAD=-1" ;;
				esac ;;
			value_mpsc.pml)
				case $b in
				4 | 5) defs="$defs -DPER=1" ;;
				*) defs="$defs -DPER=0 -DFILL=2" ;;
				esac ;;
			value_mc.pml)
				case $b in
				3 | 4 | 5 | 6) defs="$defs -DNP=2 -DNC=1 -DPER=0 -DABORT=1 -DFILL=1" ;;
				esac ;;
			esac
			search "${model%.pml}:bug$b" "$model" safety "$defs"
			if [ "$RESULT" != 0 ] && [ "$RESULT" != "?" ]; then
				echo pass
			else
				echo fail
				echo "    planted bug $b of $model was NOT caught"
			fi >>"$WORK/results"
		done
	done
fi
PASSED=$(grep -c '^pass' "$WORK/results" 2>/dev/null)
FAILED=$(grep -c '^fail' "$WORK/results" 2>/dev/null)
grep -v -E '^(pass|fail)$' "$WORK/results" 2>/dev/null
echo "total $(($(date +%s) - T0)) s"
echo "${PASSED:-0} passed, ${FAILED:-0} failed"
[ "${FAILED:-0}" -eq 0 ] && [ "${PASSED:-0}" -gt 0 ]
