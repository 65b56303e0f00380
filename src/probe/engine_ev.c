/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe engine's entries in an event loop (include/faultmon/ev.h).
 * Every descriptor of a run (the probes' sockets, pipes, pidfds and timer
 * fds, the resolver's sockets) is an entry of one epoll
 * set, whose data.ptr is a source with its callback: the set of the
 * caller's loop (fm_probe_run_new_on(), `faultmon run`: each wake-up is one
 * epoll_wait for the whole loop), or of an event loop of the run's own for
 * a caller that waits on the run alone (`faultmon probe`).  Either way an
 * event is handled the same; on a caller's loop the caller is then asked,
 * once per wake-up, to dispatch (deadlines, the cycle's end).
 */
#include <config.h>

#include <errno.h>
#include <stddef.h>

#include "probe_int.h"

/* Something of the run's was ready: on a caller's loop, the caller
 * dispatches once after the wake-up's events (fm_probe_run_new_on()). */
static void
run_touched(struct fm_probe_run *run)
{
    if (run->ev_external) {
        fm_ev_later(run->ev, &run->ready);
    }
}

void
fm_conn_touched(struct fm_conn *conn)
{
    run_touched(conn->run);
}

static void
on_resolver_touched(void *data)
{
    run_touched(data);
}

void
fm_conn_on_ready(struct fm_ev_source *src, uint32_t events)
{
    struct fm_conn *conn = (struct fm_conn *) src;  /* src is its first member */

    if (conn->step == FM_STEP_TICKET) {
        if (fm_tls_read_ticket(conn)) {
            fm_conn_finish_ticket(conn);
        }
    } else if (conn->step != FM_STEP_DONE && conn->fd >= 0) {
        fm_conn_advance(conn, events);
    }
    run_touched(conn->run);
}

void
fm_spread_run_timer_fired(void *data)
{
    run_touched(data);
}

int
fm_probe_run_add_resolver(struct fm_probe_run *run, char *err, size_t err_len)
{
    return fm_resolver_new(&run->resolver, run->ev, on_resolver_touched, run, err, err_len);
}

int
fm_probe_run_ev_init(struct fm_probe_run *run, struct fm_ev *ev, void (*ready)(void *data), void *data)
{
    int rc = 0;

    if (ev != NULL) {
        run->ev = ev;
        run->ev_external = true;
        run->ready = (struct fm_ev_later) { .fn = ready, .data = data };
    } else {
        run->ev = &run->own_ev;
        rc = fm_ev_init(&run->own_ev);
    }
    run->epfd = run->ev->epfd;
    return (rc == 0 && run->epfd < 0)? EBADF : rc;
}

void
fm_probe_run_ev_fini(struct fm_probe_run *run)
{
    if (run->ev == &run->own_ev) {
        fm_ev_fini(&run->own_ev);
    }
}

void
fm_probe_run_handle_ready(struct fm_probe_run *run)
{
    /* On a caller's loop, its wait handed the events over already; on the
     * run's own, the wait just before may have (wait.c). */
    if (!run->ev_external && !run->events_taken) {
        while (fm_ev_dispatch(run->ev, 0) == FM_EV_BATCH) {
            continue;   /* more may be ready */
        }
    }
    run->events_taken = false;
    if (fm_resolver_wait_ms(run->resolver) == 0) {
        fm_resolver_process(run->resolver);     /* a c-ares timeout is due */
    }
}
