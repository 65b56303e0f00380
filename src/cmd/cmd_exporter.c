/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon exporter: serve the Prometheus metrics of every resource on this
 * node over HTTP, on faultmon's own event loop (src/util/ev.c: one epoll
 * set, every socket non-blocking, timers as timer fds in the same set).
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/commands.h>
#include <faultmon/ev.h>
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
    struct fm_ev ev;
    int listen_fd;
    bool accept_paused;
    struct exp_client *oldest, *newest;
    size_t n_clients;
    size_t max_clients;
    bool sweep_armed;
    int sweep_fd;                   /* timer fds, watched for the life of ev */
    int pause_fd;
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

    fm_ev_unwatch(&ex->ev, c->fd);
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

/* Arm the one-shot timer fd \p fd to fire in \p ms; false if it cannot be. */
static bool
timer_arm(int fd, unsigned ms)
{
    struct itimerspec its = {
        .it_value = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000 },
    };

    return timerfd_settime(fd, 0, &its, NULL) == 0;
}

/* Take a timer fd's expiry, so that it is no longer readable. */
static void
timer_take(int fd)
{
    uint64_t expirations = 0;

    if (read(fd, &expirations, sizeof(expirations)) < 0) {
        return;             /* EAGAIN: a timer re-armed since it fired */
    }
}

static void
sweep_arm(struct exporter *ex)
{
    if (!ex->sweep_armed && ex->n_clients > 0) {
        ex->sweep_armed = timer_arm(ex->sweep_fd, EXP_SWEEP_MS);
    }
}

/* Close every client past its deadline. */
static int32_t
on_sweep(int32_t fd, int32_t revents, void *data)
{
    struct exporter *ex = data;
    uint64_t now = now_ms();
    struct exp_client *next = NULL;

    (void) revents;
    timer_take(fd);
    ex->sweep_armed = false;
    for (struct exp_client *c = ex->oldest; c != NULL; c = next) {
        next = c->next;
        if (now >= c->deadline_ms) {
            client_close(c);
        }
    }
    sweep_arm(ex);
    return 0;
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
    fm_ev_watch_mod(&c->ex->ev, c->fd, EPOLLOUT);
    return client_write(c);
}

static int32_t
on_client(int32_t fd, int32_t revents, void *data)
{
    struct exp_client *c = data;
    bool done = false;

    (void) fd;
    if (c->out != NULL) {
        done = ((revents & (EPOLLERR | EPOLLHUP)) != 0 && (revents & EPOLLOUT) == 0)
               || client_write(c);
    } else {
        done = client_read(c);
    }
    if (done) {
        client_close(c);    /* unwatched: no later event of this wake-up reaches it */
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
    if (c == NULL || fm_ev_watch(&ex->ev, cfd, EPOLLIN, on_client, c) != 0) {
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

static int32_t
on_accept_resume(int32_t fd, int32_t revents, void *data)
{
    struct exporter *ex = data;

    (void) revents;
    timer_take(fd);
    if (ex->accept_paused) {
        ex->accept_paused = false;
        fm_ev_watch_mod(&ex->ev, ex->listen_fd, EPOLLIN);
    }
    return 0;
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
    /* The listening socket stays in the set, waiting for nothing. */
    if (!timer_arm(ex->pause_fd, EXP_ACCEPT_PAUSE_MS)) {
        return true;        /* no pause to be had: go on accepting */
    }
    fm_ev_watch_mod(&ex->ev, ex->listen_fd, 0);
    ex->accept_paused = true;
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
            return 0;       /* paused */
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
    fm_ev_stop(&((struct exporter *) data)->ev);
    return 0;
}

/* EXP_MAX_CLIENTS, or fewer when the descriptors allowed are fewer: some
 * are kept for the state files a scrape reads and for the loop's own. */
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

/* The loop's entries: the stop signals, the two timers, the listening
 * socket.  \return 0 or an errno */
static int
exporter_watch(struct exporter *ex)
{
    int rc = fm_ev_init(&ex->ev);

    ex->sweep_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    ex->pause_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (rc == 0 && (ex->sweep_fd < 0 || ex->pause_fd < 0)) {
        rc = errno;
    }
    if (rc == 0) {
        rc = fm_ev_signal(&ex->ev, SIGTERM, on_stop_signal, ex);
    }
    if (rc == 0) {
        rc = fm_ev_signal(&ex->ev, SIGINT, on_stop_signal, ex);
    }
    if (rc == 0) {
        rc = fm_ev_watch(&ex->ev, ex->sweep_fd, EPOLLIN, on_sweep, ex);
    }
    if (rc == 0) {
        rc = fm_ev_watch(&ex->ev, ex->pause_fd, EPOLLIN, on_accept_resume, ex);
    }
    if (rc == 0) {
        rc = fm_ev_watch(&ex->ev, ex->listen_fd, EPOLLIN, on_accept, ex);
    }
    return rc;
}

static int
exporter_serve(int listen_fd)
{
    struct exporter *ex = calloc(1, sizeof(*ex));
    int rc = 0;

    if (ex == NULL) {
        close(listen_fd);
        return fm_cli_error("exporter", "out of memory");
    }
    ex->listen_fd = listen_fd;
    ex->max_clients = max_clients();
    ex->ev.epfd = -1;
    rc = exporter_watch(ex);
    if (rc == 0) {
        rc = fm_ev_run(&ex->ev);
    }
    while (ex->oldest != NULL) {
        client_close(ex->oldest);
    }
    fm_ev_fini(&ex->ev);
    close(ex->listen_fd);
    if (ex->sweep_fd >= 0) {
        close(ex->sweep_fd);
    }
    if (ex->pause_fd >= 0) {
        close(ex->pause_fd);
    }
    free(ex);
    if (rc != 0) {
        fm_cli_error("exporter", "event loop: %s", strerror(rc));
        return 1;
    }
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
