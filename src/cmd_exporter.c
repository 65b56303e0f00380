/*
 * faultmon exporter: serve the Prometheus metrics of every resource on this
 * node over HTTP, on libqb's main loop.
 *
 * Deliberately small: GET (or HEAD) /metrics and nothing else, one request
 * per connection (Connection: close), at most EXP_MAX_CLIENTS connections at
 * once (the others are closed at accept), a request of at most
 * EXP_MAX_REQUEST bytes, and EXP_CLIENT_DEADLINE_MS for a client's whole
 * life, so that a slow or idle client (slowloris) costs a slot for a few
 * seconds at most.  Each scrape reads the state files afresh; it never
 * talks to a loop, so a scrape cannot delay a probe.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <qb/qbloop.h>

#include <faultmon/commands.h>
#include <faultmon/metrics.h>

/* Prometheus scrapes one target at a time; 16 leaves room for people and
 * a second server, and bounds memory to 16 rendered pages. */
#define EXP_MAX_CLIENTS 16
#define EXP_MAX_REQUEST 8192
#define EXP_CLIENT_DEADLINE_MS 5000
/* The default port, beside node_exporter's 9100 and ha_cluster_exporter's
 * 9664 in the 9xxx range Prometheus exporters use; loopback only, since the
 * metrics name the services' URLs. */
#define EXP_DEFAULT_LISTEN "127.0.0.1:9717"

struct exporter;

struct exp_client {
    struct exporter *ex;
    int fd;                         /* -1: a free slot */
    char req[EXP_MAX_REQUEST];
    size_t req_len;
    char *out;                      /* the answer, once judged */
    size_t out_len;
    size_t out_off;
    qb_loop_timer_handle timer;
    bool timer_armed;
};

struct exporter {
    qb_loop_t *loop;
    int listen_fd;
    struct exp_client clients[EXP_MAX_CLIENTS];
};

static void
client_close(struct exp_client *c)
{
    if (c->fd < 0) {
        return;
    }
    qb_loop_poll_del(c->ex->loop, c->fd);
    if (c->timer_armed) {
        qb_loop_timer_del(c->ex->loop, c->timer);
        c->timer_armed = false;
    }
    close(c->fd);
    c->fd = -1;
    free(c->out);
    c->out = NULL;
}

static void
on_client_deadline(void *data)
{
    struct exp_client *c = data;

    c->timer_armed = false;
    client_close(c);
}

/* Build the whole answer to \p what in c->out. */
static int
client_answer(struct exp_client *c, enum fm_metrics_http what)
{
    char header[512];
    char *body = NULL;
    size_t body_len = 0;
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
    if (what == FM_METRICS_HTTP_HEAD) {
        body_len = 0;
    } else if (body == NULL) {
        body_len = strlen(text);
    }
    c->out_len = strlen(header) + body_len;
    c->out = malloc(c->out_len);
    if (c->out == NULL) {
        free(body);
        return ENOMEM;
    }
    memcpy(c->out, header, strlen(header));
    memcpy(c->out + strlen(header), (body != NULL)? body : text, body_len);
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
    }
    return 0;
}

static int32_t
on_accept(int32_t fd, int32_t revents, void *data)
{
    struct exporter *ex = data;

    (void) revents;
    for (;;) {
        int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct exp_client *c = NULL;

        if (cfd < 0) {
            return 0;       /* EAGAIN, or a client gone before the accept */
        }
        for (size_t i = 0; i < EXP_MAX_CLIENTS && c == NULL; i++) {
            if (ex->clients[i].fd < 0) {
                c = &ex->clients[i];
            }
        }
        if (c == NULL) {
            close(cfd);     /* over the bound: the client retries later */
            continue;
        }
        c->fd = cfd;
        c->req_len = 0;
        if (qb_loop_poll_add(ex->loop, QB_LOOP_MED, cfd, POLLIN, c, on_client) != 0) {
            close(cfd);
            c->fd = -1;
            continue;
        }
        c->timer_armed = (qb_loop_timer_add(ex->loop, QB_LOOP_HIGH,
                                            EXP_CLIENT_DEADLINE_MS * 1000000ull, c,
                                            on_client_deadline, &c->timer) == 0);
    }
}

