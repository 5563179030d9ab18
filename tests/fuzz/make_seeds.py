#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write hand-made seed inputs for conq_fuzz (format: fuzz_queues.c's header).

    python3 tests/fuzz/make_seeds.py DIR

Each seed is one family (index into tq_queues), one capacity byte, one setup
byte (+ start bytes) and a few operations. tests/fuzz/corpus/ holds these
merged (-merge=1) with what short libFuzzer runs found.
"""
import hashlib
import os
import sys

# Opcodes, in fuzz_queues.c's enum fz_op order.
(OFFER, RELAXED_OFFER, POLL, RELAXED_POLL, PEEK, RELAXED_PEEK, OFFER_NULL,
 OFFER_BULK, OFFER_BURST, POLL_BURST, DRAIN, FILL, SIZE, IS_EMPTY, CAPACITY,
 FAIL_FAST_OFFER, OFFER_BELOW_THRESH, OFFER_MANY, POLL_MANY) = range(19)

# tq_queues order: the arrays (spsc, mpsc, spmc, mpmc), then the growing
# families (spsc_chunked, spsc_growable, spsc_unbounded, spsc_linked,
# mpsc_linked, mpsc_chunked, mpsc_growable, mpsc_unbounded) and the
# hand-written mpsc_intrusive row.
FAMILIES = 13
GROWING = range(4, 13)
CAPS = [0, 2, 4, 31, 63, 69, 210 + 5, 210 + 7]  # cap 1, 3, 5, 32, 64, 70, 32, 128
SETUPS = [
    [0],            # start 0, create()
    [4],            # start 0, own memory + init
    [1, 3],         # start 2^64 - 4, create_at
    [5, 0],         # start 2^64 - 1, own memory + init_at
    [2, 1],         # start 2^63 - 2
    [3] + [0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],  # raw start
]

# Allocation faults (setup bit 3, growing families only): the 8 bytes of the
# fault mask; allocation n fails when bit n % 64 is set.
FAULTS = [
    [8, 0x02, 0, 0, 0, 0, 0, 0, 0],             # the first after create
    [8, 0x55, 0x55, 0x55, 0x55, 0, 0, 0, 0],    # every other, early on
    [8, 0, 0, 0x80, 0, 0, 0, 0, 0x80],          # two, later
]

SCRIPTS = [
    # fill up, overflow, empty, with every kind of offer and poll
    [OFFER_MANY, 80, OFFER, RELAXED_OFFER, PEEK, RELAXED_PEEK, POLL_MANY, 90,
     POLL, RELAXED_POLL],
    # interleaved singles around the wrap
    [OFFER, POLL, RELAXED_OFFER, RELAXED_POLL, OFFER, OFFER, PEEK, POLL, SIZE,
     IS_EMPTY, CAPACITY] * 4,
    # bulk / burst with and without a NULL, poll_burst
    [OFFER_BULK, 3, 0, OFFER_BULK, 3, 0x81, OFFER_BURST, 100, 0,
     POLL_BURST, 2, OFFER_BURST, 5, 0x82, POLL_BURST, 255, OFFER_BULK, 0, 0],
    # drain and fill with limits and a supplier that ends early
    [FILL, 5, 0, DRAIN, 2, FILL, 255, 0x83, DRAIN, 255, FILL, 0, 0,
     DRAIN, 0, FILL, 255, 0, DRAIN, 1],
    # NULL offers of every kind, mpsc's extras
    [OFFER_NULL, 0, OFFER_NULL, 1, OFFER_NULL, 2, OFFER_NULL, 3,
     FAIL_FAST_OFFER, OFFER_BELOW_THRESH, 2, OFFER_BELOW_THRESH, 2,
     OFFER_BELOW_THRESH, 2, OFFER_BELOW_THRESH, 0, OFFER_BELOW_THRESH, 255,
     OFFER_MANY, 200, FAIL_FAST_OFFER, POLL, FAIL_FAST_OFFER],
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "seeds"
    os.makedirs(out, exist_ok=True)
    n = 0
    for fam in range(FAMILIES):
        for i, script in enumerate(SCRIPTS):
            # a spread of capacities and setups, not the full product
            for j in range(3):
                cap = CAPS[(i + 3 * j + fam) % len(CAPS)]
                setup = SETUPS[(i + j + 2 * fam) % len(SETUPS)]
                data = bytes([fam, cap] + setup + script)
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as f:
                    f.write(data)
                n += 1
            if fam in GROWING:
                # the same script under allocation faults
                fault = FAULTS[(i + fam) % len(FAULTS)]
                cap = CAPS[(i + fam) % len(CAPS)]
                data = bytes([fam, cap] + fault + script)
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as f:
                    f.write(data)
                n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
