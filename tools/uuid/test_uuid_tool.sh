#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# conq-uuid from the outside, one case a run (ctest uuid_tool_CASE):
#   count    -n N prints N lines; -n 1e4 is 10,000
#   v4       every line the canonical form, version 4, variant 10, all
#            different
#   v7       --v7: version 7, lines strictly increasing (sort -c), all
#            different, the timestamp within a second of now
#   bulk     --bulk, v4 and v7: the same checks
#   zero     -n 0 prints nothing and succeeds
#   errors   bad counts, unknown options, stray arguments: exit 2 and a
#            message, nothing on stdout; a closed stdout: exit 1
#   uuidgen  the same format as util-linux's uuidgen -r (skipped, 77, when
#            uuidgen is not installed)
#   test_uuid_tool.sh CONQ_UUID CASE [UUIDGEN] [EMULATOR]
set -u
bin=$1 case=$2 uuidgen=${3:-} emu=$(echo "${4:-}" | tr ";" " ")
run() { $emu "$bin" "$@"; }
tmp=${TMPDIR:-/tmp}/conq-uuid-tool.$$
trap 'rm -f "$tmp".*' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

v4re='^[0-9a-f]\{8\}-[0-9a-f]\{4\}-4[0-9a-f]\{3\}-[89ab][0-9a-f]\{3\}-[0-9a-f]\{12\}$'
v7re='^[0-9a-f]\{8\}-[0-9a-f]\{4\}-7[0-9a-f]\{3\}-[89ab][0-9a-f]\{3\}-[0-9a-f]\{12\}$'

# FILE N RE: N lines, each matching RE, no two the same.
lines_ok() {
	check "[ \$(wc -l < $1) -eq $2 ]" "$1: not $2 lines"
	check "[ \$(grep -c -v '$3' $1) -eq 0 ]" "$1: lines not of the form $3: $(grep -v "$3" "$1" | head -3)"
	check "[ \$(sort -u $1 | wc -l) -eq $2 ]" "$1: duplicate lines"
}

# FILE: strictly increasing, and the first timestamp (48 bits of ms) near now.
v7_order() {
	check "LC_ALL=C sort -c -u $1 2>/dev/null" "$1: v7 lines not strictly increasing"
	ms=$(head -1 "$1" | tr -d '-' | cut -c1-12)
	now=$(($(date +%s) * 1000))
	then=$(printf '%d' "0x$ms")
	check "[ $((now - then)) -lt 5000 ] && [ $((then - now)) -lt 5000 ]" "$1: v7 timestamp $then ms, now $now ms"
}

case $case in
count)
	run -n 5 > "$tmp.a"; check '[ $(wc -l < $tmp.a) -eq 5 ]' "-n 5"
	run -n 1e4 > "$tmp.b"; check '[ $(wc -l < $tmp.b) -eq 10000 ]' "-n 1e4"
	run > "$tmp.c"; check '[ $(wc -l < $tmp.c) -eq 1 ]' "default count"
	run --count 3 > "$tmp.d"; check '[ $(wc -l < $tmp.d) -eq 3 ]' "--count 3"
	;;
v4)
	run -n 100000 > "$tmp.a"; lines_ok "$tmp.a" 100000 "$v4re"
	run -r -n 1000 > "$tmp.b"; lines_ok "$tmp.b" 1000 "$v4re"
	;;
v7)
	run --v7 -n 100000 > "$tmp.a"; lines_ok "$tmp.a" 100000 "$v7re"
	v7_order "$tmp.a"
	run -7 -n 10 > "$tmp.b"; lines_ok "$tmp.b" 10 "$v7re"
	;;
bulk)
	run --bulk -n 100000 > "$tmp.a"; lines_ok "$tmp.a" 100000 "$v4re"
	run --bulk --v7 -n 100000 > "$tmp.b"; lines_ok "$tmp.b" 100000 "$v7re"
	v7_order "$tmp.b"
	;;
zero)
	run -n 0 > "$tmp.a"; rc=$?
	check '[ $rc -eq 0 ] && [ ! -s $tmp.a ]' "-n 0: exit $rc, $(wc -c < "$tmp.a") bytes"
	;;
errors)
	for args in "-n -1" "-n abc" "-n 1.5" "-n" "--frobnicate" "-n 3 extra"; do
		# shellcheck disable=SC2086
		run $args > "$tmp.o" 2> "$tmp.e"; rc=$?
		check "[ $rc -eq 2 ] && [ ! -s $tmp.o ] && [ -s $tmp.e ]" "'$args': exit $rc, stdout $(wc -c < "$tmp.o") bytes, stderr '$(head -1 "$tmp.e")'"
	done
	run -n 10 >&- 2> "$tmp.e"; rc=$?
	check "[ $rc -eq 1 ] && grep -q 'write error' $tmp.e" "closed stdout: exit $rc, '$(head -1 "$tmp.e")'"
	run -h > "$tmp.o"; check "[ $? -eq 0 ] && grep -q usage $tmp.o" "-h"
	run -B > "$tmp.o"; check "grep -qx 'vdso\|chacha20' $tmp.o" "-B: '$(cat "$tmp.o")'"
	;;
uuidgen)
	if [ -z "$uuidgen" ] || ! command -v "$uuidgen" > /dev/null; then
		echo "uuidgen not installed (util-linux's uuid-runtime): skipped"
		exit 77
	fi
	i=0
	: > "$tmp.g"
	while [ $i -lt 200 ]; do "$uuidgen" -r >> "$tmp.g"; i=$((i + 1)); done
	lines_ok "$tmp.g" 200 "$v4re" # uuidgen's own lines pass our check
	run -n 200 > "$tmp.a"
	# Byte for byte the same shape: every character class position.
	shape() { sed 's/[0-9a-f]/x/g; s/^\(.\{14\}\)x/\1V/' "$1" | sort -u; }
	check '[ "$(shape $tmp.g)" = "$(shape $tmp.a)" ]' "shape: uuidgen '$(shape "$tmp.g")' conq-uuid '$(shape "$tmp.a")'"
	check '[ $(wc -c < $tmp.g) -eq $(wc -c < $tmp.a) ]' "line lengths differ"
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
