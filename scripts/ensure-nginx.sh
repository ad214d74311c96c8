#!/usr/bin/env bash
# Make sure Debian's nginx is there: the replica test and `make serve-replicas` run it in front of
# several Streamlit processes (from a temporary folder, never as the system service).
#   ensure-nginx.sh   fail when it cannot be had (the test needs it)
set -euo pipefail

have_nginx() {
  for candidate in "${NGINX_PATH:-}" "$(command -v nginx || true)" /usr/sbin/nginx; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then return 0; fi
  done
  return 1
}

if have_nginx; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's nginx ..." >&2
  apt-get update -qq
  # The package starts its system service where it can (and fails to configure where port 80 is
  # taken): neither matters here, the binary is what is needed.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null || true
  if have_nginx; then
    # nginx was not there a moment ago, so a running system nginx is the package's: stop it.
    if [ -s /run/nginx.pid ]; then /usr/sbin/nginx -s quit 2>/dev/null || true; fi
    exit 0
  fi
fi
echo "nginx is missing. Install Debian's 'nginx' package (sudo apt-get install nginx), or set
NGINX_PATH to an nginx binary." >&2
exit 1
