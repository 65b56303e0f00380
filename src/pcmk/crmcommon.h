/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: libcrmcommon, loaded when the controller request needs it
 * (src/pcmk/crmcommon.c).
 *
 * The faultmon command does not link libcrmcommon: it brings glib, libxml2,
 * libxslt, GnuTLS, p11-kit, ICU and libstdc++ into every process, and each
 * library costs a process its relocated pages and its constructors' heap
 * (about 0.7 MiB of private memory a loop, with 100 loops on a node, for a
 * request most loops never make).  Only the child that asks the controller
 * for a recovery (src/run/request.c forks it) loads it.
 */
#ifndef FAULTMON_PCMK_CRMCOMMON_H
#define FAULTMON_PCMK_CRMCOMMON_H

#include <stddef.h>

#include <crm/crm.h>
#include <crm/common/ipc.h>
#include <crm/common/ipc_controld.h>

/* The calls the controller request makes, typed by Pacemaker's own
 * declarations. */
struct fm_crmcommon {
    __typeof__(pcmk_new_ipc_api) *new_ipc_api;
    __typeof__(pcmk_free_ipc_api) *free_ipc_api;
    __typeof__(pcmk_register_ipc_callback) *register_ipc_callback;
    __typeof__(pcmk_connect_ipc) *connect_ipc;
    __typeof__(pcmk_disconnect_ipc) *disconnect_ipc;
    __typeof__(pcmk_poll_ipc) *poll_ipc;
    __typeof__(pcmk_dispatch_ipc) *dispatch_ipc;
    __typeof__(pcmk_controld_api_node_info) *controld_api_node_info;
    __typeof__(pcmk_controld_api_fail) *controld_api_fail;
    __typeof__(pcmk_rc_str) *rc_str;
};

/*!
 * \brief Load libcrmcommon (the soname faultmon was built against) and look
 *        its calls up, once per process.
 * \return the calls, or NULL with err saying why in one line
 */
const struct fm_crmcommon *fm_crmcommon_load(char *err, size_t err_len);

#endif
