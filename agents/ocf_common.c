/*
 * faultmon OCF agents: the invocation, logging, processes, the agent's
 * record and the fault-monitor loop, shared by both agents.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/runconf.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

#include "ocf_common.h"

#define RESKEY_PREFIX "OCF_RESKEY_"
#define RECORD_HEADER "faultmon-agent 1"

static const struct fm_ocf *log_ocf = NULL;
static bool reason_printed = false;

bool
fm_ocf_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n = 0;

    va_start(ap, fmt);
    n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t) n < len;
}

uint64_t
fm_ocf_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

void
fm_ocf_sleep_ms(uint64_t ms)
{
    struct timespec ts = { .tv_sec = (time_t) (ms / 1000u), .tv_nsec = (long) (ms % 1000u) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        continue;
    }
}

/* A whole number of the environment, or dflt. */
static uint64_t
env_u64(const char *name, uint64_t dflt, bool *given)
{
    const char *text = getenv(name);
    char *end = NULL;
    unsigned long long v = 0;

    if (given != NULL) {
        *given = false;
    }
    if (text == NULL || !isdigit((unsigned char) text[0])) {
        return dflt;
    }
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') {
        return dflt;
    }
    if (given != NULL) {
        *given = true;
    }
    return (uint64_t) v;
}

void
fm_ocf_init(struct fm_ocf *ocf, const char *agent, const char *action,
            uint64_t default_timeout_ms)
{
    memset(ocf, 0, sizeof(*ocf));
    ocf->start_us = fm_ocf_now_us();
    ocf->agent = agent;
    ocf->action = action;
    ocf->resource = getenv("OCF_RESOURCE_INSTANCE");
    ocf->timeout_ms = env_u64("OCF_RESKEY_CRM_meta_timeout", default_timeout_ms, &ocf->timeout_given);
    if (ocf->timeout_ms == 0) {
        ocf->timeout_ms = default_timeout_ms;
        ocf->timeout_given = false;
    }
    ocf->interval_ms = env_u64("OCF_RESKEY_CRM_meta_interval", 0, NULL);
    ocf->check_level = (int) env_u64("OCF_CHECK_LEVEL", 0, NULL);
    if (ocf->resource != NULL
        && fm_state_dir(ocf->resource, ocf->state_dir, sizeof(ocf->state_dir)) == 0) {
        ocf->have_state_dir = true;
    }
}

bool
fm_ocf_is_probe(const struct fm_ocf *ocf)
{
    return ocf->interval_ms == 0;
}

uint64_t
fm_ocf_left_ms(const struct fm_ocf *ocf)
{
    uint64_t spent_ms = (fm_ocf_now_us() - ocf->start_us) / 1000u;

    if (spent_ms + FM_OCF_MARGIN_MS >= ocf->timeout_ms) {
        return 0;
    }
    return ocf->timeout_ms - FM_OCF_MARGIN_MS - spent_ms;
}

const char *
fm_ocf_param(const char *name)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    return getenv(key);
}

const char *
fm_ocf_param_or(const char *name, const char *dflt)
{
    const char *value = fm_ocf_param(name);

    return (value != NULL && value[0] != '\0')? value : dflt;
}

int
fm_ocf_param_set(const char *name, const char *value)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    if (value == NULL) {
        return (unsetenv(key) == 0)? 0 : errno;
    }
    return (setenv(key, value, 1) == 0)? 0 : errno;
}

int
fm_ocf_param_bool(const char *name, bool dflt)
{
    static const char *const yes[] = { "1", "true", "yes", "on", "y" };
    static const char *const no[] = { "0", "false", "no", "off", "n" };
    const char *value = fm_ocf_param(name);

    if (value == NULL || value[0] == '\0') {
        return dflt;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(value, yes[i]) == 0) {
            return 1;
        }
        if (strcasecmp(value, no[i]) == 0) {
            return 0;
        }
    }
    return -1;
}

/* ---- logging ---- */

void
fm_ocf_log_open(const struct fm_ocf *ocf)
{
    log_ocf = ocf;
    openlog("faultmon-ocf", LOG_PID, LOG_DAEMON);
}

void
fm_ocf_redact(char *msg, size_t len)
{
    fm_text_clean(msg, len);
}

/* "AGENT(RESOURCE) ACTION", as clean as the message: the resource name and
 * the action come from outside too. */
static void
log_who(char *who, size_t who_len)
{
    fm_text_format(who, who_len, "%s(%s) %s", (log_ocf != NULL)? log_ocf->agent : "agent",
                   (log_ocf != NULL && log_ocf->resource != NULL)? log_ocf->resource : "-",
                   (log_ocf != NULL)? log_ocf->action : "-");
}

static void
log_text(int priority, const char *msg)
{
    char who[256];

    log_who(who, sizeof(who));
    syslog(priority, "%s: %s", who, msg);
    if (priority <= LOG_WARNING) {
        fprintf(stderr, "%s: %s: %s\n", (priority <= LOG_ERR)? "ERROR" : "WARNING", who, msg);
    }
}

void
fm_ocf_log(int priority, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_text(priority, msg);
}

