/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: overload is not a hang (src/run/run_overload.c), apart from
 * the loop's wiring (src/run/loop.c): after a slow or failed cycle the
 * server's own status page is read on a probe engine of its own, within
 * the cycle's deadline, and "every worker busy" goes to the decision
 * engine as the cycle's overload evidence (faultmon/decide.h).
 */
#ifndef FAULTMON_CMD_RUN_OVERLOAD_H
#define FAULTMON_CMD_RUN_OVERLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/ev.h>

#include <faultmon/accept_queue.h>
#include <faultmon/overload.h>
#include <faultmon/probe.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>

struct fm_run_overload {
    bool enabled;                   /* overload_status_url is set */
    struct fm_target target;
    struct fm_probe_opts opts;
    struct fm_probe_run *run;
    size_t capacity;                /* nginx: connections; 0 unknown */
    uint64_t cycle_us;              /* the cycle this state is of */
    uint64_t timeout_ms;            /* Probe_timeout */
    bool started;                   /* in this cycle */
    /* Its start was tried in this cycle, whether it started or not: a
     * start that failed (the kernel's look refused, the page's engine) is
     * not tried again at every wake-up until the deadline. */
    bool tried;
    bool body_seen;                 /* the page's body came, in this cycle */
    char why[FM_OVERLOAD_WHY_MAX];  /* "all 4 workers busy"; "": no evidence */
    bool queue_before;              /* the kernel's first look was taken */
    bool queue_judged;              /* and its second, in this cycle */
    struct fm_accept_queue queue;   /* the first look at the page's port */
    bool kernel_only;               /* tcp://HOST:PORT: no page, the kernel only */
    bool unanswered;                /* the cycle failed with no answer (a timeout, a reset) */
    uint64_t kernel_due_us;         /* then: the second look's time */
};

/*!
 * \brief Prepare the status page's engine when \p probe names one, and
 *        its sockets in \p loop's set, \p ready(\p data) after a wake-up
 *        that had events of its (fm_probe_run_new_on()); a page that cannot be
 *        prepared is said in the log and not read.
 */
void fm_run_overload_start(struct fm_run_overload *ov, struct fm_ev *loop,
                           const struct fm_probe_opts *probe, const char *resource,
                           void (*ready)(void *data), void *data);

void fm_run_overload_free(struct fm_run_overload *ov);

/*!
 * \brief Whether the cycle begun at \p cycle_start_us is still open: its
 *        probes, or the status page read because it is slow (past half
 *        its deadline) or failed, within the same deadline.  A cycle that
 *        ends early and healthy never reads the page.
 *
 * \param[in]  probe    the service's engine
 * \param[in]  done     every probe of \p probe has its verdict
 * \param[out] wait_ms  when the loop must wake at the latest: -1 when the
 *                      engines' own fds will wake it
 * \return true while the cycle must wait
 */
bool fm_run_overload_hold(struct fm_run_overload *ov, const struct fm_probe_run *probe, bool done,
                          uint64_t cycle_start_us, int *wait_ms);

/*! \brief The evidence of the cycle begun at \p cycle_start_us ("all 4
 *         workers busy"), or NULL (none, only an earlier cycle's, or a
 *         cycle whose server answered: only a timeout or a connection
 *         closed before a reply can be overload). */
const char *fm_run_overload_evidence(const struct fm_run_overload *ov, uint64_t cycle_start_us);

#endif
