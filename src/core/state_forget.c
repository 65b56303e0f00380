/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what `faultmon reset` and `faultmon resume` do to the state file
 * when no loop runs (a running loop does the same in its engine, whose
 * forget_failures() in src/decide/decide.c this follows on the exported
 * state), so that the next loop imports a state the reader accepts.
 */
#include <config.h>

#include <stdio.h>

#include <faultmon/state.h>

/* The failures and what the last cycle did with them: what both commands
 * forget, as the engine's forget_failures() does. */
static void
forget_failures(struct fm_run_state *st)
{
    st->decide.n_failures = 0;
    st->decide.fail_streak = 0;
    /* The reader requires no worst failure without a streak. */
    st->decide.fail_worst = FM_CLASS_OK;
    st->decide.miss_streak = 0;
    st->action = FM_ACTION_NONE;
    st->weight = 0;
    st->next_failure[0] = '\0';     /* the next loop works it out */
}

/* `faultmon reset`: the history and the decision; a hold keeps its pending
 * failover (only `faultmon resume` lifts it). */
static void
forget_history(struct fm_run_state *st)
{
    st->decide.n_restarts = 0;
    st->restarts_in_window = 0;
    if (st->decide.held == 0) {
        st->decide.down = 0;
        st->decide.last_action = 0;
        st->decide.last_action_us = 0;
        st->pending = FM_ACTION_NONE;
        st->state = FM_STATE_UP;
        snprintf(st->reason, sizeof(st->reason), "history and decision reset");
    }
}

/* `faultmon resume`: the hold, as the engine's own resume does. */
static void
forget_hold(struct fm_run_state *st)
{
    st->decide.held = 0;
    st->decide.down = 0;
    st->decide.ok_streak = 0;
    st->state = FM_STATE_UP;
    fm_state_clear_pending(st);
    snprintf(st->reason, sizeof(st->reason), "resumed by an administrator");
}

void
fm_state_forget(struct fm_run_state *st, enum fm_state_forget what)
{
    if (what == FM_STATE_FORGET_HOLD) {
        forget_hold(st);
    } else {
        forget_history(st);
    }
    forget_failures(st);
    st->ocf_rc = fm_state_ocf_rc(st);
}
