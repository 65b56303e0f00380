/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon exporter: serve the Prometheus metrics of every resource on this
 * node over HTTP, on libqb's main loop (one epoll, every socket
 * non-blocking).
 *
 * Deliberately small: GET (or HEAD) /metrics, and / a page linking it; one
 * request per connection (Connection: close).  Idle or slow clients must
 * never starve a scrape (issue 29: 16 idle connections once blocked every
 * one), so each connection is bounded in time and their number in count:
 *   - the request header must be whole within EXP_HEADER_DEADLINE_MS of the
 *     accept (a slowloris client trickling bytes is closed then), and the
 *     answer written within EXP_LIFE_DEADLINE_MS;
 *   - at most max_clients at once (EXP_MAX_CLIENTS, fewer under a low
 *     RLIMIT_NOFILE): a new connection over the bound, or one refused with
 *     EMFILE, closes the oldest that has not sent its request yet, since a
 *     scrape sends it at once and an idle client never does.
 * Each scrape reads the state files afresh; it never talks to a loop, so a
 * scrape cannot delay a probe.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <qb/qbloop.h>

#include <faultmon/commands.h>
#include <faultmon/metrics.h>

#define EXP_MAX_CLIENTS 512
#define EXP_MAX_REQUEST 8192
#define EXP_HEADER_DEADLINE_MS 5000
#define EXP_LIFE_DEADLINE_MS 15000
/* How often the deadlines are looked at while clients are connected. */
#define EXP_SWEEP_MS 250
/* After EMFILE with no idle client to close: how long accepting pauses. */
#define EXP_ACCEPT_PAUSE_MS 100
/* The default port, beside node_exporter's 9100 and ha_cluster_exporter's
 * 9664 in the 9xxx range Prometheus exporters use; loopback only, since the
 * metrics name the services' URLs. */
#define EXP_DEFAULT_LISTEN "127.0.0.1:9717"

struct exporter;

/* One connection, in the exporter's list in the order of its accept. */
struct exp_client {
    struct exporter *ex;
    struct exp_client *prev, *next;
    int fd;
    uint64_t deadline_ms;           /* the header's, then the whole life's */
    uint64_t life_end_ms;
    char req[EXP_MAX_REQUEST];
    size_t req_len;
    char *out;                      /* the answer, once judged */
    size_t out_len;
    size_t out_off;
};

struct exporter {
    qb_loop_t *loop;
    int listen_fd;
    bool accept_paused;
    struct exp_client *oldest, *newest;
    size_t n_clients;
    size_t max_clients;
    bool sweep_armed;
    qb_loop_timer_handle sweep_timer;
    qb_loop_timer_handle pause_timer;
};

static uint64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static void
client_close(struct exp_client *c)
{
    struct exporter *ex = c->ex;

    qb_loop_poll_del(ex->loop, c->fd);
    close(c->fd);
    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        ex->oldest = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    } else {
        ex->newest = c->prev;
    }
    ex->n_clients--;
    free(c->out);
    free(c);
}

/* Close the oldest client that has not sent a whole request; false when
 * every client is being answered. */
static bool
drop_oldest_idle(struct exporter *ex)
{
    for (struct exp_client *c = ex->oldest; c != NULL; c = c->next) {
        if (c->out == NULL) {
            client_close(c);
            return true;
        }
    }
    return false;
}

static void on_sweep(void *data);

static void
sweep_arm(struct exporter *ex)
{
    if (!ex->sweep_armed && ex->n_clients > 0) {
        ex->sweep_armed = (qb_loop_timer_add(ex->loop, QB_LOOP_HIGH, EXP_SWEEP_MS * 1000000ull, ex,
                                             on_sweep, &ex->sweep_timer) == 0);
    }
}

/* Close every client past its deadline. */
static void
on_sweep(void *data)
{
    struct exporter *ex = data;
    uint64_t now = now_ms();
    struct exp_client *next = NULL;

    ex->sweep_armed = false;
    for (struct exp_client *c = ex->oldest; c != NULL; c = next) {
        next = c->next;
        if (now >= c->deadline_ms) {
            client_close(c);
        }
    }
    sweep_arm(ex);
}

