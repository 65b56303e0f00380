# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/webserver.sh: real web servers on free loopback ports, for tests.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh first (for the cleanup registry), then:
#
#   ws_nginx_start || bail_out "nginx did not start"
#   ... probe http://127.0.0.1:$WS_HTTP_PORT/ and https://...:$WS_HTTPS_PORT/
#   ws_nginx_stop            # also run on exit, whatever happens
#
# ws_nginx_start sets:
#   WS_DIR          private temp dir (config, cert, logs, pid)
#   WS_HTTP_PORT    plain HTTP on 127.0.0.1 (and on ::1 when WS_HAVE_IPV6=1)
#   WS_HTTPS_PORT   HTTPS on the same addresses
#   WS_CERT         the throwaway self-signed certificate (CN=localhost,
#                   subjectAltName DNS:localhost, IP:127.0.0.1, IP:::1)
#   WS_ACCESS_LOG   access log, one line a request: "$request|$http_x_faultmon_test|$status"
#   WS_HAVE_IPV6    1 when nginx also listens on ::1
# Locations: /health returns 200 with WS_HEALTH_MARKER in the body, /boom
# returns 500, / returns 200 with WS_INDEX_MARKER, anything else 404.
#
# Needs: nginx (Debian nginx-light or nginx), openssl, python3.

WS_HEALTH_MARKER="faultmon-health-marker"
WS_INDEX_MARKER="faultmon-index-marker"
WS_NGINX=${WS_NGINX:-/usr/sbin/nginx}
WS_NGINX_PID=

# fm_free_port [V6]: a TCP port that is free on 127.0.0.1 (and on ::1 too when
# V6 is 1).  The port is released before use, so another process could take
# it meanwhile; the callers retry a failed start.
fm_free_port() {
    "${PYTHON3:-python3}" - "${1:-0}" <<'EOF'
import socket, sys
want_v6 = sys.argv[1] == "1"
for _ in range(50):
    s4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s4.bind(("127.0.0.1", 0))
    port = s4.getsockname()[1]
    if want_v6:
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        try:
            s6.bind(("::1", port))
        except OSError:
            s4.close()
            continue
        s6.close()
    s4.close()
    print(port)
    sys.exit(0)
sys.exit(1)
EOF
}

# fm_have_ipv6: true when ::1 can be bound.
fm_have_ipv6() {
    "${PYTHON3:-python3}" -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.bind(("::1", 0))
' 2>/dev/null
}

# fm_wait_port HOST PORT [SECONDS]: wait until a TCP connect succeeds.
fm_wait_port() {
    "${PYTHON3:-python3}" - "$1" "$2" "${3:-5}" <<'EOF'
import socket, sys, time
host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + secs
while time.monotonic() < end:
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.02)
sys.exit(1)
EOF
}

# fm_wait_port_closed PORT [SECONDS]: wait until nothing listens on TCP PORT
# (a server's children may keep its listening socket open for a while after
# the master is gone; a test of "refused" must not race them).  Asks the
# kernel's socket table, so it never connects to what it waits for.
# Returns 1 on time out, 2 when ss fails (never "closed" unasked).
fm_wait_port_closed() {
    local port=$1 tries=$((${2:-5} * 50)) out
    while [ "$tries" -gt 0 ]; do
        out=$(ss -Hltn "sport = :$port") || return 2
        [ -z "$out" ] && return 0
        sleep 0.02
        tries=$((tries - 1))
    done
    return 1
}

# ws_make_cert DIR: write DIR/cert.pem and DIR/key.pem.
ws_make_cert() {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
        -keyout "$1/key.pem" -out "$1/cert.pem" \
        -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
        >"$1/openssl.log" 2>&1
}

