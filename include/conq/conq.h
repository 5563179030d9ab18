/* SPDX-License-Identifier: BSD-2-Clause */
/* conq/conq.h - the umbrella header: every queue family and the version. */
#ifndef CONQ_CONQ_H
#define CONQ_CONQ_H

#include "conq/version.h"
#include "conq/common.h"
#include "conq/spsc_array.h"
#include "conq/mpsc_array.h"
#include "conq/spmc_array.h"
#include "conq/mpmc_array.h"

#endif /* CONQ_CONQ_H */
