#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster for tests and local runs:
# initdb as the `postgres` user in a new temporary directory, listening on
# 127.0.0.1 on a free port, trust authentication. Installs Debian's
# postgresql-15 first when it is missing (needs root and apt-get).
#
# Prints one line, the connection URL (postgres://postgres@127.0.0.1:PORT/postgres),
# and writes it with the data directory to $TASKWIRE_PG_ENV (default
# /tmp/taskwire-postgres.env) so scripts/stop-postgres.sh can stop it.
# One state file per cluster: while the cluster of that file runs, a second
# start with the same file refuses (exit 1, saying so) rather than orphan it;
# give each cluster its own file to run several. $TASKWIRE_PG_OPTIONS, when
# set, adds server settings (`-c name=value ...`, e.g. a preloaded library).
#
#   export TASKWIRE_TEST_DATABASE_URL="$(bash scripts/start-postgres.sh)"
#   TASKWIRE_PG_ENV=/tmp/pg-other.env bash scripts/start-postgres.sh   # a second cluster
set -euo pipefail

PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}"
ENV_FILE="${TASKWIRE_PG_ENV:-/tmp/taskwire-postgres.env}"

if [ ! -x "$PGBIN/initdb" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL 15 is not installed at $PGBIN: install Debian's postgresql-15 (apt-get install postgresql-15) or set PGBIN" >&2
    exit 1
  fi
  echo "installing postgresql-15 (apt-get)" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
fi

running_cluster() {
  [ -f "$ENV_FILE" ] || return 1
  # shellcheck disable=SC1090
  . "$ENV_FILE"
  [ -f "$TASKWIRE_PG_DATA/data/postmaster.pid" ] && kill -0 "$(head -1 "$TASKWIRE_PG_DATA/data/postmaster.pid")" 2>/dev/null
}

if running_cluster; then
  echo "A cluster started with the state file $ENV_FILE is still running ($TASKWIRE_PG_URL)." >&2
  echo "Stop it first (TASKWIRE_PG_ENV=$ENV_FILE bash scripts/stop-postgres.sh), or give this one its own state file (TASKWIRE_PG_ENV=/tmp/pg-NAME.env)." >&2
  exit 1
fi

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

DATA="$(mktemp -d /tmp/taskwire-pg.XXXXXX)"
[ "$(id -u)" -eq 0 ] && chown postgres "$DATA"
PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

as_postgres "'$PGBIN/initdb' -D '$DATA/data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >/dev/null
as_postgres "'$PGBIN/pg_ctl' -D '$DATA/data' -l '$DATA/log' -w -t 60 start -o \"-p $PORT -k '$DATA' -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB ${TASKWIRE_PG_OPTIONS:-}\"" >/dev/null

URL="postgres://postgres@127.0.0.1:$PORT/postgres"
printf 'TASKWIRE_PG_DATA=%s\nTASKWIRE_PG_URL=%s\n' "$DATA" "$URL" > "$ENV_FILE"
echo "$URL"
