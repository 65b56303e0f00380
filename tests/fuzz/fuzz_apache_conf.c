/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the Apache configuration reader of ocf:faultmon:apache
 * (agents/web/ocf_apache_conf.c), on a tree of files made from the input.
 *
 * Input and sandbox: fuzz_conf_tree.h (the main file is httpd.conf).
 *
 * Properties:
 *  - the reader ends (libFuzzer's -timeout), neither crashes nor leaks, and
 *    reads at most its file limit; its error is one terminated line;
 *  - what it derives is usable: when every Listen names an IP address (as
 *    httpd demands) or none, the Port_list it makes from them is accepted by
 *    the run configuration; the base URL is a valid http URI.
 */
#include <config.h>

#include <faultmon/runconf.h>
#include <faultmon/target.h>

#include "fuzz_conf_tree.h"

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
    static char *const defines[] = { (char *) "SSL", (char *) "FOO" };
    struct fm_web_conf *conf = NULL;
    char configfile[1024];
    char err[512];
    char buf[8192];
    int rc = 0;

    if (size > FUZZ_CONF_MAX) {
        return -1;
    }
    build_tree(data, size, "httpd.conf");
    conf = calloc(1, sizeof(*conf));
    if (conf == NULL) {
        abort();
    }
    snprintf(configfile, sizeof(configfile), "%s/httpd.conf", tree);
    memset(err, 'x', sizeof(err));
    err[sizeof(err) - 1] = '\0';
    sandboxed = true;
    rc = fm_apache_conf_read(configfile, defines, 2, conf, err, sizeof(err));
    sandboxed = false;
    if (rc != 0) {
        fm_fuzz_check_message(err, sizeof(err));
    }
    FM_FUZZ_CHECK(conf->n_files <= 2048, "%zu files read", conf->n_files);
    FM_FUZZ_CHECK(conf->n_listen <= FM_WEB_MAX_LISTEN, "%zu Listen", conf->n_listen);
    if (rc == 0) {
        struct fm_run_config cfg;

        (void) fm_web_conf_pid_file(conf, buf, sizeof(buf));
        for (int ipv6 = 0; ipv6 <= 1 && listen_addresses_valid(conf); ipv6++) {
            struct fm_target t;

            fm_web_conf_port_list(conf, ipv6 != 0, buf, sizeof(buf));
            if (buf[0] != '\0') {
                fm_run_config_init(&cfg);
                FM_FUZZ_CHECK(fm_run_config_set(&cfg, "Port_list", buf, err, sizeof(err)) == 0,
                              "the Port_list '%s' from the Listen directives is refused: %s",
                              buf, err);
                fm_run_config_clear(&cfg);
            }
            fm_web_conf_base_url(conf, ipv6 != 0, 80, buf, sizeof(buf));
            strncat(buf, "/", sizeof(buf) - strlen(buf) - 1);
            FM_FUZZ_CHECK(fm_target_parse(buf, true, &t, err, sizeof(err)) == 0,
                          "the base URL '%s' is refused: %s", buf, err);
            fm_target_clear(&t);
        }
    }
    free(conf);
    return 0;
}
