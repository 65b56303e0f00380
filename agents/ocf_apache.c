/*
 * faultmon OCF agents: the actions of ocf:faultmon:apache.
 *
 * A monitor of a running resource reads two small files (the agent's record
 * and the loop's state) and httpd's pid file; everything that needs the
 * Apache configuration, the envfiles or a probe happens in start, stop,
 * validate-all and OCF_CHECK_LEVEL=10, or when the agent has no record.
 */
#include <config.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/regex_guard.h>
#include <faultmon/state.h>
#include <faultmon/target.h>

#include "ocf_apache.h"

#define DEFAULT_TESTREGEX "</ *html *>"
#define DEFAULT_ENVFILES "/etc/apache2/envvars"
#define ENV_MARKER "FAULTMON-ENVFILES"
#define ENV_OUT_MAX (256 * 1024)

/* ocf:heartbeat:apache's HTTPDLIST, in its order, so that a drop-in runs the
 * same program (metadata/apache-details.xml describes it). */
static const char *const httpd_search[] = {
    "/sbin/httpd2", "/usr/sbin/httpd2", "/usr/sbin/apache2", "/sbin/httpd", "/usr/sbin/httpd",
    "/usr/sbin/apache", NULL,
};

static const char *const config_search[] = {
    "/etc/apache2/httpd.conf", "/etc/apache2/apache2.conf", "/etc/httpd/conf/httpd.conf", NULL,
};

/* Everything the actions need, resolved once per invocation. */
struct apache {
    struct fm_ocf *ocf;
    char httpd[FM_OCF_PATH_MAX];
    char configfile[FM_OCF_PATH_MAX];
    char **options;
    size_t n_options;
    bool ipv6;
    unsigned port;
    struct fm_apache_conf conf;
    char pid_file[FM_OCF_PATH_MAX];
    bool pid_directive;             /* no PidFile: pass -c "PidFile ..." */
    char port_list[4096];           /* derived from Listen */
    char base_url[300];             /* of relative URLs */
    char status_url[1024];          /* inferred from the configuration */
};

static void
apache_clear(struct apache *a)
{
    fm_ocf_free_words(a->options, a->n_options);
    a->options = NULL;
    a->n_options = 0;
}

/* ---- parameters ---- */

static int
resolve_httpd(struct apache *a)
{
    const char *given = fm_ocf_param("httpd");

    if (given != NULL && given[0] != '\0') {
        struct stat st;

        if (given[0] != '/') {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "httpd '%s' is not an absolute path", given);
        }
        if (stat(given, &st) != 0 || !S_ISREG(st.st_mode) || access(given, X_OK) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "httpd '%s' is not an executable file on this node",
                               given);
        }
        snprintf(a->httpd, sizeof(a->httpd), "%s", given);
        return PCMK_OCF_OK;
    }
    for (size_t i = 0; httpd_search[i] != NULL; i++) {
        if (access(httpd_search[i], X_OK) == 0) {
            snprintf(a->httpd, sizeof(a->httpd), "%s", httpd_search[i]);
            return PCMK_OCF_OK;
        }
    }
    return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED,
                       "no httpd program found (tried /usr/sbin/apache2, /usr/sbin/httpd and others); "
                       "install Apache or set httpd");
}

static int
resolve_params(struct apache *a)
{
    const char *config = fm_ocf_param("configfile");
    const char *options = fm_ocf_param("options");
    const char *port = fm_ocf_param("port");
    int ipv6 = fm_ocf_param_bool("use_ipv6", false);

    if (config != NULL && config[0] != '\0') {
        snprintf(a->configfile, sizeof(a->configfile), "%s", config);
    } else {
        snprintf(a->configfile, sizeof(a->configfile), "%s", config_search[2]);
        for (size_t i = 0; config_search[i] != NULL; i++) {
            if (access(config_search[i], F_OK) == 0) {
                snprintf(a->configfile, sizeof(a->configfile), "%s", config_search[i]);
                break;
            }
        }
    }
    if (ipv6 < 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid use_ipv6 '%s': expected true or false",
                           fm_ocf_param("use_ipv6"));
    }
    a->ipv6 = (ipv6 == 1);
    a->port = 80;
    if (port != NULL && port[0] != '\0') {
        char *end = NULL;
        long v = strtol(port, &end, 10);

        if (*end != '\0' || v < 1 || v > 65535) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid port '%s': expected 1-65535", port);
        }
        a->port = (unsigned) v;
    }
    if (options != NULL && fm_ocf_split_words(options, &a->options, &a->n_options) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid options '%s': unbalanced quote", options);
    }
    return PCMK_OCF_OK;
}

/* Read the envfiles with /bin/sh, as ocf:heartbeat:apache does, and take
 * over what they export.  The file names are arguments of the script, never
 * part of it. */
static int
load_envfiles(struct apache *a)
{
    const char *value = fm_ocf_param("envfiles");
    char **files = NULL;
    size_t n_files = 0;
    char **argv = NULL;
    size_t argc = 0;
    char *out = NULL;
    size_t used = 0;
    int status = 0;
    int rc = PCMK_OCF_OK;
    const char *slash = strrchr(a->configfile, '/');

    if (value == NULL) {
        value = DEFAULT_ENVFILES;
    }
    if (fm_ocf_split_words(value, &files, &n_files) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid envfiles '%s': unbalanced quote", value);
    }
    argv = calloc(n_files + 5, sizeof(char *));
    out = calloc(1, ENV_OUT_MAX);
    if (argv == NULL || out == NULL) {
        rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
        goto done;
    }
    argv[argc++] = (char *) "/bin/sh";
    argv[argc++] = (char *) "-c";
    argv[argc++] = (char *) "for f do . \"$f\" || exit 1; done; printf '" ENV_MARKER "\\0'; exec env -0";
    argv[argc++] = (char *) "faultmon-envfiles";
    for (size_t i = 0; i < n_files; i++) {
        if (files[i][0] != '/') {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid envfiles entry '%s': not an absolute path",
                             files[i]);
            goto done;
        }
        if (access(files[i], R_OK) != 0) {
            fm_ocf_log(LOG_INFO, "envfiles: %s is not readable here; skipped", files[i]);
            continue;
        }
        argv[argc++] = files[i];
    }
    argv[argc] = NULL;
    if (argc == 4) {
        goto done;
    }
    /* Debian's envvars derives its instance suffix from APACHE_CONFDIR. */
    if (slash != NULL && strncmp(a->configfile, "/etc/apache2", 12) == 0
        && strcmp(slash, "/apache2.conf") == 0) {
        char dir[FM_OCF_PATH_MAX];

        snprintf(dir, sizeof(dir), "%.*s", (int) (slash - a->configfile), a->configfile);
        setenv("APACHE_CONFDIR", dir, 1);
    }
    status = fm_ocf_run(argv, out, ENV_OUT_MAX, &used, 10000);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "envfiles '%s' could not be read by /bin/sh (status %d): %s",
                         value, status, out);
        goto done;
    }
    {
        char *p = memmem(out, used, ENV_MARKER, sizeof(ENV_MARKER));
        char *end = out + used;

        if (p == NULL) {
            rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "envfiles '%s': no environment came back", value);
            goto done;
        }
        for (p += sizeof(ENV_MARKER); p < end; p += strlen(p) + 1) {
            char *eq = strchr(p, '=');
            const char *old = NULL;

            if (eq == NULL || strncmp(p, "OCF_", 4) == 0 || strncmp(p, "PWD=", 4) == 0
                || strncmp(p, "SHLVL=", 6) == 0 || strncmp(p, "_=", 2) == 0) {
                continue;
            }
            *eq = '\0';
            old = getenv(p);
            if (old == NULL || strcmp(old, eq + 1) != 0) {
                setenv(p, eq + 1, 1);
            }
            *eq = '=';
        }
    }

