/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - the human-readable result: a JMH-like table and the ratios. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdio.h>

#include "workload.h"

void cb_report_text(FILE *f, const cb_results *rs);

#endif /* CB_REPORT_H */
