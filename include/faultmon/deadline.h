/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultmon: the deadline helpers now live in clock.h; kept for old includes.
 * No .c of its name: a forwarding header; clock.c holds these. */
#include <faultmon/clock.h>
