/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: reading an nginx configuration for the few
 * directives ocf:faultmon:nginx needs (pid, the listen directives of the
 * http servers, the stub_status location), following include as nginx
 * does, without running anything.  nginx's syntax: words and quoted
 * strings, each directive ended by ';' or a '{' block, '#' comments.
 *
 * The file may be anyone's: every bound (nesting, files, file size, token
 * length, blocks) ends the read with one line, never a crash or a hang.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/parse.h>
#include <faultmon/text.h>

#include "ocf_conf_chain.h"
#include "ocf_nginx.h"

#define MAX_FILE_BYTES (4 * 1024 * 1024)
#define MAX_TOKEN 4096
#define MAX_ARGS 32
#define MAX_BLOCKS 64

struct block {
    char name[32];              /* "http", "server", "location"... */
    char *opened_in;            /* the file and line of its '{', for a message */
    int opened_line;
    size_t first_listen;        /* server: its first entry in conf->listen */
    bool listened;              /* server: it has a listen */
    bool ssl;                   /* server: "ssl on" */
};

struct parser {
    struct fm_web_conf_read rd;     /* conf, files, err */
    char dir[FM_OCF_PATH_MAX];  /* of the main file: where includes are relative to */
    struct block blocks[MAX_BLOCKS];
    size_t n_blocks;
    char location[512];         /* of the innermost location block */
    char args[MAX_ARGS][MAX_TOKEN];
    size_t n_args;
    int args_line;              /* where the directive's first word is */
};

/* One file's text and the reader's place in it. */
struct lexer {
    const char *path;
    const char *p;
    const char *end;
    int line;
};

static int parse_file(struct parser *ps, const char *path, int depth);

/* The innermost block is \p name inside \p outer (NULL: anything). */
static bool
in_block(const struct parser *ps, const char *name, const char *outer)
{
    if (ps->n_blocks == 0 || strcmp(ps->blocks[ps->n_blocks - 1].name, name) != 0) {
        return false;
    }
    return outer == NULL || (ps->n_blocks >= 2 && strcmp(ps->blocks[ps->n_blocks - 2].name, outer) == 0);
}

static bool
in_http_server(const struct parser *ps)
{
    return in_block(ps, "server", "http");
}

/*
 * The next token into \p tok: a word, a quoted string (its quotes removed,
 * backslash escapes taken), or one of ";{}" alone.
 * \return 1 for a token, 0 at the end of the file, or an errno
 */
static int
next_token(struct parser *ps, struct lexer *lx, char *tok, bool *special)
{
    size_t n = 0;

    *special = false;
    for (;;) {
        while (lx->p < lx->end && strchr(" \t\r\n", *lx->p) != NULL) {
            lx->line += (*lx->p == '\n');
            lx->p++;
        }
        if (lx->p < lx->end && *lx->p == '#') {
            while (lx->p < lx->end && *lx->p != '\n') {
                lx->p++;
            }
            continue;
        }
        break;
    }
    if (lx->p >= lx->end) {
        return 0;
    }
    if (strchr(";{}", *lx->p) != NULL) {
        tok[0] = *lx->p++;
        tok[1] = '\0';
        *special = true;
        return 1;
    }
    if (*lx->p == '"' || *lx->p == '\'') {
        char quote = *lx->p++;

        while (lx->p < lx->end && *lx->p != quote) {
            if (*lx->p == '\\' && lx->p + 1 < lx->end) {
                lx->p++;
            }
            lx->line += (*lx->p == '\n');
            if (n + 1 >= MAX_TOKEN) {
                return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: a string longer than %d bytes",
                               lx->path, lx->line, MAX_TOKEN - 1);
            }
            tok[n++] = *lx->p++;
        }
        if (lx->p >= lx->end) {
            return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: unterminated string", lx->path, lx->line);
        }
        lx->p++;
        tok[n] = '\0';
        return 1;
    }
    while (lx->p < lx->end && strchr(" \t\r\n;{}", *lx->p) == NULL) {
        if (n + 1 >= MAX_TOKEN) {
            return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: a word longer than %d bytes", lx->path,
                           lx->line, MAX_TOKEN - 1);
        }
        tok[n++] = *lx->p++;
    }
    tok[n] = '\0';
    return 1;
}

