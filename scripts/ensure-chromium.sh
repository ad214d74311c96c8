#!/usr/bin/env bash
# Make sure Debian's Chromium and CJK fonts are there: the browser tests drive that Chromium
# (Playwright cannot download its own here), the Export menu's PNG/SVG are drawn by it (kaleido),
# and Chinese text needs a CJK font in both.
#   ensure-chromium.sh             fail when they cannot be had (the tests need them)
#   ensure-chromium.sh --optional  only warn (the app runs without them; export says why)
set -euo pipefail
optional=false
[ "${1:-}" = "--optional" ] && optional=true

have_chromium() {
  for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then return 0; fi
  done
  return 1
}
have_cjk_font() {
  command -v fc-list >/dev/null && [ -n "$(fc-list :lang=zh family 2>/dev/null | head -n 1)" ]
}

if have_chromium && have_cjk_font; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium and fonts-noto-cjk ..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
  exit 0
fi
message="Chromium and/or a CJK font are missing. Install Debian's 'chromium' and 'fonts-noto-cjk'
packages (sudo apt-get install chromium fonts-noto-cjk), or set CHROMIUM_PATH to a Chromium."
if $optional; then
  echo "Warning: $message The app runs; its Export menu will say PNG/SVG are unavailable." >&2
  exit 0
fi
echo "$message" >&2
exit 1