done:
    fm_ocf_free_words(files, n_files);
    free(argv);
    free(out);
    return rc;
}

/* The -D names of the command line: STATUS and those of options. */
static size_t
collect_defines(const struct apache *a, char **defines, size_t max)
{
    size_t n = 0;

    defines[n++] = (char *) "STATUS";
    for (size_t i = 0; i < a->n_options && n < max; i++) {
        if (strncmp(a->options[i], "-D", 2) == 0) {
            if (a->options[i][2] != '\0') {
                defines[n++] = a->options[i] + 2;
            } else if (i + 1 < a->n_options) {
                defines[n++] = a->options[++i];
            }
        }
    }
    return n;
}

static int
read_config(struct apache *a)
{
    char *defines[FM_APACHE_MAX_DEFINES];
    size_t n_defines = collect_defines(a, defines, FM_APACHE_MAX_DEFINES);
    char err[512] = "";
    int rc = 0;

    if (access(a->configfile, F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' does not exist on this node",
                           a->configfile);
    }
    rc = fm_apache_conf_read(a->configfile, defines, n_defines, &a->conf, err, sizeof(err));
    if (rc == ENOENT) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' cannot be read: %s", a->configfile, err);
    }
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "configfile '%s': %s", a->configfile, err);
    }
    if (!fm_apache_conf_pid_file(&a->conf, a->pid_file, sizeof(a->pid_file))) {
        /* As ocf:heartbeat:apache: without a PidFile, choose one. */
        fm_ocf_fmt(a->pid_file, sizeof(a->pid_file), "%s/httpd.pid", a->ocf->state_dir);
        a->pid_directive = true;
    }
    fm_apache_conf_port_list(&a->conf, a->ipv6, a->port_list, sizeof(a->port_list));
    fm_apache_conf_base_url(&a->conf, a->ipv6, a->port, a->base_url, sizeof(a->base_url));
    snprintf(a->status_url, sizeof(a->status_url), "%s%s", a->base_url,
             (a->conf.status_location[0] == '/')? a->conf.status_location : "/");
    return PCMK_OCF_OK;
}

/* All of the above; the order matters (envfiles feed ${VAR} in the
 * configuration). */
static int
apache_prepare(struct apache *a)
{
    int rc = resolve_params(a);

    if (rc == PCMK_OCF_OK) {
        rc = resolve_httpd(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = load_envfiles(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = read_config(a);
    }
    return rc;
}

static bool
param_set(const char *name)
{
    const char *v = fm_ocf_param(name);

    return v != NULL && v[0] != '\0';
}

/* A URL as ocf:heartbeat:apache's fixtesturl: one not starting with "http"
 * is relative to the base. */
static void
absolute_url(const char *base, const char *url, char *out, size_t out_len)
{
    if (strncmp(url, "http", 4) == 0) {
        snprintf(out, out_len, "%s", url);
    } else {
        snprintf(out, out_len, "%s%s%s", base, (url[0] == '/')? "" : "/", url);
    }
}

/* The longest statusurl, testurl or testregex10 (with its NUL). */
#define FM_APACHE_URL_MAX 2048

/*
 * statusurl is fetched as given, as ocf:heartbeat:apache's wget fetches it:
 * a value that is not an absolute http:// or https:// URL is refused, never
 * taken as a path on the local server (whose 404 page would match the
 * default testregex).
 */
static int
check_statusurl(void)
{
    const char *url = fm_ocf_param("statusurl");
    struct fm_target target;
    char err[512];

    if (!param_set("statusurl")) {
        return PCMK_OCF_OK;
    }
    /* It is copied into buffers of this size: cut, it would name another page. */
    if (strlen(url) >= FM_APACHE_URL_MAX) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "statusurl is longer than %d bytes", FM_APACHE_URL_MAX - 1);
    }
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "statusurl '%s' is not an absolute http:// or https:// URL", url);
    }
    if (fm_target_parse(url, true, &target, err, sizeof(err)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "statusurl: %s", err);
    }
    fm_target_clear(&target);
    return PCMK_OCF_OK;
}

/*
 * Whether the resource asks for ocf:heartbeat:apache's check, without the
 * Sun targets: statusurl or testregex, or one of heartbeat's level-10 test
 * parameters (with any of them set, heartbeat's monitor checks the status
 * page and no longer falls back to a HEAD of the index).  Then any failed
 * check fails the monitor, as heartbeat's does, instead of adding up as
 * partial failures.
 */
static bool
heartbeat_mode(void)
{
    bool user_targets = param_set("Port_list") || param_set("Monitor_Uri_List");

    return !user_targets && (param_set("statusurl") || param_set("testregex") || param_set("testurl")
                             || param_set("testregex10") || param_set("testconffile"));
}

/*
 * The loop's parameters (OCF_RESKEY_* of this process, which `faultmon run`
 * and the probe helper inherit), from the resource's parameters and what
 * the configuration says.  See the statusurl longdesc in apache.xml.
 */
static int
translate_params(const char *port_list, const char *status_url, const char *base_url)
{
    const char *statusurl = fm_ocf_param("statusurl");
    const char *testregex = fm_ocf_param("testregex");
    bool heartbeat = heartbeat_mode();
    char url[FM_APACHE_URL_MAX];
    char why[256];
    int rc = check_statusurl();

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (param_set("testregex") && fm_regex_check(testregex, why, sizeof(why)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid testregex '%.64s%s': %s", testregex,
                           (strlen(testregex) > 64)? "..." : "", why);
    }
    if (heartbeat) {
        if (param_set("statusurl")) {
            snprintf(url, sizeof(url), "%s", statusurl);
        } else {
            absolute_url(base_url, status_url, url, sizeof(url));
        }
        fm_ocf_param_set("Monitor_Uri_List", url);
        if (!param_set("receive_regex")) {
            char folded[4096];

            if (fm_ocf_regex_icase(param_set("testregex")? testregex : DEFAULT_TESTREGEX,
                                   folded, sizeof(folded)) != 0) {
                return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testregex '%.64s...' is too long", testregex);
            }
            fm_ocf_param_set("receive_regex", folded);
        }
        /* heartbeat's wget follows redirects and fails on a 4xx or 5xx, so
         * its testregex only ever sees a 2xx page.  faultmon does not follow
         * redirects: a 3xx fails too, rather than letting the testregex judge
         * a redirect's own body (Apache's matches the default one). */
        if (!param_set("expect_status")) {
            fm_ocf_param_set("expect_status", "200-299");
        }
        /* heartbeat's wget verifies an https:// statusurl's certificate
         * and name; so does faultmon here, unless tls_verify says not to. */
        if (!param_set("tls_verify")) {
            fm_ocf_param_set("tls_verify", "true");
        }
        /* ocf:heartbeat:apache greps the whole page, and mod_status puts
         * the default testregex's </html> past the first 4 KiB. */
        if (!param_set("receive_bytes")) {
            fm_ocf_param_set("receive_bytes", fm_ocf_param_or("max_reply_bytes", "64k"));
        }
        return PCMK_OCF_OK;
    }
    if (!param_set("Port_list") && port_list[0] != '\0') {
        fm_ocf_param_set("Port_list", port_list);
    }
    if (param_set("statusurl")) {
        const char *list = fm_ocf_param("Monitor_Uri_List");
        char *joined = NULL;

        snprintf(url, sizeof(url), "%s", statusurl);
        if (asprintf(&joined, "%s%s%s", (list != NULL)? list : "",
                     (list != NULL && list[0] != '\0')? " " : "", url) < 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
        }
        fm_ocf_param_set("Monitor_Uri_List", joined);
        free(joined);
    }
    return PCMK_OCF_OK;
}

