/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cost of one access log line (access_log, doc/access-log.md): parse
 * and count N combined-format lines held in memory, as the follower does
 * after its read.  Built and run by accesslog-bench.sh.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/accesslog.h>

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
    static const char *const paths[] = { "/", "/index.html", "/boom", "/static/app.js?v=12", "/api/v1/items/42" };
    static const int statuses[] = { 200, 200, 500, 304, 404 };
    size_t n = (argc > 1)? strtoul(argv[1], NULL, 10) : 1000000;
    char **lines = calloc(n, sizeof(*lines));
    size_t *lens = calloc(n, sizeof(*lens));
    struct fm_accesslog_window w;
    struct fm_accesslog_rate rate;
    size_t bytes = 0;
    double t0 = 0;
    double dt = 0;

    if (lines == NULL || lens == NULL) {
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        char buf[512];
        int len = snprintf(buf, sizeof(buf), "192.0.2.%zu - - [05/Dec/2026:22:40:%02zu +0000] \"GET %s HTTP/1.1\" %d %zu"
                           " \"https://example.org/page\" \"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101"
                           " Firefox/128.0\"", i % 250, i % 60, paths[i % 5], statuses[i % 5], 100 + i % 9000);

        lines[i] = strdup(buf);
        lens[i] = (size_t) len;
        bytes += (size_t) len + 1;
    }
    fm_accesslog_window_init(&w, 60000);
    t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        struct fm_accesslog_line parsed;

        if (fm_accesslog_parse(lines[i], lens[i], &parsed) == 0) {
            fm_accesslog_window_add(&w, i, &parsed, 0);
        }
    }
    dt = now_s() - t0;
    fm_accesslog_window_rate(&w, n, &rate);
    printf("%zu lines (%.0f bytes each) parsed and counted in %.3f s: %.1f ns a line, %.0f MB/s;"
           " %llu replies in the window, %llu 5xx\n", n, (double) bytes / (double) n, dt, dt * 1e9 / (double) n,
           (double) bytes / dt / 1e6, (unsigned long long) rate.requests, (unsigned long long) rate.errors);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
    }
    free(lines);
    free(lens);
    return 0;
}
