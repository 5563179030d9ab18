#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# conq-journal-bench from the outside, one case a run (ctest
# journal_bench_CASE); the runs are --smoke (a second or a few) in a
# directory of the build tree, --allow-tmpfs so that a tmpfs build tree
# still checks the tool (not the figures):
#   smoke   --smoke with whatever is there (fio, SQLite): exit 0, a line
#           for each run and none FAILED, the summary, the targets (the
#           replay's among them), CRC32C, and the replay against a read of
#           the same files, warm and cold; the fresh directory removed
#   bare    --smoke --no-fio --no-sqlite: the same, the contenders skipped
#           and their targets n/a
#   json    --mode=both --json=FILE: every line one object of the tool, the
#           kinds header, journal (closed and open), raw, verdict (the
#           replay's among them), crc32c and replay (warm and cold); valid
#           JSON where python3 is there
#   errors  bad options: exit 2, a message, nothing on stdout; a tmpfs
#           --dir refused (where /dev/shm is tmpfs); --help
#   test_journal_bench.sh BENCH CASE BUILD_DIR [EMULATOR]
set -u
bin=$1 case=$2 dir=$3/jb-test-$2 emu=$(echo "${4:-}" | tr ";" " ")
run() { $emu "$bin" "$@"; }
tmp=$dir/out
rm -rf "$dir"
mkdir -p "$dir" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

# The report in $tmp.o of a run that exited rc $1.
report_ok() {
	check "[ $1 -eq 0 ]" "exit $1: $(tail -3 "$tmp.e" 2>/dev/null)"
	check "grep -q '^\[1/1\] journal closed 1 thr 4096 B' $tmp.o" "no journal run with 1 thread"
	check "grep -q '^\[1/1\] journal closed 4 thr 4096 B' $tmp.o" "no journal run with 4 threads"
	check "grep -q '^\[1/1\] raw pwrite+fdatasync 4096 B' $tmp.o" "no raw run"
	check "! grep -q FAILED $tmp.o" "a run failed: $(grep FAILED "$tmp.o" | head -3)"
	check "grep -q '^journal, closed loop' $tmp.o" "no summary"
	check "grep -q '^targets' $tmp.o" "no targets"
	check "grep -q '^crc32c (' $tmp.o" "no crc32c line"
	check "grep -q '^replay of the last run' $tmp.o" "no replay line"
	for st in warm cold; do
		check "grep -q '^\[1/1\] replay, $st cache .* rec/s .* MB/s' $tmp.o" "no $st replay run"
		check "grep -q '^\[1/1\] read of the files, $st cache .* MB/s' $tmp.o" "no $st read run"
		check "grep -q '^ $st  *[0-9.]*  *[0-9.]*  *[0-9]*  *[0-9.]*x ' $tmp.o" "no $st row in the replay table"
	done
	check "grep -q '^replay vs a sequential read of the same files' $tmp.o" "no replay vs read table"
	check "grep -q '^cold: .*posix_fadvise' $tmp.o" "no cold method line"
	check "grep -q '^  replay (cold) MB/s vs a sequential read, same files .*  \(PASS\|MISS\|n/a\)' $tmp.o" "no replay target"
	check "[ -z \"\$(ls -d $dir/conq-journal-bench.* 2>/dev/null)\" ]" "directory not removed"
}

case $case in
smoke)
	run --smoke --dir="$dir" --allow-tmpfs > "$tmp.o" 2> "$tmp.e"
	report_ok $?
	;;
bare)
	run --smoke --no-fio --no-sqlite --dir="$dir" --allow-tmpfs > "$tmp.o" 2> "$tmp.e"
	report_ok $?
	check "grep -q 'fio: skipped (--no-fio)' $tmp.o" "fio not skipped"
	check "grep -q 'sqlite: skipped (--no-sqlite)' $tmp.o" "sqlite not skipped"
	check "! grep -q '^\[1/1\] fio\|^\[1/1\] sqlite' $tmp.o" "a contender ran"
	;;
json)
	run --smoke --no-fio --no-sqlite --mode=both --dir="$dir" --allow-tmpfs --json="$tmp.j" > "$tmp.o" 2> "$tmp.e"
	rc=$?
	check "[ $rc -eq 0 ]" "exit $rc: $(tail -3 "$tmp.e")"
	check "[ \$(grep -c -v '^{\"tool\":\"conq-journal-bench\",\"kind\":\"[a-z0-9]*\",.*}\$' $tmp.j) -eq 0 ]" "lines not of the tool's form: $(grep -v '^{"tool"' "$tmp.j" | head -2)"
	for k in header raw verdict crc32c replay; do
		check "grep -q '\"kind\":\"$k\"' $tmp.j" "no $k line"
	done
	check "[ \$(grep -c '\"kind\":\"journal\".*\"loop\":\"closed\".*\"ok\":true' $tmp.j) -eq 2 ]" "not 2 closed-loop journal runs"
	check "[ \$(grep -c '\"kind\":\"journal\".*\"loop\":\"open\".*\"ok\":true' $tmp.j) -eq 2 ]" "not 2 open-loop journal runs"
	check "grep -q '\"kind\":\"replay\",\"ok\":true,.*\"scanned_bytes\":[1-9].*\"warm\":{\"iterations\":1,.*\"cold\":{\"iterations\":1,\"read_mb_per_s\":[0-9]' $tmp.j" "no replay line with warm and cold figures"
	check "grep -q '\"kind\":\"verdict\",\"target\":\"replay (cold) MB/s vs a sequential read' $tmp.j" "no replay verdict"
	if command -v python3 > /dev/null 2>&1; then
		check "python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' $tmp.j" "not valid JSON"
	fi
	;;
errors)
	for args in "--threads=0" "--threads=1,,4" "--threads=4,4" "--sizes=0" "--sizes=1m" \
		"--duration=-1" "--duration=x" "--iterations=0" "--mode=sideways" "--mode=open" \
		"--rate=0" "--rate=100 --mode=closed" "--window=0" "--window=4 --mode=open --rate=10" \
		"--backend=spdk" "--buffer-timeout-ns=2000000000" "--json=" "--dir=$dir/nonexistent" \
		"--frobnicate" "--threads" "stray"; do
		# shellcheck disable=SC2086
		run $args > "$tmp.o" 2> "$tmp.e"; rc=$?
		check "[ $rc -eq 2 ] && [ ! -s $tmp.o ] && grep -q 'conq-journal-bench: ' $tmp.e" "'$args': exit $rc, stdout $(wc -c < "$tmp.o") bytes, stderr '$(head -1 "$tmp.e")'"
	done
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		run --smoke --dir=/dev/shm > "$tmp.o" 2> "$tmp.e"; rc=$?
		check "[ $rc -eq 2 ] && grep -q 'tmpfs' $tmp.e && grep -q -- '--allow-tmpfs' $tmp.e" "tmpfs: exit $rc, '$(head -1 "$tmp.e")'"
	fi
	run --help > "$tmp.o"; check "[ $? -eq 0 ] && grep -q '^usage' $tmp.o" "--help"
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
echo "$case: $pass passed, $fail failed"
[ $fail -eq 0 ] && rm -rf "$dir"
[ $fail -eq 0 ]
