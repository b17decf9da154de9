#!/usr/bin/env bash
# Rebuild the multi-ab measurements of article 004 (lbbench) on THIS machine.
#
# Starts K node.js backends and HAProxy in front of them, on 127.0.0.1 only,
# ports 19000-19999 only; then for P = 1..4 ab processes launched at once
# (each `ab -k -c 20 -n 20000` against HAProxy), 3 repetitions, and writes
# every ab process's full output (stdout + stderr) as a transcript:
#
#   <P>_ab/rep-<r>/ab-<i>.txt   (first line: "$ ab ..." prompt line)
#
# plus manifest.csv and MACHINE.md. Everything it starts is stopped by pid
# on exit. Refuses to overwrite earlier outputs (data/raw is immutable):
# move them away first if you really mean to re-run.
#
# The load generator shares the machine with the servers, and other people
# may share it too. Before each block (one P, one repetition) the script
# waits (<= 120 s) for the machine to be quiet, else skips the try; it
# accounts the CPU time of the block (ours: ab, haproxy, backends; kernel
# threads; everything else) and re-runs the block (<= 10 tries) when other
# processes took more than MAX_OTHER_PCT (default 5) % of the busy time or
# an ab process failed. A block never clean discards the session (exit 1,
# nothing written here).
# Outputs are staged in a temp dir and moved here at the end.
#
# Usage: data/raw/lbbench-local/make_runs.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOST=127.0.0.1
K=4                     # node backends
BACKEND_PORT0=19001     # backends on 19001..19000+K
LB_PORT=19080           # HAProxy frontend
PS="1 2 3 4"            # ab processes launched at once
REPS=3
AB_C=20
AB_N=20000
AB_TIMEOUT_S=10         # ab -s: per-request socket timeout
AB_WALL_S=120           # hard bound on each ab process (coreutils timeout)
MAX_OTHER_PCT="${MAX_OTHER_PCT:-5}"  # refuse the session if other processes took more
URL="http://$HOST:$LB_PORT/"

for p in $(seq "$BACKEND_PORT0" $((BACKEND_PORT0 + K - 1))) "$LB_PORT"; do
  if [ "$p" -lt 19000 ] || [ "$p" -gt 19999 ]; then
    echo "port $p outside 19000-19999" >&2; exit 2
  fi
  if (exec 3<>"/dev/tcp/$HOST/$p") 2>/dev/null; then
    echo "port $p already in use on $HOST; not starting" >&2; exit 2
  fi
done

for x in $(for P in $PS; do echo "${P}_ab"; done) manifest.csv MACHINE.md; do
  if [ -e "$HERE/$x" ]; then
    echo "$HERE/$x exists; raw data are immutable, move it away to re-run" >&2
    exit 2
  fi
done

TMP="$(mktemp -d)"
STAGE="$TMP/out"        # outputs land here; moved into place only if the session is clean
mkdir -p "$STAGE"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT

# --- backends: tiny fixed response, like the article's node apps ("Ok") ---
if command -v node >/dev/null 2>&1; then
  BACKEND_KIND="node $(node --version)"
  cat >"$TMP/backend.js" <<'EOF'