int
fm_ocf_fail(int rc, const char *fmt, ...)
{
    char msg[1024];
    char who[256];
    va_list ap;

    va_start(ap, fmt);
    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!reason_printed) {
        /* The executor keeps the last such line as the exit reason. */
        fprintf(stderr, "ocf-exit-reason:%s\n", msg);
        reason_printed = true;
    }
    log_who(who, sizeof(who));
    syslog((rc == PCMK_OCF_NOT_RUNNING)? LOG_INFO : LOG_ERR, "%s: %s", who, msg);
    return rc;
}

/* ---- files and processes ---- */

pid_t
fm_ocf_read_pid_file(const char *path)
{
    char buf[32];
    ssize_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long v = 0;
    char *end = NULL;

    if (fd < 0) {
        return 0;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno != 0 || end == buf || (*end != '\0' && *end != '\n') || v <= 1 || v > INT_MAX) {
        return 0;
    }
    return (pid_t) v;
}

/* The state letter of /proc/PID/stat, or 0. */
static char
proc_state(pid_t pid)
{
    char path[64];
    char buf[256];
    ssize_t n = 0;
    int fd = -1;
    char *paren = NULL;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long) pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    paren = strrchr(buf, ')');
    return (paren != NULL && paren[1] == ' ')? paren[2] : 0;
}

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return (slash != NULL)? slash + 1 : path;
}

bool
fm_ocf_pid_alive(pid_t pid, const char *exe)
{
    char path[64];
    char target[FM_OCF_PATH_MAX];
    ssize_t n = 0;
    char state = 0;

    if (pid <= 1) {
        return false;
    }
    if (kill(pid, 0) != 0 && errno != EPERM) {
        return false;
    }
    state = proc_state(pid);
    if (state == 'Z' || state == 'X') {
        return false;
    }
    if (exe == NULL || exe[0] == '\0') {
        return true;
    }
    snprintf(path, sizeof(path), "/proc/%ld/exe", (long) pid);
    n = readlink(path, target, sizeof(target) - 1);
    if (n < 0) {
        /* Not ours to read: believe the PID. */
        return errno == EACCES || errno == EPERM;
    }
    target[n] = '\0';
    {
        char *deleted = strstr(target, " (deleted)");

        if (deleted != NULL) {
            *deleted = '\0';
        }
    }
    return strcmp(base_name(target), base_name(exe)) == 0;
}

bool
fm_ocf_wait_gone(pid_t pid, uint64_t timeout_ms)
{
    uint64_t end_us = fm_ocf_now_us() + timeout_ms * 1000u;

    for (;;) {
        int status = 0;

        /* Reap it if it is our child, so that it does not linger as a zombie. */
        waitpid(pid, &status, WNOHANG);
        if (!fm_ocf_pid_alive(pid, NULL)) {
            return true;
        }
        if (fm_ocf_now_us() >= end_us) {
            return false;
        }
        fm_ocf_sleep_ms(20);
    }
}

int
fm_ocf_mkdir_p(const char *path, mode_t mode)
{
    char buf[FM_OCF_PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int) sizeof(buf)) {
        return ENAMETOOLONG;
    }
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST) {
                return errno;
            }
            *p = '/';
        }
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST) {
        return errno;
    }
    if (stat(buf, &st) != 0) {
        return errno;
    }
    return S_ISDIR(st.st_mode)? 0 : ENOTDIR;
}

/* In a child between fork and exec: the default signal handling, no
 * inherited descriptors but 0-2. */
static void
child_reset(void)
{
    sigset_t none;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) {
        signal(sig, SIG_DFL);
    }
    if (close_range(3, ~0U, 0) != 0) {
        for (int fd = 3; fd < 1024; fd++) {
            close(fd);
        }
    }
}

int
fm_ocf_run(char *const argv[], char *out, size_t out_len, size_t *out_used,
           uint64_t timeout_ms)
{
    extern char **environ;
    int pipefd[2] = { -1, -1 };
    uint64_t end_us = fm_ocf_now_us() + timeout_ms * 1000u;
    size_t used = 0;
    bool exited = false;
    int status = 0;
    pid_t pid = 0;

    if (out != NULL && out_len > 0) {
        out[0] = '\0';
    }
    if (out_used != NULL) {
        *out_used = 0;
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);

        dup2(devnull, 0);
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        child_reset();
        execve(argv[0], argv, environ);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);

    /* Read until the program has exited and the pipe is drained; a program
     * that daemonizes may leave the pipe open in its grandchild, so its
     * exit, not the pipe's end, ends the wait. */
    for (;;) {
        struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
        uint64_t now_us = fm_ocf_now_us();
        char chunk[1024];
        ssize_t n = 0;

        if (!exited) {
            pid_t got = waitpid(pid, &status, WNOHANG);

            exited = (got == pid);
        }
        if (!exited && now_us >= end_us) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(pipefd[0]);
            return -1;
        }
        if (poll(&pfd, 1, exited? 0 : 20) > 0) {
            n = read(pipefd[0], chunk, sizeof(chunk));
            if (n > 0) {
                if (out != NULL && used + 1 < out_len) {
                    size_t take = ((size_t) n < out_len - 1 - used)? (size_t) n : out_len - 1 - used;

                    memcpy(out + used, chunk, take);
                    used += take;
                    out[used] = '\0';
                    if (out_used != NULL) {
                        *out_used = used;
                    }
                }
                continue;
            }
            if (n == 0 && exited) {
                break;
            }
        } else if (exited) {
            break;
        }
    }
    close(pipefd[0]);
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return -1;
}