static int32_t
on_stop_signal(int32_t sig, void *data)
{
    (void) sig;
    qb_loop_stop(((struct exporter *) data)->loop);
    return 0;
}

/* Split ADDR:PORT ([V6]:PORT for IPv6) and open a listening socket. */
static int
exp_listen(const char *spec, char *err, size_t err_len)
{
    char host[128];
    const char *port = strrchr(spec, ':');
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
    struct addrinfo *ai = NULL;
    int fd = -1, one = 1, rc = 0;
    size_t hlen = 0;

    if (port == NULL || port[1] == '\0' || (size_t) (port - spec) >= sizeof(host)) {
        snprintf(err, err_len, "'%s' is not ADDRESS:PORT", spec);
        return -1;
    }
    hlen = (size_t) (port - spec);
    if (hlen >= 2 && spec[0] == '[' && spec[hlen - 1] == ']') {
        memcpy(host, spec + 1, hlen - 2);
        host[hlen - 2] = '\0';
    } else {
        memcpy(host, spec, hlen);
        host[hlen] = '\0';
    }
    rc = getaddrinfo((host[0] != '\0')? host : NULL, port + 1, &hints, &ai);
    if (rc != 0) {
        snprintf(err, err_len, "'%s': %s (an IP address and a port number)", spec, gai_strerror(rc));
        return -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    }
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
        snprintf(err, err_len, "cannot listen on %s: %s", spec, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
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
    struct exporter *ex = NULL;
    char err[256];
    int opt = 0;

    while ((opt = getopt_long(argc, argv, "l:h", longopts, NULL)) != -1) {
        if (opt == 'l') {
            listen_spec = optarg;
        } else if (opt == 'h') {
            printf("Usage: faultmon exporter [--listen ADDRESS:PORT]\n\n"
                   "Serve the metrics of every resource on this node (see faultmon metrics)\n"
                   "at http://ADDRESS:PORT/metrics, for Prometheus to scrape.  The default,\n"
                   EXP_DEFAULT_LISTEN ", is loopback only; [::1]:PORT for IPv6,\n"
                   ":PORT for every address.  Runs until SIGTERM or SIGINT.\n");
            return 0;
        } else {
            return fm_cli_error("exporter", "see faultmon exporter --help");
        }
    }
    if (optind < argc) {
        return fm_cli_error("exporter", "unexpected argument '%s'", argv[optind]);
    }
    ex = calloc(1, sizeof(*ex));
    if (ex == NULL) {
        return fm_cli_error("exporter", "out of memory");
    }
    ex->listen_fd = exp_listen(listen_spec, err, sizeof(err));
    if (ex->listen_fd < 0) {
        free(ex);
        return fm_cli_error("exporter", "%s", err);
    }
    for (size_t i = 0; i < EXP_MAX_CLIENTS; i++) {
        ex->clients[i].ex = ex;
        ex->clients[i].fd = -1;
    }
    ex->loop = qb_loop_create();
    qb_loop_signal_add(ex->loop, QB_LOOP_HIGH, SIGTERM, ex, on_stop_signal, NULL);
    qb_loop_signal_add(ex->loop, QB_LOOP_HIGH, SIGINT, ex, on_stop_signal, NULL);
    qb_loop_poll_add(ex->loop, QB_LOOP_MED, ex->listen_fd, POLLIN, ex, on_accept);
    qb_loop_run(ex->loop);
    for (size_t i = 0; i < EXP_MAX_CLIENTS; i++) {
        client_close(&ex->clients[i]);
    }
    qb_loop_poll_del(ex->loop, ex->listen_fd);
    close(ex->listen_fd);
    qb_loop_destroy(ex->loop);
    free(ex);
    return 0;
}
