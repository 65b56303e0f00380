/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: reading an Apache configuration for the few
 * directives the agent needs (ServerRoot, PidFile, DefaultRuntimeDir,
 * Listen, the server-status location), following its includes and
 * conditional sections as httpd would, without running anything.
 *
 * Size: one concern, httpd's configuration grammar (directives, includes,
 * conditional sections), whose parts call each other at every step.
 */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/parse.h>
#include <faultmon/text.h>

#include "ocf_apache.h"
#include "ocf_conf_chain.h"

#define MAX_SECTIONS 64
#define MAX_MODULES 256
#define LINE_MAX_BYTES 16384

/* Modules compiled into Debian's and Red Hat's httpd (httpd -l). */
static const char *const builtin_modules[] = {
    "core_module", "so_module", "watchdog_module", "http_module", "log_config_module",
    "logio_module", "version_module", "unixd_module", NULL,
};

struct section {
    bool active;
    bool is_location;
    char saved_location[512];
};

struct parser {
    struct fm_web_conf_read rd;     /* conf, files, err */
    char defines[FM_APACHE_MAX_DEFINES][128];
    char define_values[FM_APACHE_MAX_DEFINES][512];
    size_t n_defines;
    char modules[MAX_MODULES][64];
    size_t n_modules;
    struct section sections[MAX_SECTIONS];
    size_t depth;
    char location[512];
};

static bool
active(const struct parser *ps)
{
    return ps->depth == 0 || ps->sections[ps->depth - 1].active;
}

static ssize_t
find_define(const struct parser *ps, const char *name)
{
    for (size_t i = 0; i < ps->n_defines; i++) {
        if (strcmp(ps->defines[i], name) == 0) {
            return (ssize_t) i;
        }
    }
    return -1;
}

static void
add_define(struct parser *ps, const char *name, const char *value)
{
    ssize_t i = find_define(ps, name);

    if (i < 0) {
        if (ps->n_defines == FM_APACHE_MAX_DEFINES) {
            return;
        }
        i = (ssize_t) ps->n_defines++;
        snprintf(ps->defines[i], sizeof(ps->defines[i]), "%s", name);
    }
    snprintf(ps->define_values[i], sizeof(ps->define_values[i]), "%s",
             (value != NULL)? value : "");
}

static void
remove_define(struct parser *ps, const char *name)
{
    ssize_t i = find_define(ps, name);

    if (i >= 0) {
        ps->n_defines--;
        memmove(ps->defines[i], ps->defines[ps->n_defines], sizeof(ps->defines[i]));
        memmove(ps->define_values[i], ps->define_values[ps->n_defines], sizeof(ps->define_values[i]));
    }
}

/* "mod_ssl.c" and "ssl_module" both name ssl_module. */
static void
module_id(const char *arg, char *out, size_t out_len)
{
    size_t len = strlen(arg);

    if (len > 2 && strcmp(arg + len - 2, ".c") == 0) {
        const char *name = (strncmp(arg, "mod_", 4) == 0)? arg + 4 : arg;

        snprintf(out, out_len, "%.*s_module", (int) (strlen(name) - 2), name);
        return;
    }
    snprintf(out, out_len, "%s", arg);
}

