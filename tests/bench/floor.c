/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor.c - the floor that faultmon's probe loop is compared with.
 *
 * A minimal hand-written non-blocking probe loop: one thread, one epoll set,
 * an HTTP/1.0 "HEAD /" to every target once per interval (with -g, a GET of
 * a page, read whole), the status line read and the connection reset.  It does nothing a real monitor would need
 * beyond that (no name resolution, no classification beyond ok/failed, no
 * logging), so its cost is the least that this work can cost.
 *
 * Built by tests/bench/run-probe-bench.sh, not by the project build:
 *   cc -O2 -o floor tests/bench/floor.c -lssl -lcrypto
 *
 * Usage: floor [-b [-t MS]|-B] [-i MS] [-T MS] [-d S] [-r] -f TARGETS_FILE
 *   -f FILE  one target a line: http://A.B.C.D:PORT/ or https://A.B.C.D:PORT/
 *   -b       batched: probes start on 1 ms ticks (every probe due by the tick
 *            starts in the same wake-up); default: each probe wakes on its
 *            own timer at its own start time
 *   -t MS    the tick of -b (default 1)
 *   -B       burst: every target at the same instant once per interval
 *            (the schedule of `faultmon probe --count`: one run of all
 *            targets concurrently every interval)
 *   -i MS    interval between two probes of one target (default 1000)
 *   -T MS    timeout of one probe, connect to status line (default 900)
 *   -d S     stop after S seconds (default 30, at most 3600)
 *   -r       TLS: no session resumption (a full handshake every time)
 *   -g PATH  "GET PATH HTTP/1.0" instead of "HEAD /", and the whole reply
 *            read to its end (the server closes): a floor for a check that
 *            fetches a page, such as the agents' statusurl (http:// only)
 *
 * Without -B, start times are spread evenly over the interval: target i is
 * due at t0 + k * interval + i * interval / N.  Counters go to stderr as one
 * line on SIGUSR1 and at exit.
 *
 * Per plain probe: socket, setsockopt(TCP_NODELAY), connect (EINPROGRESS),
 * send at once (on loopback the TCP handshake is usually over by then; if
 * not, wait for writable), a read at once, epoll_ctl(ADD, edge-triggered)
 * if the reply is not there yet, reads until the status line is in,
 * setsockopt(SO_LINGER 0), close.  With TLS: the handshake (started at
 * once), the same request over TLS, the status line, SSL_shutdown (a
 * close_notify; without it OpenSSL marks the session not resumable),
 * SSL_free, the reset.  The newest session a target's server gave is kept
 * per target and offered on its next probe.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
#define STATUS_LEN 12 /* "HTTP/1.1 200" */
#define MAX_TARGETS 100000

/* HEAD /, or with -g "GET PATH": the whole reply is read, to its end. */
static char request[1100] = "HEAD / HTTP/1.0\r\n\r\n";
static size_t request_len = sizeof("HEAD / HTTP/1.0\r\n\r\n") - 1;
static int whole_reply;

struct target {
	struct sockaddr_in addr;
	SSL_SESSION *sess; /* TLS: the last session its server gave */
};

enum state { S_FREE, S_CONNECTING, S_HANDSHAKE, S_SEND, S_READ, S_DONE };

struct probe {
	int64_t deadline;
	SSL *ssl;
	int fd;
	uint32_t target;
	uint32_t gen;
	uint8_t state;
	uint8_t got;
	uint8_t out; /* EPOLLOUT is in the registered mask */
	char status[STATUS_LEN];
};

static struct target *targets;
static uint32_t ntargets;
static struct probe *ring; /* in-flight probes in start order */
static uint32_t ring_cap, ring_head, ring_tail; /* cap is a power of two */
static int epfd;
static int use_tls, batched, burst, no_resume;
static SSL_CTX *ctx;

static struct {
	uint64_t started, ok, err_connect, err_send, err_read, err_tls,
		bad_status, timeout, skipped, resumed, full;
} st;

