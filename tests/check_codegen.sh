#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# tests/check_codegen.sh OBJDUMP PROCESSOR OBJECT - what conq/refcount.h's
# fast paths compile to (ctest refcount_init_codegen), from the object of
# tests/refcount_codegen.c (one function per operation, -O2, no sanitizer).
#
# Checked, on x86-64:
#   rc_cg_init, rc_cg_init_one  a store to memory; no lock prefix, no xchg,
#                               no mfence (a relaxed store is a plain mov;
#                               a seq_cst one would be xchg or mov+mfence)
#   rc_cg_retain                exactly one lock-prefixed instruction (the
#                               fetch-and-add), no xchg, no mfence
#   rc_cg_release               the same (the decrement; the last holder's
#                               acquire load is a plain mov)
# on aarch64:
#   rc_cg_init, rc_cg_init_one  a str; no stlr, no dmb, no exclusive or LSE
#                               atomic, no call to libgcc's outline atomics
#   rc_cg_retain                exactly one relaxed RMW (ldadd, an ldxr/stxr
#                               loop, or the outline __aarch64_ldadd4_relax);
#                               no dmb, no acquire or release form
#   rc_cg_release               exactly one release RMW (ldaddl, an stlxr
#                               loop, or __aarch64_ldadd4_rel), one acquire
#                               load (ldar / ldapr), no dmb, no acq_rel form
# Elsewhere, or without an objdump for the target: skipped (exit 77).
set -u

OBJDUMP=${1:-}
PROC=${2:-}
OBJ=${3:-}

if [ -z "$OBJDUMP" ] || ! command -v "$OBJDUMP" >/dev/null 2>&1; then
	echo "SKIP: no objdump for the target (CMAKE_OBJDUMP='$OBJDUMP')"
	exit 77
fi
if [ ! -f "$OBJ" ]; then
	echo "error: object file '$OBJ' not found" >&2
	exit 1
fi
case $PROC in
x86_64 | AMD64 | amd64) ARCH=x86_64 ;;
aarch64 | arm64 | ARM64) ARCH=aarch64 ;;
*)
	echo "SKIP: no codegen check for processor '$PROC'"
	exit 77
	;;
esac

DIS=$("$OBJDUMP" -dr --no-show-raw-insn "$OBJ") || {
	echo "error: $OBJDUMP -d $OBJ failed" >&2
	exit 1
}

FAILED=0

# The instructions (and relocations) of function $1: from its "<name>:"
# line to the next blank line or symbol. Cold parts split off by the
# compiler (name.cold) are other symbols, hence not included.
body() {
	printf '%s\n' "$DIS" | awk -v f="<$1>:" '
		index($0, f) && $0 ~ /^[0-9a-f]+ </ { on = 1; next }
		on && ($0 ~ /^[0-9a-f]+ </ || $0 ~ /^$/) { exit }
		on { print }'
}

# count PATTERN TEXT: lines of TEXT matching the extended regex PATTERN.
count() {
	printf '%s\n' "$2" | grep -Ec -- "$1"
}

fail() {
	echo "FAIL: $*"
	FAILED=1
}

# expect FUNCTION WHAT PATTERN MIN MAX
expect() {
	n=$(count "$3" "$B")
	if [ "$n" -lt "$4" ] || [ "$n" -gt "$5" ]; then
		if [ "$4" -eq "$5" ]; then
			fail "$1: $2: $n, expected $4"
		else
			fail "$1: $2: $n, expected $4..$5"
		fi
	else
		echo "ok:   $1: $2: $n"
	fi
}

for f in rc_cg_init rc_cg_init_one rc_cg_retain rc_cg_release; do
	B=$(body "$f")
	echo "--- $f ($ARCH)"
	printf '%s\n' "$B"
	if [ -z "$B" ]; then
		fail "$f: not found in $OBJ"
		continue
	fi
	if [ "$ARCH" = x86_64 ]; then
		expect "$f" "mfence" '[[:space:]]mfence' 0 0
		expect "$f" "xchg" '[[:space:]]xchg' 0 0
		case $f in
		rc_cg_init*)
			expect "$f" "lock-prefixed instructions" '[[:space:]]lock([[:space:]]|$)' 0 0
			expect "$f" "stores (mov to memory)" '[[:space:]]mov[lq]?[[:space:]]+[^,]+,[[:space:]]*(-?0x[0-9a-f]+)?\(%' 1 1
			;;
		*)
			expect "$f" "lock-prefixed instructions" '[[:space:]]lock([[:space:]]|$)' 1 1
			;;
		esac
	else
		expect "$f" "dmb" '[[:space:]]dmb[[:space:]]' 0 0
		case $f in
		rc_cg_init*)
			expect "$f" "stlr" '[[:space:]]stlr' 0 0
			expect "$f" "atomics (exclusive, LSE, outline)" '[[:space:]](ld[a]?xr|st[l]?xr|ldadd|cas|swp)|__aarch64_' 0 0
			expect "$f" "stores (str)" '[[:space:]]str[[:space:]]' 1 1
			;;
		rc_cg_retain)
			expect "$f" "stlr" '[[:space:]]stlr' 0 0
			expect "$f" "acquire/release forms" '[[:space:]](ldaxr|stlxr|ldadda|ldaddl|ldar|ldapr)[[:space:]]|__aarch64_[a-z0-9]+_(acq|rel|acq_rel)$' 0 0
			expect "$f" "relaxed RMWs" '[[:space:]](ldadd|ldxr)[[:space:]]|R_AARCH64_CALL26[[:space:]]+__aarch64_ldadd4_relax$' 1 1
			;;
		rc_cg_release)
			expect "$f" "acq_rel forms" '[[:space:]](ldaddal|ldaxr)[[:space:]]|__aarch64_[a-z0-9]+_acq_rel$' 0 0
			expect "$f" "release RMWs" '[[:space:]](ldaddl|stlxr)[[:space:]]|R_AARCH64_CALL26[[:space:]]+__aarch64_ldadd4_rel$' 1 1
			expect "$f" "acquire loads" '[[:space:]](ldar|ldapr)[[:space:]]' 1 1
			;;
		esac
	fi
done

if [ "$FAILED" -ne 0 ]; then
	echo "refcount codegen: FAILED"
	exit 1
fi
echo "refcount codegen: ok"
exit 0
