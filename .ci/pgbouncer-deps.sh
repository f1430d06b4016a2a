#!/usr/bin/env bash
# The pooler tests (packages/server/src/platform/storage/test/pooler) start private PgBouncers of their own on free ports: only the
# binary is needed. Debian's package would also start a system PgBouncer (127.0.0.1:6432) from its postinst;
# a policy-rc.d keeps it from starting during the install, and any instance running anyway is stopped.
set -euo pipefail
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then
  exit 0
fi
printf '\n== installing pgbouncer (Debian package)\n'
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
own_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  own_policy=true
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null
if [ "$own_policy" = true ]; then rm -f "$policy"; fi
if [ -f /var/run/postgresql/pgbouncer.pid ] || pgrep -x pgbouncer >/dev/null 2>&1; then
  (service pgbouncer stop || /etc/init.d/pgbouncer stop) >/dev/null 2>&1 || true
fi
/usr/sbin/pgbouncer --version