static volatile sig_atomic_t want_stats, want_stop;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void print_stats(int64_t t0, const char *why)
{
	fprintf(stderr,
		"floor %s t=%.3f started=%llu ok=%llu err_connect=%llu "
		"err_send=%llu err_read=%llu err_tls=%llu bad_status=%llu "
		"timeout=%llu skipped=%llu tls_resumed=%llu tls_full=%llu\n",
		why, (double)(now_ns() - t0) / NS_PER_S,
		(unsigned long long)st.started, (unsigned long long)st.ok,
		(unsigned long long)st.err_connect,
		(unsigned long long)st.err_send,
		(unsigned long long)st.err_read,
		(unsigned long long)st.err_tls,
		(unsigned long long)st.bad_status,
		(unsigned long long)st.timeout,
		(unsigned long long)st.skipped,
		(unsigned long long)st.resumed, (unsigned long long)st.full);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		want_stats = 1;
	else
		want_stop = 1;
}

/* TLS 1.3 sessions arrive after the handshake: keep the newest per target. */
static int new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct probe *p = SSL_get_app_data(ssl);
	struct target *t = &targets[p->target];

	if (no_resume)
		return 0;
	if (t->sess)
		SSL_SESSION_free(t->sess);
	t->sess = sess;
	return 1; /* we keep the reference */
}

static void finish(struct probe *p, uint64_t *counter)
{
	static const struct linger rst = { 1, 0 };

	(*counter)++;
	if (p->ssl) {
		if (counter == &st.ok) {
			if (SSL_session_reused(p->ssl))
				st.resumed++;
			else
				st.full++;
			SSL_shutdown(p->ssl);
		}
		SSL_free(p->ssl);
		p->ssl = NULL;
	}
	setsockopt(p->fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
	close(p->fd);
	p->fd = -1;
	p->state = S_DONE;
}

static void step_plain(struct probe *p, uint32_t events);
static void step_tls(struct probe *p, uint32_t events);

static void start_probe(uint32_t ti, int64_t now, int64_t timeout)
{
	static const int one = 1;
	struct probe *p;
	struct epoll_event ev;
	int fd;

	if (ring_tail - ring_head >= ring_cap) {
		st.skipped++;
		return;
	}
	p = &ring[ring_tail & (ring_cap - 1)];
	ring_tail++;
	p->target = ti;
	p->gen++;
	p->deadline = now + timeout;
	p->got = 0;
	p->ssl = NULL;
	p->fd = -1;
	p->state = S_DONE;
	st.started++;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		st.err_connect++;
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&targets[ti].addr,
		    sizeof(targets[ti].addr)) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		st.err_connect++;
		return;
	}
	p->fd = fd;
	p->state = S_CONNECTING;
	p->out = 1;
	/* speculative first step: wait for writable only if it needs to */
	if (use_tls)
		step_tls(p, EPOLLOUT);
	else
		step_plain(p, EPOLLOUT);
	if (p->state == S_DONE)
		return;
	ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (p->out ? EPOLLOUT : 0);
	ev.data.u64 = ((uint64_t)p->gen << 32) | (p - ring);
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		finish(p, &st.err_connect);
}

/* Keep the first STATUS_LEN bytes; 1 when the status line is judged. */
static int take(struct probe *p, const char *buf, size_t n)
{
	size_t k = STATUS_LEN - p->got;

	if (k > n)
		k = n;
	memcpy(p->status + p->got, buf, k);
	p->got = (uint8_t)(p->got + k);
	if (p->got < STATUS_LEN)
		return 0;
	if (memcmp(p->status, "HTTP/1.", 7) == 0 && p->status[8] == ' ' &&
	    (p->status[9] == '2' || p->status[9] == '3')) {
		if (whole_reply)
			return 0; /* -g: ok at the reply's end (EOF) */
		finish(p, &st.ok);
	}
	else
		finish(p, &st.bad_status);
	return 1;
}

