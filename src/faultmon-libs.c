/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon-libs: the libraries faultmon loads with dlopen(), linked.
 *
 * faultmon loads libcrmcommon, libxml2 and OpenSSL only where it needs
 * them (src/pcmk/crmcommon.h, src/cmd/xml_load.h, src/probe/ssl_load.h),
 * and corosync's libcfg and libcmap when built with them
 * (src/run/corosync_load.h),
 * so the faultmon program no longer names them as its own dependencies,
 * and a package manager derives a package's dependencies from the
 * libraries its programs name (dpkg-shlibdeps, rpm's find-requires).  This
 * program names them all, with their versions as the packaging saw them,
 * so the package still depends on them; run, it prints the versions it
 * was linked with (what `faultmon` loads on a node).
 */
#include <config.h>

#include <stdio.h>

#include <crm/common/results.h>
#include <libxml/xmlversion.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#ifdef HAVE_LIBCFG
#include <corosync/cfg.h>
#include <corosync/cmap.h>
#endif

int
main(void)
{
    /* A call into each, so that no --as-needed link drops one. */
    xmlCheckVersion(LIBXML_VERSION);
    if (OPENSSL_init_ssl(0, NULL) != 1) {
        fprintf(stderr, "faultmon-libs: OpenSSL cannot be initialised\n");
        return 1;
    }
    printf("%s: %s\n", FM_CRMCOMMON_SONAME, pcmk_rc_str(pcmk_rc_ok));
    printf("%s: %s\n", FM_LIBXML2_SONAME, LIBXML_DOTTED_VERSION);
    printf("%s: %s\n", FM_LIBSSL_SONAME, OpenSSL_version(OPENSSL_VERSION));
#ifdef HAVE_LIBCFG
    /* Their addresses only, kept through volatile pointers: a call would
     * ask corosync. */
    __typeof__(corosync_cfg_initialize) *volatile cfg = corosync_cfg_initialize;
    __typeof__(cmap_initialize) *volatile cmap = cmap_initialize;

    printf("%s: %s\n", FM_LIBCFG_SONAME, (cfg != NULL)? "linked" : "missing");
    printf("%s: %s\n", FM_LIBCMAP_SONAME, (cmap != NULL)? "linked" : "missing");
#endif
    return 0;
}
