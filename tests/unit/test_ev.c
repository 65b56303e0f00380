/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the event loop (src/util/ev.c): an entry's callback gets its
 * events through its source; an entry removed by another's callback in the
 * same wake-up is not called (its events are struck out); work queued by
 * several entries runs once, after them; a signal comes through the
 * signalfd, to its callback, and stays blocked after the loop; timers (the
 * wait's timeout, no descriptor) fire in their order, never early, a
 * disarmed one never, one armed due by a callback before the next wait, and
 * one that keeps arming itself due does not starve the descriptors, and
 * one that came due while a callback ran waits for the descriptors' news.
 */
#include <config.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/clock.h>
#include <faultmon/ev.h>

struct pipe_src {
    struct fm_ev_source src;
    int fds[2];
    int calls;
    uint32_t events;
    struct fm_ev *ev;
    struct pipe_src *victim;        /* removed by this one's callback */
    struct fm_ev_later *later;      /* queued by this one's callback */
};

struct fixture {
    struct fm_ev ev;
    struct pipe_src a;
    struct pipe_src b;
    int later_calls;
    int later_a_calls;              /* a's calls when the later work ran */
    int signals;
    /* Timers: which fired, in order, and when. */
    struct fm_ev_timer t[3];
    int order[8];
    uint64_t fired_us[8];
    int n_fired;
    bool stop_on_timer;
    bool rearm_due;                 /* the timer arms itself due again */
    int b_calls_at_timer;           /* b's calls when the deadline fired */
};

static void
on_timer_i(struct fixture *f, int i, void (*self)(void *data))
{
    if (f->n_fired < 8) {
        f->order[f->n_fired] = i;
        f->fired_us[f->n_fired] = fm_now_us();
    }
    f->n_fired++;
    if (f->rearm_due) {
        fm_ev_timer_arm(&f->ev, &f->t[i], 0, self, f);
    } else if (f->stop_on_timer) {
        fm_ev_stop(&f->ev);
    }
}

static void on_timer_0(void *data);
static void on_timer_1(void *data);
static void on_timer_2(void *data);

static void
on_timer_0(void *data)
{
    on_timer_i(data, 0, on_timer_0);
}

static void
on_timer_1(void *data)
{
    on_timer_i(data, 1, on_timer_1);
}

static void
on_timer_2(void *data)
{
    on_timer_i(data, 2, on_timer_2);
}

static void
on_pipe(struct fm_ev_source *src, uint32_t events)
{
    struct pipe_src *p = (struct pipe_src *) src;

    p->calls++;
    p->events = events;
    if (p->victim != NULL) {
        fm_ev_del(p->ev, p->victim->fds[0], &p->victim->src);
    }
    if (p->later != NULL) {
        fm_ev_later(p->ev, p->later);
    }
    fm_ev_stop(p->ev);
}

static void
pipe_make(struct fixture *f, struct pipe_src *p)
{
    p->src.ready = on_pipe;
    p->ev = &f->ev;
    assert_int_equal(pipe(p->fds), 0);
    assert_int_equal(fm_ev_add(&f->ev, p->fds[0], EPOLLIN, &p->src), 0);
    assert_int_equal(write(p->fds[1], "x", 1), 1);
}

static int
setup(void **state)
{
    struct fixture *f = test_calloc(1, sizeof(*f));

    assert_int_equal(fm_ev_init(&f->ev), 0);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;
    struct pipe_src *ps[] = { &f->a, &f->b };

    fm_ev_fini(&f->ev);
    for (size_t i = 0; i < 2; i++) {
        if (ps[i]->src.ready != NULL) {
            close(ps[i]->fds[0]);
            close(ps[i]->fds[1]);
        }
    }
    test_free(f);
    return 0;
}

static void
test_source_gets_its_events(void **state)
{
    struct fixture *f = *state;

    pipe_make(f, &f->a);
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->a.calls, 1);
    assert_true((f->a.events & EPOLLIN) != 0);
}

static void
test_removed_in_the_same_wakeup_not_called(void **state)
{
    struct fixture *f = *state;

    /* Both ready in one wake-up; whichever comes first removes the other. */
    pipe_make(f, &f->a);
    pipe_make(f, &f->b);
    f->a.victim = &f->b;
    f->b.victim = &f->a;
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->a.calls + f->b.calls, 1);
}

static void
on_later(void *data)
{
    struct fixture *f = data;

    f->later_calls++;
    f->later_a_calls = f->a.calls + f->b.calls;
}

static void
test_later_runs_once_after_the_events(void **state)
{
    struct fixture *f = *state;
    struct fm_ev_later later = { .fn = on_later, .data = f };

    pipe_make(f, &f->a);
    pipe_make(f, &f->b);
    f->a.later = &later;
    f->b.later = &later;
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->a.calls, 1);
    assert_int_equal(f->b.calls, 1);
    assert_int_equal(f->later_calls, 1);
    assert_int_equal(f->later_a_calls, 2);
    assert_false(later.queued);
}

