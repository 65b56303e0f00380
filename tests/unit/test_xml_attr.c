/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: an attribute's value read from libxml2's tree
 * (src/pcmk/xml_attr.c), on documents parsed by libxml2 as Pacemaker's
 * IPC reads them (entities not replaced): a value of one text node, a
 * value split by an entity reference into several children (all of it
 * read, not the first text node), a value cut to the buffer, an attribute
 * absent, and no element.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "xml_attr.h"

static xmlDoc *
parse(const char *text)
{
    xmlDoc *doc = xmlReadMemory(text, (int) strlen(text), "test.xml", NULL, 0);

    assert_non_null(doc);
    return doc;
}

static void
test_one_text_node(void **state)
{
    xmlDoc *doc = parse("<lrm_rsc_op op-status=\"4\" rc-code=\"1\" exit-reason=\"not allowed\"/>");
    char buf[64];

    (void) state;
    assert_string_equal(fm_xml_attr_value(xmlDocGetRootElement(doc), "op-status", buf, sizeof(buf)), "4");
    assert_string_equal(fm_xml_attr_value(xmlDocGetRootElement(doc), "exit-reason", buf, sizeof(buf)),
                        "not allowed");
    assert_null(fm_xml_attr_value(xmlDocGetRootElement(doc), "missing", buf, sizeof(buf)));
    assert_null(fm_xml_attr_value(NULL, "op-status", buf, sizeof(buf)));
    xmlFreeDoc(doc);
}

/* Entities not replaced: the value is text, reference, text; all of it. */
static void
test_all_children(void **state)
{
    xmlDoc *doc = parse("<!DOCTYPE lrm_rsc_op [<!ENTITY who \"hacluster\">]>\n"
                        "<lrm_rsc_op exit-reason=\"only root or &who; may fail it\" op-status=\"&#52;\"/>");
    const xmlNode *op = xmlDocGetRootElement(doc);
    char buf[64];

    (void) state;
    /* The document is as intended: more than one child. */
    assert_non_null(op->properties->children);
    assert_non_null(op->properties->children->next);
    assert_string_equal(fm_xml_attr_value(op, "exit-reason", buf, sizeof(buf)),
                        "only root or hacluster may fail it");
    assert_string_equal(fm_xml_attr_value(op, "op-status", buf, sizeof(buf)), "4");
    xmlFreeDoc(doc);
}

static void
test_cut_to_buffer(void **state)
{
    xmlDoc *doc = parse("<!DOCTYPE x [<!ENTITY e \"EFGH\">]>\n<x v=\"abcd&e;ijkl\"/>");
    char buf[7];

    (void) state;
    assert_string_equal(fm_xml_attr_value(xmlDocGetRootElement(doc), "v", buf, sizeof(buf)), "abcdEF");
    xmlFreeDoc(doc);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_text_node),
        cmocka_unit_test(test_all_children),
        cmocka_unit_test(test_cut_to_buffer),
    };

    return cmocka_run_group_tests_name("xml_attr", tests, NULL, NULL);
}
