/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compare.h - `conq-bench compare OLD.json NEW.json`: two -rf json results
 * (JMH's result JSON; JMH's own files work too), matched by benchmark, mode
 * and params, each metric's ratio new/old of the means with the p-values of
 * Welch's t test and of the Mann-Whitney U test on the raw per-iteration
 * data (all forks pooled).
 *
 * A change is significant when both p-values are below alpha (default 0.05)
 * and the means differ by more than the noise threshold (default 1%). The
 * direction comes from the unit: a rate ("ops/us") is better higher, a time
 * ("ns/op", "us/op"...) lower.
 *
 * Exit status: 0 no significant regression, 1 at least one significant
 * regression (a metric compared got worse), 2 usage error, unreadable file,
 * or no benchmark in common.
 */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

/* argv[0] is "compare". */
int cb_compare_main(int argc, char **argv);

#endif /* CB_COMPARE_H */