const http = require("http");
const port = parseInt(process.argv[2], 10);
const body = "Ok";
http.createServer((req, res) => {
  res.writeHead(200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}).listen(port, "127.0.0.1");
EOF
  start_backend() { node "$TMP/backend.js" "$1" >"$TMP/backend-$1.log" 2>&1 & PIDS+=($!); }
else
  BACKEND_KIND="python $(python3 -c 'import sys; print(sys.version.split()[0])') http.server"
  cat >"$TMP/backend.py" <<'EOF'
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b"Ok"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
  start_backend() { python3 "$TMP/backend.py" "$1" >"$TMP/backend-$1.log" 2>&1 & PIDS+=($!); }
fi

for i in $(seq 0 $((K - 1))); do
  start_backend $((BACKEND_PORT0 + i))
done

# --- HAProxy: nbthread left at its default -------------------------------
{
  cat <<EOF
global
    maxconn 4096

defaults
    mode http
    timeout connect 5s
    timeout client 50s
    timeout server 50s

frontend front
    bind $HOST:$LB_PORT
    default_backend nodes

backend nodes
    balance roundrobin
EOF
  for i in $(seq 0 $((K - 1))); do
    echo "    server node$((i + 1)) $HOST:$((BACKEND_PORT0 + i))"
  done
} >"$TMP/haproxy.cfg"
haproxy -c -q -f "$TMP/haproxy.cfg"
haproxy -db -f "$TMP/haproxy.cfg" >"$TMP/haproxy.log" 2>&1 &
PIDS+=($!)

# wait until HAProxy answers through every backend
for _ in $(seq 50); do
  ok=1
  for i in $(seq 1 $((K + 1))); do
    curl -fs -o /dev/null "$URL" || ok=0
  done
  [ "$ok" = 1 ] && break
  sleep 0.2
done
[ "$ok" = 1 ] || { echo "HAProxy/backends did not come up" >&2; cat "$TMP"/*.log >&2; exit 1; }

# warm-up, not recorded (JIT and connection pools)
ab -k -c "$AB_C" -n 5000 "$URL" >/dev/null 2>&1 || true

# --- CPU accounting: is anything else using the machine? -----------------
HZ="$(getconf CLK_TCK)"
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
# process time (user+nice+system), interrupt time (irq+softirq: loopback
# networking lands here), steal (hypervisor), from /proc/stat
proc_ticks() { awk '/^cpu /{print $2+$3+$4}' /proc/stat; }
irq_ticks() { awk '/^cpu /{print $7+$8}' /proc/stat; }
steal_ticks() { awk '/^cpu /{print $9}' /proc/stat; }
# CPU ticks of kernel threads (ppid 2: ksoftirqd, kworkers; loopback
# networking under load partly runs there)
kthreads_ticks() {
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk '{sub(/^.*\) /, ""); if ($2 == 2) t += $12 + $13} END {print t + 0}'
}
# CPU ticks of the servers we started (haproxy + backends)
servers_ticks() {
  local pid t=0 v
  for pid in "${PIDS[@]}"; do
    v="$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    t=$((t + v))
  done
  echo "$t"
}
# CPU seconds of our waited-for children (ab, curl), from bash's `times`;
# `times` must run in this shell (in a $(...) subshell it reports zeros)
children_s() {
  times >"$TMP/times"
  awk 'NR==2{split($1,u,/[ms]/); split($2,s,/[ms]/); printf "%.2f", u[1]*60+u[2]+s[1]*60+s[2]}' "$TMP/times"
}
# SNAP = "busy-without-steal kthreads servers (ticks) children (s)".
# Task CPU times (/proc/<pid>/stat, `times`) include the irq/softirq work done
# in the task's context (loopback networking), which /proc/stat books as
# irq/softirq: so compare them with all busy time but steal.
snap() {
  local ch
  times >"$TMP/times"
  ch="$(awk 'NR==2{split($1,u,/[ms]/); split($2,s,/[ms]/); printf "%.2f", u[1]*60+u[2]+s[1]*60+s[2]}' "$TMP/times")"
  SNAP="$(($(busy_ticks) - $(steal_ticks))) $(kthreads_ticks) $(servers_ticks) $ch"
}
# share (%) of the busy CPU time between two snapshots used by processes
# that are neither ours nor kernel threads
other_pct() {
  awk -v a="$1" -v b="$2" -v hz="$HZ" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    busy = y[1] - x[1]
    other = busy - (y[2] - x[2]) - (y[3] - x[3]) - hz * (y[4] - x[4])
    printf "%.1f", (busy > 0) ? 100 * other / busy : 0 }'
}
# wait until the machine is less than 10 % busy over 2 s (at most QUIET_MAX_S);
# fails when it never is: the block is then not run at all
QUIET_MAX_S=120
wait_quiet() {
  local waited=0 b0 b1 pct
  while :; do
    b0="$(busy_ticks)"; sleep 2; b1="$(busy_ticks)"
    pct="$(awk -v d=$((b1 - b0)) -v hz="$HZ" -v n="$(nproc)" 'BEGIN{printf "%.1f", 100*d/(hz*2*n)}')"
    if awk -v b="$pct" 'BEGIN{exit !(b < 10)}'; then return 0; fi
    waited=$((waited + 2))
    if [ "$waited" -ge "$QUIET_MAX_S" ]; then
      BUSY_PCT="$pct"
      return 1
    fi
  done
}
BLOCK_TRIES=10  # a block (one P, one repetition) is re-run when it was not clean

OTHER_PROCS_BEFORE="$(ps -eo pcpu,comm --sort=-pcpu | sed -n 2,6p | tr -s ' ' | paste -sd ';' -)"
PROC0="$(proc_ticks)"; IRQ0="$(irq_ticks)"; STEAL0="$(steal_ticks)"
BUSY0="$(busy_ticks)"; SRV0="$(servers_ticks)"; KT0="$(kthreads_ticks)"; children_s >"$TMP/ch"; CH0="$(cat "$TMP/ch")"
START="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
MANIFEST="$TMP/manifest.csv"
echo "file,ab_processes,rep,ab_index,backends,other_cpu_pct,tries" >"$MANIFEST"
DISCARDED=0
# repetitions outside, P inside: the three repetitions of a P are spread
# over the whole session rather than run back to back
for r in $(seq 1 "$REPS"); do
  for P in $PS; do
    d="$STAGE/${P}_ab/rep-$r"
    clean=0
    for try in $(seq 1 "$BLOCK_TRIES"); do
      if ! wait_quiet; then
        echo "P=$P rep=$r try $try skipped: machine still ${BUSY_PCT} % busy after ${QUIET_MAX_S} s" | tee -a "$TMP/discards.log" >&2
        continue
      fi
      rm -rf "$d"; mkdir -p "$d"
      snap; s0="$SNAP"
      abpids=()
      for i in $(seq 1 "$P"); do
        (
          echo "\$ ab -k -c $AB_C -n $AB_N $URL"
          exec timeout "$AB_WALL_S" ab -s "$AB_TIMEOUT_S" -k -c "$AB_C" -n "$AB_N" "$URL" 2>&1
        ) >"$d/ab-$i.txt" &
        abpids+=($!)
      done
      failed=0
      for pid in "${abpids[@]}"; do
        wait "$pid" || failed=$((failed + 1))
      done
      snap; s1="$SNAP"
      pct="$(other_pct "$s0" "$s1")"
      if [ "$failed" = 0 ] && awk -v o="$pct" -v m="$MAX_OTHER_PCT" 'BEGIN{exit !(o <= m)}'; then
        clean=1
        break
      fi
      DISCARDED=$((DISCARDED + 1))
      echo "P=$P rep=$r try $try discarded: other processes ${pct} % of busy CPU, $failed ab process(es) failed" | tee -a "$TMP/discards.log" >&2
    done
    if [ "$clean" != 1 ]; then
      echo "P=$P rep=$r not clean after $BLOCK_TRIES tries; session discarded, nothing written" >&2
      exit 1
    fi
    for i in $(seq 1 "$P"); do
      echo "${P}_ab/rep-$r/ab-$i.txt,$P,$r,$i,$K,$pct,$try" >>"$MANIFEST"
    done
  done
done
END="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
PROC1="$(proc_ticks)"; IRQ1="$(irq_ticks)"; STEAL1="$(steal_ticks)"
BUSY1="$(busy_ticks)"; SRV1="$(servers_ticks)"; KT1="$(kthreads_ticks)"; children_s >"$TMP/ch"; CH1="$(cat "$TMP/ch")"
CPU_ALL_S="$(awk -v d=$((BUSY1 - BUSY0)) -v hz="$HZ" 'BEGIN{printf "%.1f", d/hz}')"
CPU_OURS_S="$(awk -v d=$((SRV1 - SRV0)) -v hz="$HZ" -v c0="$CH0" -v c1="$CH1" 'BEGIN{printf "%.1f", d/hz + c1 - c0}')"
CPU_PROC_S="$(awk -v d=$((PROC1 - PROC0)) -v hz="$HZ" 'BEGIN{printf "%.1f", d/hz}')"
CPU_IRQ_S="$(awk -v d=$((IRQ1 - IRQ0)) -v hz="$HZ" 'BEGIN{printf "%.1f", d/hz}')"
CPU_STEAL_S="$(awk -v d=$((STEAL1 - STEAL0)) -v hz="$HZ" 'BEGIN{printf "%.1f", d/hz}')"
CPU_KT_S="$(awk -v d=$((KT1 - KT0)) -v hz="$HZ" 'BEGIN{printf "%.1f", d/hz}')"
# busy time (steal excluded) neither ours nor kernel threads' = other users' processes
CPU_OTHER_S="$(awk -v a="$CPU_ALL_S" -v st="$CPU_STEAL_S" -v o="$CPU_OURS_S" -v k="$CPU_KT_S" 'BEGIN{printf "%.1f", a - st - o - k}')"
OTHER_PCT="$(awk -v a="$CPU_ALL_S" -v o="$CPU_OTHER_S" 'BEGIN{printf "%.1f", (a > 0) ? 100*o/a : 0}')"
sort -t, -k2,2n -k3,3n -k4,4n <(tail -n +2 "$MANIFEST") | cat <(head -1 "$MANIFEST") - >"$STAGE/manifest.csv"

# --- the machine ----------------------------------------------------------
{
  echo "# Machine of the lbbench-local runs"
  echo
  echo "Written by \`make_runs.sh\` at the end of its run."
  echo
  echo "| item | value |"
  echo "|---|---|"
  echo "| runs started (UTC) | $START |"
  echo "| runs ended (UTC) | $END |"
  echo "| nproc | $(nproc) |"
  echo "| CPU model (/proc/cpuinfo) | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |"
  echo "| memory (MemTotal) | $(grep -m1 MemTotal /proc/meminfo | awk '{print $2, $3}') |"
  echo "| kernel | $(uname -sr) |"
  echo "| ab | $(ab -V 2>&1 | head -1) |"
  echo "| haproxy | $(haproxy -v 2>&1 | head -1) |"
  echo "| backends | $K x $BACKEND_KIND, ports $BACKEND_PORT0-$((BACKEND_PORT0 + K - 1)), body \"Ok\" (2 bytes) |"
  echo "| load generator | ab on the same machine, same $(nproc) cores as HAProxy and the backends |"
  echo "| block tries discarded (other processes > ${MAX_OTHER_PCT} % of busy CPU, or ab failures) | ${DISCARDED} |"
  echo "| top processes before the runs (%cpu since start, command) | ${OTHER_PROCS_BEFORE} |"
  echo "| CPU time used on the machine during the runs | ${CPU_ALL_S} s (process ${CPU_PROC_S} s, irq+softirq ${CPU_IRQ_S} s, steal ${CPU_STEAL_S} s) |"
  echo "| CPU time of our processes (ab, haproxy, backends; includes the irq work done in their context) | ${CPU_OURS_S} s |"
  echo "| CPU time of kernel threads (ksoftirqd, kworkers) | ${CPU_KT_S} s |"
  echo "| CPU time of everything else (other users; busy minus steal, ours, kernel threads) | ${CPU_OTHER_S} s (${OTHER_PCT} % of the busy time, discarded blocks included) |"
  if [ -s "$TMP/discards.log" ]; then
    echo
    echo "Block tries skipped (machine busy) or discarded and re-run (their transcripts were not kept):"
    echo
    sed 's/^/- /' "$TMP/discards.log"
  fi
  echo
  echo "HAProxy configuration used (nbthread not set: HAProxy's default):"
  echo
  echo '```'
  cat "$TMP/haproxy.cfg"
  echo '```'
} >"$STAGE/MACHINE.md"

mv "$STAGE"/* "$HERE"/
echo "done: $START .. $END"
