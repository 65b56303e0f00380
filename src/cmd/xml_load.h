/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: libxml2, loaded by the commands that read XML
 * (src/cmd/xml_load.c).
 *
 * Only `faultmon status --cluster` and `faultmon migrate` read XML, yet a
 * library linked into the faultmon command is loaded by every process of
 * it, every loop included: libxml2 brings ICU and libstdc++, whose
 * relocated pages cost each loop about 0.2 MiB of private memory.  So the
 * two commands load it when they parse, and the loop never does.
 */
#ifndef FAULTMON_CMD_XML_LOAD_H
#define FAULTMON_CMD_XML_LOAD_H

#include <stddef.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/* The calls those commands make, typed by libxml2's own declarations. */
struct fm_xml {
    __typeof__(xmlReadMemory) *read_memory;
    __typeof__(xmlDocGetRootElement) *doc_get_root_element;
    __typeof__(xmlFreeDoc) *free_doc;
    __typeof__(xmlGetProp) *get_prop;
    __typeof__(xmlStrEqual) *str_equal;
    xmlFreeFunc free;       /* the value of libxml2's xmlFree */
};

/*!
 * \brief Load libxml2 (the soname faultmon was built against) once per
 *        process and look its calls up.
 * \return the calls, or NULL with \p err saying why in one line (on
 *         stderr when \p err is NULL)
 */
const struct fm_xml *fm_xml_require(char *err, size_t err_len);

/*!
 * \brief The calls loaded by fm_xml_require(), for the helpers of a parse that
 *        began with a successful fm_xml_require()
 */
const struct fm_xml *fm_xml(void);

#endif
