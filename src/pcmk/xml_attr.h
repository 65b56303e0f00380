/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: an attribute's value read from libxml2's tree itself, with no
 * libxml2 call (src/pcmk/xml_attr.c), for the controller's answers read by
 * the request's child (src/pcmk/signal.c): Pacemaker 3.0.2 deprecated
 * crm_element_value(), and a libxml2 call would link libxml2 into the loop
 * (crmcommon.h says why not).
 */
#ifndef FAULTMON_PCMK_XML_ATTR_H
#define FAULTMON_PCMK_XML_ATTR_H

#include <stddef.h>

#include <libxml/tree.h>

/*!
 * \brief The value of attribute \p name of \p node: the text of all its
 *        children (libxml2 keeps a value as a list: text nodes, and a
 *        reference to an entity the document declares, which is the
 *        entity's text), cut to fit \p buf.
 * \return \p buf, or NULL when \p node is NULL or has no such attribute
 *         (or one with no text node at all)
 */
const char *fm_xml_attr_value(const xmlNode *node, const char *name, char *buf, size_t len);

#endif