int
fm_ocf_spawn_daemon(char *const argv[], pid_t *daemon_pid)
{
    extern char **environ;
    int pipefd[2] = { -1, -1 };
    pid_t child = 0;
    pid_t grandchild = 0;
    int status = 0;

    *daemon_pid = 0;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return errno;
    }
    child = fork();
    if (child < 0) {
        int rc = errno;

        close(pipefd[0]);
        close(pipefd[1]);
        return rc;
    }
    if (child == 0) {
        pid_t pid = 0;

        close(pipefd[0]);
        setsid();
        pid = fork();
        if (pid != 0) {
            /* Tell the agent who the daemon is, then leave it to init. */
            if (write(pipefd[1], &pid, sizeof(pid)) < 0) {
                _exit(1);
            }
            _exit(0);
        }
        {
            int devnull = open("/dev/null", O_RDWR);

            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        child_reset();
        umask(022);
        if (chdir("/") != 0) {
            _exit(127);
        }
        execve(argv[0], argv, environ);
        _exit(127);
    }
    close(pipefd[1]);
    if (read(pipefd[0], &grandchild, sizeof(grandchild)) != (ssize_t) sizeof(grandchild)) {
        grandchild = 0;
    }
    close(pipefd[0]);
    waitpid(child, &status, 0);
    if (grandchild <= 0) {
        return ECHILD;
    }
    *daemon_pid = grandchild;
    return 0;
}

static void
push_word(char ***words, size_t *n, const char *text, size_t len)
{
    char **grown = realloc(*words, (*n + 2) * sizeof(char *));

    if (grown == NULL) {
        return;
    }
    *words = grown;
    (*words)[*n] = strndup(text, len);
    if ((*words)[*n] != NULL) {
        (*n)++;
    }
    (*words)[*n] = NULL;
}

int
fm_ocf_split_words(const char *text, char ***words, size_t *n_words)
{
    size_t cap = strlen(text) + 1;
    char *word = calloc(1, cap);
    size_t len = 0;
    bool in_word = false;
    char quote = 0;

    *words = NULL;
    *n_words = 0;
    if (word == NULL) {
        return ENOMEM;
    }
    for (const char *p = text; *p != '\0'; p++) {
        if (quote != 0) {
            if (*p == quote) {
                quote = 0;
            } else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
                word[len++] = *++p;
            } else {
                word[len++] = *p;
            }
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            if (in_word) {
                push_word(words, n_words, word, len);
                len = 0;
                in_word = false;
            }
            continue;
        }
        in_word = true;
        if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '\\' && p[1] != '\0') {
            word[len++] = *++p;
        } else {
            word[len++] = *p;
        }
    }
    if (quote != 0) {
        free(word);
        fm_ocf_free_words(*words, *n_words);
        *words = NULL;
        *n_words = 0;
        return EINVAL;
    }
    if (in_word) {
        push_word(words, n_words, word, len);
    }
    free(word);
    return 0;
}

void
fm_ocf_free_words(char **words, size_t n_words)
{
    if (words == NULL) {
        return;
    }
    for (size_t i = 0; i < n_words; i++) {
        free(words[i]);
    }
    free(words);
}

static char
other_case(char c)
{
    return isupper((unsigned char) c)? (char) tolower((unsigned char) c)
                                     : (char) toupper((unsigned char) c);
}

/* Append to out[*len], keeping room for the NUL. */
static bool
put(char *out, size_t out_len, size_t *len, const char *text, size_t n)
{
    if (*len + n + 1 > out_len) {
        return false;
    }
    memcpy(out + *len, text, n);
    *len += n;
    out[*len] = '\0';
    return true;
}

/* A bracket expression starting at p ('['): copy it with the other case of
 * its letters and letter ranges added; return the character after it. */
static const char *
icase_bracket(const char *p, char *out, size_t out_len, size_t *len, bool *ok)
{
    const char *start = p + 1;
    const char *q = start;
    char extra[512];
    size_t n_extra = 0;

    if (*q == '^') {
        q++;
    }
    if (*q == ']') {
        q++;
    }
    while (*q != '\0' && *q != ']') {
        if (q[0] == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            char close[3] = { q[1], ']', '\0' };
            const char *end = strstr(q + 2, close);

            if (end == NULL) {
                break;
            }
            q = end + 2;
            continue;
        }
        if (isalpha((unsigned char) q[0]) && q[1] == '-' && isalpha((unsigned char) q[2])
            && (bool) isupper((unsigned char) q[0]) == (bool) isupper((unsigned char) q[2])) {
            if (n_extra + 3 < sizeof(extra)) {
                extra[n_extra++] = other_case(q[0]);
                extra[n_extra++] = '-';
                extra[n_extra++] = other_case(q[2]);
            }
            q += 3;
            continue;
        }
        if (isalpha((unsigned char) q[0]) && q[1] != '-' && n_extra + 1 < sizeof(extra)) {
            extra[n_extra++] = other_case(q[0]);
        }
        q++;
    }
    if (*q != ']') {
        /* Unterminated: leave it for regcomp to reject. */
        *ok = put(out, out_len, len, p, strlen(p));
        return p + strlen(p);
    }
    *ok = put(out, out_len, len, p, (size_t) (q - p))
          && put(out, out_len, len, extra, n_extra)
          && put(out, out_len, len, "]", 1);
    return q + 1;
}

