#!/usr/bin/env bash
# The console's browser tests (packages/server/src/features/console/test/browser.test.ts) drive Debian's headless
# Chromium with playwright-core (no browser download): only the package is needed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
printf '\n== installing chromium (Debian package)\n'
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
