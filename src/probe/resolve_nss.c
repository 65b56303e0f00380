/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: host names that only an NSS module knows.
 *
 * c-ares reads /etc/hosts and the name servers of resolv.conf, as the hosts
 * line "files dns" of /etc/nsswitch.conf does; a system that lists more
 * sources there (myhostname, mdns4_minimal, sss, ldap, resolve...) may know
 * names that c-ares never finds, and a probe of such a name would fail as
 * resolve-failed: a false failure, where the glibc resolver that the
 * administrator's own tools use finds it.  So when c-ares says a name does
 * not exist and nsswitch.conf lists other sources, the name is looked up
 * once more with getaddrinfo(), which follows nsswitch.conf, in a thread of
 * its own (the only blocking lookup there is), which hands its answer back
 * through a socket pair that the resolver's epoll watches.  The thread owns
 * everything it touches: a lookup abandoned at the deadline, or by a
 * resolver being freed, ends in the thread's own time and harms nothing.
 */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe_int.h"

/* What the thread sends back: one datagram of a SOCK_SEQPACKET pair. */
struct nss_answer {
    int gai_err;                        /* 0, or getaddrinfo()'s error */
    uint32_t n;
    socklen_t lens[FM_NSS_MAX_ADDRS];
    struct sockaddr_storage addrs[FM_NSS_MAX_ADDRS];
};

struct nss_job {
    int wfd;
    char name[];
};

bool
fm_nss_hosts_line_beyond_dns(const char *line)
{
    const char *p = NULL;

    while (*line == ' ' || *line == '\t') {
        line++;
    }
    if (strncmp(line, "hosts:", 6) != 0) {
        return false;
    }
    p = line + 6;
    for (;;) {
        size_t len = 0;

        p += strspn(p, " \t");
        if (*p == '\0' || *p == '\n' || *p == '#') {
            return false;
        }
        if (*p == '[') {                /* an action such as [NOTFOUND=return] */
            const char *end = strchr(p, ']');

            if (end == NULL) {
                return false;
            }
            p = end + 1;
            continue;
        }
        len = strcspn(p, " \t\n#[");
        if (!((len == 5 && strncmp(p, "files", 5) == 0) || (len == 3 && strncmp(p, "dns", 3) == 0))) {
            return true;
        }
        p += len;
    }
}

bool
fm_nss_hosts_beyond_dns(const char *path)
{
    FILE *f = fopen(path, "re");
    char line[1024];
    bool beyond = false;

    if (f == NULL) {
        return false;   /* glibc's default without the file: "dns files" */
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        const char *p = line + strspn(line, " \t");

        if (strncmp(p, "hosts:", 6) == 0) {
            beyond = fm_nss_hosts_line_beyond_dns(p);   /* the last line counts */
        }
    }
    fclose(f);
    return beyond;
}

static void *
nss_thread(void *arg)
{
    struct nss_job *job = arg;
    struct nss_answer answer;
    struct addrinfo hints;
    struct addrinfo *res = NULL;

    memset(&answer, 0, sizeof(answer));
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    answer.gai_err = getaddrinfo(job->name, NULL, &hints, &res);
    for (const struct addrinfo *ai = res; ai != NULL && answer.n < FM_NSS_MAX_ADDRS; ai = ai->ai_next) {
        if ((ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
            && ai->ai_addrlen <= sizeof(answer.addrs[0])) {
            memcpy(&answer.addrs[answer.n], ai->ai_addr, ai->ai_addrlen);
            answer.lens[answer.n++] = ai->ai_addrlen;
        }
    }
    if (res != NULL) {
        freeaddrinfo(res);
    }
    /* MSG_NOSIGNAL: the reader may be gone (the deadline passed). */
    (void) send(job->wfd, &answer, sizeof(answer), MSG_NOSIGNAL);
    close(job->wfd);
    free(job);
    return NULL;
}

int
fm_nss_lookup_start(const char *name, int *fd_out)
{
    int fds[2] = { -1, -1 };
    size_t len = strlen(name) + 1;
    struct nss_job *job = malloc(sizeof(*job) + len);
    pthread_attr_t attr;
    pthread_t tid;
    int rc = 0;

    if (job == NULL) {
        return ENOMEM;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) {
        rc = errno;
        free(job);
        return rc;
    }
    job->wfd = fds[1];
    memcpy(job->name, name, len);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&tid, &attr, nss_thread, job);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        close(fds[0]);
        close(fds[1]);
        free(job);
        return rc;
    }
    *fd_out = fds[0];
    return 0;
}

int
fm_nss_lookup_finish(int fd, struct sockaddr_storage *addrs, socklen_t *lens, size_t *n,
                     const char **why)
{
    struct nss_answer answer;
    ssize_t got = recv(fd, &answer, sizeof(answer), 0);

    *n = 0;
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
        return EAGAIN;
    }
    close(fd);
    if (got != (ssize_t) sizeof(answer) || answer.n > FM_NSS_MAX_ADDRS) {
        *why = "the lookup thread ended without an answer";
        return EIO;
    }
    if (answer.gai_err != 0 || answer.n == 0) {
        *why = (answer.gai_err != 0)? gai_strerror(answer.gai_err) : "no address";
        return ENOENT;
    }
    memcpy(addrs, answer.addrs, answer.n * sizeof(addrs[0]));
    memcpy(lens, answer.lens, answer.n * sizeof(lens[0]));
    *n = answer.n;
    return 0;
}
