#!/usr/bin/env bash
# Stops the cluster scripts/start-postgres.sh started and removes its directory.
set -euo pipefail
PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}"
ENV_FILE="${TASKWIRE_PG_ENV:-/tmp/taskwire-postgres.env}"
[ -f "$ENV_FILE" ] || exit 0
# shellcheck disable=SC1090
. "$ENV_FILE"
if [ "$(id -u)" -eq 0 ]; then
  su postgres -s /bin/sh -c "'$PGBIN/pg_ctl' -D '$TASKWIRE_PG_DATA/data' -m fast -w stop" >/dev/null || true
else
  "$PGBIN/pg_ctl" -D "$TASKWIRE_PG_DATA/data" -m fast -w stop >/dev/null || true
fi
rm -rf "$TASKWIRE_PG_DATA" "$ENV_FILE"
