#!/usr/bin/env bash
# Installs the load balancer the cluster tests put in front of several
# replicas: Debian's nginx at /usr/sbin/nginx (the tests start it themselves,
# in the foreground, with a generated configuration; the package's own
# service is kept from starting). Idempotent. Needs root (or sudo) when it
# has to install. Called by .ci/run and, when nginx is missing, by the test
# that needs it.
exec bash "$(dirname "$0")/apt-install.sh" nginx /usr/sbin/nginx nginx
