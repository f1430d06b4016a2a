#!/usr/bin/env bash
# The CLI's keychain tests need a real Secret Service: gnome-keyring under a D-Bus session.
set -euo pipefail
if command -v gnome-keyring-daemon >/dev/null 2>&1 && command -v dbus-run-session >/dev/null 2>&1; then
  exit 0
fi
printf '\n== installing gnome-keyring and dbus (Debian packages)\n'
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends gnome-keyring dbus dbus-daemon >/dev/null