ws_write_nginx_conf() {
    local listen_v6_http='' listen_v6_https='' user_line=''
    # WS_LOG_FORMAT: another access log line, for a test that needs one
    # (nginx variables, such as $msec for the time of each request).
    # shellcheck disable=SC2016 # nginx's variables, not the shell's
    local log_format=${WS_LOG_FORMAT:-'$request|$http_x_faultmon_test|$status'}
    if [ "$WS_HAVE_IPV6" = 1 ]; then
        listen_v6_http="listen [::1]:$WS_HTTP_PORT;"
        listen_v6_https="listen [::1]:$WS_HTTPS_PORT ssl;"
    fi
    # As root, nginx would run its workers as nobody, who cannot read the
    # private temp dir; these are throwaway servers on loopback.
    if [ "$(id -u)" = 0 ]; then
        user_line="user root;"
    fi
    cat >"$WS_DIR/nginx.conf" <<EOF
# written by tests/lib/webserver.sh
$user_line
worker_processes 1;
daemon off;
master_process on;
pid $WS_DIR/nginx.pid;
error_log $WS_DIR/error.log info;

events {
    worker_connections 256;
}

http {
    access_log off;
    client_body_temp_path $WS_DIR/tmp/body;
    proxy_temp_path $WS_DIR/tmp/proxy;
    fastcgi_temp_path $WS_DIR/tmp/fastcgi;
    uwsgi_temp_path $WS_DIR/tmp/uwsgi;
    scgi_temp_path $WS_DIR/tmp/scgi;
    default_type text/plain;
    keepalive_timeout 5;
    log_format fmtest '$log_format';

    server {
        listen 127.0.0.1:$WS_HTTP_PORT;
        $listen_v6_http
        listen 127.0.0.1:$WS_HTTPS_PORT ssl;
        $listen_v6_https
        server_name localhost;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_certificate $WS_DIR/cert.pem;
        ssl_certificate_key $WS_DIR/key.pem;
        access_log $WS_DIR/access.log fmtest;

        location = / {
            return 200 "$WS_INDEX_MARKER\n";
        }
        location = /health {
            return 200 "$WS_HEALTH_MARKER\n";
        }
        location = /boom {
            return 500;
        }
        location / {
            return 404;
        }
    }
}
EOF
}

# ws_nginx_custom DIR HTTP_BLOCK: start an nginx of the test's own, whose
# configuration is the usual preamble (foreground, one worker, temp paths
# and logs in DIR) around HTTP_BLOCK (server blocks and http-level
# directives); stopped on exit.  Does not wait for its ports: the caller
# knows which they are (fm_wait_port).  Sets WS_CUSTOM_PID.
ws_nginx_custom() {
    local dir=$1 block=$2 user_line=''
    [ "$(id -u)" = 0 ] && user_line='user root;'
    mkdir -p "$dir/tmp" || return 1
    cat >"$dir/nginx.conf" <<EOF
$user_line
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log info;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    default_type text/plain;
$block
}
EOF
    "$WS_NGINX" -p "$dir" -c "$dir/nginx.conf" >"$dir/stdout.log" 2>&1 </dev/null &
    WS_CUSTOM_PID=$!
    fm_cleanup_add "kill -QUIT $WS_CUSTOM_PID 2>/dev/null; wait $WS_CUSTOM_PID 2>/dev/null"
}

