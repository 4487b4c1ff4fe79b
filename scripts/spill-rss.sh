#!/bin/bash
# spill-rss.sh [GROUPS] [MAX_GROUP_MEMORY_KB]: the backend's peak memory of
# a GpuOpsAgg query whose groups the planner underestimates, against
# gpuops.max_group_memory, with its answer compared to PostgreSQL's.
#
# On a throwaway cluster (initdb in a temporary folder, removed at the end)
# it creates t(k int8, v int4), analyzes it with 10 distinct keys, then adds
# GROUPS rows of GROUPS distinct keys in scattered order, so that the plan
# expects 10 groups.  It runs
#   SELECT k, count(*), sum(v), min(v), max(v) FROM t GROUP BY k
# inside a fingerprint (row count and sums of the groups' columns and of a
# hash of each group) in a fresh session each time: gpuops with the limit,
# gpuops with no effective limit (when NOLIMIT=1), and native; after each it
# reads VmHWM from /proc/<backend pid>/status, and EXPLAIN ANALYZE gives the
# spill figures.  shared_buffers is 16MB, so that the shared pages a
# backend touches add at most that much to its RSS.
#
# env: PGBIN (bin folder of PostgreSQL 15 with gpuops installed; default
# /usr/lib/postgresql/15/bin), PORT (default 5443), NOLIMIT=1 to also run
# without a limit (needs memory for every group), NATIVE=0 to skip the
# native run, KEEP=1 keeps the cluster.
set -euo pipefail
groups=${1:-20000000}
mem_kb=${2:-262144}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=${PORT:-5443}
dir=$(mktemp -d /tmp/spill-rss.XXXXXX)
chmod 755 "$dir"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
cleanup() {
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
as_pg "$PGBIN/initdb" -D "$dir/data" -A trust >/dev/null
cat >> "$dir/data/postgresql.conf" <<EOF
port = $PORT
unix_socket_directories = '$dir'
listen_addresses = ''
shared_preload_libraries = 'gpuops'
shared_buffers = 16MB
max_parallel_workers_per_gather = 0
EOF
as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w start >/dev/null
psql=(as_pg "$PGBIN/psql" -X -q -At -h "$dir" -p "$PORT" -d postgres -v ON_ERROR_STOP=1)

"${psql[@]}" <<EOF
CREATE EXTENSION gpuops;
CREATE TABLE t (k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT i % 10, i FROM generate_series(1, 1000) i;
ANALYZE t;
INSERT INTO t SELECT (i * 48271::int8) % $groups, i % 1000
FROM generate_series(0, $groups - 1) i;
VACUUM (FREEZE) t;
EOF

q="SELECT k, count(*) AS c, sum(v) AS s, min(v) AS mn, max(v) AS mx FROM t GROUP BY k"
fp="SELECT count(*) || ' ' || sum(k) || ' ' || sum(c) || ' ' || sum(s) || ' ' || sum(mn) || ' ' || sum(mx) || ' ' || sum(hashint8(k * 7 + c * 31 + s * 1009 + mn * 17 + mx)::int8) FROM ($q) g"
hwm="SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s*(\d+)'))[1]"

# one measured run: label, settings; prints the fingerprint, seconds, peak RSS
run() {
  local label=$1 set=$2 out start end
  start=$(date +%s.%N)
  out=$("${psql[@]}" -c "$set" -c "$fp" -c "$hwm" | tail -2)
  end=$(date +%s.%N)
  printf '%-34s %8.1f s  peak RSS %8d kB  %s\n' "$label" \
    "$(echo "$end - $start" | bc)" "$(echo "$out" | tail -1)" "$(echo "$out" | head -1)"
}

echo "groups: $groups, estimated: $("${psql[@]}" -c "EXPLAIN $q" | sed -n 's/.*rows=\([0-9]*\).*/\1/p' | head -1)," \
  "gpuops.max_group_memory: $mem_kb kB"
echo "idle backend peak RSS: $("${psql[@]}" -c "$hwm") kB"
gp="SET gpuops.cpu_setup_cost = 0; SET gpuops.gpu_setup_cost = 0; SET gpuops.max_group_memory = $mem_kb;"
run "gpuops, max_group_memory ${mem_kb}kB" "$gp"
if [ -n "${NOLIMIT:-}" ]; then
  run "gpuops, no limit" "SET gpuops.cpu_setup_cost = 0; SET gpuops.gpu_setup_cost = 0; SET gpuops.max_group_memory = 2147483647;"
fi
if [ "${NATIVE:-1}" != 0 ]; then
  run "native (work_mem $("${psql[@]}" -c 'SHOW work_mem'))" "SET gpuops.enabled = off;"
fi
echo "EXPLAIN ANALYZE, gpuops with the limit:"
"${psql[@]}" -c "$gp" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q" |
  grep -E 'GpuOpsAgg|Groups:|Spill|Chunks|Execution' | sed 's/^/  /'
