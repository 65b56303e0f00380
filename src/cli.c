/*
 * faultmon: what every subcommand prints for a usage error.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include <faultmon/commands.h>
#include <faultmon/target.h>

int
fm_cli_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One line, whatever the bad value holds. */
    fm_escape_controls(msg, sizeof(msg));
    fprintf(stderr, "faultmon %s: %s\n", command, msg);
    return FM_EXIT_USAGE;
}
