#!/usr/bin/env bash
# .ci/redis.sh: start the Redis servers the seen/redis tests use, on loopback:
#
#   - a single server on 127.0.0.1:6379
#   - a 3-master Redis Cluster (no replicas) on 127.0.0.1:7000-7002
#
# It installs nothing: it needs redis-server and redis-cli on PATH (Debian:
# `apt-get install redis-server`, which pulls in redis-tools for redis-cli).
# It is idempotent: a server already answering on a port is reused, and a
# cluster already in state ok is left alone, so running it twice is fine.
# The servers are daemonized and keep running after the script exits; their
# working directories (nodes.conf, logs) are under $URISCAN_REDIS_DIR
# (default /tmp/uriscan-redis). Nothing is persisted (no RDB, no AOF).
# Other ports: URISCAN_REDIS_PORT (default 6379) and
# URISCAN_REDIS_CLUSTER_PORTS (default "7000 7001 7002", three or more;
# each node also listens on its cluster bus port, port+10000).
#
# Run it, not source it: progress goes to stderr and stdout is exactly the
# two export lines, so a caller takes them with
#
#   eval "$(.ci/redis.sh)"
#
# To stop everything: for p in 6379 7000 7001 7002; do redis-cli -p $p shutdown nosave; done
set -euo pipefail

HOST=127.0.0.1
SINGLE_PORT=${URISCAN_REDIS_PORT:-6379}
read -r -a CLUSTER_PORTS <<<"${URISCAN_REDIS_CLUSTER_PORTS:-7000 7001 7002}"
BASE=${URISCAN_REDIS_DIR:-/tmp/uriscan-redis}

log() { echo "redis.sh: $*" >&2; }
die() { log "$*"; exit 1; }

for tool in redis-server redis-cli; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install redis-server)"
done

cli() { local port=$1; shift; redis-cli -h "$HOST" -p "$port" "$@"; }
up() { [ "$(cli "$1" ping 2>/dev/null)" = PONG ]; }

# wait_up PORT: wait up to 10s for a server to answer PING.
wait_up() {
  for _ in $(seq 100); do up "$1" && return 0; sleep 0.1; done
  die "redis-server on port $1 did not come up; see $BASE/$1/redis.log"
}

# start PORT [extra redis-server args...]: a daemonized server bound to
# loopback in its own directory under $BASE. The directory is emptied first,
# except that a cluster node keeps its nodes.conf (its identity and slots),
# so that a node restarted after a crash or reboot rejoins its cluster.
start() {
  local port=$1; shift
  local dir=$BASE/$port
  if [ -f "$dir/nodes.conf" ]; then
    find "$dir" -mindepth 1 ! -name nodes.conf -delete
  else
    rm -rf "$dir" && mkdir -p "$dir"
  fi
  redis-server --bind "$HOST" --port "$port" --protected-mode yes \
    --daemonize yes --dir "$dir" --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" \
    --save '' --appendonly no "$@"
  wait_up "$port"
  log "started redis-server on $HOST:$port"
}

info_field() { cli "$1" info "$2" | tr -d '\r' | sed -n "s/^$3://p"; }
cluster_field() { cli "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"; }

# --- single server -----------------------------------------------------------
if up "$SINGLE_PORT"; then
  [ "$(info_field "$SINGLE_PORT" cluster cluster_enabled)" = 0 ] ||
    die "$HOST:$SINGLE_PORT answers but is a cluster node, not a single server"
  log "reusing the server already on $HOST:$SINGLE_PORT"
else
  start "$SINGLE_PORT"
fi

# --- 3-master cluster --------------------------------------------------------
cluster_ok() {
  local p
  for p in "${CLUSTER_PORTS[@]}"; do
    [ "$(cluster_field "$p" cluster_state)" = ok ] || return 1
    [ "$(cluster_field "$p" cluster_slots_assigned)" = 16384 ] || return 1
    [ "$(cluster_field "$p" cluster_known_nodes)" = "${#CLUSTER_PORTS[@]}" ] || return 1
  done
}

# wait_cluster SECONDS: wait for cluster_ok.
wait_cluster() {
  for _ in $(seq $(( $1 * 10 ))); do cluster_ok && return 0; sleep 0.1; done
  return 1
}

fresh() {
  [ "$(cluster_field "$1" cluster_slots_assigned)" = 0 ] &&
    [ "$(cluster_field "$1" cluster_known_nodes)" = 1 ]
}

stopped=()
for p in "${CLUSTER_PORTS[@]}"; do
  if up "$p"; then
    [ "$(info_field "$p" cluster cluster_enabled)" = 1 ] ||
      die "$HOST:$p answers but is not a cluster node (cluster-enabled no)"
  else
    stopped+=("$p")
  fi
done
for p in ${stopped[@]+"${stopped[@]}"}; do
  start "$p" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
done

if cluster_ok; then
  log "reusing the cluster already on ${CLUSTER_PORTS[*]}"
else
  all_fresh=1
  for p in "${CLUSTER_PORTS[@]}"; do fresh "$p" || all_fresh=0; done
  if [ $all_fresh = 0 ]; then
    # Nodes that already belong to a cluster (restarted ones rejoin it
    # from their nodes.conf): give it time to agree.
    log "waiting for the existing cluster on ${CLUSTER_PORTS[*]}"
    wait_cluster 20 && log "cluster ok" ||
      die "the nodes on ${CLUSTER_PORTS[*]} do not form a healthy cluster; stop them" \
          "(redis-cli -p PORT shutdown nosave), remove $BASE, and rerun"
  else
    nodes=()
    for p in "${CLUSTER_PORTS[@]}"; do nodes+=("$HOST:$p"); done
    log "creating the cluster ${nodes[*]}"
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >&2
    wait_cluster 30 || die "cluster on ${CLUSTER_PORTS[*]} did not reach cluster_state:ok in 30s"
    log "cluster ok"
  fi
fi

cluster_addrs=$(printf "$HOST:%s," "${CLUSTER_PORTS[@]}")
echo "export URISCAN_REDIS_ADDR=$HOST:$SINGLE_PORT"
echo "export URISCAN_REDIS_CLUSTER=${cluster_addrs%,}"