/* listen ADDRESS [PARAMETERS]: [HOST:]PORT, HOST (port 80), [V6][:PORT],
 * or unix:PATH (no TCP target). */
static void
add_listen(struct parser *ps)
{
    struct fm_web_listen l;
    const char *spec = ps->args[1];
    const char *port_text = NULL;
    uint64_t port = 80;

    memset(&l, 0, sizeof(l));
    /* A host cut short would be another host: a name that long is no
     * target (nginx resolves it; faultmon does not probe it). */
    if (ps->rd.conf->n_listen == FM_WEB_MAX_LISTEN || strncmp(spec, "unix:", 5) == 0
        || strlen(spec) >= sizeof(l.host)) {
        return;
    }
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');

        if (close == NULL || (close[1] != ':' && close[1] != '\0')) {
            return;
        }
        snprintf(l.host, sizeof(l.host), "%.*s", (int) (close - spec - 1), spec + 1);
        port_text = (close[1] == ':')? close + 2 : NULL;
    } else if (strchr(spec, ':') != NULL) {
        snprintf(l.host, sizeof(l.host), "%.*s", (int) (strrchr(spec, ':') - spec), spec);
        port_text = strrchr(spec, ':') + 1;
    } else if (strspn(spec, "0123456789") == strlen(spec)) {
        port_text = spec;
    } else {
        snprintf(l.host, sizeof(l.host), "%.127s", spec);
    }
    if (port_text != NULL && fm_parse_u64(port_text, 1, 65535, FM_PARSE_DEFAULT, &port) != 0) {
        return;                 /* nginx -t refuses it */
    }
    l.port = (uint16_t) port;
    if (strcmp(l.host, "*") == 0 || strcmp(l.host, "0.0.0.0") == 0) {
        l.host[0] = '\0';
    }
    for (size_t i = 2; i < ps->n_args; i++) {
        if (strcmp(ps->args[i], "ssl") == 0) {
            l.https = true;
        } else if (strcmp(ps->args[i], "quic") == 0) {
            return;             /* UDP: no TCP target */
        }
    }
    ps->rd.conf->listen[ps->rd.conf->n_listen++] = l;
    ps->blocks[ps->n_blocks - 1].listened = true;
}

/* include PATTERN: a glob relative to the main file's directory, expanded
 * within the read's bounds (fm_conf_glob()). */
static int
include(struct parser *ps, const struct lexer *lx, int depth)
{
    char pattern[FM_OCF_PATH_MAX];
    char **paths = NULL;
    size_t n_paths = 0;
    int rc = 0;

    if (ps->args[1][0] == '/') {
        snprintf(pattern, sizeof(pattern), "%s", ps->args[1]);
    } else if (snprintf(pattern, sizeof(pattern), "%s/%s", ps->dir, ps->args[1]) >= (int) sizeof(pattern)) {
        return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: an include path longer than %zu bytes",
                       lx->path, ps->args_line, sizeof(pattern) - 1);
    }
    /* Nothing matched: nginx fails only on a name without a wildcard,
     * and its own configuration test reports that. */
    rc = fm_conf_glob(&ps->rd.files, pattern, &paths, &n_paths, ps->rd.err, ps->rd.err_len);
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        rc = parse_file(ps, paths[i], depth + 1);
    }
    fm_conf_glob_free(paths, n_paths);
    return rc;
}