int
fm_ocf_regex_icase(const char *regex, char *out, size_t out_len)
{
    size_t len = 0;
    bool ok = true;
    const char *p = regex;

    if (out_len == 0) {
        return ENAMETOOLONG;
    }
    out[0] = '\0';
    while (*p != '\0' && ok) {
        if (*p == '\\' && p[1] != '\0') {
            ok = put(out, out_len, &len, p, 2);
            p += 2;
        } else if (*p == '[') {
            p = icase_bracket(p, out, out_len, &len, &ok);
        } else if (isalpha((unsigned char) *p)) {
            char cls[4] = { '[', *p, other_case(*p), ']' };

            ok = put(out, out_len, &len, cls, 4);
            p++;
        } else {
            ok = put(out, out_len, &len, p, 1);
            p++;
        }
    }
    return ok? 0 : ENAMETOOLONG;
}

void
fm_ocf_base64(const unsigned char *in, size_t len, char *out, size_t out_len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;

    for (size_t i = 0; i < len && o + 5 <= out_len; i += 3) {
        uint32_t v = (uint32_t) in[i] << 16;

        if (i + 1 < len) {
            v |= (uint32_t) in[i + 1] << 8;
        }
        if (i + 2 < len) {
            v |= in[i + 2];
        }
        out[o++] = abc[(v >> 18) & 63];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = (i + 1 < len)? abc[(v >> 6) & 63] : '=';
        out[o++] = (i + 2 < len)? abc[v & 63] : '=';
    }
    if (out_len > 0) {
        out[(o < out_len)? o : out_len - 1] = '\0';
    }
}

/* ---- the agent's record ---- */

void
fm_ocf_record_set(struct fm_ocf_record *rec, const char *key, const char *value)
{
    size_t i = 0;

    /* No key of ours is that long; cut short, two keys of a foreign file
     * would become one name twice (found by tests/fuzz/fuzz_record). */
    if (strlen(key) >= sizeof(rec->key[0])) {
        return;
    }
    for (i = 0; i < rec->n; i++) {
        if (strcmp(rec->key[i], key) == 0) {
            break;
        }
    }
    if (i == rec->n) {
        if (rec->n == FM_OCF_RECORD_MAX) {
            return;
        }
        rec->n++;
    }
    snprintf(rec->key[i], sizeof(rec->key[i]), "%s", key);
    snprintf(rec->value[i], sizeof(rec->value[i]), "%s", (value != NULL)? value : "");
    /* One line each. */
    for (char *p = rec->value[i]; *p != '\0'; p++) {
        if (*p == '\n' || *p == '\r') {
            *p = ' ';
        }
    }
}

const char *
fm_ocf_record_get(const struct fm_ocf_record *rec, const char *key)
{
    for (size_t i = 0; i < rec->n; i++) {
        if (strcmp(rec->key[i], key) == 0) {
            return rec->value[i];
        }
    }
    return NULL;
}

int
fm_ocf_record_read(const char *dir, struct fm_ocf_record *rec)
{
    char path[FM_OCF_PATH_MAX + 16];
    char line[FM_OCF_PATH_MAX + 64];
    FILE *in = NULL;
    bool header = false;
    bool ended = false;

    memset(rec, 0, sizeof(*rec));
    snprintf(path, sizeof(path), "%s/agent", dir);
    in = fopen(path, "re");
    if (in == NULL) {
        return (errno == ENOENT)? ENOENT : EINVAL;
    }
    while (fgets(line, sizeof(line), in) != NULL) {
        char *eq = NULL;

        line[strcspn(line, "\n")] = '\0';
        if (!header) {
            header = (strcmp(line, RECORD_HEADER) == 0);
            if (!header) {
                break;
            }
            continue;
        }
        if (strcmp(line, "end") == 0) {
            ended = true;
            break;
        }
        eq = strchr(line, '=');
        if (eq == NULL) {
            break;
        }
        *eq = '\0';
        fm_ocf_record_set(rec, line, eq + 1);
    }
    fclose(in);
    return ended? 0 : EINVAL;
}

static void
write_record_body(FILE *out, const void *data)
{
    const struct fm_ocf_record *rec = data;

    fprintf(out, RECORD_HEADER "\n");
    for (size_t i = 0; i < rec->n; i++) {
        fprintf(out, "%s=%s\n", rec->key[i], rec->value[i]);
    }
    fprintf(out, "end\n");
}

int
fm_ocf_record_write(const char *dir, const struct fm_ocf_record *rec)
{
    return fm_state_file_write(dir, "agent", write_record_body, rec);
}

void
fm_ocf_record_remove(const char *dir)
{
    char path[FM_OCF_PATH_MAX + 16];

    snprintf(path, sizeof(path), "%s/agent", dir);
    unlink(path);
}

/* ---- the fault-monitor loop ---- */

const char *
fm_ocf_faultmon_path(void)
{
    const char *env = getenv("FAULTMON");

    if (env != NULL && env[0] == '/' && access(env, X_OK) == 0) {
        return env;
    }
    return FM_OCF_FAULTMON_BIN;
}