/* ---- the OCF_CHECK_LEVEL=10 test (testurl or testconffile) ---- */

static void
trim(char *s)
{
    size_t len = strlen(s);
    char *p = s;

    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) {
        s[--len] = '\0';
    }
    while (*p == ' ' || *p == '\t') {
        p++;
    }
    memmove(s, p, strlen(p) + 1);
}

/* ocf:heartbeat:apache's testconffile: "test NAME", then key/value lines
 * up to "end"; the test named testname, or the first one. */
static int
read_testconf(const char *file, const char *name, char *url, size_t url_len, char *regex,
              size_t regex_len, char *user, size_t user_len, char *password, size_t password_len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    FILE *in = NULL;
    struct stat st;
    char line[4096];
    bool in_test = false;
    bool found = false;
    int line_no = 0;

    url[0] = regex[0] = user[0] = password[0] = '\0';
    if (fd < 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "testconffile '%s' cannot be read on this node: %s",
                           file, strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testconffile '%s' is not a regular file", file);
    }
    in = fdopen(fd, "r");
    if (in == NULL) {
        close(fd);
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "testconffile '%s': %s", file, strerror(errno));
    }
    while (fgets(line, sizeof(line), in) != NULL) {
        char *value = NULL;

        line_no++;
        line[strcspn(line, "\n")] = '\0';
        trim(line);
        value = line + strcspn(line, " \t");
        if (*value != '\0') {
            *value++ = '\0';
            trim(value);
        }
        if (!in_test) {
            if (strcmp(line, "test") == 0 && (name == NULL || name[0] == '\0' || strcmp(value, name) == 0)) {
                in_test = true;
                found = true;
            }
            continue;
        }
        if (strcmp(line, "end") == 0) {
            break;
        } else if (strcmp(line, "url") == 0) {
            snprintf(url, url_len, "%s", value);
        } else if (strcmp(line, "match") == 0) {
            snprintf(regex, regex_len, "%s", value);
        } else if (strcmp(line, "user") == 0) {
            snprintf(user, user_len, "%s", value);
        } else if (strcmp(line, "password") == 0) {
            snprintf(password, password_len, "%s", value);
        } else if (strcmp(line, "client") == 0 || strcmp(line, "client_opts") == 0
                   || line[0] == '#' || line[0] == '\0') {
            continue;
        } else {
            fclose(in);
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testconffile '%s' line %d: unknown keyword '%s'",
                               file, line_no, line);
        }
    }
    fclose(in);
    explicit_bzero(line, sizeof(line));
    if (!found) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testconffile '%s' has no test%s%s", file,
                           (name != NULL && name[0] != '\0')? " named " : "",
                           (name != NULL)? name : "");
    }
    if (url[0] == '\0' || regex[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testconffile '%s': the test needs url and match", file);
    }
    if ((user[0] == '\0') != (password[0] == '\0')) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testconffile '%s': user and password go together", file);
    }
    return PCMK_OCF_OK;
}

/*
 * Put the level-10 test, if any, into FAULTMON_OCF_TEST_* for the probe
 * helper; with check_only, just validate it.
 */
static int
prepare_level10_test(const char *base_url, bool check_only)
{
    const char *conffile = fm_ocf_param("testconffile");
    char url[FM_APACHE_URL_MAX] = "";
    char regex[FM_APACHE_URL_MAX] = "";
    char user[512] = "";
    char password[512] = "";
    char full[2 * FM_APACHE_URL_MAX];     /* base URL and testurl */
    char folded[4096];
    struct fm_target target;
    char err[512];
    int rc = PCMK_OCF_OK;

    if (conffile != NULL && conffile[0] != '\0') {
        rc = read_testconf(conffile, fm_ocf_param("testname"), url, sizeof(url), regex, sizeof(regex),
                           user, sizeof(user), password, sizeof(password));
        if (rc != PCMK_OCF_OK) {
            goto done;
        }
    } else if (fm_ocf_param("testurl") != NULL) {
        /* Cut, a URL would name another page and a regex match more. */
        if (strlen(fm_ocf_param("testurl")) >= sizeof(url)
            || (param_set("testregex10") && strlen(fm_ocf_param("testregex10")) >= sizeof(regex))) {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl or testregex10 is longer than %zu bytes",
                             sizeof(url) - 1);
            goto done;
        }
        snprintf(url, sizeof(url), "%s", fm_ocf_param("testurl"));
        trim(url);
        if (url[0] == '\0') {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl '%s' is empty", fm_ocf_param("testurl"));
            goto done;
        }
        if (!param_set("testregex10")) {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl '%s' needs testregex10", url);
            goto done;
        }
        snprintf(regex, sizeof(regex), "%s", fm_ocf_param("testregex10"));
    } else {
        goto done;
    }
    absolute_url(base_url, url, full, sizeof(full));
    if (fm_target_parse(full, true, &target, err, sizeof(err)) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: %s", (conffile != NULL)? "testconffile url" : "testurl",
                         err);
        goto done;
    }
    fm_target_clear(&target);
    if (fm_regex_check(regex, err, sizeof(err)) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: invalid regex '%.64s%s': %s",
                         (conffile != NULL)? "testconffile match" : "testregex10", regex,
                         (strlen(regex) > 64)? "..." : "", err);
        goto done;
    }
    if (fm_ocf_regex_icase(regex, folded, sizeof(folded)) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "test regex '%s' is too long", regex);
        goto done;
    }
    {
        struct fm_probe_opts opts;

        fm_probe_opts_init(&opts);
        if (fm_probe_opts_set_receive(&opts, folded, err, sizeof(err)) != 0) {
            fm_probe_opts_clear(&opts);
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: invalid regex '%s': %s",
                             (conffile != NULL)? "testconffile match" : "testregex10", regex, err);
            goto done;
        }
        fm_probe_opts_clear(&opts);
    }
    if (check_only) {
        goto done;
    }
    setenv("FAULTMON_OCF_TEST_URL", full, 1);
    setenv("FAULTMON_OCF_TEST_REGEX", folded, 1);
    if (user[0] != '\0') {
        char pair[1100];
        char b64[1600];
        char header[1700];

        snprintf(pair, sizeof(pair), "%s:%s", user, password);
        fm_ocf_base64((const unsigned char *) pair, strlen(pair), b64, sizeof(b64));
        snprintf(header, sizeof(header), "Authorization: Basic %s", b64);
        setenv("FAULTMON_OCF_TEST_HEADER", header, 1);
        explicit_bzero(pair, sizeof(pair));
        explicit_bzero(b64, sizeof(b64));
        explicit_bzero(header, sizeof(header));
    }

