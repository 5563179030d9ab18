#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# scripts/bench-states.sh from the outside: the state rule (both probes below
# --fast: fast; above --slow: slow), the per-state tables and ratios, the
# usage errors. usage: test_states.sh SCRIPT CONQ-BENCH
set -u
script=$1
export CONQ_BENCH=$2
fails=0
check() { # description, then a command that must succeed
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
short='-tg 1,1 -p qType=conq:spsc_array,ceiling:stream -wi 1 -w 10ms -i 2 -r 20ms'

# Every probe is below 10^9 ns: both runs fast.
out=$(sh "$script" -n 2 --fast 1000000000 --slow 2000000000 -- $short 2>/dev/null)
rc=$?
check "exit 0" [ "$rc" -eq 0 ]
check "two fast runs" sh -c 'echo "$1" | grep -q "^== fast: 2 runs"' _ "$out"
check "no other state" sh -c '! echo "$1" | grep -q "^== slow\|^== mixed"' _ "$out"
check "both queues scored" sh -c 'echo "$1" | grep -q "^  conq:spsc_array  *[0-9]" && echo "$1" | grep -q "^  ceiling:stream  *[0-9]"' _ "$out"
check "default ratio: conq against the other" sh -c 'echo "$1" | grep -q "conq:spsc_array / ceiling:stream  *[0-9.]*x  ([0-9.]*x\.\.[0-9.]*x)"' _ "$out"

# Every probe is above 0 ns: slow; a ratio asked for.
out=$(sh "$script" -n 1 --fast 0 --slow 0 --ratio ceiling:stream/conq:spsc_array -- $short 2>/dev/null)
check "one slow run" sh -c 'echo "$1" | grep -q "^== slow: 1 run "' _ "$out"
check "the ratio asked for, only" sh -c 'echo "$1" | grep -q "ceiling:stream / conq:spsc_array" && ! echo "$1" | grep -q "conq:spsc_array / ceiling:stream"' _ "$out"

# Neither: mixed.
out=$(sh "$script" -n 1 --fast 0 --slow 2000000000 -- $short 2>/dev/null)
check "one mixed run" sh -c 'echo "$1" | grep -q "^== mixed: 1 run "' _ "$out"

# Usage errors: exit 2.
sh "$script" --ratio nosuchratio >/dev/null 2>&1
check "--ratio without A/B: exit 2" [ $? -eq 2 ]
sh "$script" -n x >/dev/null 2>&1
check "-n not a number: exit 2" [ $? -eq 2 ]
sh "$script" --bogus >/dev/null 2>&1
check "unknown option: exit 2" [ $? -eq 2 ]
out=$(sh "$script" --help 2>/dev/null)
check "--help: exit 0" [ $? -eq 0 ]
check "--help: the usage on stdout" sh -c 'echo "$1" | grep -q "^usage: scripts/bench-states.sh"' _ "$out"
# A failing run: exit 1.
sh "$script" -n 1 -- -p qType=no:such:queue >/dev/null 2>&1
check "a failing run: exit 1" [ $? -eq 1 ]

echo "$fails failed"
[ "$fails" -eq 0 ]