int
fm_ocf_probe_helper_path(char *buf, size_t buf_len)
{
    char self[FM_OCF_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash = NULL;

    if (n <= 0) {
        return errno;
    }
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) {
        return EINVAL;
    }
    *slash = '\0';
    if (snprintf(buf, buf_len, "%s/faultmon-ocf-probe", self) >= (int) buf_len) {
        return ENAMETOOLONG;
    }
    return 0;
}

static const char *
fmt_ms(char *buf, size_t len, uint64_t ms)
{
    if (ms % 1000u == 0) {
        snprintf(buf, len, "%" PRIu64 "s", ms / 1000u);
    } else {
        snprintf(buf, len, "%" PRIu64 "ms", ms);
    }
    return buf;
}

int
fm_ocf_validate_loop_params(const struct fm_ocf *ocf, uint64_t *probe_timeout_ms)
{
    struct fm_run_config cfg;
    char err[512] = "";
    char warn[512] = "";
    char a[32];
    char b[32];
    const char *ca = fm_ocf_param("tls_ca_file");
    int rc = PCMK_OCF_OK;

    fm_run_config_init(&cfg);
    if (fm_run_config_from_env(&cfg, err, sizeof(err)) != 0
        || fm_run_config_finish(&cfg, err, sizeof(err)) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s", (err[0] != '\0')? err : "invalid parameters");
        goto done;
    }
    /* As its loop will run (--kind=httpmon): no warning about Retry_count,
     * which httpmon does not have. */
    cfg.decide.publish_only = strcmp(ocf->agent, FM_KIND_HTTPMON) == 0;
    if (ca != NULL && ca[0] != '\0' && access(ca, R_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "tls_ca_file '%s' cannot be read on this node: %s",
                         ca, strerror(errno));
        goto done;
    }
    if (ocf->timeout_given && cfg.probe.timeout_ms + FM_OCF_MARGIN_MS > ocf->timeout_ms) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                         "Probe_timeout=%s is longer than the %s operation's timeout %s "
                         "(less a margin of %d ms): a probe cycle could not finish in time",
                         fm_ocf_param_or("Probe_timeout", fmt_ms(a, sizeof(a), cfg.probe.timeout_ms)),
                         ocf->action, fmt_ms(b, sizeof(b), ocf->timeout_ms), FM_OCF_MARGIN_MS);
        goto done;
    }
    if (fm_decide_opts_validate(&cfg.decide, err, sizeof(err), warn, sizeof(warn)) == 0
        && warn[0] != '\0') {
        fm_ocf_log(LOG_WARNING, "%s", warn);
    }
    if (probe_timeout_ms != NULL) {
        *probe_timeout_ms = cfg.probe.timeout_ms;
    }

done:
    fm_run_config_clear(&cfg);
    return rc;
}

/* Keep a trace of a loop that died without stopping: the monitor restarts
 * it, which would otherwise hide the crash. */
static void
note_loop_death(const struct fm_ocf *ocf, int64_t pid)
{
    char path[FM_OCF_PATH_MAX + 16];
    char line[96];
    int fd = -1;
    int len = 0;

    fm_ocf_log(LOG_ERR, "the fault monitor (pid %lld) ended without stopping cleanly (crashed or "
               "killed); see %s/loop-died", (long long) pid, ocf->state_dir);
    snprintf(path, sizeof(path), "%s/loop-died", ocf->state_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return;
    }
    len = snprintf(line, sizeof(line), "%lld pid %lld\n", (long long) time(NULL), (long long) pid);
    if (write(fd, line, (size_t) len) != len) {
        fm_ocf_log(LOG_WARNING, "cannot write %s: %s", path, strerror(errno));
    }
    close(fd);
}

int
fm_ocf_loop_start(const struct fm_ocf *ocf, const char *extra_arg, struct fm_run_state *st)
{
    char *argv[6];
    size_t argc = 0;
    char err[512];
    pid_t pid = 0;
    int64_t holder = 0;
    bool holder_is_loop = false;
    int64_t died = 0;
    int rc = 0;

    rc = fm_state_dir_create(ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", ocf->state_dir,
                           strerror(rc));
    }
    argv[argc++] = (char *) fm_ocf_faultmon_path();
    argv[argc++] = (char *) "run";
    argv[argc++] = (char *) ocf->resource;
    if (extra_arg != NULL) {
        argv[argc++] = (char *) extra_arg;
    }
    argv[argc] = NULL;

    /* Never a second loop: one that holds the lock is the loop. */
    if (fm_state_lock_holder(ocf->state_dir, &holder, &holder_is_loop)) {
        if (!holder_is_loop) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot start the fault monitor: %s/lock is held "
                               "by %s%lld, which is not a faultmon loop", ocf->state_dir,
                               (holder != 0)? "pid " : "an unknown process ", (long long) holder);
        }
        pid = (pid_t) holder;
        fm_ocf_log(LOG_INFO, "the fault monitor already runs (pid %ld); not starting another", (long) pid);
    } else {
        died = fm_state_loop_died(ocf->state_dir);
        if (died != 0) {
            note_loop_death(ocf, died);
        }
        if (access(argv[0], X_OK) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "cannot run %s: %s", argv[0], strerror(errno));
        }
        rc = fm_ocf_spawn_daemon(argv, &pid);
        if (rc != 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot start the fault monitor: %s",
                               strerror(rc));
        }
        fm_ocf_log(LOG_INFO, "started the fault monitor (pid %ld)", (long) pid);
    }

    /* Ready once the loop has written the state of its first cycle. */
    for (;;) {
        if (fm_state_read(ocf->state_dir, st, err, sizeof(err)) == 0
            && st->pid == (int64_t) pid && st->cycles >= 1) {
            return PCMK_OCF_OK;
        }
        if (!fm_ocf_pid_alive(pid, NULL)) {
            /* Another start won the lock between our check and our loop's:
             * that loop is the one to wait for. */
            if (fm_state_lock_holder(ocf->state_dir, &holder, &holder_is_loop) && holder_is_loop
                && holder != (int64_t) pid) {
                pid = (pid_t) holder;
                continue;
            }
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "the fault monitor exited at once; run '%s run %s -v' with the "
                               "resource's OCF_RESKEY_ variables to see why",
                               argv[0], ocf->resource);
        }
        if (fm_ocf_left_ms(ocf) == 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "the fault monitor (pid %ld) did not finish its first probe "
                               "cycle within the %s timeout", (long) pid, ocf->action);
        }
        fm_ocf_sleep_ms(20);
    }
}