/* A directive ended by ';'. */
static int
directive(struct parser *ps, const struct lexer *lx, int depth)
{
    const char *name = ps->args[0];

    if (strcmp(name, "include") == 0 && ps->n_args >= 2) {
        return include(ps, lx, depth);
    }
    if (strcmp(name, "pid") == 0 && ps->n_args >= 2 && ps->n_blocks == 0) {
        snprintf(ps->rd.conf->pid_file, sizeof(ps->rd.conf->pid_file), "%s", ps->args[1]);
    } else if (strcmp(name, "listen") == 0 && ps->n_args >= 2 && in_http_server(ps)) {
        add_listen(ps);
    } else if (strcmp(name, "ssl") == 0 && ps->n_args >= 2 && strcmp(ps->args[1], "on") == 0
               && in_http_server(ps)) {
        ps->blocks[ps->n_blocks - 1].ssl = true;
    } else if (strcmp(name, "stub_status") == 0 && ps->n_args == 2 && strcmp(ps->args[1], "on") == 0
               && ps->location[0] != '\0') {
        /* heartbeat's FindLocationForHandler finds "stub_status on" only:
         * the bare form of nginx 1.7.5 leaves it without a status URL. */
        snprintf(ps->rd.conf->status_location, sizeof(ps->rd.conf->status_location), "%s", ps->location);
    }
    return 0;
}

static int
open_block(struct parser *ps, const struct lexer *lx)
{
    struct block *b = NULL;

    if (ps->n_blocks == MAX_BLOCKS) {
        return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: blocks nested more than %d deep", lx->path,
                       lx->line, MAX_BLOCKS);
    }
    b = &ps->blocks[ps->n_blocks++];
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "%.31s", (ps->n_args > 0)? ps->args[0] : "");
    b->opened_in = strdup(lx->path);
    b->opened_line = lx->line;
    b->first_listen = ps->rd.conf->n_listen;
    if (strcmp(b->name, "location") == 0 && ps->n_args >= 2) {
        /* location [=|~|~*|^~] URI: the URI is the last word. */
        snprintf(ps->location, sizeof(ps->location), "%s", ps->args[ps->n_args - 1]);
    }
    return 0;
}

static int
close_block(struct parser *ps, const struct lexer *lx)
{
    struct block *b = NULL;

    if (ps->n_blocks == 0) {
        return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: unexpected '}'", lx->path, lx->line);
    }
    b = &ps->blocks[ps->n_blocks - 1];
    if (in_http_server(ps)) {
        /* nginx's default for a server without listen: *:80. */
        if (!b->listened && ps->rd.conf->n_listen < FM_WEB_MAX_LISTEN) {
            memset(&ps->rd.conf->listen[ps->rd.conf->n_listen], 0, sizeof(ps->rd.conf->listen[0]));
            ps->rd.conf->listen[ps->rd.conf->n_listen++].port = 80;
        }
        for (size_t i = b->first_listen; b->ssl && i < ps->rd.conf->n_listen; i++) {
            ps->rd.conf->listen[i].https = true;
        }
    }
    if (strcmp(b->name, "location") == 0) {
        ps->location[0] = '\0';
    }
    free(b->opened_in);
    ps->n_blocks--;
    return 0;
}

/*
 * A directive without its ';'.  The reason names where and how long, never
 * the words: the agent reads as root, and an include (or a symlink) may
 * name any file, /etc/shadow too, whose first word would be a hash.
 */
static int
unended(struct parser *ps, const struct lexer *lx, const char *where)
{
    return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s:%d: a directive of %zu word%s (the first %zu bytes)"
                   " without ';' %s: not nginx syntax", lx->path, ps->args_line, ps->n_args,
                   (ps->n_args == 1)? "" : "s", strlen(ps->args[0]), where);
}

