/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the nginx configuration reader of ocf:faultmon:nginx
 * (agents/web/ocf_nginx_conf.c), on a tree of files made from the input.
 *
 * Input and sandbox: fuzz_conf_tree.h (the main file is nginx.conf).
 *
 * Properties:
 *  - the reader ends (libFuzzer's -timeout), neither crashes nor leaks, and
 *    reads at most its file limit; its error is one terminated line;
 *  - what it derives is usable: when every listen names an IP address or
 *    none, the Port_list it makes from them is accepted by the run
 *    configuration; a pid file it names fits its buffer.
 */
#include <config.h>

#include <faultmon/runconf.h>

#include "fuzz_conf_tree.h"
#include "ocf_nginx.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    fuzz_conf_tree_init();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_web_conf *conf = NULL;
    char configfile[1024];
    char err[512];
    char buf[8192];
    int rc = 0;

    if (size > FUZZ_CONF_MAX) {
        return -1;
    }
    build_tree(data, size, "nginx.conf");
    conf = calloc(1, sizeof(*conf));
    if (conf == NULL) {
        abort();
    }
    snprintf(configfile, sizeof(configfile), "%s/nginx.conf", tree);
    memset(err, 'x', sizeof(err));
    err[sizeof(err) - 1] = '\0';
    sandboxed = true;
    rc = fm_nginx_conf_read(configfile, tree, conf, err, sizeof(err));
    sandboxed = false;
    if (rc != 0) {
        fm_fuzz_check_message(err, sizeof(err));
    }
    FM_FUZZ_CHECK(conf->n_files <= 2048, "%zu files read", conf->n_files);
    FM_FUZZ_CHECK(conf->n_listen <= FM_WEB_MAX_LISTEN, "%zu listen", conf->n_listen);
    FM_FUZZ_CHECK(memchr(conf->pid_file, '\0', sizeof(conf->pid_file)) != NULL, "pid not terminated");
    FM_FUZZ_CHECK(memchr(conf->status_location, '\0', sizeof(conf->status_location)) != NULL,
                  "status location not terminated");
    if (rc == 0 && listen_addresses_valid(conf)) {
        (void) fm_web_conf_pid_file(conf, buf, sizeof(buf));
        fm_web_conf_port_list(conf, false, buf, sizeof(buf));
        if (buf[0] != '\0') {
            struct fm_run_config cfg;

            fm_run_config_init(&cfg);
            FM_FUZZ_CHECK(fm_run_config_set(&cfg, "Port_list", buf, err, sizeof(err)) == 0,
                          "the Port_list '%s' from the listen directives is refused: %s", buf, err);
            fm_run_config_clear(&cfg);
        }
    }
    free(conf);
    return 0;
}