bool
fm_ocf_loop_stop(const struct fm_ocf *ocf, uint64_t timeout_ms)
{
    int64_t pid = fm_state_loop_pid(ocf->state_dir);

    if (pid == 0) {
        return true;
    }
    kill((pid_t) pid, SIGTERM);
    if (fm_ocf_wait_gone((pid_t) pid, timeout_ms)) {
        fm_ocf_log(LOG_INFO, "stopped the fault monitor (pid %lld)", (long long) pid);
        return true;
    }
    fm_ocf_log(LOG_WARNING, "the fault monitor (pid %lld) ignored SIGTERM; killing it",
               (long long) pid);
    kill((pid_t) pid, SIGKILL);
    return fm_ocf_wait_gone((pid_t) pid, 1000);
}

void
fm_ocf_first_failure(const struct fm_run_state *st, char *buf, size_t buf_len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        if (t->cls != FM_CLASS_OK) {
            if (t->http_status != 0) {
                fm_ocf_fmt(buf, buf_len, "%s: %s, HTTP %d", t->target, fm_reason_name(t->reason),
                           t->http_status);
            } else {
                fm_ocf_fmt(buf, buf_len, "%s: %s", t->target, fm_reason_name(t->reason));
            }
            return;
        }
    }
}

int
fm_ocf_fresh_probe(const struct fm_ocf *ocf, uint64_t probe_timeout_ms)
{
    char helper[FM_OCF_PATH_MAX];
    char timeout_arg[32];
    char out[1024];
    char *argv[4];
    uint64_t left_ms = fm_ocf_left_ms(ocf);
    uint64_t run_ms = probe_timeout_ms;
    int status = 0;

    if (fm_ocf_probe_helper_path(helper, sizeof(helper)) != 0 || access(helper, X_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the probe helper faultmon-ocf-probe is missing");
    }
    /* The cycle must end before the operation does; the helper gets a
     * little longer than its probes to report. */
    if (left_ms < 500) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "no time left in the monitor for a fresh probe");
    }
    if (run_ms > left_ms - 300) {
        run_ms = left_ms - 300;
    }
    snprintf(timeout_arg, sizeof(timeout_arg), "%" PRIu64, run_ms);
    argv[0] = helper;
    argv[1] = (char *) "--timeout-ms";
    argv[2] = timeout_arg;
    argv[3] = NULL;
    status = fm_ocf_run(argv, out, sizeof(out), NULL, run_ms + 300);
    out[strcspn(out, "\n")] = '\0';
    switch (status) {
        case 0:
            return PCMK_OCF_OK;
        case 1:
            return fm_ocf_fail(PCMK_OCF_DEGRADED, "fresh probe: partial failure: %s", out);
        case 2:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe: complete failure: %s", out);
        case -1:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe did not finish in %" PRIu64 " ms",
                               run_ms + 300);
        default:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe failed (status %d): %s",
                               status, out);
    }
}

/* ---- the loop's protocol with the agent: events, reset, fail-counts ---- */

const char *
fm_ocf_attrd_updater_path(void)
{
    const char *env = getenv("FAULTMON_OCF_ATTRD_UPDATER");

    return (env != NULL && env[0] == '/')? env : FM_OCF_ATTRD_UPDATER;
}

int
fm_ocf_attrd(const struct fm_ocf *ocf, const char *name, const char *value)
{
    char out[512];
    char *argv[6];
    size_t n = 0;
    int status = 0;
    uint64_t left_ms = fm_ocf_left_ms(ocf);

    argv[n++] = (char *) fm_ocf_attrd_updater_path();
    argv[n++] = (char *) "-n";
    argv[n++] = (char *) name;
    if (value != NULL) {
        argv[n++] = (char *) "-U";
        argv[n++] = (char *) value;
    } else {
        argv[n++] = (char *) "-D";
    }
    argv[n] = NULL;
    status = fm_ocf_run(argv, out, sizeof(out), NULL, (left_ms > 5000 || left_ms == 0)? 5000 : left_ms);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        fm_ocf_log(LOG_WARNING, "attrd_updater could not %s %s (status %d): %s",
                   (value != NULL)? "set" : "delete", name, status, out);
    }
    return status;
}

