/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: an attribute's value from libxml2's tree (pcmk/xml_attr.h).
 */
#include <config.h>

#include "xml_attr.h"

#include <string.h>

#include <libxml/entities.h>

/* \p text appended to buf (used bytes in *used), cut at len - 1. */
static void
append(char *buf, size_t len, size_t *used, const xmlChar *text)
{
    size_t n = (text != NULL)? strlen((const char *) text) : 0;

    if (n > len - 1 - *used) {
        n = len - 1 - *used;
    }
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = '\0';
}

const char *
fm_xml_attr_value(const xmlNode *node, const char *name, char *buf, size_t len)
{
    if (buf == NULL || len == 0) {
        return NULL;
    }
    buf[0] = '\0';
    for (const xmlAttr *a = (node != NULL)? node->properties : NULL; a != NULL; a = a->next) {
        size_t used = 0;

        if (a->name == NULL || strcmp((const char *) a->name, name) != 0) {
            continue;
        }
        if (a->children == NULL) {
            return NULL;            /* no value at all, as no attribute */
        }
        /* Not only the first child: a value read without its entities
         * replaced is text, entity reference, text ... */
        for (const xmlNode *c = a->children; c != NULL; c = c->next) {
            if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
                append(buf, len, &used, c->content);
            } else if (c->type == XML_ENTITY_REF_NODE && c->children != NULL) {
                append(buf, len, &used, ((const xmlEntity *) (const void *) c->children)->content);
            }
        }
        return buf;
    }
    return NULL;
}