done:
    explicit_bzero(password, sizeof(password));
    return rc;
}

/* ---- httpd ---- */

static pid_t
httpd_pid(const char *pid_file, const char *httpd)
{
    pid_t pid = fm_ocf_read_pid_file(pid_file);

    return (pid != 0 && fm_ocf_pid_alive(pid, httpd))? pid : 0;
}

/* httpd's command line: -DSTATUS, options, -f configfile [-c PidFile]. */
static char **
httpd_argv(const struct apache *a, const char *extra, char *pid_directive, size_t pd_len)
{
    char **argv = calloc(a->n_options + 8, sizeof(char *));
    size_t n = 0;

    if (argv == NULL) {
        return NULL;
    }
    argv[n++] = (char *) a->httpd;
    if (extra != NULL) {
        argv[n++] = (char *) extra;
    }
    argv[n++] = (char *) "-DSTATUS";
    for (size_t i = 0; i < a->n_options; i++) {
        argv[n++] = a->options[i];
    }
    argv[n++] = (char *) "-f";
    argv[n++] = (char *) a->configfile;
    if (a->pid_directive) {
        snprintf(pid_directive, pd_len, "PidFile %s", a->pid_file);
        argv[n++] = (char *) "-c";
        argv[n++] = pid_directive;
    }
    argv[n] = NULL;
    return argv;
}

static int
httpd_configtest(const struct apache *a, uint64_t timeout_ms)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = httpd_argv(a, "-t", pid_directive, sizeof(pid_directive));
    int status = 0;

    if (argv == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    status = fm_ocf_run(argv, out, sizeof(out), NULL, timeout_ms);
    free(argv);
    if (status == 0) {
        return PCMK_OCF_OK;
    }
    {
        /* httpd's error takes two lines (where, then what): keep them on one. */
        char *line = out;

        for (char *p = out; *p != '\0'; p++) {
            if (*p == '\n' || *p == '\t') {
                *p = ' ';
            }
        }
        const char *name = strrchr(a->httpd, '/');
        size_t name_len = 0;

        name = (name != NULL)? name + 1 : a->httpd;
        name_len = strlen(name);
        while (*line == ' ') {
            line++;
        }
        /* "apache2: Syntax error on line 7 of FILE: ...": Pacemaker keeps
         * about 128 bytes of a reason, so httpd's own words come first. */
        if (strncmp(line, name, name_len) == 0 && line[name_len] == ':') {
            line += name_len + 1;
            while (*line == ' ') {
                line++;
            }
        }
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s -t: %s", name,
                           (line[0] != '\0')? line : "(no output) for configfile");
    }
}

/* Debian's apache2ctl creates the directories envvars names; httpd does not. */
static void
make_runtime_dirs(const struct apache *a)
{
    static const char *const dirs[] = { "APACHE_RUN_DIR", "APACHE_LOCK_DIR", "APACHE_LOG_DIR", NULL };
    char dir[FM_OCF_PATH_MAX];
    char *slash = NULL;

    for (size_t i = 0; dirs[i] != NULL; i++) {
        const char *path = getenv(dirs[i]);

        if (path != NULL && path[0] == '/' && fm_ocf_mkdir_p(path, 0755) == 0
            && strcmp(dirs[i], "APACHE_LOCK_DIR") == 0 && getenv("APACHE_RUN_USER") != NULL) {
            struct passwd *pw = getpwnam(getenv("APACHE_RUN_USER"));

            if (pw != NULL && chown(path, pw->pw_uid, (gid_t) -1) != 0) {
                fm_ocf_log(LOG_WARNING, "cannot give %s to %s: %s", path, pw->pw_name, strerror(errno));
            }
        }
    }
    snprintf(dir, sizeof(dir), "%s", a->pid_file);
    slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        fm_ocf_mkdir_p(dir, 0755);
    }
    if (a->conf.runtime_dir[0] == '/') {
        fm_ocf_mkdir_p(a->conf.runtime_dir, 0755);
    } else if (a->conf.runtime_dir[0] != '\0'
               && fm_ocf_fmt(dir, sizeof(dir), "%s/%s", a->conf.server_root, a->conf.runtime_dir)) {
        fm_ocf_mkdir_p(dir, 0755);
    }
}

/* Whether a TCP connection to HOST:PORT (an address, not a name) opens. */
static bool
tcp_answers(const char *host, uint16_t port)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int fd = -1;
    bool ok = false;

    memset(&ss, 0, sizeof(ss));
    if (strchr(host, ':') != NULL) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &ss;

        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(port);
        if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1) {
            return true;        /* not an address: leave it to the loop */
        }
        len = sizeof(*sin6);
    } else {
        struct sockaddr_in *sin = (struct sockaddr_in *) &ss;

        sin->sin_family = AF_INET;
        sin->sin_port = htons(port);
        if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
            return true;
        }
        len = sizeof(*sin);
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return false;
    }
    if (connect(fd, (struct sockaddr *) &ss, len) == 0) {
        ok = true;
    } else if (errno == EINPROGRESS) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int soerr = 0;
        socklen_t slen = sizeof(soerr);

        if (poll(&pfd, 1, 200) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) == 0) {
            ok = (soerr == 0);
        }
    }
    close(fd);
    return ok;
}

static bool
listens_answer(const struct apache *a)
{
    for (size_t i = 0; i < a->conf.n_listen; i++) {
        const struct fm_apache_listen *l = &a->conf.listen[i];
        const char *host = l->host;

        if (host[0] == '\0') {
            host = a->ipv6? "::1" : "127.0.0.1";
        } else if (strcmp(host, "::") == 0) {
            host = "::1";
        }
        if (!tcp_answers(host, l->port)) {
            return false;
        }
    }
    return true;
}

static int
httpd_start(struct apache *a)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = NULL;
    int status = 0;

    make_runtime_dirs(a);
    argv = httpd_argv(a, NULL, pid_directive, sizeof(pid_directive));
    if (argv == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    status = fm_ocf_run(argv, out, sizeof(out), NULL, fm_ocf_left_ms(a->ocf));
    free(argv);
    out[strcspn(out, "\n")] = '\0';
    if (status != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s did not start (status %d): %s", a->httpd, status,
                           (out[0] != '\0')? out : "(no output; see its ErrorLog)");
    }
    if (out[0] != '\0') {
        fm_ocf_log(LOG_INFO, "%s says: %s", a->httpd, out);
    }
    /* Up once its pid file names a live httpd and every Listen answers. */
    for (;;) {
        pid_t pid = httpd_pid(a->pid_file, a->httpd);

        if (pid != 0 && listens_answer(a)) {
            fm_ocf_log(LOG_INFO, "httpd is up (pid %ld)", (long) pid);
            return PCMK_OCF_OK;
        }
        if (fm_ocf_left_ms(a->ocf) == 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "httpd did not answer on every Listen address within the start timeout "
                               "(pid file %s)", a->pid_file);
        }
        fm_ocf_sleep_ms(50);
    }
}