static void
write_text(FILE *out, const void *data)
{
    fprintf(out, "%s\n", (const char *) data);
}

int
fm_ocf_loop_event(const struct fm_ocf *ocf, const char *cause, struct fm_run_state *st)
{
    int64_t pid = fm_state_loop_pid(ocf->state_dir);
    char text[FM_OCF_PATH_MAX + 600];
    char path[FM_OCF_PATH_MAX + 16];
    char err[512];
    uint64_t left_ms = fm_ocf_left_ms(ocf);
    uint64_t end_us = 0;
    int rc = 0;

    if (pid == 0) {
        return ESRCH;
    }
    snprintf(path, sizeof(path), "%s/event.same", ocf->state_dir);
    unlink(path);
    snprintf(text, sizeof(text), "complete %s", cause);
    text[strcspn(text, "\n")] = '\0';
    rc = fm_state_file_write(ocf->state_dir, "event", write_text, text);
    if (rc != 0) {
        return rc;
    }
    snprintf(path, sizeof(path), "%s/event", ocf->state_dir);
    if (kill((pid_t) pid, SIGUSR2) != 0) {
        rc = errno;
        unlink(path);
        return rc;
    }
    /* The loop removes the file once the state holds its decision. */
    end_us = fm_ocf_now_us() + ((left_ms > 0 && left_ms < 3000)? left_ms : 3000) * 1000u;
    while (access(path, F_OK) == 0) {
        if (fm_ocf_now_us() >= end_us) {
            unlink(path);
            return ETIMEDOUT;
        }
        fm_ocf_sleep_ms(5);
    }
    rc = fm_state_read(ocf->state_dir, st, err, sizeof(err));
    snprintf(path, sizeof(path), "%s/event.same", ocf->state_dir);
    if (rc == 0 && access(path, F_OK) == 0) {
        unlink(path);
        return EALREADY;
    }
    return rc;
}

bool
fm_ocf_loop_reported(const struct fm_ocf *ocf)
{
    char path[FM_OCF_PATH_MAX + 16];

    snprintf(path, sizeof(path), "%s/reported", ocf->state_dir);
    return access(path, F_OK) == 0;
}

void
fm_ocf_loop_reset(const struct fm_ocf *ocf)
{
    char *argv[4];
    char out[512];
    int status = 0;

    if (access(ocf->state_dir, F_OK) != 0) {
        return;
    }
    argv[0] = (char *) fm_ocf_faultmon_path();
    argv[1] = (char *) "reset";
    argv[2] = (char *) ocf->resource;
    argv[3] = NULL;
    out[0] = '\0';
    status = fm_ocf_run(argv, out, sizeof(out), NULL, 5000);
    out[strcspn(out, "\n")] = '\0';
    if (status != 0) {
        fm_ocf_log(LOG_WARNING, "faultmon reset %s failed (status %d): %s", ocf->resource, status, out);
        return;
    }
    fm_ocf_log(LOG_INFO, "probe (after a cleanup, or a new node): %s", out);
    /* The explanation of a decision that is gone goes with it. */
    {
        char name[FM_RESOURCE_NAME_MAX + 32];

        snprintf(name, sizeof(name), "faultmon-%s-reason", ocf->resource);
        fm_ocf_attrd(ocf, name, NULL);
    }
}

/* The resource's id without a clone instance suffix (web:0 -> web). */
static void
primitive_id(const struct fm_ocf *ocf, char *buf, size_t buf_len)
{
    snprintf(buf, buf_len, "%s", (ocf->resource != NULL)? ocf->resource : "");
    buf[strcspn(buf, ":")] = '\0';
}

/* 10, 10s, 500ms, 2m, 2min, 1h: Pacemaker's usual spellings. */
static uint64_t
parse_pcmk_ms(const char *text)
{
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);

    if (end == text) {
        return 0;
    }
    if (*end == '\0' || *end == '"' || (end[0] == 's' && (end[1] == '"' || end[1] == '\0'))) {
        return v * 1000u;
    }
    if (strncmp(end, "ms", 2) == 0) {
        return v;
    }
    if (strncmp(end, "min", 3) == 0 || (end[0] == 'm' && (end[1] == '"' || end[1] == '\0'))) {
        return v * 60000u;
    }
    if (end[0] == 'h') {
        return v * 3600000u;
    }
    return 0;
}

static uint64_t
xml_attr_ms(const char *elem, const char *end, const char *name)
{
    char key[32];
    const char *p = NULL;

    snprintf(key, sizeof(key), " %s=\"", name);
    p = strstr(elem, key);
    if (p == NULL || p > end) {
        return 0;
    }
    return parse_pcmk_ms(p + strlen(key));
}

/* cibadmin --query --xpath XPATH into out; cibadmin lives beside
 * attrd_updater (pacemaker-cli-utils). */
