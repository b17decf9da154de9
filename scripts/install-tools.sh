#!/usr/bin/env bash
# Install the Debian tools the live tests run against 127.0.0.1, and the
# headless browser the report tests open pages in (idempotent).
# Tests that need a missing tool skip with a message when this could not run
# (no root, no apt): every test on committed fixtures still runs.
set -u
need=()
for pair in ab:apache2-utils siege:siege iperf:iperf iperf3:iperf3 haproxy:haproxy nginx:nginx-light \
            wrk:wrk hey:hey httperf:httperf socat:socat mpstat:sysstat vmstat:procps chromium:chromium; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-tools: cannot install ${need[*]} (needs root and apt-get); live tests will skip" >&2
  exit 0
fi
echo "install-tools: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || echo "install-tools: apt-get install failed; live tests will skip" >&2
# Debian starts nginx on install; the tests start their own servers.
command -v systemctl >/dev/null 2>&1 && systemctl stop nginx >/dev/null 2>&1 || true
exit 0