static int32_t
on_usr1(int32_t sig, void *data)
{
    struct fixture *f = data;

    f->signals += (sig == SIGUSR1);
    fm_ev_stop(&f->ev);
    return 0;
}

static void
test_signal_through_signalfd(void **state)
{
    struct fixture *f = *state;
    sigset_t mask;

    assert_int_equal(fm_ev_signal(&f->ev, SIGUSR1, on_usr1, f), 0);
    assert_int_equal(kill(getpid(), SIGUSR1), 0);   /* blocked: it waits in the fd */
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->signals, 1);
    fm_ev_fini(&f->ev);
    /* Still blocked after the loop: one that comes now is no death. */
    sigprocmask(SIG_BLOCK, NULL, &mask);
    assert_true(sigismember(&mask, SIGUSR1));
    assert_int_equal(kill(getpid(), SIGUSR1), 0);
    assert_int_equal(fm_ev_init(&f->ev), 0);
}

static void
test_timers_in_order_never_early(void **state)
{
    struct fixture *f = *state;
    uint64_t start_us = fm_now_us();

    fm_ev_timer_arm(&f->ev, &f->t[0], start_us + 60000u, on_timer_0, f);
    fm_ev_timer_arm(&f->ev, &f->t[1], start_us + 20000u, on_timer_1, f);
    fm_ev_timer_arm(&f->ev, &f->t[2], start_us + 40000u, on_timer_2, f);
    fm_ev_timer_disarm(&f->ev, &f->t[2]);
    f->stop_on_timer = true;
    assert_int_equal(fm_ev_run(&f->ev), 0);         /* stopped by the first */
    f->ev.stop = false;
    assert_int_equal(fm_ev_run(&f->ev), 0);         /* and the second */
    assert_int_equal(f->n_fired, 2);
    assert_int_equal(f->order[0], 1);
    assert_int_equal(f->order[1], 0);
    assert_true(f->fired_us[0] >= start_us + 20000u);
    assert_true(f->fired_us[1] >= start_us + 60000u);
    assert_true(f->fired_us[1] < start_us + 1000000u);
    assert_int_equal(f->t[0].at_us, 0);             /* disarmed once fired */
    assert_null(f->ev.timers);
}

static void
test_timer_due_does_not_starve_descriptors(void **state)
{
    struct fixture *f = *state;

    /* A timer that keeps arming itself due, and a readable pipe: the
     * pipe's callback (which stops the loop) still runs. */
    f->rearm_due = true;
    fm_ev_timer_arm(&f->ev, &f->t[0], 0, on_timer_0, f);
    pipe_make(f, &f->a);
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->a.calls, 1);
    assert_true(f->n_fired >= 1);
    fm_ev_timer_disarm(&f->ev, &f->t[0]);
    assert_null(f->ev.timers);
}

/* a's callback: b's reply comes while a keeps the loop busy past t[0]. */
static void
on_busy(struct fm_ev_source *src, uint32_t events)
{
    struct pipe_src *p = (struct pipe_src *) src;
    struct fixture *f = (struct fixture *) ((char *) p - offsetof(struct fixture, a));
    char c = 0;
    uint64_t until_us = fm_now_us() + 40000u;

    (void) events;
    p->calls++;
    assert_int_equal(read(p->fds[0], &c, 1), 1);
    assert_int_equal(write(f->b.fds[1], "y", 1), 1);
    while (fm_now_us() < until_us) {
        continue;
    }
}

static void
on_count(struct fm_ev_source *src, uint32_t events)
{
    struct pipe_src *p = (struct pipe_src *) src;
    char c = 0;

    (void) events;
    p->calls++;
    assert_int_equal(read(p->fds[0], &c, 1), 1);
}

static void
on_deadline(void *data)
{
    struct fixture *f = data;

    f->b_calls_at_timer = f->b.calls;
    f->n_fired++;
    fm_ev_stop(&f->ev);
}

/* A deadline that passed while a callback ran fires after the reply that
 * came meanwhile is read: with the deadline first, a probe whose reply sat
 * unread would be judged timed out (a false failure). */
static void
test_reply_read_before_a_deadline_passed_while_busy(void **state)
{
    struct fixture *f = *state;

    pipe_make(f, &f->a);                            /* readable at once */
    f->a.src.ready = on_busy;
    f->b.src.ready = on_count;
    f->b.ev = &f->ev;
    assert_int_equal(pipe(f->b.fds), 0);
    assert_int_equal(fm_ev_add(&f->ev, f->b.fds[0], EPOLLIN, &f->b.src), 0);
    fm_ev_timer_arm(&f->ev, &f->t[0], fm_now_us() + 20000u, on_deadline, f);
    assert_int_equal(fm_ev_run(&f->ev), 0);
    assert_int_equal(f->a.calls, 1);
    assert_int_equal(f->n_fired, 1);
    assert_int_equal(f->b_calls_at_timer, 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_source_gets_its_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_removed_in_the_same_wakeup_not_called, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_runs_once_after_the_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_through_signalfd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timers_in_order_never_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timer_due_does_not_starve_descriptors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_read_before_a_deadline_passed_while_busy, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