static bool
cib_query(const char *xpath, char *out, size_t out_len)
{
    char dir[FM_OCF_PATH_MAX];
    char cibadmin[FM_OCF_PATH_MAX + 16];
    char *argv[5];
    const char *slash = NULL;

    snprintf(dir, sizeof(dir), "%s", fm_ocf_attrd_updater_path());
    slash = strrchr(dir, '/');
    snprintf(cibadmin, sizeof(cibadmin), "%.*s/cibadmin", (int) (slash - dir), dir);
    argv[0] = cibadmin;
    argv[1] = (char *) "--query";
    argv[2] = (char *) "--xpath";
    argv[3] = (char *) xpath;
    argv[4] = NULL;
    out[0] = '\0';
    return access(cibadmin, X_OK) == 0 && fm_ocf_run(argv, out, out_len, NULL, 5000) == 0;
}

bool
fm_ocf_meta_attr(const struct fm_ocf *ocf, const char *name, char *buf, size_t buf_len)
{
    char id[FM_RESOURCE_NAME_MAX];
    char xpath[512];
    char out[4096];
    const char *p = NULL;

    primitive_id(ocf, id, sizeof(id));
    snprintf(xpath, sizeof(xpath), "//primitive[@id='%s']/meta_attributes/nvpair[@name='%s']", id, name);
    if (!cib_query(xpath, out, sizeof(out))) {
        snprintf(xpath, sizeof(xpath), "//rsc_defaults/meta_attributes/nvpair[@name='%s']", name);
        if (!cib_query(xpath, out, sizeof(out))) {
            return false;
        }
    }
    p = strstr(out, " value=\"");
    if (p == NULL) {
        return false;
    }
    p += 8;
    snprintf(buf, buf_len, "%.*s", (int) strcspn(p, "\""), p);
    return true;
}

bool
fm_ocf_monitor_op(const struct fm_ocf *ocf, uint64_t *interval_ms, uint64_t *timeout_ms)
{
    char xpath[256];
    char id[FM_RESOURCE_NAME_MAX];
    char *out = calloc(1, 65536);
    const char *p = NULL;
    bool found = false;

    *interval_ms = 0;
    *timeout_ms = 0;
    if (out == NULL || ocf->resource == NULL) {
        free(out);
        return false;
    }
    primitive_id(ocf, id, sizeof(id));
    snprintf(xpath, sizeof(xpath), "//primitive[@id='%s']/operations/op[@name='monitor']", id);
    if (!cib_query(xpath, out, 65536)) {
        free(out);
        return false;
    }
    /* Each <op .../>: the shortest interval, and that op's timeout. */
    for (p = strstr(out, "<op "); p != NULL; p = strstr(p + 4, "<op ")) {
        const char *end = strchr(p, '>');
        uint64_t iv = 0;

        if (end == NULL) {
            break;
        }
        iv = xml_attr_ms(p, end, "interval");
        if (iv > 0 && (!found || iv < *interval_ms)) {
            *interval_ms = iv;
            *timeout_ms = xml_attr_ms(p, end, "timeout");
            found = true;
        }
    }
    free(out);
    return found;
}

unsigned
fm_ocf_asked_count(const struct fm_ocf *ocf)
{
    char path[FM_OCF_PATH_MAX + 16];
    char line[64];
    unsigned n = 0;
    FILE *in = NULL;

    snprintf(path, sizeof(path), "%s/asked", ocf->state_dir);
    in = fopen(path, "re");
    if (in == NULL) {
        return 0;
    }
    while (fgets(line, sizeof(line), in) != NULL) {
        n++;
    }
    fclose(in);
    return n;
}

void
fm_ocf_short_decision(const struct fm_run_state *st, const char *cause, char *buf, size_t buf_len)
{
    const char *reason = (st->reason[0] != '\0')? st->reason : "the fault monitor reports a failure";
    const char *over = strstr(reason, ": failing over");
    const char *restart = strstr(reason, ": restart ");
    char failed[512];

    if (cause == NULL || cause[0] == '\0') {
        fm_ocf_first_failure(st, failed, sizeof(failed));
        cause = failed;
    }
    if (cause[0] == '\0' && st->pending != FM_ACTION_NONE && st->resource[0] != '\0') {
        /* A recovery not decided by a probe (httpd's exit, the monitor's
         * report): the loop wrote its cause beside the state. */
        char dir[FM_OCF_PATH_MAX];
        char path[FM_OCF_PATH_MAX + 16];
        FILE *in = NULL;

        if (fm_state_dir(st->resource, dir, sizeof(dir)) == 0) {
            snprintf(path, sizeof(path), "%s/cause", dir);
            in = fopen(path, "re");
        }
        if (in != NULL) {
            if (fgets(failed, sizeof(failed), in) != NULL) {
                failed[strcspn(failed, "\n")] = '\0';
            }
            fclose(in);
        }
    }
    /* Target and cause, then the decision, then the rest: Pacemaker keeps
     * about 128 bytes. */
    if (over != NULL) {
        fm_ocf_fmt(buf, buf_len, "%s%sfailing over: %.*s%s", cause, (cause[0] != '\0')? ": " : "",
                   (int) (over - reason), reason, over + 14);
    } else if (restart != NULL) {
        fm_ocf_fmt(buf, buf_len, "%s%s%s; %.*s", cause, (cause[0] != '\0')? ": " : "", restart + 2,
                   (int) (restart - reason), reason);
    } else {
        fm_ocf_fmt(buf, buf_len, "%s%s%s", cause, (cause[0] != '\0')? ": " : "", reason);
    }
}
