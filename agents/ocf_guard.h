/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:guard (ocf_guard.c: parameters, the
 * CIB lookup, start, stop, reload; ocf_guard_monitor.c: monitor).
 */
#ifndef FAULTMON_OCF_GUARD_H
#define FAULTMON_OCF_GUARD_H

#include "ocf_common.h"

/* One action's view of the guard. */
struct fm_guard {
    struct fm_ocf *ocf;
    const char *resource;           /* the guarded resource's id */
    struct fm_ocf_cib_rsc rsc;      /* what the CIB says of it */
    bool have_rsc;                  /* false: no cluster, nothing to act on */
};

/*! \brief The actions of ocf:faultmon:guard; returns the OCF exit code. */
int fm_ocf_guard_main(struct fm_ocf *ocf);

/*! \brief Check the parameters the loop does not read (resource). */
int fm_guard_params(struct fm_guard *g);

/*! \brief Start the loop, aimed at the guarded resource (FAULTMON_GUARD_*). */
int fm_guard_start_loop(struct fm_guard *g);

/*! \brief monitor: the loop's verdict on the guarded resource. */
int fm_guard_monitor(struct fm_guard *g);

#endif
