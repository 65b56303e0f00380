/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the meta-data, compiled in from metadata/AGENT.xml
 * by agents/local.mk, so that the XML files stay the one source.
 *
 * No .c of its name: ocf_metadata.c is generated into the build
 * by agents/local.mk.
 */
#ifndef FAULTMON_OCF_METADATA_H
#define FAULTMON_OCF_METADATA_H

extern const char fm_ocf_metadata_apache[];
extern const char fm_ocf_metadata_nginx[];
extern const char fm_ocf_metadata_httpmon[];
extern const char fm_ocf_metadata_guard[];

#endif
