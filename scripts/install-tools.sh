#!/usr/bin/env bash
# Install the Debian tools the live tests run against 127.0.0.1, the load tools outside Debian the live sweeps
# drive (vegeta, bombardier, fortio, Locust), and the headless browser the report tests open pages in (idempotent).
# Tests that need a missing tool skip with a message when this could not run
# (no root, no apt): every test on committed fixtures still runs.
set -u
need=()
for pair in ab:apache2-utils siege:siege iperf:iperf iperf3:iperf3 haproxy:haproxy nginx:nginx-light \
            wrk:wrk hey:hey httperf:httperf socat:socat mpstat:sysstat vmstat:procps chromium:chromium; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$pkg")
done

# Load tools outside Debian, from their ordinary registries, pinned, into /usr/local/bin (root only; in the
# background, beside apt): vegeta, bombardier and fortio (Go modules), Locust (PyPI, in its own venv). Their live
# sweep tests skip when these are missing. fortio: 1.68.2, the last release without grol.io/grol among its modules
# (1.69 and later need it, and proxy.golang.org answers 403 for it here); its build takes about 50 s on two cores.
# Not here: k6 (AGPL; not installed by this project), oha (a crate whose build takes many minutes on two cores),
# JMeter (Debian's 2.13 needs xstream 1.4.17 put first on its class path).
GO_TOOLS="vegeta:github.com/tsenart/vegeta/v12@v12.13.0 bombardier:github.com/codesenberg/bombardier@v1.2.6
          fortio:fortio.org/fortio@v1.68.2"
LOCUST_VERSION=2.47.0
outside() {
  local pair cmd mod
  for pair in $GO_TOOLS; do
    cmd=${pair%%:*}; mod=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 && continue
    command -v go >/dev/null 2>&1 || { echo "install-tools: no go: $cmd not installed" >&2; continue; }
    GOBIN=/usr/local/bin go install "$mod" >/dev/null 2>&1 || echo "install-tools: go install $mod failed" >&2
  done
}
locust_venv() {
  command -v locust >/dev/null 2>&1 && return
  python3 -m venv /opt/lbanalysis-locust >/dev/null 2>&1 &&
    /opt/lbanalysis-locust/bin/pip install -q "locust==$LOCUST_VERSION" >/dev/null 2>&1 &&
    ln -sf /opt/lbanalysis-locust/bin/locust /usr/local/bin/locust ||
    echo "install-tools: pip install locust==$LOCUST_VERSION failed" >&2
}
root=0
[ "$(id -u)" = 0 ] && root=1
bg=()
if [ $root = 1 ] && [ -z "${LBANALYSIS_DEBIAN_ONLY:-}" ]; then
  outside & bg+=($!)
  locust_venv & bg+=($!)
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ $root = 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-tools: cannot install ${need[*]} (needs root and apt-get); live tests will skip" >&2
  else
    echo "install-tools: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || echo "install-tools: apt-get install failed; live tests will skip" >&2
    # Debian starts nginx on install; the tests start their own servers.
    command -v systemctl >/dev/null 2>&1 && systemctl stop nginx >/dev/null 2>&1 || true
  fi
fi
[ ${#bg[@]} -gt 0 ] && wait "${bg[@]}"
exit 0
