/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what every subcommand prints for a usage error.
 */
#include <config.h>

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/commands.h>
#include <faultmon/text.h>

int
fm_cli_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    /* One line, whatever the bad value holds, and never its password. */
    va_start(ap, fmt);
    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "faultmon %s: %s\n", command, msg);
    return FM_EXIT_USAGE;
}

/* A long option that "--NAME" (up to '=' or the end) folds to, or begins
 * with (getopt_long() takes unambiguous abbreviations), or NULL. */
static const struct option *
fold_match(const char *name, size_t len, const struct option *longopts)
{
    for (const struct option *o = longopts; o->name != NULL; o++) {
        size_t i = 0;

        if (len == 0 || strlen(o->name) < len) {
            continue;
        }
        for (; i < len; i++) {
            char c = (name[i] == '_')? '-' : (char) tolower((unsigned char) name[i]);

            if (c != o->name[i]) {
                break;
            }
        }
        if (i == len) {
            return o;
        }
    }
    return NULL;
}

void
fm_cli_fold_long_options(int argc, char **argv, const char *optstring,
                         const struct option *longopts)
{
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];

        if (strcmp(arg, "--") == 0) {
            return;
        }
        if (arg[0] == '-' && arg[1] == '-') {
            char *name = arg + 2;
            size_t len = strcspn(name, "=");
            const struct option *o = fold_match(name, len, longopts);

            if (o == NULL) {
                continue;
            }
            memcpy(name, o->name, len);
            /* An ambiguous abbreviation is getopt_long()'s to refuse; one
             * that takes a value takes the next argument. */
            if (o->has_arg == required_argument && name[len] != '=') {
                i++;        /* the next argument is its value */
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            /* A cluster of short options: the first that takes a value
             * takes the rest of the argument, or the next one. */
            for (const char *p = arg + 1; *p != '\0'; p++) {
                const char *spec = strchr(optstring, *p);

                if (*p != ':' && spec != NULL && spec[1] == ':') {
                    if (p[1] == '\0') {
                        i++;
                    }
                    break;
                }
            }
        }
    }
}

/* The long option "--NAME[=VALUE]" names exactly, or NULL. */
static const struct option *
long_option(const char *arg, const struct option *longopts)
{
    size_t len = strcspn(arg + 2, "=");

    for (const struct option *o = longopts; o->name != NULL; o++) {
        if (strlen(o->name) == len && strncmp(o->name, arg + 2, len) == 0) {
            return o;
        }
    }
    return NULL;
}

int
fm_cli_getopt_error(const char *command, int opt, char **argv,
                    const struct option *longopts)
{
    /* getopt_long() has stepped past the option it refused; a short one in
     * a cluster ("-xq") is named by optopt, not by the argument. */
    const char *arg = argv[optind - 1];
    char shortopt[3] = { '-', (char) optopt, '\0' };

    const struct option *named = (arg[0] == '-' && arg[1] == '-')? long_option(arg, longopts) : NULL;

    if (optopt != 0 && (named == NULL || named->val != optopt)) {
        arg = shortopt;
    }
    if (opt == ':') {
        return fm_cli_error(command, "option '%s' needs a value (see faultmon %s --help)",
                            arg, command);
    }
    if (named != NULL && named->has_arg == no_argument && strchr(arg, '=') != NULL) {
        /* --json=yes, --json=no: one spelling, no value to misread. */
        return fm_cli_error(command, "option '--%s' takes no value: '%s' (see faultmon %s --help)",
                            named->name, arg, command);
    }
    return fm_cli_error(command, "unknown option '%s' (see faultmon %s --help)", arg, command);
}

const char *
fm_cli_pcmk_tool(const char *name, const char *env, char *buf, size_t len)
{
    const char *e = getenv(env);
    const char *slash = strrchr(FM_ATTRD_UPDATER, '/');

    if (e != NULL && e[0] == '/') {
        return e;
    }
    snprintf(buf, len, "%.*s/%s", (slash != NULL)? (int) (slash - FM_ATTRD_UPDATER) : 0,
             FM_ATTRD_UPDATER, name);
    return buf;
}