# ws_nginx_start: start nginx in the foreground, in the background of this
# shell, on two free ports; wait until both answer.  Registers its own stop
# with fm_cleanup_add.  Returns non-zero (with diagnostics) if it cannot.
ws_nginx_start() {
    local attempt
    if [ ! -x "$WS_NGINX" ]; then
        diag "nginx not found at $WS_NGINX (apt-get install nginx-light)"
        return 1
    fi
    WS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-nginx.XXXXXX") || return 1
    fm_cleanup_add "ws_nginx_stop"
    mkdir -p "$WS_DIR/tmp" "$WS_DIR/logs"
    WS_CERT=$WS_DIR/cert.pem
    WS_ACCESS_LOG=$WS_DIR/access.log
    if ! ws_make_cert "$WS_DIR"; then
        diag "openssl could not make a certificate"
        diag_file "$WS_DIR/openssl.log"
        return 1
    fi
    WS_HAVE_IPV6=0
    if fm_have_ipv6; then
        WS_HAVE_IPV6=1
    fi
    for attempt in 1 2 3; do
        WS_HTTP_PORT=$(fm_free_port "$WS_HAVE_IPV6") || return 1
        WS_HTTPS_PORT=$(fm_free_port "$WS_HAVE_IPV6") || return 1
        [ "$WS_HTTP_PORT" != "$WS_HTTPS_PORT" ] || continue
        ws_write_nginx_conf
        : >"$WS_DIR/error.log"
        "$WS_NGINX" -p "$WS_DIR" -c "$WS_DIR/nginx.conf" \
            >"$WS_DIR/stdout.log" 2>&1 </dev/null &
        WS_NGINX_PID=$!
        if fm_wait_port 127.0.0.1 "$WS_HTTP_PORT" 5 &&
            fm_wait_port 127.0.0.1 "$WS_HTTPS_PORT" 5; then
            return 0
        fi
        diag "nginx did not start (attempt $attempt)"
        diag_file "$WS_DIR/error.log" "$WS_DIR/stdout.log"
        ws_nginx_kill
    done
    return 1
}

ws_nginx_kill() {
    local i
    if [ -n "$WS_NGINX_PID" ]; then
        # SIGQUIT: graceful; the master waits for its worker and removes its pid file.
        kill -QUIT "$WS_NGINX_PID" 2>/dev/null
        for i in $(seq 1 50); do
            kill -0 "$WS_NGINX_PID" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$WS_NGINX_PID" 2>/dev/null; then
            for i in $(ps -o pid= --ppid "$WS_NGINX_PID"); do
                kill -KILL "$i" 2>/dev/null
            done
            kill -KILL "$WS_NGINX_PID" 2>/dev/null
        fi
        wait "$WS_NGINX_PID" 2>/dev/null
        WS_NGINX_PID=
    fi
}

# ws_nginx_stop: stop nginx and remove its temp dir (idempotent).
ws_nginx_stop() {
    ws_nginx_kill
    if [ -n "${WS_DIR:-}" ] && [ -d "$WS_DIR" ]; then
        rm -rf "$WS_DIR"
    fi
    WS_DIR=
}

# ws_access_log_has FIXED-STRING: true when a line of the access log has it.
ws_access_log_has() {
    grep -qF -- "$1" "$WS_ACCESS_LOG" 2>/dev/null
}

# --- Apache httpd (optional: the scripts skip it when it is not installed) --
#
# ws_apache_start sets WA_DIR, WA_HTTP_PORT, WA_HTTPS_PORT, WA_CERT and
# WA_ACCESS_LOG like the nginx variables above.  /health is a real file with
# WS_HEALTH_MARKER in it; /boom answers 500; anything else missing is 404.
# WA_EXTRA_CONF: more lines for the configuration (another CustomLog).

WS_APACHE=${WS_APACHE:-/usr/sbin/apache2}
WS_APACHE_MODULES=${WS_APACHE_MODULES:-/usr/lib/apache2/modules}
WA_PID=

ws_have_apache() {
    [ -x "$WS_APACHE" ] && [ -f "$WS_APACHE_MODULES/mod_mpm_event.so" ] &&
        [ -f "$WS_APACHE_MODULES/mod_ssl.so" ]
}