/* Processes of this httpd: the program, with our configfile after -f. */
static size_t
find_httpd_processes(const struct apache *a, pid_t *pids, size_t max)
{
    DIR *proc = opendir("/proc");
    struct dirent *de = NULL;
    size_t n = 0;

    if (proc == NULL) {
        return 0;
    }
    while ((de = readdir(proc)) != NULL && n < max) {
        char path[64];
        char cmdline[8192];
        ssize_t len = 0;
        int fd = -1;
        pid_t pid = (pid_t) strtol(de->d_name, NULL, 10);

        if (pid <= 1 || pid == getpid() || !fm_ocf_pid_alive(pid, a->httpd)) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        len = read(fd, cmdline, sizeof(cmdline) - 1);
        close(fd);
        if (len <= 0) {
            continue;
        }
        cmdline[len] = '\0';
        for (char *arg = cmdline; arg < cmdline + len; arg += strlen(arg) + 1) {
            char *next = arg + strlen(arg) + 1;

            if (strcmp(arg, "-f") == 0 && next < cmdline + len && strcmp(next, a->configfile) == 0) {
                pids[n++] = pid;
                break;
            }
        }
    }
    closedir(proc);
    return n;
}

static bool
all_gone(const pid_t *pids, size_t n, uint64_t timeout_ms)
{
    uint64_t end_us = fm_ocf_now_us() + timeout_ms * 1000u;

    for (;;) {
        bool alive = false;

        for (size_t i = 0; i < n; i++) {
            alive = alive || fm_ocf_pid_alive(pids[i], NULL);
        }
        if (!alive) {
            return true;
        }
        if (fm_ocf_now_us() >= end_us) {
            return false;
        }
        fm_ocf_sleep_ms(50);
    }
}

/* A stopped process (SIGSTOP, a debugger) acts on no signal until it is
 * continued: follow each request with SIGCONT, as systemd does, or a stop
 * would wait the whole timeout for a hung httpd. */
static void
signal_continued(pid_t pid, int sig)
{
    kill(pid, sig);
    kill(pid, SIGCONT);
}

/* Graceful stop (SIGWINCH) for half of the time left, SIGTERM until most of
 * it is gone, then SIGKILL for every process of this httpd. */
static int
httpd_stop(struct apache *a, pid_t pid)
{
    pid_t pids[256];
    size_t n = 0;
    uint64_t left_ms = fm_ocf_left_ms(a->ocf);

    if (pid != 0) {
        fm_ocf_log(LOG_INFO, "graceful stop of httpd (pid %ld)", (long) pid);
        signal_continued(pid, SIGWINCH);
        if (!fm_ocf_wait_gone(pid, left_ms / 2)) {
            fm_ocf_log(LOG_WARNING, "httpd (pid %ld) still running after %" PRIu64 " ms; sending SIGTERM",
                       (long) pid, left_ms / 2);
            signal_continued(pid, SIGTERM);
            left_ms = fm_ocf_left_ms(a->ocf);
            fm_ocf_wait_gone(pid, (left_ms * 2) / 3);
        }
    }
    n = find_httpd_processes(a, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0) {
        for (size_t i = 0; i < n; i++) {
            signal_continued(pids[i], SIGTERM);
        }
        if (!all_gone(pids, n, fm_ocf_left_ms(a->ocf) / 2)) {
            fm_ocf_log(LOG_WARNING, "killing %zu remaining httpd process(es)", n);
            for (size_t i = 0; i < n; i++) {
                kill(pids[i], SIGKILL);
            }
            all_gone(pids, n, 1000);
        }
    }
    n = find_httpd_processes(a, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0 || (pid != 0 && fm_ocf_pid_alive(pid, NULL))) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "httpd (pid %ld) still running after SIGKILL",
                           (long) ((pid != 0)? pid : pids[0]));
    }
    /* A pid file left by a killed httpd would name a PID that another
     * program may get. */
    if (a->pid_directive || fm_ocf_read_pid_file(a->pid_file) != 0) {
        unlink(a->pid_file);
    }
    return PCMK_OCF_OK;
}

/* ---- the record ---- */

static void
write_record(const struct apache *a)
{
    struct fm_ocf_record rec;
    int rc = 0;

    memset(&rec, 0, sizeof(rec));
    fm_ocf_record_set(&rec, "agent", "apache");
    fm_ocf_record_set(&rec, "httpd", a->httpd);
    fm_ocf_record_set(&rec, "configfile", a->configfile);
    fm_ocf_record_set(&rec, "pid_file", a->pid_file);
    fm_ocf_record_set(&rec, "pid_directive", a->pid_directive? "1" : "0");
    fm_ocf_record_set(&rec, "port_list", a->port_list);
    fm_ocf_record_set(&rec, "status_url", a->status_url);
    fm_ocf_record_set(&rec, "base_url", a->base_url);
    fm_ocf_record_set(&rec, "Thorough_probe_interval", fm_ocf_param_or("Thorough_probe_interval", ""));
    fm_ocf_record_set(&rec, "Probe_timeout", fm_ocf_param_or("Probe_timeout", ""));
    rc = fm_ocf_record_write(a->ocf->state_dir, &rec);
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "cannot write %s/agent: %s", a->ocf->state_dir, strerror(rc));
    }
}

static const char *
rec_or(const struct fm_ocf_record *rec, const char *key, const char *dflt)
{
    const char *v = fm_ocf_record_get(rec, key);

    return (v != NULL)? v : dflt;
}

/* ---- actions ---- */

static int
check_resource_name(const struct fm_ocf *ocf)
{
    if (!ocf->have_state_dir) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "OCF_RESOURCE_INSTANCE '%s' is not a usable resource name (letters, digits, "
                           "'.', '_', '-', ':')", (ocf->resource != NULL)? ocf->resource : "");
    }
    return PCMK_OCF_OK;
}

/*
 * Pacemaker moves a resource once its fail-count reaches migration-threshold.
 * faultmon sets the fail-count to the restarts it counts within
 * Retry_interval at each start after a restart (see sync_failcount()), so a
 * threshold above Retry_count + 1 never moves the resource before faultmon
 * would; a lower one would make Retry_count false.  (0 and INFINITY: no
 * threshold.)
 */
static int
check_migration_threshold(const struct fm_ocf *ocf)
{
    char mt[64] = "";
    const char *rc_text = fm_ocf_param_or("Retry_count", "2");
    char *end = NULL;
    long threshold = 0;
    long retry_count = strtol(rc_text, &end, 10);

    /* Pacemaker does not pass it to agents: the CIB says. */
    if (*end != '\0' || !fm_ocf_meta_attr(ocf, "migration-threshold", mt, sizeof(mt))) {
        return PCMK_OCF_OK;
    }
    threshold = strtol(mt, &end, 10);
    if (*end != '\0' || threshold <= 0 || threshold > 1000000) {
        return PCMK_OCF_OK;
    }
    /* Restarts count once each from the start that follows them, but a
     * fail request may count twice until then: at the last restart the
     * fail-count may reach Retry_count + 1. */
    if (threshold <= retry_count + 1) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "migration-threshold=%ld would move %s before Retry_count=%ld restarts: unset it "
                           "(faultmon decides) or set it to %ld or more", threshold, ocf->resource,
                           retry_count, retry_count + 2);
    }
    return PCMK_OCF_OK;
}