/* The tokens of one file, in the blocks the including file is in. */
static int
parse_tokens(struct parser *ps, struct lexer *lx, int depth)
{
    char *tok = malloc(MAX_TOKEN);
    bool special = false;
    int rc = 0;

    if (tok == NULL) {
        return ENOMEM;
    }
    ps->n_args = 0;
    while ((rc = next_token(ps, lx, tok, &special)) == 1) {
        rc = 0;
        if (!special || tok[0] == '\0') {
            if (ps->n_args == 0) {
                ps->args_line = lx->line;
            }
            if (ps->n_args < MAX_ARGS) {
                snprintf(ps->args[ps->n_args++], MAX_TOKEN, "%s", tok);
            }
            continue;
        }
        if (tok[0] == ';' && ps->n_args > 0) {
            rc = directive(ps, lx, depth);
        } else if (tok[0] == '{') {
            rc = open_block(ps, lx);
        } else if (tok[0] == '}') {
            rc = (ps->n_args == 0)? close_block(ps, lx) : unended(ps, lx, "before '}'");
        }
        ps->n_args = 0;
        if (rc != 0) {
            break;
        }
    }
    free(tok);
    if (rc == 0 && ps->n_args > 0) {
        rc = unended(ps, lx, "at the end of the file");
    }
    return rc;
}

/* Read all of \p fd, at most MAX_FILE_BYTES. */
static int
slurp(struct parser *ps, int fd, const char *path, char **text, size_t *len)
{
    size_t cap = 65536;
    char *buf = malloc(cap);
    ssize_t n = 0;

    *len = 0;
    if (buf == NULL) {
        return ENOMEM;
    }
    while ((n = read(fd, buf + *len, cap - *len)) > 0) {
        *len += (size_t) n;
        if (*len == cap) {
            char *bigger = NULL;

            if (cap >= MAX_FILE_BYTES) {
                free(buf);
                return fm_errf(ps->rd.err, ps->rd.err_len, EINVAL, "%s: larger than %d bytes", path, MAX_FILE_BYTES);
            }
            cap *= 2;
            bigger = realloc(buf, cap);
            if (bigger == NULL) {
                free(buf);
                return ENOMEM;
            }
            buf = bigger;
        }
    }
    if (n < 0) {
        free(buf);
        return fm_errf(ps->rd.err, ps->rd.err_len, EIO, "cannot read %s: %s", path, strerror(errno));
    }
    *text = buf;
    return 0;
}

static int
parse_file(struct parser *ps, const char *path, int depth)
{
    struct stat st;
    struct lexer lx;
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    int fd = fm_conf_chain_open(&ps->rd.files, path, depth, &st, &rc, ps->rd.err, ps->rd.err_len);

    if (fd < 0) {
        return rc;
    }
    rc = slurp(ps, fd, path, &text, &len);
    if (rc == 0) {
        ps->rd.conf->n_files++;
        lx.path = path;
        lx.p = text;
        lx.end = text + len;
        lx.line = 1;
        rc = parse_tokens(ps, &lx, depth);
        free(text);
    }
    fm_conf_chain_leave(&ps->rd.files);
    close(fd);
    return rc;
}

int
fm_nginx_conf_read(const char *configfile, const char *prefix, struct fm_web_conf *conf, char *err,
                   size_t err_len)
{
    struct parser *ps = calloc(1, sizeof(*ps));
    int rc = 0;

    if (ps == NULL) {
        return ENOMEM;
    }
    fm_web_conf_read_init(&ps->rd, conf, err, err_len);
    snprintf(conf->server_root, sizeof(conf->server_root), "%s", (prefix != NULL)? prefix : "/");
    fm_web_conf_dir_of(configfile, ".", ps->dir, sizeof(ps->dir));
    rc = parse_file(ps, configfile, 0);
    if (rc == 0 && ps->n_blocks > 0) {
        const struct block *b = &ps->blocks[ps->n_blocks - 1];

        rc = fm_errf(err, err_len, EINVAL, "%s: the block opened at %s:%d is not closed", configfile,
                     (b->opened_in != NULL)? b->opened_in : "?", b->opened_line);
    }
    for (size_t i = 0; i < ps->n_blocks; i++) {
        free(ps->blocks[i].opened_in);
    }
    free(ps);
    return rc;
}
