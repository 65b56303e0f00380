/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/compat: the frozen reader and writer of state format 1 as
 * faultmon wrote and read it before the format had a compatibility rule
 * (commit 391a9ef: src/core/state.c, state_metrics.c, state_int.h, copied
 * unchanged but for their includes).  Every function they define is
 * renamed here, fm_state_X -> fm_state_v1_X, so that a test links them
 * beside the current ones: what an agent or loop of that version makes of
 * this version's files, and the other way round, during a rolling upgrade
 * or downgrade.  Never edit the copies to follow the current code; if
 * struct fm_run_state changes, change them only as far as they must to
 * compile, and say so here.
 */
#ifndef FAULTMON_STATE_V1_NAMES_H
#define FAULTMON_STATE_V1_NAMES_H

#define fm_state_file_write fm_state_v1_file_write
#define fm_state_write fm_state_v1_write
#define fm_state_split_fields fm_state_v1_split_fields
#define fm_state_ocf_rc fm_state_v1_ocf_rc
#define fm_state_clear_pending fm_state_v1_clear_pending
#define fm_state_validate fm_state_v1_validate
#define fm_state_parse fm_state_v1_parse
#define fm_state_read fm_state_v1_read
#define fm_state_metrics_write fm_state_v1_metrics_write
#define fm_state_metrics_write_target fm_state_v1_metrics_write_target
#define fm_state_metrics_entry fm_state_v1_metrics_entry
#define fm_state_validate_targets fm_state_v1_validate_targets

#endif
