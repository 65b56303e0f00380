/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The web agents (apache, nginx): overload_status_url=auto, the status page
 * the loop reads after a failed cycle (doc/overload.md), taken from the
 * server's own configuration (agents/web/ocf_web_overload.c).
 */
#ifndef FAULTMON_OCF_WEB_OVERLOAD_H
#define FAULTMON_OCF_WEB_OVERLOAD_H

#include <stdbool.h>

/*!
 * \brief With overload_status_url=auto, set it to the status page the
 *        configuration names: \p status_url, found by the configuration
 *        reader as \p base_url and the location of mod_status (then read
 *        in its machine form, ?auto) or of stub_status.
 *
 * \param[in] apache  Apache's mod_status (else nginx's stub_status)
 * \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED (with its exit reason)
 *         when the configuration names no status page
 */
int fm_web_overload_url(bool apache, const char *status_url, const char *base_url);

#endif
