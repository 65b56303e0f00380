# tests/lib/mailserver.sh: a throwaway Postfix for the protocol tests, on
# free loopback ports, as an ordinary process group (never systemd), its
# configuration, queue and data under FM_TMP, stopped on exit.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh, tests/lib/probe.sh and tests/lib/webserver.sh
# first.

POSTFIX=${POSTFIX:-$(command -v postfix || echo /usr/sbin/postfix)}

# ms_have_postfix: true when Postfix can be run here (root, its user).
ms_have_postfix() {
    [ -x "$POSTFIX" ] && [ "$(id -u)" = 0 ] && getent passwd postfix >/dev/null &&
        getent group postdrop >/dev/null
}

# ms_postfix_start: Postfix with three smtpd services: MS_SMTP_PORT (plain,
# STARTTLS offered), MS_SMTPS_PORT (TLS from the start) and MS_REJECT_PORT,
# which answers a connection with a 554 instead of its banner
# (smtpd_delay_reject=no with a client restriction that rejects every
# client: smtpd says the rejection where the 220 would be).  MS_PGID is the
# process group to pause or stop.
ms_postfix_start() {
    local dir=$FM_TMP/postfix port
    port=$(fm_free_port) || return 1
    MS_SMTP_PORT=$port
    MS_SMTPS_PORT=$(fm_free_port) || return 1
    MS_REJECT_PORT=$(fm_free_port) || return 1
    mkdir -p "$dir/conf" "$dir/queue" "$dir/data"
    # The postfix user reaches its queue and data through FM_TMP.
    chmod 755 "$FM_TMP" "$dir"
    chown postfix "$dir/data"
    ws_make_cert "$dir/conf" || return 1
    cat >"$dir/conf/main.cf" <<EOC
compatibility_level = 3.6
queue_directory = $dir/queue
data_directory = $dir/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = faultmon-test.invalid
mydestination =
smtpd_banner = \$myhostname ESMTP faultmon-test
maillog_file = /dev/stdout
smtpd_tls_cert_file = $dir/conf/cert.pem
smtpd_tls_key_file = $dir/conf/key.pem
smtpd_tls_security_level = may
EOC
    cat >"$dir/conf/master.cf" <<EOC
127.0.0.1:$MS_SMTP_PORT inet n - n - - smtpd
127.0.0.1:$MS_SMTPS_PORT inet n - n - - smtpd -o smtpd_tls_wrappermode=yes
127.0.0.1:$MS_REJECT_PORT inet n - n - - smtpd -o smtpd_delay_reject=no -o smtpd_client_restrictions=reject
anvil unix - - n - 1 anvil
proxymap unix - - n - - proxymap
tlsmgr unix - - n 1000? 1 tlsmgr
postlog unix-dgram n - n - 1 postlogd
EOC
    setsid "$POSTFIX" -c "$dir/conf" start-fg >"$dir/log" 2>&1 </dev/null &
    MS_PGID=$!
    MS_DIR=$dir
    fm_cleanup_add "ms_postfix_stop"
    fm_wait_port 127.0.0.1 "$MS_SMTP_PORT" 10 && fm_wait_port 127.0.0.1 "$MS_REJECT_PORT" 5
}

# ms_postfix_stop: stop the whole process group (master and its smtpd).
ms_postfix_stop() {
    [ -n "$MS_PGID" ] || return 0
    kill -CONT -- "-$MS_PGID" 2>/dev/null
    kill -TERM -- "-$MS_PGID" 2>/dev/null
    for _ in $(seq 1 60); do
        kill -0 -- "-$MS_PGID" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL -- "-$MS_PGID" 2>/dev/null
    MS_PGID=
}
