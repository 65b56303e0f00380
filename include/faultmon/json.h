/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the few helpers needed to print JSON (no parser).
 */
#ifndef FAULTMON_JSON_H
#define FAULTMON_JSON_H

#include <stdio.h>

/*! \brief Print text as a JSON string, quotes included; NULL prints null. */
void fm_json_string(FILE *out, const char *text);

#endif