/* Build the whole answer to \p what in c->out. */
static int
client_answer(struct exp_client *c, enum fm_metrics_http what)
{
    char header[512];
    char *body = NULL;
    size_t body_len = 0;
    size_t header_len = 0;
    const char *text = "";
    FILE *mem = NULL;

    if (what == FM_METRICS_HTTP_OK || what == FM_METRICS_HTTP_HEAD) {
        mem = open_memstream(&body, &body_len);
        if (mem == NULL) {
            return ENOMEM;
        }
        fm_metrics_render_dir(mem);
        if (fclose(mem) != 0) {
            free(body);
            return ENOMEM;
        }
    }
    text = fm_metrics_http_header(what, body_len, header, sizeof(header));
    if (what == FM_METRICS_HTTP_HEAD || what == FM_METRICS_HTTP_INDEX_HEAD) {
        body_len = 0;
    } else if (body == NULL) {
        body_len = strlen(text);
    }
    header_len = strlen(header);
    c->out_len = header_len + body_len;
    c->out = malloc(c->out_len);
    if (c->out == NULL) {
        free(body);
        return ENOMEM;
    }
    memcpy(c->out, header, header_len);
    memcpy(c->out + header_len, (body != NULL)? body : text, body_len);
    free(body);
    c->out_off = 0;
    return 0;
}

/* Write what the socket takes; true when the client is done with. */
static bool
client_write(struct exp_client *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

        if (n < 0) {
            return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
        }
        c->out_off += (size_t) n;
    }
    return true;
}

static int32_t on_client(int32_t fd, int32_t revents, void *data);

/* Read what the client sent; true when the client is done with. */
static bool
client_read(struct exp_client *c)
{
    enum fm_metrics_http what = FM_METRICS_HTTP_MORE;
    ssize_t n = recv(c->fd, c->req + c->req_len, sizeof(c->req) - c->req_len, 0);

    if (n < 0) {
        return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    }
    if (n == 0) {
        return true;        /* gone before a whole request */
    }
    c->req_len += (size_t) n;
    what = fm_metrics_http_judge(c->req, c->req_len, sizeof(c->req));
    if (what == FM_METRICS_HTTP_MORE) {
        return false;
    }
    if (client_answer(c, what) != 0) {
        return true;
    }
    c->deadline_ms = c->life_end_ms;
    /* Unread request bytes would make close() send a reset that can
     * destroy the answer in flight: stop reading and only write. */
    shutdown(c->fd, SHUT_RD);
    qb_loop_poll_mod(c->ex->loop, QB_LOOP_MED, c->fd, POLLOUT, c, on_client);
    return client_write(c);
}

static int32_t
on_client(int32_t fd, int32_t revents, void *data)
{
    struct exp_client *c = data;
    bool done = false;

    (void) fd;
    if (c->out != NULL) {
        done = ((revents & (POLLERR | POLLHUP)) != 0 && (revents & POLLOUT) == 0)
               || client_write(c);
    } else {
        done = client_read(c);
    }
    if (done) {
        client_close(c);
        /* Negative, as libqb's examples: the entry is gone (some libqb
         * versions mark an entry active again after its dispatch unless
         * told so, and never reuse its slot). */
        return -1;
    }
    return 0;
}

/* Take a new connection as the newest client; false: it was closed. */
static bool
client_add(struct exporter *ex, int cfd)
{
    struct exp_client *c = NULL;
    uint64_t now = now_ms();

    if (ex->n_clients >= ex->max_clients && !drop_oldest_idle(ex)) {
        close(cfd);         /* every slot is answering: the client retries */
        return false;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL || qb_loop_poll_add(ex->loop, QB_LOOP_MED, cfd, POLLIN, c, on_client) != 0) {
        free(c);
        close(cfd);
        return false;
    }
    c->ex = ex;
    c->fd = cfd;
    c->deadline_ms = now + EXP_HEADER_DEADLINE_MS;
    c->life_end_ms = now + EXP_LIFE_DEADLINE_MS;
    c->prev = ex->newest;
    if (ex->newest != NULL) {
        ex->newest->next = c;
    } else {
        ex->oldest = c;
    }
    ex->newest = c;
    ex->n_clients++;
    sweep_arm(ex);
    return true;
}

static int32_t on_accept(int32_t fd, int32_t revents, void *data);

static void
on_accept_resume(void *data)
{
    struct exporter *ex = data;

    ex->accept_paused = false;
    qb_loop_poll_add(ex->loop, QB_LOOP_MED, ex->listen_fd, POLLIN, ex, on_accept);
}

/* Out of descriptors: free one from an idle client, or stop accepting for
 * a moment (the listening socket would wake the loop without end); false
 * when accepting stopped. */
