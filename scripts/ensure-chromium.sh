#!/usr/bin/env bash
# Make sure a Chromium for the browser tests exists (Playwright cannot download its own here).
# Uses Debian's `chromium` package; CJK fonts so Chinese text renders in screenshots.
set -euo pipefail
for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    exit 0
  fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests ..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
  exit 0
fi
echo "No Chromium found. Install Debian's 'chromium' package (sudo apt-get install chromium)" \
     "or set CHROMIUM_PATH to a Chromium/Chrome binary." >&2
exit 1
