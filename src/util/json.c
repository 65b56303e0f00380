/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: JSON string output.
 */
#include <config.h>

#include <faultmon/json.h>

void
fm_json_string(FILE *out, const char *text)
{
    if (text == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        switch (*p) {
            case '"':  fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default:
                if (*p < 0x20 || *p == 0x7f) {
                    fprintf(out, "\\u%04x", *p);
                } else {
                    fputc(*p, out);
                }
                break;
        }
    }
    fputc('"', out);
}
