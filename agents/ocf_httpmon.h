/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:httpmon.
 */
#ifndef FAULTMON_OCF_HTTPMON_H
#define FAULTMON_OCF_HTTPMON_H

#include "ocf_common.h"

/*! \brief The actions of ocf:faultmon:httpmon; returns the OCF exit code. */
int fm_ocf_httpmon_main(struct fm_ocf *ocf);

#endif
