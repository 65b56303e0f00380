/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon probe: what it prints.  The text is for a person (a header names
 * the columns); the JSON is for a program, one object per cycle, with the
 * times as UTC and null where there is nothing to report (no status line
 * read, no certificate), never a 0 that could be taken for a value.
 */
#include <config.h>

#include "cmd_probe_out.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <faultmon/json.h>
#include <faultmon/probe_opts.h>
#include <faultmon/result.h>
#include <faultmon/text.h>


#define LATENCY_COLUMN 12           /* "%9.3f ms" */

size_t
fm_probe_out_width(const struct fm_target *targets, size_t n)
{
    size_t width = strlen("TARGET");

    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(targets[i].text);

        if (len > width) {
            width = len;
        }
    }
    return width;
}

void
fm_probe_out_header(size_t width)
{
    printf("%-*s  %-11s  %-8s  %-24s  %*s  %s\n", (int) width, "TARGET", "KIND", "VERDICT",
           "LAYER/REASON", LATENCY_COLUMN, "LATENCY", "DETAIL");
}

void
fm_probe_out_text(const struct fm_probe_run *run, size_t width, uint64_t elapsed_us, bool quiet)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(run, &n);
    size_t counts[3] = { 0, 0, 0 };

    for (size_t i = 0; i < n; i++) {
        const struct fm_result *r = &results[i];
        enum fm_class cls = fm_result_class(r);
        char reason[40];
        char detail[sizeof(r->detail) * 4];

        counts[cls]++;
        if (quiet) {
            continue;
        }
        snprintf(reason, sizeof(reason), "%s/%s", fm_layer_name(fm_reason_layer(r->reason)),
                 fm_reason_name(r->reason));
        /* A detail may quote a --receive regex: one line, like every message. */
        fm_text_format(detail, sizeof(detail), "%s", r->detail);
        printf("%-*s  %-11s  %-8s  %-24s  %9.3f ms  %s\n", (int) width, r->target->text,
               fm_probe_kind_name(r->target->kind), fm_class_name(cls), reason,
               (double) r->latency_us / 1000.0, detail);
    }
    printf("verdict: %s (%zu ok, %zu partial, %zu complete) in %.3f ms\n",
           fm_class_name(fm_probe_run_verdict(run)), counts[FM_CLASS_OK],
           counts[FM_CLASS_PARTIAL], counts[FM_CLASS_COMPLETE], (double) elapsed_us / 1000.0);
}

/* "2026-12-05T22:50:01.123Z" */
static void
json_time(uint64_t wall_us)
{
    time_t s = (time_t) (wall_us / 1000000u);
    struct tm tm;
    char buf[32];

    gmtime_r(&s, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    printf("\"%s.%03uZ\"", buf, (unsigned int) ((wall_us / 1000u) % 1000u));
}

static void
json_target(const struct fm_result *r, uint64_t wall_us)
{
    char detail[sizeof(r->detail) * 4];

    fputs("{\"target\":", stdout);
    fm_json_string(stdout, r->target->text);
    fputs(",\"time\":", stdout);
    json_time(wall_us + r->latency_us);
    printf(",\"kind\":\"%s\",\"verdict\":\"%s\",\"layer\":\"%s\",\"reason\":\"%s\",",
           fm_probe_kind_name(r->target->kind), fm_class_name(fm_result_class(r)),
           fm_layer_name(fm_reason_layer(r->reason)), fm_reason_name(r->reason));
    if (r->http_status != 0) {
        printf("\"status\":%d,", r->http_status);
    } else {
        fputs("\"status\":null,", stdout);      /* no status line was read */
    }
    printf("\"latency_us\":%llu,", (unsigned long long) r->latency_us);
    if (r->cert_not_after != 0) {
        printf("\"cert_not_after\":%lld,", (long long) r->cert_not_after);
    } else {
        fputs("\"cert_not_after\":null,", stdout);
    }
    fputs("\"detail\":", stdout);
    fm_text_format(detail, sizeof(detail), "%s", r->detail);
    fm_json_string(stdout, detail);
    fputc('}', stdout);
}

void
fm_probe_out_json(const struct fm_probe_run *run, const struct fm_probe_opts *opts,
                  uint64_t cycle, uint64_t wall_us, uint64_t elapsed_us)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(run, &n);
    size_t counts[3] = { 0, 0, 0 };

    for (size_t i = 0; i < n; i++) {
        counts[fm_result_class(&results[i])]++;
    }
    fputs("{\"time\":", stdout);
    json_time(wall_us);
    printf(",\"cycle\":%llu,\"verdict\":\"%s\",\"counts\":{\"ok\":%zu,\"partial\":%zu,"
           "\"complete\":%zu},\"timeout_ms\":%llu,\"elapsed_us\":%llu,\"targets\":[",
           (unsigned long long) cycle, fm_class_name(fm_probe_run_verdict(run)),
           counts[FM_CLASS_OK], counts[FM_CLASS_PARTIAL], counts[FM_CLASS_COMPLETE],
           (unsigned long long) opts->timeout_ms, (unsigned long long) elapsed_us);
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            fputc(',', stdout);
        }
        json_target(&results[i], wall_us);
    }
    fputs("]}\n", stdout);
}

void
fm_probe_out_count(struct probe_tally *t, enum fm_class verdict, uint64_t elapsed_us)
{
    if (t->sent == 0 || elapsed_us < t->min_us) {
        t->min_us = elapsed_us;
    }
    if (elapsed_us > t->max_us) {
        t->max_us = elapsed_us;
    }
    t->sum_us += elapsed_us;
    t->verdicts[verdict]++;
    t->sent++;
}

void
fm_probe_out_summary(const struct probe_tally *t, bool json)
{
    double avg_ms = (t->sent > 0)? (double) t->sum_us / (double) t->sent / 1000.0 : 0.0;

    if (json) {
        printf("{\"summary\":{\"sent\":%llu,\"ok\":%llu,\"partial\":%llu,\"complete\":%llu,",
               (unsigned long long) t->sent, (unsigned long long) t->verdicts[FM_CLASS_OK],
               (unsigned long long) t->verdicts[FM_CLASS_PARTIAL],
               (unsigned long long) t->verdicts[FM_CLASS_COMPLETE]);
        if (t->sent > 0) {
            printf("\"min_us\":%llu,\"avg_us\":%llu,\"max_us\":%llu}}\n",
                   (unsigned long long) t->min_us, (unsigned long long) (t->sum_us / t->sent),
                   (unsigned long long) t->max_us);
        } else {
            fputs("\"min_us\":null,\"avg_us\":null,\"max_us\":null}}\n", stdout);
        }
        return;
    }
    printf("--- faultmon probe statistics ---\n"
           "%llu cycles sent, %llu ok, %llu partial, %llu complete\n",
           (unsigned long long) t->sent, (unsigned long long) t->verdicts[FM_CLASS_OK],
           (unsigned long long) t->verdicts[FM_CLASS_PARTIAL],
           (unsigned long long) t->verdicts[FM_CLASS_COMPLETE]);
    if (t->sent > 0) {
        printf("latency min/avg/max = %.3f/%.3f/%.3f ms\n", (double) t->min_us / 1000.0, avg_ms,
               (double) t->max_us / 1000.0);
    }
}