static bool
accept_out_of_fds(struct exporter *ex)
{
    if (drop_oldest_idle(ex)) {
        return true;
    }
    qb_loop_poll_del(ex->loop, ex->listen_fd);
    ex->accept_paused = true;
    qb_loop_timer_add(ex->loop, QB_LOOP_HIGH, EXP_ACCEPT_PAUSE_MS * 1000000ull, ex,
                      on_accept_resume, &ex->pause_timer);
    return false;
}

static int32_t
on_accept(int32_t fd, int32_t revents, void *data)
{
    struct exporter *ex = data;

    (void) revents;
    /* At most a bound's worth a wake-up, so the clients' events interleave. */
    for (size_t i = 0; i < 64; i++) {
        int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (cfd >= 0) {
            client_add(ex, cfd);
        } else if ((errno == EMFILE || errno == ENFILE) && !accept_out_of_fds(ex)) {
            return -1;      /* its entry deleted: as on_client() */
        } else if (errno != EINTR && errno != ECONNABORTED && errno != EMFILE && errno != ENFILE) {
            break;          /* EAGAIN: none left */
        }
    }
    return 0;
}

static int32_t
on_stop_signal(int32_t sig, void *data)
{
    (void) sig;
    qb_loop_stop(((struct exporter *) data)->loop);
    return 0;
}

/* EXP_MAX_CLIENTS, or fewer when the descriptors allowed are fewer: some
 * are kept for the state files a scrape reads and for libqb. */
static size_t
max_clients(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
        && rl.rlim_cur < EXP_MAX_CLIENTS + 64) {
        return (rl.rlim_cur > 72)? (size_t) rl.rlim_cur - 64 : 8;
    }
    return EXP_MAX_CLIENTS;
}

static int
exporter_serve(int listen_fd)
{
    struct exporter *ex = calloc(1, sizeof(*ex));

    if (ex == NULL) {
        close(listen_fd);
        return fm_cli_error("exporter", "out of memory");
    }
    ex->listen_fd = listen_fd;
    ex->max_clients = max_clients();
    ex->loop = qb_loop_create();
    qb_loop_signal_add(ex->loop, QB_LOOP_HIGH, SIGTERM, ex, on_stop_signal, NULL);
    qb_loop_signal_add(ex->loop, QB_LOOP_HIGH, SIGINT, ex, on_stop_signal, NULL);
    qb_loop_poll_add(ex->loop, QB_LOOP_MED, ex->listen_fd, POLLIN, ex, on_accept);
    qb_loop_run(ex->loop);
    while (ex->oldest != NULL) {
        client_close(ex->oldest);
    }
    if (ex->sweep_armed) {
        qb_loop_timer_del(ex->loop, ex->sweep_timer);
    }
    if (ex->accept_paused) {
        qb_loop_timer_del(ex->loop, ex->pause_timer);
    } else {
        qb_loop_poll_del(ex->loop, ex->listen_fd);
    }
    close(ex->listen_fd);
    qb_loop_destroy(ex->loop);
    free(ex);
    return 0;
}

int
fm_cmd_exporter(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *listen_spec = EXP_DEFAULT_LISTEN;
    struct fm_metrics_listen where;
    char err[256], url[160];
    int opt = 0, fd = -1;

    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":l:h", longopts, NULL)) != -1) {
        if (opt == 'l') {
            listen_spec = optarg;
        } else if (opt == 'h') {
            printf("Usage: faultmon exporter [--listen ADDRESS:PORT]\n\n"
                   "Serve the metrics of every resource on this node (see faultmon metrics)\n"
                   "at http://ADDRESS:PORT/metrics, for Prometheus to scrape.  The default,\n"
                   EXP_DEFAULT_LISTEN ", is loopback only; [::1]:PORT for IPv6,\n"
                   ":PORT for every address of IPv6 and IPv4.  Says where it listens on\n"
                   "stderr; runs until SIGTERM or SIGINT.  Exit status: 0, 64 on a usage\n"
                   "error (a bad address or port), 1 when it cannot listen.\n");
            return 0;
        } else {
            return fm_cli_getopt_error("exporter", opt, argv, longopts);
        }
    }
    if (optind < argc) {
        return fm_cli_error("exporter", "unexpected argument '%s'", argv[optind]);
    }
    if (fm_metrics_listen_parse(listen_spec, &where, err, sizeof(err)) != 0) {
        return fm_cli_error("exporter", "%s", err);
    }
    fd = fm_metrics_listen_open(&where, url, sizeof(url), err, sizeof(err));
    if (fd < 0) {
        fm_cli_error("exporter", "%s", err);
        return 1;
    }
    fprintf(stderr, "faultmon exporter: listening on %s\n", url);
    return exporter_serve(fd);
}
