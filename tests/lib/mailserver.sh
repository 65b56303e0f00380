# SPDX-License-Identifier: GPL-2.0-or-later
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
# process group to pause or stop.  MS_POSTFIX_MAIN_EXTRA (default empty):
# more lines of main.cf (a benchmark raises default_process_limit).
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
${MS_POSTFIX_MAIN_EXTRA:-}
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

DOVECOT=${DOVECOT:-$(command -v dovecot || echo /usr/sbin/dovecot)}

# ms_have_dovecot: true when Dovecot can be run here (root, its users).
ms_have_dovecot() {
    [ -x "$DOVECOT" ] && [ "$(id -u)" = 0 ] && getent passwd dovecot >/dev/null &&
        getent passwd dovenull >/dev/null
}

# ms_dovecot_start: Dovecot in the foreground (-F) in its own process group
# (MS_DOVECOT_PGID), its state and logs under FM_TMP, listening on
# MS_IMAP_PORT (STARTTLS offered), MS_IMAPS_PORT, MS_POP3_PORT (STLS
# offered) and MS_POP3S_PORT, with a certificate made here.
ms_dovecot_start() {
    local dir=$FM_TMP/dovecot
    MS_IMAP_PORT=$(fm_free_port) && MS_IMAPS_PORT=$(fm_free_port) &&
        MS_POP3_PORT=$(fm_free_port) && MS_POP3S_PORT=$(fm_free_port) || return 1
    mkdir -p "$dir/run" "$dir/state"
    chmod 755 "$FM_TMP" "$dir"
    ws_make_cert "$dir" || return 1
    cat >"$dir/dovecot.conf" <<EOC
base_dir = $dir/run
state_dir = $dir/state
log_path = $dir/log
info_log_path = $dir/log
protocols = imap pop3
listen = 127.0.0.1
ssl = yes
ssl_cert = <$dir/cert.pem
ssl_key = <$dir/key.pem
default_internal_user = dovecot
default_login_user = dovenull
passdb {
  driver = static
  args = password=faultmon-test
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=$dir/home
}
service imap-login {
  inet_listener imap {
    port = $MS_IMAP_PORT
  }
  inet_listener imaps {
    port = $MS_IMAPS_PORT
    ssl = yes
  }
}
service pop3-login {
  inet_listener pop3 {
    port = $MS_POP3_PORT
  }
  inet_listener pop3s {
    port = $MS_POP3S_PORT
    ssl = yes
  }
}
EOC
    setsid "$DOVECOT" -c "$dir/dovecot.conf" -F >"$dir/stdout" 2>&1 </dev/null &
    MS_DOVECOT_PGID=$!
    MS_DOVECOT_DIR=$dir
    fm_cleanup_add "ms_dovecot_stop"
    fm_wait_port 127.0.0.1 "$MS_IMAP_PORT" 10 && fm_wait_port 127.0.0.1 "$MS_POP3S_PORT" 5
}

# ms_dovecot_stop: stop its whole process group.
ms_dovecot_stop() {
    [ -n "$MS_DOVECOT_PGID" ] || return 0
    kill -CONT -- "-$MS_DOVECOT_PGID" 2>/dev/null
    kill -TERM -- "-$MS_DOVECOT_PGID" 2>/dev/null
    for _ in $(seq 1 60); do
        kill -0 -- "-$MS_DOVECOT_PGID" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL -- "-$MS_DOVECOT_PGID" 2>/dev/null
    MS_DOVECOT_PGID=
}