static void step_plain(struct probe *p, uint32_t events)
{
	char buf[16384]; /* -g reads a whole page: few reads */
	ssize_t n;

	if (p->state == S_CONNECTING) {
		if (events & (EPOLLERR | EPOLLHUP)) {
			finish(p, &st.err_connect);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		n = send(p->fd, request, request_len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == ENOTCONN))
			return; /* still connecting: p->out stays set */
		if (n < 0 && (errno == ECONNREFUSED || errno == ECONNRESET)) {
			finish(p, &st.err_connect);
			return;
		}
		if (n != (ssize_t)request_len) {
			finish(p, &st.err_send);
			return;
		}
		p->state = S_READ;
		p->out = 0;
	}
	for (;;) {
		n = read(p->fd, buf, sizeof(buf));
		if (n > 0) {
			if (take(p, buf, (size_t)n))
				return;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			return;
		if (n == 0 && whole_reply && p->got == STATUS_LEN) {
			finish(p, &st.ok); /* -g: the status was good, the reply is whole */
			return;
		}
		finish(p, &st.err_read); /* EOF or error before the status line */
		return;
	}
}

static void step_tls(struct probe *p, uint32_t events)
{
	char buf[512];
	int r, e;

	if (p->state == S_CONNECTING) {
		if (events & (EPOLLERR | EPOLLHUP)) {
			finish(p, &st.err_connect);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		p->ssl = SSL_new(ctx);
		if (!p->ssl) {
			finish(p, &st.err_tls);
			return;
		}
		SSL_set_app_data(p->ssl, p);
		SSL_set_fd(p->ssl, p->fd);
		SSL_set_connect_state(p->ssl);
		if (!no_resume && targets[p->target].sess)
			SSL_set_session(p->ssl, targets[p->target].sess);
		p->state = S_HANDSHAKE;
	}
	if (p->state == S_HANDSHAKE) {
		r = SSL_do_handshake(p->ssl);
		if (r != 1)
			goto want;
		p->state = S_SEND;
	}
	if (p->state == S_SEND) {
		r = SSL_write(p->ssl, request, request_len);
		if (r <= 0)
			goto want;
		p->state = S_READ;
	}
	for (;;) {
		r = SSL_read(p->ssl, buf, sizeof(buf));
		if (r <= 0)
			goto want;
		if (take(p, buf, (size_t)r))
			return;
	}
want:
	e = SSL_get_error(p->ssl, r);
	if (e == SSL_ERROR_WANT_READ) {
		p->out = 0; /* the mask keeps EPOLLOUT if it had it: harmless */
		return;
	}
	if (e == SSL_ERROR_WANT_WRITE) {
		if (!p->out) { /* rare: a full send buffer */
			struct epoll_event ev;

			ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
			ev.data.u64 = ((uint64_t)p->gen << 32) | (p - ring);
			epoll_ctl(epfd, EPOLL_CTL_MOD, p->fd, &ev);
			p->out = 1;
		}
		return;
	}
	ERR_clear_error();
	finish(p, p->state == S_READ ? &st.err_read : &st.err_tls);
}

/* Drop finished probes from the head, time out the overdue ones. */
static void reap(int64_t now)
{
	while (ring_head != ring_tail) {
		struct probe *p = &ring[ring_head & (ring_cap - 1)];

		if (p->state != S_DONE) {
			if (p->deadline > now)
				break;
			finish(p, &st.timeout);
		}
		p->state = S_FREE;
		ring_head++;
	}
}

static int load_targets(const char *file)
{
	char line[256], scheme[8], host[64];
	unsigned port;
	FILE *f = fopen(file, "r");

	if (!f) {
		perror(file);
		return -1;
	}
	targets = calloc(MAX_TARGETS, sizeof(*targets));
	if (!targets)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct target *t;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%7[a-z]://%63[0-9.]:%u", scheme, host, &port) !=
			    3 ||
		    port == 0 || port > 65535 ||
		    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
			fprintf(stderr, "floor: bad target: %s", line);
			return -1;
		}
		if (ntargets == MAX_TARGETS) {
			fprintf(stderr, "floor: more than %d targets\n",
				MAX_TARGETS);
			return -1;
		}
		if (strcmp(scheme, "https") == 0)
			use_tls = 1;
		t = &targets[ntargets++];
		t->addr.sin_family = AF_INET;
		t->addr.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &t->addr.sin_addr) != 1) {
			fprintf(stderr, "floor: bad address: %s\n", host);
			return -1;
		}
	}
	fclose(f);
	if (ntargets == 0) {
		fprintf(stderr, "floor: no targets in %s\n", file);
		return -1;
	}
	/* give back the unused part (memory per target is measured) */
	targets = realloc(targets, ntargets * sizeof(*targets));
	return targets ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: floor [-b [-t MS]|-B] [-i MS] [-T MS] [-d S] [-r] "
			"[-g PATH] -f TARGETS_FILE\n");
	exit(64);
}

