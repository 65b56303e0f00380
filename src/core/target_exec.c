/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: exec targets (Probe_command, faultmon probe --exec), checked
 * once at load time: the command is split into words as a shell would
 * split it, but no shell ever runs it, so no parameter is ever expanded,
 * globbed or taken for syntax.  What runs it is src/probe/exec.c.
 */
#include <config.h>

#include <faultmon/target_exec.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/target.h>
#include <faultmon/text.h>
#include <faultmon/words.h>

/* A command longer than this is not one an administrator typed. */
#define FM_EXEC_COMMAND_MAX 4096

int
fm_exec_program_find(const char *name, char **path_out)
{
    const char *dir = FM_EXEC_SEARCH_PATH;

    *path_out = NULL;
    while (*dir != '\0') {
        size_t len = strcspn(dir, ":");
        char *path = NULL;
        struct stat st;

        if (asprintf(&path, "%.*s/%s", (int) len, dir, name) < 0) {
            return ENOMEM;
        }
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) {
            *path_out = path;
            return 0;
        }
        free(path);
        dir += len + (dir[len] == ':');
    }
    return ENOENT;
}

/* The program as an absolute path: given so, or a bare name found now.  A
 * name not found stays bare, for fm_exec_program_check() to report as this
 * node's problem (it may be installed on the others). */
static int
resolve_program(char **argv0, const char *shown, char *err, size_t err_len)
{
    char *found = NULL;

    if ((*argv0)[0] == '/') {
        return 0;
    }
    if (strchr(*argv0, '/') != NULL || (*argv0)[0] == '\0') {
        return fm_errf(err, err_len, EINVAL, "invalid command '%s': the program must be an absolute"
                       " path or a name found in %s", shown, FM_EXEC_SEARCH_PATH);
    }
    if (fm_exec_program_find(*argv0, &found) == ENOMEM) {
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    if (found != NULL) {
        free(*argv0);
        *argv0 = found;
    }
    return 0;
}

/* The target as logs, output and the state show it: the command redacted
 * (a URI argument's password) and escaped, whole. */
static char *
shown_text(const char *command)
{
    size_t len = FM_EXEC_COMMAND_MAX * 4 + 8;     /* every byte escaped, "exec " */
    char *buf = calloc(1, len);
    char *text = NULL;
    size_t start = strspn(command, " \t\r\n");
    size_t end = strlen(command);

    while (end > start && strchr(" \t\r\n", command[end - 1]) != NULL) {
        end--;
    }
    if (buf != NULL) {
        fm_text_format(buf, len, "exec %.*s", (int) (end - start), command + start);
        text = strdup(buf);
        free(buf);
    }
    return text;
}

int
fm_target_parse_exec(const char *command, struct fm_target *target, char *err, size_t err_len)
{
    char shown[512];
    char syntax = '\0';
    int rc = 0;

    memset(target, 0, sizeof(*target));
    if (command == NULL) {
        command = "";
    }
    fm_text_format(shown, sizeof(shown), "%s", command);
    if (strlen(command) > FM_EXEC_COMMAND_MAX) {
        return fm_errf(err, err_len, EINVAL, "invalid command '%.40s...': longer than %d bytes",
                       shown, FM_EXEC_COMMAND_MAX);
    }
    rc = fm_words_split(command, &target->exec_argv, &target->exec_argc, &syntax);
    if (rc == ENOMEM) {
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid command '%s': a quote is not closed", shown);
    }
    if (target->exec_argc == 0) {
        fm_target_clear(target);
        return fm_errf(err, err_len, EINVAL, "invalid command '%s': no program", shown);
    }
    if (syntax != '\0') {
        fm_target_clear(target);
        return fm_errf(err, err_len, EINVAL, "invalid command '%s': no shell runs it, so '%c' would"
                       " be an argument; single-quote it, or name a shell: /bin/sh -c '...'", shown, syntax);
    }
    rc = resolve_program(&target->exec_argv[0], shown, err, err_len);
    if (rc != 0) {
        fm_target_clear(target);
        return rc;
    }
    target->scheme = FM_SCHEME_EXEC;
    target->kind = FM_PROBE_EXEC;
    target->family = AF_UNSPEC;
    /* The host stays empty: nothing is resolved or connected to. */
    target->host = strdup("");
    target->path = strdup("/");
    target->text = shown_text(command);
    if (target->host == NULL || target->path == NULL || target->text == NULL) {
        fm_target_clear(target);
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    return 0;
}

int
fm_exec_program_check(const struct fm_target *target, char *err, size_t err_len)
{
    const char *program = (target->exec_argv != NULL)? target->exec_argv[0] : "";
    struct stat st;

    if (program[0] != '/') {
        return fm_errf(err, err_len, ENOENT, "the program %s of Probe_command is not in %s",
                       program, FM_EXEC_SEARCH_PATH);
    }
    if (stat(program, &st) != 0) {
        return fm_errf(err, err_len, errno, "the program %s of Probe_command cannot be found: %s",
                       program, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return fm_errf(err, err_len, EACCES, "the program %s of Probe_command is not a file", program);
    }
    if (access(program, X_OK) != 0) {
        return fm_errf(err, err_len, errno, "the program %s of Probe_command cannot be run: %s",
                       program, strerror(errno));
    }
    return 0;
}
