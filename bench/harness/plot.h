/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot.h - --plot DIR: for each group of results (benchmark, mode, -tg
 * shape, params) a bar chart of every queue's score (median, whiskers from
 * min to max, conq's queues, peers and baselines in their own colours), and
 * for each sample-mode result its latency percentile curve (HdrHistogram's
 * style: x = 1/(1-p) on a log axis), and for each set of results that
 * differ only in one numeric parameter (QueueValueThroughput's elemSize, a
 * qCapacity list) a sweep: that parameter on a log2 x axis, a line per
 * queue (median, whiskers min..max; conq's solid, peers dashed, baselines
 * dotted), named ..._sweep_<param>. Each chart is a data file (.dat) and a
 * gnuplot script (.gp) that writes a PNG and an SVG; the scripts are run
 * when gnuplot is on the PATH (else a message says how to render them).
 */
#ifndef CB_PLOT_H
#define CB_PLOT_H

#include "workload.h"

/* 0, or -1 after printing an error (DIR not writable...). */
int cb_plot(const cb_options *o, const cb_results *rs);

#endif /* CB_PLOT_H */