/*
 * With heartbeat's parameters only, detect every fault at least as fast as
 * ocf:heartbeat:apache's monitor would: probe twice per monitor interval,
 * within at most half the monitor timeout.  A broken server is then seen
 * within half an interval (a crash at once: the loop watches httpd), and a
 * hang (two partial failures, a Probe_timeout each) within interval +
 * Probe_timeout, inside heartbeat's own bound: interval + its monitor's
 * timeout.
 */
static void
derive_timing(const struct fm_ocf *ocf)
{
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;
    char v[32];

    if (param_set("Thorough_probe_interval") && param_set("Probe_timeout")) {
        return;
    }
    if (!fm_ocf_monitor_op(ocf, &interval_ms, &timeout_ms)) {
        return;
    }
    if (timeout_ms == 0) {
        timeout_ms = 20000;         /* Pacemaker's default operation timeout */
    }
    if (!param_set("Thorough_probe_interval")) {
        uint64_t tpi_ms = interval_ms / 2;

        if (tpi_ms < 1000) {
            tpi_ms = 1000;
        }
        if (tpi_ms < 60000) {
            snprintf(v, sizeof(v), "%" PRIu64 "ms", tpi_ms);
            fm_ocf_param_set("Thorough_probe_interval", v);
        }
    }
    if (!param_set("Probe_timeout") && timeout_ms / 2 < 5000) {
        snprintf(v, sizeof(v), "%" PRIu64 "ms", (timeout_ms / 2 < 500)? 500 : timeout_ms / 2);
        fm_ocf_param_set("Probe_timeout", v);
    }
    fm_ocf_log(LOG_INFO, "monitor interval %" PRIu64 " ms, timeout %" PRIu64 " ms: Thorough_probe_interval %s, "
               "Probe_timeout %s", interval_ms, timeout_ms, fm_ocf_param_or("Thorough_probe_interval", "60s"),
               fm_ocf_param_or("Probe_timeout", "5s"));
}

/*
 * After a restart faultmon asked for: make Pacemaker's fail-count the number
 * of restarts faultmon counts within Retry_interval.  The controller counts
 * a fail request once or twice, and keeps counting past the window.
 */
static void
sync_failcount(const struct fm_ocf *ocf, const struct fm_run_state *prev)
{
    char name[FM_RESOURCE_NAME_MAX + 64];
    char value[32];
    char id[FM_RESOURCE_NAME_MAX];
    unsigned asked = fm_ocf_asked_count(ocf);
    unsigned restarts = prev->restarts_in_window;
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;

    snprintf(id, sizeof(id), "%s", ocf->resource);
    if (asked > restarts) {
        asked = restarts;
    }
    snprintf(name, sizeof(name), "fail-count-%s#asyncmon_0", id);
    snprintf(value, sizeof(value), "%u", asked);
    fm_ocf_attrd(ocf, name, (asked > 0)? value : NULL);
    if (fm_ocf_monitor_op(ocf, &interval_ms, &timeout_ms)) {
        snprintf(name, sizeof(name), "fail-count-%s#monitor_%" PRIu64, id, interval_ms);
        snprintf(value, sizeof(value), "%u", restarts - asked);
        fm_ocf_attrd(ocf, name, (restarts > asked)? value : NULL);
    }
    fm_ocf_log(LOG_INFO, "fail-count set to the %u restart(s) faultmon counts within Retry_interval", restarts);
}

static int
apache_validate(struct apache *a, bool configtest)
{
    int rc = check_resource_name(a->ocf);

    if (rc == PCMK_OCF_OK) {
        rc = apache_prepare(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = translate_params(a->port_list, a->status_url, a->base_url);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(a->ocf, NULL);
    }
    if (rc == PCMK_OCF_OK) {
        rc = check_migration_threshold(a->ocf);
    }
    if (rc == PCMK_OCF_OK) {
        rc = prepare_level10_test(a->base_url, true);
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_faultmon_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the faultmon program %s is missing", fm_ocf_faultmon_path());
    }
    if (rc == PCMK_OCF_OK && configtest) {
        /* httpd -t fails without them; /run is empty after a boot. */
        make_runtime_dirs(a);
        rc = httpd_configtest(a, (fm_ocf_left_ms(a->ocf) < 10000)? fm_ocf_left_ms(a->ocf) : 10000);
    }
    return rc;
}

/* A start is refused where faultmon decided to fail over, or while the
 * service is held for manual resume: that refusal is what moves it. */
static int
check_refusal(const struct fm_ocf *ocf)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[512];
    char path[FM_OCF_PATH_MAX + 16];
    int rc = PCMK_OCF_OK;

    if (st == NULL) {
        return PCMK_OCF_OK;
    }
    if (fm_state_read(ocf->state_dir, st, err, sizeof(err)) != 0) {
        free(st);
        return PCMK_OCF_OK;
    }
    snprintf(path, sizeof(path), "%s/resume", ocf->state_dir);
    if (st->pending == FM_ACTION_FAILOVER) {
        char reason[1024];

        fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
        /* Refuse once: after a cleanup, a start here works again. */
        fm_state_clear_pending(st);
        if (fm_state_write(ocf->state_dir, st, err, sizeof(err)) != 0) {
            fm_ocf_log(LOG_WARNING, "cannot clear the failover request: %s", err);
        }
        /* Pacemaker keeps about 128 bytes of a reason: the decision and
         * its cause first, then what the administrator can do. */
        if (st->decide.held != 0) {
            rc = fm_ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV,
                             "held for manual resume, not starting here: %s; run faultmon resume %s, "
                             "then a cleanup", reason, ocf->resource);
        } else {
            rc = fm_ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV,
                             "%s; not starting here until a cleanup of %s", reason, ocf->resource);
        }
    } else if (st->decide.held != 0 && access(path, F_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_INSUFFICIENT_PRIV,
                         "held for manual resume, not starting here: run faultmon resume %s, then a "
                         "cleanup (%s)", ocf->resource, st->reason);
    }
    free(st);
    return rc;
}

