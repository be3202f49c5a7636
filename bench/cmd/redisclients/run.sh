#!/usr/bin/env bash
# run.sh: the measurements of docs/redis-clients.md, from bench/:
#
#   cmd/redisclients/run.sh [OUT]     # OUT: default /tmp/redisclients-results.md
#
# Builds the program, prints the machine, runs `redisclients init`, starts a
# scratch Redis on port 6390 pinned to CPU 0 (it is FLUSHALLed), runs
# `redisclients pipeline` pinned to CPU 1, and shuts the server down.
# Flags for the two steps: INIT_FLAGS, PIPELINE_FLAGS (environment); STEPS
# (default "init pipeline") picks the steps.
set -euo pipefail
OUT=${1:-/tmp/redisclients-results.md}
PORT=${PORT:-6390}
STEPS=${STEPS:-init pipeline}
TMP=$(mktemp -d)
STARTED=
cleanup() {
  [ -z "$STARTED" ] || redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
BIN=$TMP/redisclients
go build -o "$BIN" ./cmd/redisclients

{
  echo "# redisclients $(date -u +%FT%TZ)"
  echo
  echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
  echo "- $(go version); $(redis-server --version | cut -d' ' -f1-3)"
  echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT"
if [[ " $STEPS " == *" init "* ]]; then
  printf '\n## init (taskset -c 1 redisclients init %s)\n\n' "${INIT_FLAGS:-}" >>"$OUT"
  taskset -c 1 "$BIN" init ${INIT_FLAGS:-} >>"$OUT"
fi
[[ " $STEPS " == *" pipeline "* ]] || exit 0

if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
  echo "run.sh: something already answers on port $PORT; not using it" >&2
  exit 1
fi
taskset -c 0 redis-server --port "$PORT" --save '' --appendonly no --daemonize yes --dir /tmp \
  --logfile /tmp/redisclients-redis.log
STARTED=1
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
{
  echo
  echo "## pipeline (taskset -c 1 redisclients pipeline -addr 127.0.0.1:$PORT ${PIPELINE_FLAGS:-}; redis-server on CPU 0)"
  echo
} >>"$OUT"
taskset -c 1 "$BIN" pipeline -addr "127.0.0.1:$PORT" ${PIPELINE_FLAGS:-} >>"$OUT"
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT"
echo "run.sh: results in $OUT" >&2
