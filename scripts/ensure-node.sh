#!/usr/bin/env bash
# Make sure Node.js 18 or newer is there: tests/test_chart_js.py runs the chart element's unit
# tests (tests/js/, the browser code of ui/chart/) with Node's built-in test runner (`node
# --test`; no npm package is needed, nothing is downloaded but Debian's nodejs).
#   As root with apt-get: Debian's nodejs is installed when node is missing or too old.
#   Otherwise: fail with what to install (the test fails, never skips, without node).
set -euo pipefail
minimum=18

major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
have_node() { command -v node >/dev/null && [ "$(major)" -ge "$minimum" ]; }

if have_node; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's nodejs ..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
  have_node && exit 0
fi
echo "Node.js $minimum or newer is missing (the chart element's unit tests run under it). Install
Debian's 'nodejs' package (sudo apt-get install nodejs) or any Node.js >= $minimum on the PATH." >&2
exit 1
