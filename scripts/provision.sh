#!/usr/bin/env bash
# What recap's test suite needs from the machine besides `npm ci`: redis-server and redis-cli
# (Redis 7+; tests start throwaway servers and clusters) and Debian's Chromium at /usr/bin/chromium
# (the dashboard's browser tests drive it with playwright-core, which downloads no browser).
# Shared by `npm test` (test/global-setup.ts) and .ci/run. As root with apt-get it installs what is
# missing; elsewhere it prints one line naming what to install and exits 1.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "provision: installing ${missing[*]} (apt-get)" >&2
  log=$(mktemp)
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq >"$log" 2>&1 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    rm -f "$log"
    exit 0
  fi
  tail -n 20 "$log" >&2
  echo "provision: apt-get could not install ${missing[*]} (its log: $log)" >&2
  exit 1
fi

echo "recap's tests need ${missing[*]}: install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}; Chromium must be at /usr/bin/chromium), then run the tests again" >&2
exit 1
