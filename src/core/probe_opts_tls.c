/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the TLS client settings of the probe options that need more
 * than a copy of their text (libfmcore, libc only): the oldest protocol
 * version a handshake may settle on, and the ALPN list in the form the
 * ClientHello carries, built once at load time.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/probe_opts.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

int
fm_probe_opts_set_tls_min_version(struct fm_probe_opts *opts, const char *text,
                                  char *err, size_t err_len)
{
    if (strcmp(text, "1.2") == 0 || strcmp(text, "TLSv1.2") == 0) {
        opts->tls_min_version = FM_TLS_MIN_1_2;
        return 0;
    }
    if (strcmp(text, "1.3") == 0 || strcmp(text, "TLSv1.3") == 0) {
        opts->tls_min_version = FM_TLS_MIN_1_3;
        return 0;
    }
    /* Older versions are refused outright: OpenSSL 3 turns them off at its
     * default security level, and a monitor must not ask for them. */
    return fm_errf(err, err_len, EINVAL,
                   "invalid TLS version '%s': expected 1.2 or 1.3", text);
}

/* One protocol name of an ALPN list: 1-255 visible characters. */
static int
alpn_name_check(const char *name, size_t len, char *err, size_t err_len)
{
    if (len == 0 || len > 255) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid ALPN list: each protocol name takes 1 to 255 characters");
    }
    for (size_t i = 0; i < len; i++) {
        if (!isgraph((unsigned char) name[i])) {
            return fm_errf(err, err_len, EINVAL,
                           "invalid ALPN list: protocol names take no blanks or control characters");
        }
    }
    return 0;
}

/* An ALPN list as given and in its wire form (a length byte before each
 * name), into *text_out and *wire_out; the old ones are freed. */
static int
alpn_list_set(const char *text, char **text_out, unsigned char **wire_out, size_t *wire_len_out,
              char *err, size_t err_len)
{
    size_t text_len = strlen(text);
    unsigned char *wire = NULL;
    char *copy = NULL;
    size_t wire_len = 0;
    const char *name = text;

    /* The wire form is one length byte before each name: at most one byte
     * more than the text, whose commas it replaces. */
    wire = malloc(text_len + 1);
    copy = strdup(text);
    if (wire == NULL || copy == NULL) {
        free(wire);
        free(copy);
        return ENOMEM;
    }
    for (;;) {
        const char *comma = strchr(name, ',');
        size_t len = (comma != NULL)? (size_t) (comma - name) : strlen(name);

        if (alpn_name_check(name, len, err, err_len) != 0) {
            free(wire);
            free(copy);
            return EINVAL;
        }
        wire[wire_len++] = (unsigned char) len;
        memcpy(wire + wire_len, name, len);
        wire_len += len;
        if (comma == NULL) {
            break;
        }
        name = comma + 1;
    }
    free(*wire_out);
    free(*text_out);
    *wire_out = wire;
    *wire_len_out = wire_len;
    *text_out = copy;
    return 0;
}

int
fm_probe_opts_set_alpn(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    return alpn_list_set(text, &opts->alpn_text, &opts->alpn_wire, &opts->alpn_wire_len,
                         err, err_len);
}

int
fm_probe_opts_set_alpn_require(struct fm_probe_opts *opts, const char *text, char *err,
                               size_t err_len)
{
    return alpn_list_set(text, &opts->alpn_require_text, &opts->alpn_require_wire,
                         &opts->alpn_require_wire_len, err, err_len);
}
