# Sourced by scripts/test.sh and Benchmarks/postgres.sh: a private PostgreSQL cluster on 127.0.0.1.
#
# install_postgres     installs Debian's PostgreSQL if missing (scripts/test.sh calls it beside the build, so that a
#                      fresh machine's download does not wait for the build to end).
# start_postgres DIR   installs Debian's PostgreSQL if missing, creates a cluster in DIR
#                      (initdb, password auth over TCP, a free port), starts it and creates the
#                      database; exports OAUTHFLOW_TEST_PG_{HOST,PORT,USER,PASSWORD,DATABASE}.
# stop_postgres        stops it (immediate shutdown) and deletes DIR.
#
# initdb refuses to run as root: as root the cluster belongs to the `postgres` system user.

pg_cluster=""

pg_run() {
    if [ "$(id -u)" = 0 ]; then
        # From /, which the postgres user can always enter.
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

postgres_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true
}

install_postgres() {
    local bin
    bin=$(postgres_bin)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        echo "PostgreSQL not found; installing it with apt-get" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
}

start_postgres() {
    pg_cluster="$1"
    install_postgres
    local bin
    bin=$(postgres_bin)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        echo "error: PostgreSQL's initdb is not in /usr/lib/postgresql/*/bin after installing it" >&2
        return 1
    fi
    rm -rf "$pg_cluster"
    mkdir -p "$pg_cluster"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$pg_cluster"
        # The postgres user must reach the folder; a checkout under a private home (/root) is out of its reach.
        if ! pg_run test -w "$pg_cluster"; then
            rm -rf "$pg_cluster"
            pg_cluster=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-postgres.XXXXXX")
            chown postgres: "$pg_cluster"
            echo "PostgreSQL cluster in $pg_cluster (the postgres user cannot reach the build folder)" >&2
        fi
    fi
    local password
    password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    printf '%s\n' "$password" >"$pg_cluster/pwfile"
    chmod 600 "$pg_cluster/pwfile"
    if [ "$(id -u)" = 0 ]; then chown -R postgres: "$pg_cluster"; fi
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    pg_run "$bin/initdb" -D "$pg_cluster/data" -U oauthflow --pwfile="$pg_cluster/pwfile" \
        --auth-host=scram-sha-256 --auth-local=scram-sha-256 -E UTF8 --no-locale >"$pg_cluster/initdb.log" 2>&1 || {
        echo "error: initdb failed:" >&2
        cat "$pg_cluster/initdb.log" >&2
        return 1
    }
    rm -f "$pg_cluster/pwfile"
    pg_run "$bin/pg_ctl" -D "$pg_cluster/data" -l "$pg_cluster/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_cluster -c max_connections=200" start >/dev/null || {
        echo "error: PostgreSQL did not start:" >&2
        cat "$pg_cluster/server.log" >&2
        return 1
    }
    PGPASSWORD="$password" "$bin/psql" -q -h 127.0.0.1 -p "$port" -U oauthflow -d postgres \
        -c "CREATE DATABASE oauthflow_test" >/dev/null
    export OAUTHFLOW_TEST_PG_HOST=127.0.0.1
    export OAUTHFLOW_TEST_PG_PORT="$port"
    export OAUTHFLOW_TEST_PG_USER=oauthflow
    export OAUTHFLOW_TEST_PG_PASSWORD="$password"
    export OAUTHFLOW_TEST_PG_DATABASE=oauthflow_test
    pg_bin="$bin"
    echo "PostgreSQL: postgresql://oauthflow@127.0.0.1:$port/oauthflow_test ($("$bin/postgres" --version))" >&2
}

stop_postgres() {
    if [ -n "$pg_cluster" ] && [ -d "$pg_cluster/data" ]; then
        pg_run "$pg_bin/pg_ctl" -D "$pg_cluster/data" -m immediate stop >/dev/null 2>&1 || true
        # What the server refused or broke off, counted, before the log goes with the cluster: a test
        # that timed out waiting for it is explained here ("too many clients", a terminated backend).
        if [ -f "$pg_cluster/server.log" ]; then
            { grep -E 'FATAL|PANIC' "$pg_cluster/server.log" || true; } | sed -E 's/^([^ ]+ ){4}//' | sort | uniq -c | sort -rn | head -n 10 \
                | sed 's/^/PostgreSQL server log: /' >&2 || true
        fi
        rm -rf "$pg_cluster"
    fi
    pg_cluster=""
}
