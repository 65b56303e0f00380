/*
 * faultmon: the observer as a suspect (libfmmonitor, libc only).  Before
 * the loop lets a failed cycle ask for recovery, it asks whether the node
 * doing the probing is itself impaired, so that the decision engine can
 * hold the recovery back for observer_hold (see src/decide/excuse.c).
 */
#ifndef FAULTMON_OBSERVER_H
#define FAULTMON_OBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide_params.h>
#include <faultmon/psi.h>

/*!
 * \brief Whether this node's own verdict is suspect, and why.
 *
 * Impaired when observer_late is set and the cycle started at least that
 * late, or observer_pressure is set and the highest PSI "some avg10" of
 * cpu, memory and io (the loop's cgroup, else the system's) is at least
 * that many percent.  Nothing is read when neither is set.
 *
 * \param[in]  o        the decision options
 * \param[in]  src      where PSI is read
 * \param[in]  late_ms  how late the cycle started
 * \param[out] why      the evidence, one line, when impaired
 * \return true when impaired
 */
bool fm_observer_impaired(const struct fm_decide_opts *o, const struct fm_psi_source *src,
                          uint64_t late_ms, char *why, size_t why_len);

#endif