ws_write_apache_conf() {
    local user_lines='' m
    if [ "$(id -u)" = 0 ]; then
        # Apache will not serve as root; its children run as www-data and
        # need to read the document root (the temp dir is made readable).
        user_lines="User www-data
Group www-data"
    fi
    {
        echo "# written by tests/lib/webserver.sh"
        echo "ServerRoot $WA_DIR"
        echo "ServerName localhost"
        echo "PidFile $WA_DIR/run/apache.pid"
        echo "DefaultRuntimeDir $WA_DIR/run"
        echo "ErrorLog $WA_DIR/error.log"
        echo "LogLevel warn"
        for m in mpm_event authz_core mime dir rewrite ssl socache_shmcb; do
            echo "LoadModule ${m}_module $WS_APACHE_MODULES/mod_$m.so"
        done
        echo "$user_lines"
        cat <<CONF
Listen 127.0.0.1:$WA_HTTP_PORT
Listen 127.0.0.1:$WA_HTTPS_PORT
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
Timeout 10
TypesConfig /dev/null
LogFormat "%r|%{X-Faultmon-Test}i|%>s" fmtest
CustomLog $WA_DIR/access.log fmtest
${WA_EXTRA_CONF:-}
SSLSessionCache shmcb:$WA_DIR/run/ssl_scache(51200)
DocumentRoot $WA_DIR/htdocs
<Directory />
    Require all granted
</Directory>
RewriteEngine on
RewriteRule ^/boom$ - [R=500]
<VirtualHost 127.0.0.1:$WA_HTTPS_PORT>
    SSLEngine on
    SSLCertificateFile $WA_DIR/cert.pem
    SSLCertificateKeyFile $WA_DIR/key.pem
    RewriteEngine on
    RewriteRule ^/boom$ - [R=500]
</VirtualHost>
CONF
    } >"$WA_DIR/apache.conf"
}

# ws_apache_start: start Apache in the foreground (-DFOREGROUND), in the
# background of this shell; wait until both ports answer.
ws_apache_start() {
    local attempt
    ws_have_apache || {
        diag "Apache not found at $WS_APACHE (apt-get install apache2)"
        return 1
    }
    WA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-apache.XXXXXX") || return 1
    fm_cleanup_add "ws_apache_stop"
    chmod 755 "$WA_DIR"
    mkdir -p "$WA_DIR/run" "$WA_DIR/htdocs"
    echo "$WS_HEALTH_MARKER" >"$WA_DIR/htdocs/health"
    echo "$WS_INDEX_MARKER" >"$WA_DIR/htdocs/index.html"
    chmod -R a+rX "$WA_DIR/htdocs"
    WA_CERT=$WA_DIR/cert.pem
    WA_ACCESS_LOG=$WA_DIR/access.log
    if ! ws_make_cert "$WA_DIR"; then
        diag "openssl could not make a certificate"
        diag_file "$WA_DIR/openssl.log"
        return 1
    fi
    for attempt in 1 2 3; do
        WA_HTTP_PORT=$(fm_free_port 0) || return 1
        WA_HTTPS_PORT=$(fm_free_port 0) || return 1
        [ "$WA_HTTP_PORT" != "$WA_HTTPS_PORT" ] || continue
        ws_write_apache_conf
        "$WS_APACHE" -f "$WA_DIR/apache.conf" -DFOREGROUND \
            >"$WA_DIR/stdout.log" 2>&1 </dev/null &
        WA_PID=$!
        if fm_wait_port 127.0.0.1 "$WA_HTTP_PORT" 5 &&
            fm_wait_port 127.0.0.1 "$WA_HTTPS_PORT" 5; then
            return 0
        fi
        diag "Apache did not start (attempt $attempt)"
        diag_file "$WA_DIR/error.log" "$WA_DIR/stdout.log"
        ws_apache_kill
    done
    return 1
}

ws_apache_kill() {
    local i
    if [ -n "$WA_PID" ]; then
        # SIGTERM: the parent stops its children and exits.
        kill -TERM "$WA_PID" 2>/dev/null
        for i in $(seq 1 50); do
            kill -0 "$WA_PID" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$WA_PID" 2>/dev/null; then
            for i in $(ps -o pid= --ppid "$WA_PID"); do
                kill -KILL "$i" 2>/dev/null
            done
            kill -KILL "$WA_PID" 2>/dev/null
        fi
        wait "$WA_PID" 2>/dev/null
        WA_PID=
    fi
}

# ws_apache_stop: stop Apache and remove its temp dir (idempotent).
ws_apache_stop() {
    ws_apache_kill
    if [ -n "${WA_DIR:-}" ] && [ -d "$WA_DIR" ]; then
        rm -rf "$WA_DIR"
    fi
    WA_DIR=
}