static int
apache_start(struct apache *a)
{
    struct fm_run_state *st = NULL;
    char err[512];
    pid_t pid = 0;
    bool heartbeat = heartbeat_mode();  /* before translate_params() adds targets */
    int rc = PCMK_OCF_OK;

    if (a->ocf->have_state_dir) {
        derive_timing(a->ocf);
    }
    rc = apache_validate(a, true);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_read(a->ocf->state_dir, st, err, sizeof(err)) == 0 && st->pending == FM_ACTION_RESTART
        && fm_state_loop_pid(a->ocf->state_dir) == 0) {
        sync_failcount(a->ocf, st);
    }
    free(st);
    st = NULL;
    pid = httpd_pid(a->pid_file, a->httpd);
    if (pid != 0 && fm_state_loop_pid(a->ocf->state_dir) != 0) {
        fm_ocf_log(LOG_INFO, "already running (httpd pid %ld)", (long) pid);
        write_record(a);
        return PCMK_OCF_OK;
    }
    if (pid == 0) {
        /* A loop left watching a dead httpd would rewrite the state while
         * it is judged here, and the loop started below replaces it. */
        if (!fm_ocf_loop_stop(a->ocf, 2000)) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
        }
        rc = check_refusal(a->ocf);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
        rc = httpd_start(a);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
    } else {
        fm_ocf_log(LOG_INFO, "httpd already running (pid %ld); starting its fault monitor", (long) pid);
    }
    rc = fm_state_dir_create(a->ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", a->ocf->state_dir, strerror(rc));
    }
    write_record(a);
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    /* The loop watches httpd's parent and finds its exit at once. */
    setenv("FAULTMON_WATCH_PIDFILE", a->pid_file, 1);
    rc = fm_ocf_loop_start(a->ocf, NULL, st);
    if (rc == PCMK_OCF_OK && heartbeat) {
        char failed[512];

        /* heartbeat's start fails unless its status check passes. */
        fm_ocf_first_failure(st, failed, sizeof(failed));
        if (failed[0] != '\0') {
            rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "started, but the first probe cycle failed: %s (%s)",
                             failed, st->reason);
        }
    }
    if (rc == PCMK_OCF_OK && fm_state_ocf_rc(st) != PCMK_OCF_OK
        && fm_state_ocf_rc(st) != PCMK_OCF_DEGRADED) {
        char failed[512];

        fm_ocf_first_failure(st, failed, sizeof(failed));
        rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "started, but the first probe cycle failed: %s (%s)",
                         failed, st->reason);
    }
    free(st);
    return rc;
}

static int
apache_stop(struct apache *a)
{
    struct fm_ocf_record rec;
    bool have_record = false;
    pid_t pid = 0;
    int rc = check_resource_name(a->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (!fm_ocf_loop_stop(a->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
    }
    have_record = (fm_ocf_record_read(a->ocf->state_dir, &rec) == 0);
    rc = resolve_params(a);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (have_record) {
        snprintf(a->httpd, sizeof(a->httpd), "%s", rec_or(&rec, "httpd", ""));
        snprintf(a->configfile, sizeof(a->configfile), "%s", rec_or(&rec, "configfile", a->configfile));
        snprintf(a->pid_file, sizeof(a->pid_file), "%s", rec_or(&rec, "pid_file", ""));
        a->pid_directive = (strcmp(rec_or(&rec, "pid_directive", "0"), "1") == 0);
    } else {
        /* Not started by us (or /run was emptied): what the configuration
         * says.  A stop must succeed when there is nothing to stop. */
        if (resolve_httpd(a) != PCMK_OCF_OK || load_envfiles(a) != PCMK_OCF_OK
            || read_config(a) != PCMK_OCF_OK) {
            fm_ocf_log(LOG_INFO, "cannot resolve httpd or its configuration; nothing to stop");
            return PCMK_OCF_OK;
        }
    }
    pid = httpd_pid(a->pid_file, a->httpd);
    rc = httpd_stop(a, pid);
    if (rc == PCMK_OCF_OK) {
        fm_ocf_record_remove(a->ocf->state_dir);
        fm_ocf_log(LOG_INFO, "stopped");
    }
    return rc;
}

/* No record: is an httpd of this configuration running anyway? */
static int
monitor_unrecorded(struct apache *a)
{
    pid_t pid = 0;

    if (resolve_params(a) != PCMK_OCF_OK || resolve_httpd(a) != PCMK_OCF_OK
        || load_envfiles(a) != PCMK_OCF_OK || read_config(a) != PCMK_OCF_OK) {
        return PCMK_OCF_NOT_RUNNING;
    }
    pid = httpd_pid(a->pid_file, a->httpd);
    if (pid == 0) {
        return PCMK_OCF_NOT_RUNNING;
    }
    fm_ocf_log(LOG_WARNING, "httpd (pid %ld, %s) runs without its fault monitor: not started by this agent",
               (long) pid, a->pid_file);
    return PCMK_OCF_OK;
}

static int
restart_loop(struct apache *a, const struct fm_ocf_record *rec, struct fm_run_state *st)
{
    int rc = translate_params(rec_or(rec, "port_list", ""), rec_or(rec, "status_url", ""),
                              rec_or(rec, "base_url", "http://127.0.0.1:80"));

    fm_ocf_log(LOG_WARNING, "the fault monitor is not running; restarting it");
    /* The timing derived from the monitor operation at start. */
    if (!param_set("Thorough_probe_interval") && rec_or(rec, "Thorough_probe_interval", "")[0] != '\0') {
        fm_ocf_param_set("Thorough_probe_interval", rec_or(rec, "Thorough_probe_interval", ""));
    }
    if (!param_set("Probe_timeout") && rec_or(rec, "Probe_timeout", "")[0] != '\0') {
        fm_ocf_param_set("Probe_timeout", rec_or(rec, "Probe_timeout", ""));
    }
    if (rc == PCMK_OCF_OK) {
        setenv("FAULTMON_WATCH_PIDFILE", rec_or(rec, "pid_file", ""), 1);
        rc = fm_ocf_loop_start(a->ocf, NULL, st);
    }
    if (rc != PCMK_OCF_OK) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor died and could not be restarted");
    }
    return PCMK_OCF_OK;
}

/*
 * The monitor found httpd dead.  That failure enters the loop's history as
 * a complete failure, like a failed probe, and the answer is the loop's
 * decision: 1 restart, 4 failover (fail-count INFINITY, as the ban it
 * causes), or degraded (fall not reached).  While a recovery the cluster
 * already knows of is pending (the loop's fail request, or an earlier
 * monitor's answer), it is the same outage: degraded, so that Pacemaker
 * counts it once.
 */
static int
monitor_httpd_dead(struct apache *a, const struct fm_ocf_record *rec)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char cause[FM_OCF_PATH_MAX + 64];
    char reason[1024];
    char err[512];
    int rc = 0;

    fm_ocf_fmt(cause, sizeof(cause), "httpd is not running (pid file %s)", rec_or(rec, "pid_file", "?"));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", cause);
    }
    if (fm_ocf_loop_reported(a->ocf) && fm_state_read(a->ocf->state_dir, st, err, sizeof(err)) == 0
        && st->pending != FM_ACTION_NONE) {
        const char *action = fm_action_name(st->pending);

        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        free(st);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", action, reason);
    }
    rc = fm_ocf_loop_event(a->ocf, "httpd is not running", st);
    if (rc == EALREADY) {
        const char *action = fm_action_name(st->pending);

        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        free(st);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", action, reason);
    }
    if (rc != 0) {
        free(st);
        /* No loop to decide: a plain soft failure, as before faultmon. */
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (the fault monitor could not decide: %s)", cause,
                           strerror(rc));
    }
    /* Pacemaker keeps 128 bytes: the pid file after the decision. */
    fm_ocf_short_decision(st, "httpd is not running", reason, sizeof(reason));
    fm_ocf_fmt(reason + strlen(reason), sizeof(reason) - strlen(reason), " (pid file %s)",
               rec_or(rec, "pid_file", "?"));
    rc = st->ocf_rc;
    if (rc == PCMK_OCF_INSUFFICIENT_PRIV && a->ocf->interval_ms > 0) {
        char name[FM_RESOURCE_NAME_MAX + 64];

        snprintf(name, sizeof(name), "fail-count-%s#monitor_%" PRIu64, a->ocf->resource, a->ocf->interval_ms);
        fm_ocf_attrd(a->ocf, name, "INFINITY");
    }
    free(st);
    if (rc == PCMK_OCF_OK) {
        rc = PCMK_OCF_DEGRADED;
    }
    return fm_ocf_fail(rc, "%s", reason);
}

