/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the node's recovery budget (see include/faultmon/observer.h).
 * When several resources of one node ask for recovery within a short
 * window, the node is the likely culprit: restarting each of them in place
 * is N outages where one move of everything would do.  Every loop marks
 * its recoveries in its own state directory (a file of one number, the
 * wall time); a loop about to recover counts the marks of the others.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/observer.h>
#include <faultmon/state.h>

/* A mark is one decimal number and a newline. */
#define FM_NODE_MARK_MAX 32

static void
write_mark(FILE *out, const void *data)
{
    fprintf(out, "%" PRId64 "\n", *(const int64_t *) data);
}

int
fm_node_budget_mark(const char *dir, int64_t now_wall_s)
{
    return fm_kvfile_write(dir, FM_NODE_BUDGET_MARK, write_mark, &now_wall_s);
}

/* The time of a resource's last mark; 0 when none can be trusted. */
static int64_t
read_mark(const char *root, const char *resource)
{
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    char *end = NULL;
    long long t = 0;

    if (snprintf(path, sizeof(path), "%s/%s/%s", root, resource, FM_NODE_BUDGET_MARK)
        >= (int) sizeof(path)
        || fm_kvfile_load(path, FM_NODE_MARK_MAX, &text, &len, NULL, 0) != 0) {
        return 0;
    }
    errno = 0;
    t = strtoll(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\n' && *end != '\0') || t <= 0) {
        t = 0;
    }
    free(text);
    return (int64_t) t;
}

unsigned
fm_node_budget_count(const char *root, const char *self, int64_t since_wall_s, int64_t now_wall_s)
{
    DIR *d = opendir(root);
    unsigned n = 0;

    if (d == NULL) {
        return 0;
    }
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        int64_t t = 0;

        if (!fm_resource_name_valid(e->d_name) || strcmp(e->d_name, self) == 0) {
            continue;
        }
        t = read_mark(root, e->d_name);
        /* A mark from the future is a clock step, not a recovery now. */
        if (t >= since_wall_s && t <= now_wall_s + 1) {
            n++;
        }
    }
    closedir(d);
    return n;
}
