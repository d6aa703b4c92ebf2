#!/usr/bin/env bash
# Throwaway redis-server and PostgreSQL 15 on 127.0.0.1, on free ports, for the shared-state
# backend tests (no systemd): installs them when missing (Debian's packages, versions pinned by
# glob: an exact Debian revision disappears when a security update lands), starts both, exports
# TOOLSMITH_REDIS_URL and TOOLSMITH_PG_URL, runs the command it is given, and stops both (and
# removes their files) when it exits. Usage: bash .ci/services.sh cargo test --workspace
set -euo pipefail
sudo=""; if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
need=()
command -v redis-server >/dev/null || need+=('redis-server=5:7.0.*')
ls /usr/lib/postgresql/15/bin/initdb >/dev/null 2>&1 || need+=('postgresql-15=15.*')
if [ ${#need[@]} -gt 0 ]; then
  # A fresh install must not start the packages' own servers on the default ports.
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $sudo tee /etc/postgresql-common/createcluster.d/00-toolsmith-ci.conf >/dev/null
  # On standard error: standard output is the command's own (the benchmark's table).
  $sudo apt-get update >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${need[@]}" >&2
fi

svc="$(mktemp -d "${TMPDIR:-/tmp}/toolsmith-svc.XXXXXX")"
# Free ports, asked of the kernel (a port bound and released at once is free for the servers).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
REDIS_PORT="$(free_port)"
PG_PORT="$(free_port)"
PGBIN=/usr/lib/postgresql/15/bin

# as_pg: run a PostgreSQL server binary as an unprivileged user (initdb/postgres refuse root).
if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$svc"   # the Debian package creates the postgres user
  as_pg() { (cd "$svc" && runuser -u postgres -- "$@"); }
else
  as_pg() { "$@"; }
fi

stop_services() {
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  as_pg "$PGBIN/pg_ctl" -D "$svc/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$svc"
}
trap stop_services EXIT

# --- redis: no persistence, daemonized, files in $svc ---
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$svc" --daemonize yes --pidfile "$svc/redis.pid" --logfile "$svc/redis.log" \
  --enable-debug-command local
for _ in $(seq 1 100); do redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping | grep -q PONG || { cat "$svc/redis.log" >&2; exit 1; }

# --- postgres: trust auth on 127.0.0.1 only, socket in $svc, no fsync (throwaway) ---
as_pg "$PGBIN/initdb" -D "$svc/pg" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$svc/initdb.log" \
  || { cat "$svc/initdb.log" >&2; exit 1; }
as_pg "$PGBIN/pg_ctl" -D "$svc/pg" -l "$svc/pg.log" -w -t 30 -o "-c listen_addresses=127.0.0.1 \
  -c port=$PG_PORT -c unix_socket_directories=$svc -c fsync=off -c synchronous_commit=off \
  -c full_page_writes=off" start >/dev/null || { cat "$svc/pg.log" >&2; exit 1; }
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c 'CREATE DATABASE toolsmith_test'

export TOOLSMITH_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"
export TOOLSMITH_PG_URL="postgresql://postgres@127.0.0.1:$PG_PORT/toolsmith_test"
echo "services: redis $(redis-cli -p "$REDIS_PORT" INFO server | grep -o 'redis_version:[0-9.]*'), $(psql -X -At "$TOOLSMITH_PG_URL" -c 'show server_version')"
# The EXIT trap stops both servers and removes $svc.
"$@"