static bool
module_loaded(const struct parser *ps, const char *arg)
{
    char id[128];

    module_id(arg, id, sizeof(id));
    if (strcmp(id, "core_module") == 0 || strcmp(id, "http_core_module") == 0) {
        return true;
    }
    for (size_t i = 0; builtin_modules[i] != NULL; i++) {
        if (strcmp(id, builtin_modules[i]) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < ps->n_modules; i++) {
        if (strcmp(id, ps->modules[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* ${NAME}: a Define, else the environment; unknown ones stay as written,
 * as httpd leaves them. */
static void
expand_vars(const struct parser *ps, const char *in, char *out, size_t out_len)
{
    size_t o = 0;

    while (*in != '\0' && o + 1 < out_len) {
        if (in[0] == '$' && in[1] == '{') {
            const char *end = strchr(in + 2, '}');

            if (end != NULL && (size_t) (end - in - 2) < 128) {
                char name[128];
                const char *value = NULL;
                ssize_t d = -1;

                snprintf(name, sizeof(name), "%.*s", (int) (end - in - 2), in + 2);
                d = find_define(ps, name);
                value = (d >= 0)? ps->define_values[d] : getenv(name);
                if (value != NULL) {
                    size_t n = strlen(value);

                    if (n > out_len - 1 - o) {
                        n = out_len - 1 - o;
                    }
                    memcpy(out + o, value, n);
                    o += n;
                    in = end + 1;
                    continue;
                }
            }
        }
        out[o++] = *in++;
    }
    out[o] = '\0';
}

/* Split a directive line into words; quotes group, backslash escapes. */
static size_t
split_args(char *line, char **argv, size_t max)
{
    size_t n = 0;
    char *p = line;

    while (n < max) {
        char *w = NULL;
        char *o = NULL;

        while (isspace((unsigned char) *p)) {
            p++;
        }
        if (*p == '\0') {
            break;
        }
        w = p;
        o = p;
        if (*p == '"' || *p == '\'') {
            char q = *p++;

            while (*p != '\0' && *p != q) {
                if (*p == '\\' && p[1] != '\0') {
                    p++;
                }
                *o++ = *p++;
            }
            if (*p == q) {
                p++;
            }
        } else {
            while (*p != '\0' && !isspace((unsigned char) *p)) {
                *o++ = *p++;
            }
        }
        if (*p != '\0') {
            p++;
        }
        *o = '\0';
        argv[n++] = w;
    }
    return n;
}

static void
resolve_path(const struct parser *ps, const char *path, char *out, size_t out_len)
{
    if (path[0] == '/') {
        snprintf(out, out_len, "%s", path);
    } else if (snprintf(out, out_len, "%s/%s", ps->rd.conf->server_root, path) >= (int) out_len) {
        /* Cut, it would name another file: name none. */
        out[0] = '\0';
    }
}

static int parse_file(struct parser *ps, const char *path, int depth, bool optional);

/*
 * Enter a file or directory: refuse one that is already being read (an
 * include loop, whatever the path says), one nested too deep, and more
 * than FM_CONF_MAX_FILES in all.  A 0 return must be paired with leave().
 */
static int
enter(struct parser *ps, const char *path, const struct stat *st, int depth)
{
    return fm_conf_chain_enter(&ps->rd.files, path, st, depth, ps->rd.err, ps->rd.err_len);
}

static void
leave(struct parser *ps)
{
    fm_conf_chain_leave(&ps->rd.files);
}

static int
include_dir(struct parser *ps, const char *dir, int depth)
{
    struct dirent **names = NULL;
    struct stat dir_st;
    int n = 0;
    int rc = 0;

    if (stat(dir, &dir_st) != 0) {
        return 0;
    }
    rc = enter(ps, dir, &dir_st, depth);
    if (rc != 0) {
        return rc;
    }
    n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        leave(ps);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (rc == 0) {
            rc = fm_conf_chain_tick(&ps->rd.files, dir, ps->rd.err, ps->rd.err_len);
        }
        if (rc == 0 && names[i]->d_name[0] != '.') {
            char path[FM_OCF_PATH_MAX];
            struct stat st;

            size_t dir_len = strlen(dir);
            int len = snprintf(path, sizeof(path), "%s%s%s", dir,
                               (dir_len > 0 && dir[dir_len - 1] == '/')? "" : "/", names[i]->d_name);

            /* A path that does not fit would name another file. */
            if (len < (int) sizeof(path) && stat(path, &st) == 0) {
                rc = S_ISDIR(st.st_mode)? include_dir(ps, path, depth + 1)
                                        : parse_file(ps, path, depth + 1, true);
            }
        }
        free(names[i]);
    }
    free(names);
    leave(ps);
    return rc;
}

static int
include(struct parser *ps, const char *arg, int depth, bool optional)
{
    char pattern[FM_OCF_PATH_MAX];
    char **paths = NULL;
    size_t n_paths = 0;
    int rc = 0;
    struct stat st;

    resolve_path(ps, arg, pattern, sizeof(pattern));
    if (strpbrk(pattern, "*?[") == NULL) {
        if (stat(pattern, &st) == 0 && S_ISDIR(st.st_mode)) {
            return include_dir(ps, pattern, depth);
        }
        return parse_file(ps, pattern, depth + 1, optional);
    }
    /* Expanded within the read's bounds (fm_conf_glob()): no match is no file. */
    rc = fm_conf_glob(&ps->rd.files, pattern, &paths, &n_paths, ps->rd.err, ps->rd.err_len);
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = include_dir(ps, paths[i], depth);
        } else {
            rc = parse_file(ps, paths[i], depth + 1, true);
        }
    }
    fm_conf_glob_free(paths, n_paths);
    return rc;
}

static void
add_listen(struct parser *ps, char **argv, size_t argc)
{
    struct fm_web_listen l;
    const char *spec = argv[1];
    const char *colon = NULL;
    uint64_t port = 0;

    memset(&l, 0, sizeof(l));
    if (ps->rd.conf->n_listen == FM_WEB_MAX_LISTEN) {
        return;
    }
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');

        if (close == NULL || close[1] != ':') {
            return;
        }
        snprintf(l.host, sizeof(l.host), "%.*s", (int) (close - spec - 1), spec + 1);
        colon = close + 1;
    } else {
        colon = strrchr(spec, ':');
        if (colon != NULL) {
            snprintf(l.host, sizeof(l.host), "%.*s", (int) (colon - spec), spec);
        }
    }
    if (fm_parse_u64((colon != NULL)? colon + 1 : spec, 1, 65535, FM_PARSE_DEFAULT, &port) != 0) {
        return;
    }
    l.port = (uint16_t) port;
    if (strcmp(l.host, "*") == 0 || strcmp(l.host, "0.0.0.0") == 0) {
        l.host[0] = '\0';
    }
    l.https = (argc > 2)? (strcasecmp(argv[2], "https") == 0) : (port == 443);
    ps->rd.conf->listen[ps->rd.conf->n_listen++] = l;
}

static bool
section_condition(struct parser *ps, const char *name, const char *arg)
{
    bool negate = (arg[0] == '!');
    const char *what = negate? arg + 1 : arg;
    bool result = true;

    if (strcasecmp(name, "IfModule") == 0) {
        result = module_loaded(ps, what);
    } else if (strcasecmp(name, "IfDefine") == 0) {
        result = (find_define(ps, what) >= 0);
    } else if (strcasecmp(name, "IfFile") == 0) {
        char path[FM_OCF_PATH_MAX];

        resolve_path(ps, what, path, sizeof(path));
        result = (access(path, F_OK) == 0);
    } else {
        /* Location, VirtualHost, Directory, IfVersion, If...: their
         * content may apply; the agent reads Listen, which httpd only
         * accepts at the top level anyway. */
        return true;
    }
    return negate? !result : result;
}

static void
open_section(struct parser *ps, char *line)
{
    char *p = line + 1;
    char *name = p;
    char *arg = NULL;
    size_t len = 0;
    struct section *s = NULL;
    char *argv[2];

    while (*p != '\0' && !isspace((unsigned char) *p) && *p != '>') {
        p++;
    }
    if (*p != '\0') {
        *p++ = '\0';
    }
    arg = p;
    len = strlen(arg);
    while (len > 0 && (arg[len - 1] == '>' || isspace((unsigned char) arg[len - 1]))) {
        arg[--len] = '\0';
    }
    if (split_args(arg, argv, 1) == 1) {
        arg = argv[0];
    } else {
        arg = (char *) "";
    }
    if (ps->depth == MAX_SECTIONS) {
        return;
    }
    s = &ps->sections[ps->depth];
    s->active = active(ps) && section_condition(ps, name, arg);
    s->is_location = (strcasecmp(name, "Location") == 0);
    snprintf(s->saved_location, sizeof(s->saved_location), "%s", ps->location);
    if (s->is_location) {
        snprintf(ps->location, sizeof(ps->location), "%s", arg);
    }
    ps->depth++;
}

static void
close_section(struct parser *ps)
{
    if (ps->depth > 0) {
        ps->depth--;
        if (ps->sections[ps->depth].is_location) {
            snprintf(ps->location, sizeof(ps->location), "%s", ps->sections[ps->depth].saved_location);
        }
    }
}

static int
directive(struct parser *ps, char *line, int depth)
{
    char *argv[8];
    size_t argc = split_args(line, argv, 8);
    struct fm_web_conf *conf = ps->rd.conf;

    if (argc == 0 || !active(ps)) {
        return 0;
    }
    if (strcasecmp(argv[0], "ServerRoot") == 0 && argc > 1) {
        snprintf(conf->server_root, sizeof(conf->server_root), "%s", argv[1]);
    } else if ((strcasecmp(argv[0], "Include") == 0 || strcasecmp(argv[0], "IncludeOptional") == 0)
               && argc > 1) {
        return include(ps, argv[1], depth, strcasecmp(argv[0], "IncludeOptional") == 0);
    } else if (strcasecmp(argv[0], "LoadModule") == 0 && argc > 1 && ps->n_modules < MAX_MODULES) {
        snprintf(ps->modules[ps->n_modules++], sizeof(ps->modules[0]), "%s", argv[1]);
    } else if (strcasecmp(argv[0], "Define") == 0 && argc > 1) {
        add_define(ps, argv[1], (argc > 2)? argv[2] : NULL);
    } else if (strcasecmp(argv[0], "UnDefine") == 0 && argc > 1) {
        remove_define(ps, argv[1]);
    } else if (strcasecmp(argv[0], "Listen") == 0 && argc > 1) {
        add_listen(ps, argv, argc);
    } else if (strcasecmp(argv[0], "PidFile") == 0 && argc > 1) {
        snprintf(conf->pid_file, sizeof(conf->pid_file), "%s", argv[1]);
    } else if (strcasecmp(argv[0], "DefaultRuntimeDir") == 0 && argc > 1) {
        snprintf(conf->runtime_dir, sizeof(conf->runtime_dir), "%s", argv[1]);
    } else if (strcasecmp(argv[0], "SetHandler") == 0 && argc > 1
               && strcasecmp(argv[1], "server-status") == 0 && ps->location[0] != '\0') {
        snprintf(conf->status_location, sizeof(conf->status_location), "%s", ps->location);
    }
    return 0;
}

/*
 * Open a configuration file as httpd would read it, and enter it.
 * \return 0 with *in open (leave() it, then fclose() it), or what
 *         parse_file() returns with *in NULL (0 for a missing Include, which
 *         fails httpd too, and start reports it)
 */
static int
open_conf_file(struct parser *ps, const char *path, int depth, FILE **in)
{
    struct stat st;
    int rc = 0;
    int fd = fm_conf_chain_open(&ps->rd.files, path, depth, &st, &rc, ps->rd.err, ps->rd.err_len);

    *in = NULL;
    if (fd < 0) {
        /* As httpd, a missing Include fails httpd's own test, not this. */
        if (rc == ENOENT && depth > 0) {
            ps->rd.err[0] = '\0';
            return 0;
        }
        return rc;
    }
    *in = fdopen(fd, "r");
    if (*in == NULL) {
        leave(ps);
        close(fd);
        return fm_errf(ps->rd.err, ps->rd.err_len, ENOMEM, "cannot read %s: %s", path, strerror(errno));
    }
    return 0;
}

/* One whole (joined) line: a section's start or end, or a directive. */
static int
parse_line(struct parser *ps, const char *joined, int depth)
{
    char expanded[LINE_MAX_BYTES];
    const char *p = joined;

    while (isspace((unsigned char) *p)) {
        p++;
    }
    if (*p == '\0' || *p == '#') {
        return 0;
    }
    expand_vars(ps, p, expanded, sizeof(expanded));
    if (expanded[0] == '<' && expanded[1] == '/') {
        close_section(ps);
    } else if (expanded[0] == '<') {
        open_section(ps, expanded);
    } else {
        return directive(ps, expanded, depth);
    }
    return 0;
}

static int
parse_file(struct parser *ps, const char *path, int depth, bool optional)
{
    FILE *in = NULL;
    char *line = NULL;
    char *joined = NULL;
    size_t cap = 0;
    size_t joined_len = 0;
    int rc = open_conf_file(ps, path, depth, &in);

    (void) optional;
    if (in == NULL) {
        return rc;
    }
    ps->rd.conf->n_files++;
    joined = calloc(1, LINE_MAX_BYTES);
    if (joined == NULL) {
        leave(ps);
        fclose(in);
        return ENOMEM;
    }
    while (rc == 0 && getline(&line, &cap, in) >= 0) {
        size_t len = strlen(line);
        bool continued = false;

        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
            line[--len] = '\0';
        }
        /* A backslash at the end continues the line. */
        if (len > 0 && line[len - 1] == '\\') {
            line[--len] = '\0';
            continued = true;
        }
        if (joined_len + len + 1 < LINE_MAX_BYTES) {
            memcpy(joined + joined_len, line, len);
            joined_len += len;
            joined[joined_len] = '\0';
        }
        if (continued) {
            continue;
        }
        rc = parse_line(ps, joined, depth);
        joined_len = 0;
        joined[0] = '\0';
    }
    free(line);
    free(joined);
    fclose(in);
    leave(ps);
    return rc;
}

int
fm_apache_conf_read(const char *configfile, char *const *defines, size_t n_defines,
                    struct fm_web_conf *conf, char *err, size_t err_len)
{
    struct parser *ps = calloc(1, sizeof(*ps));
    int rc = 0;

    if (ps == NULL) {
        return ENOMEM;
    }
    fm_web_conf_read_init(&ps->rd, conf, err, err_len);
    for (size_t i = 0; i < n_defines; i++) {
        add_define(ps, defines[i], NULL);
    }
    /* ServerRoot's default: the configuration file's directory. */
    fm_web_conf_dir_of(configfile, "/", conf->server_root, sizeof(conf->server_root));
    rc = parse_file(ps, configfile, 0, false);
    free(ps);
    return rc;
}