int main(int argc, char **argv)
{
	int64_t interval = 1000 * NS_PER_MS, timeout = 900 * NS_PER_MS;
	int64_t duration = 30 * NS_PER_S, t0, now, end, wake, tick = NS_PER_MS;
	uint64_t k = 0; /* index of the next probe to start, over all rounds */
	const char *file = NULL;
	struct epoll_event evs[256];
	struct sigaction sa;
	sigset_t none;
	int c, no_pwait2 = 0;

	while ((c = getopt(argc, argv, "bBt:i:T:d:rf:g:")) != -1) {
		switch (c) {
		case 'b': batched = 1; break;
		case 'B': burst = 1; break;
		case 't': tick = atoll(optarg) * NS_PER_MS; break;
		case 'i': interval = atoll(optarg) * NS_PER_MS; break;
		case 'T': timeout = atoll(optarg) * NS_PER_MS; break;
		case 'd': duration = atoll(optarg) * NS_PER_S; break;
		case 'r': no_resume = 1; break;
		case 'f': file = optarg; break;
		case 'g':
			if (optarg[0] != '/' || strlen(optarg) > 1000 ||
			    strpbrk(optarg, " \r\n") != NULL)
				usage();
			request_len = (size_t)snprintf(request, sizeof(request),
						       "GET %s HTTP/1.0\r\n\r\n", optarg);
			whole_reply = 1;
			break;
		default: usage();
		}
	}
	if (!file || optind != argc || interval < NS_PER_MS ||
	    timeout < NS_PER_MS || tick < NS_PER_MS || duration < NS_PER_S ||
	    duration > 3600 * NS_PER_S)
		usage();
	if (load_targets(file) < 0)
		return 1;
	if (use_tls && whole_reply) {
		fprintf(stderr, "floor: -g is for http:// targets only\n");
		return 64;
	}

	for (ring_cap = 16; ring_cap < ntargets + 16; ring_cap <<= 1)
		;
	ring = calloc(ring_cap, sizeof(*ring));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!ring || epfd < 0) {
		perror("floor");
		return 1;
	}
	if (use_tls) {
		ctx = SSL_CTX_new(TLS_client_method());
		if (!ctx)
			return 1;
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
		SSL_CTX_set_session_cache_mode(
			ctx, SSL_SESS_CACHE_CLIENT |
				     SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(ctx, new_session);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the wait returns EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&none);

	t0 = now_ns();
	end = t0 + duration;
	while (!want_stop) {
		int64_t due;
		struct timespec ts;
		int n, i;

		now = now_ns();
		if (now >= end)
			break;
		/* start every probe that is due */
		for (;;) {
			due = t0 + (int64_t)(k / ntargets) * interval;
			if (!burst)
				due += (int64_t)(k % ntargets) * interval /
				       ntargets;
			if (due > now)
				break;
			start_probe((uint32_t)(k % ntargets), now, timeout);
			k++;
		}
		reap(now);

		/* sleep until the next start or the oldest deadline */
		wake = due;
		if (ring_head != ring_tail &&
		    ring[ring_head & (ring_cap - 1)].deadline < wake)
			wake = ring[ring_head & (ring_cap - 1)].deadline;
		if (batched) /* round up to the next 1 ms tick */
			wake = t0 + (wake - t0 + tick - 1) / tick * tick;
		if (wake > end)
			wake = end;
		wake -= now;
		if (wake < 0)
			wake = 0;
		ts.tv_sec = wake / NS_PER_S;
		ts.tv_nsec = wake % NS_PER_S;
		n = no_pwait2 ? -1 : epoll_pwait2(epfd, evs, 256, &ts, &none);
		if (n < 0 && errno == ENOSYS) /* old kernel, or valgrind */
			no_pwait2 = 1;
		if (no_pwait2) /* ms resolution, rounded up */
			n = epoll_wait(epfd, evs, 256,
				       (int)((wake + NS_PER_MS - 1) / NS_PER_MS));
		if (n < 0 && errno != EINTR) {
			perror("floor: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			struct probe *p =
				&ring[(uint32_t)evs[i].data.u64 & (ring_cap - 1)];

			if (p->gen != (uint32_t)(evs[i].data.u64 >> 32) ||
			    p->state == S_DONE || p->state == S_FREE)
				continue;
			if (use_tls)
				step_tls(p, evs[i].events);
			else
				step_plain(p, evs[i].events);
		}
		if (want_stats) {
			want_stats = 0;
			print_stats(t0, "stats");
		}
	}
	print_stats(t0, "exit");
	return 0;
}