static int
apache_monitor(struct apache *a, bool status_only)
{
    struct fm_ocf_record rec;
    struct fm_run_state *st = NULL;
    char err[512];
    pid_t pid = 0;
    bool heartbeat = heartbeat_mode();  /* before translate_params() adds targets */
    int rc = check_resource_name(a->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    /* Pacemaker probes (a monitor with interval 0, run by the cluster: it
     * names the node) after a cleanup or a refresh, when it has forgotten
     * this node's fail-count and failures: faultmon forgets its history
     * and decision here too. */
    if (!status_only && a->ocf->interval_ms == 0 && getenv("OCF_RESKEY_CRM_meta_on_node") != NULL) {
        fm_ocf_loop_reset(a->ocf);
    }
    rc = fm_ocf_record_read(a->ocf->state_dir, &rec);
    if (rc != 0) {
        return monitor_unrecorded(a);
    }
    /* No waiting for a pid file to reappear: Apache's graceful and full
     * restarts keep the parent's PID, so a dead PID means a dead httpd. */
    pid = httpd_pid(rec_or(&rec, "pid_file", ""), rec_or(&rec, "httpd", ""));
    if (pid == 0) {
        return status_only? PCMK_OCF_NOT_RUNNING : monitor_httpd_dead(a, &rec);
    }
    if (status_only) {
        return PCMK_OCF_OK;
    }
    /* As heartbeat's monitor: a configuration removed from this node makes
     * the service one that cannot be started here again. */
    if (access(rec_or(&rec, "configfile", "/"), F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile %s was removed from this node: httpd "
                           "(pid %ld) cannot be restarted here", rec_or(&rec, "configfile", "?"), (long) pid);
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_loop_pid(a->ocf->state_dir) == 0) {
        rc = restart_loop(a, &rec, st);
        if (rc != PCMK_OCF_OK) {
            goto done;
        }
    } else {
        rc = fm_state_read(a->ocf->state_dir, st, err, sizeof(err));
        if (rc == ENOENT) {
            /* Its first cycle is under way. */
            rc = PCMK_OCF_OK;
            goto done;
        }
        if (rc != 0) {
            fm_ocf_log(LOG_WARNING, "%s; the fault monitor replaces it", err);
            rc = PCMK_OCF_OK;
            goto done;
        }
    }
    {
        uint64_t stale_us = (2 * (st->interval_ms + st->probe_timeout_ms) + 30000) * 1000u;

        if (st->updated_mono_us + stale_us < fm_ocf_now_us()) {
            rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor has not written its state for %" PRIu64
                             " s: it is stuck", (fm_ocf_now_us() - st->updated_mono_us) / 1000000u);
            goto done;
        }
    }
    /* Only 0, 1, 4 or 190, from a state the reader fully checked. */
    rc = fm_state_ocf_rc(st);
    if ((rc == PCMK_OCF_OK || rc == PCMK_OCF_DEGRADED) && heartbeat) {
        char failed[512];

        /* heartbeat's monitor fails on any failed fetch of its status page;
         * a partial failure must not pass for health here.  It is one
         * complete failure of the loop's history, so that Retry_count
         * holds; the answer is the decision, never success. */
        fm_ocf_first_failure(st, failed, sizeof(failed));
        if (failed[0] != '\0') {
            char cause[600];
            char reason[1024];
            int ev = 0;

            fm_ocf_fmt(cause, sizeof(cause), "status check failed: %s", failed);
            ev = fm_ocf_loop_event(a->ocf, cause, st);
            if (ev == EALREADY) {
                fm_ocf_short_decision(st, cause, reason, sizeof(reason));
                rc = fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", fm_action_name(st->pending),
                                 reason);
            } else if (ev != 0) {
                rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", cause);
            } else {
                fm_ocf_short_decision(st, cause, reason, sizeof(reason));
                rc = (st->ocf_rc == PCMK_OCF_INSUFFICIENT_PRIV)? PCMK_OCF_INSUFFICIENT_PRIV : PCMK_OCF_UNKNOWN_ERROR;
                fm_ocf_fail(rc, "%s", reason);
            }
            goto done;
        }
    }
    if (rc != PCMK_OCF_OK) {
        char reason[1024];

        /* Target, cause and decision first: Pacemaker keeps only the start
         * of the reason. */
        fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
        if ((rc == PCMK_OCF_UNKNOWN_ERROR || rc == PCMK_OCF_INSUFFICIENT_PRIV) && fm_ocf_loop_reported(a->ocf)) {
            /* The loop's fail request already reported it: count it once. */
            rc = PCMK_OCF_DEGRADED;
            fm_ocf_fail(rc, "%s asked, under way: %s", fm_action_name(st->pending), reason);
            goto done;
        }
        fm_ocf_fail(rc, "%s", reason);
        goto done;
    }
    if (a->ocf->check_level >= 10) {
        uint64_t probe_timeout_ms = 0;

        rc = translate_params(rec_or(&rec, "port_list", ""), rec_or(&rec, "status_url", ""),
                              rec_or(&rec, "base_url", "http://127.0.0.1:80"));
        if (rc == PCMK_OCF_OK) {
            rc = fm_ocf_validate_loop_params(a->ocf, &probe_timeout_ms);
        }
        if (rc == PCMK_OCF_OK) {
            rc = prepare_level10_test(rec_or(&rec, "base_url", "http://127.0.0.1:80"), false);
        }
        if (rc == PCMK_OCF_OK) {
            rc = fm_ocf_fresh_probe(a->ocf, probe_timeout_ms);
        }
        /* As above: in heartbeat's mode a partial failure is a failure. */
        if (rc == PCMK_OCF_DEGRADED && heartbeat) {
            rc = PCMK_OCF_UNKNOWN_ERROR;
        }
    }

done:
    free(st);
    return rc;
}

int
fm_ocf_apache_main(struct fm_ocf *ocf)
{
    struct apache a;
    int rc = PCMK_OCF_UNIMPLEMENT_FEATURE;

    memset(&a, 0, sizeof(a));
    a.ocf = ocf;
    if (strcmp(ocf->action, "start") == 0) {
        rc = apache_start(&a);
    } else if (strcmp(ocf->action, "stop") == 0) {
        rc = apache_stop(&a);
    } else if (strcmp(ocf->action, "monitor") == 0) {
        rc = apache_monitor(&a, false);
    } else if (strcmp(ocf->action, "status") == 0) {
        rc = apache_monitor(&a, true);
        if (rc != PCMK_OCF_OK) {
            rc = PCMK_OCF_NOT_RUNNING;
        }
    } else if (strcmp(ocf->action, "validate-all") == 0) {
        rc = apache_validate(&a, true);
    }
    apache_clear(&a);
    return rc;
}
