/*
 * faultmon: what every subcommand prints for a usage error.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

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
