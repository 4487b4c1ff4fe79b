#!/bin/bash
# Many sessions at once: pgbench with 1, 4, 16, 64 and 128 clients (one
# session each) running one aggregate query over and over, native PostgreSQL
# vs Custom Scan (GpuOpsAgg) on the CPU face and on the GPU face; throughput
# (tps), 95th-percentile latency and, where nvidia-smi is present, the peak
# GPU memory used during the run.
#
# Creates conc_bench.t(k int4, k2 int4, v float8, w int4) with ROWS rows
# (an existing table with ROWS rows is reused), VACUUM (FREEZE, ANALYZE)s it
# and loads it into shared buffers (pg_prewarm, else a count(*)).  k has
# 1000 distinct values, k2 about 1M, w 0..99.  The queries:
#   light  SELECT k, count(*), sum(v) FROM conc_bench.t WHERE w < 50 GROUP BY k
#   heavy  SELECT k2, count(*), sum(v) FROM conc_bench.t GROUP BY k2   (~1M groups)
#   expr   SELECT k % 100 + 1, count(*), sum(v * 2 + 1) FROM conc_bench.t
#          WHERE w < 50 GROUP BY 1   (light, through expressions)
#   star   SELECT d.region, count(*), sum(t.v) FROM conc_bench.t t
#          JOIN conc_bench.d d ON t.k = d.k WHERE t.w < 50 AND d.grp < 5
#          GROUP BY d.region   (a star join: conc_bench.d holds k's 1000
#          values, grp 0..9, region one of 5 texts)
# Faces (each client's session gets them through PGOPTIONS):
#   native: gpuops.enabled = off (PostgreSQL's own plan, parallel workers as
#           its settings allow)
#   cpu:    gpuops.device = cpu        gpu: gpuops.device = gpu (skipped when
#           gpuops.info() says gpu_usable = false)
#   auto:   gpuops.device = auto (the GPU while one of its seats,
#           gpuops.max_gpu_queries, is free, else the CPU face)
# Before each face the script checks that the plan is the one meant
# ("native plan!" otherwise) and prints gpuops.budget().
#
# Needs a server reachable by psql and pgbench through the usual libpq
# environment (PGHOST, PGUSER, PGDATABASE) with gpuops installed and in
# shared_preload_libraries (else there is no core budget), max_connections
# above the largest client count, and shared_buffers above the table (~50
# bytes a row).
#   usage: bash bench/concurrency.sh
#   env: ROWS (default 10000000), CLIENTS (default "1 4 16 64 128"),
#        DURATION (seconds a run, default 15), FACES (default "native cpu
#        gpu"), QUERIES (default "light heavy"), LOG_DIR (keep pgbench's
#        per-transaction logs there; default a temporary directory), CACHE
#        (1: the table is put in the column cache first, gpuops.cache_table;
#        default 0: it is taken out of it)
# Locally (2 cores), a short version:
#   ROWS=2000000 CLIENTS="1 4 16" DURATION=10 bash bench/concurrency.sh
# On the GPU machine, after the server is up, as its owner:
#   runuser -u pg -- env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
#     PGHOST=/tmp PGUSER=postgres PGDATABASE=postgres \
#     bash bench/concurrency.sh | tee "$OUT/concurrency.txt"
# (5 client counts x 2 queries x 3 faces x DURATION: about 8 minutes at 15 s,
# plus loading; split it with QUERIES or FACES to fit one call's time limit.)
set -euo pipefail

rows=${ROWS:-10000000}
clients=${CLIENTS:-"1 4 16 64 128"}
duration=${DURATION:-15}
faces=${FACES:-"native cpu gpu"}
queries=${QUERIES:-"light heavy"}
logdir=${LOG_DIR:-$(mktemp -d)}
mkdir -p "$logdir"

[[ $rows =~ ^[1-9][0-9]*$ ]] || { echo "ROWS must be a positive number" >&2; exit 2; }

psql_q() { psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }

# ---- the table ----
have=-1
if [ "$(psql_q -c "SELECT to_regclass('conc_bench.t') IS NOT NULL")" = t ]; then
	have=$(psql_q -c "SELECT count(*) FROM conc_bench.t")
fi
if [ "$have" != "$rows" ]; then
	echo "loading $rows rows into conc_bench.t ..."
	psql_q <<SQL
CREATE EXTENSION IF NOT EXISTS gpuops;
DROP SCHEMA IF EXISTS conc_bench CASCADE;
CREATE SCHEMA conc_bench;
CREATE UNLOGGED TABLE conc_bench.t AS
  SELECT (h % 1000)::int4 AS k, ((h / 1000) % 1000000)::int4 AS k2,
         (((h / 7) % 1000) / 4.0)::float8 AS v, ((h / 13) % 100)::int4 AS w
    FROM (SELECT abs(hashint8(i)::int8) AS h FROM generate_series(1, $rows) i) s;
VACUUM (FREEZE, ANALYZE) conc_bench.t;
SQL
fi
# the star query's dimension
psql_q <<SQL
CREATE TABLE IF NOT EXISTS conc_bench.d (k int4 PRIMARY KEY, grp int4, region text);
INSERT INTO conc_bench.d
  SELECT i, i % 10, 'region ' || (i % 5) FROM generate_series(0, 999) i
  ON CONFLICT DO NOTHING;
ANALYZE conc_bench.d;
SQL
psql_q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" 2>/dev/null &&
	psql_q -c "SELECT pg_prewarm('conc_bench.t')" >/dev/null ||
	psql_q -c "SELECT count(*) FROM conc_bench.t" >/dev/null

# CACHE=1: the queries are served from the column cache (filled here, and
# handed to the GPU service); else the table is left out of it
if [ "${CACHE:-0}" = 1 ]; then
	psql_q -c "SELECT gpuops.uncache_table('conc_bench.t') IS NOT NULL" >/dev/null
	echo "cached ranges: $(psql_q -c "SELECT gpuops.cache_table('conc_bench.t')")," \
		"on the device: $(psql_q -c "SELECT ranges_on_device FROM gpuops.cache_status()
			WHERE relation = 'conc_bench.t'::regclass")"
else
	psql_q -c "SELECT gpuops.uncache_table('conc_bench.t') IS NOT NULL" >/dev/null
fi

gpu_usable=$(psql_q -c "SELECT value FROM gpuops.info() WHERE key = 'gpu_usable'")
have_smi=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1 && have_smi=1

query_sql() {
	case $1 in
	light) echo "SELECT k, count(*), sum(v) FROM conc_bench.t WHERE w < 50 GROUP BY k;" ;;
	heavy) echo "SELECT k2, count(*), sum(v) FROM conc_bench.t GROUP BY k2;" ;;
	expr) echo "SELECT k % 100 + 1, count(*), sum(v * 2 + 1) FROM conc_bench.t WHERE w < 50 GROUP BY 1;" ;;
	star) echo "SELECT d.region, count(*), sum(t.v) FROM conc_bench.t t JOIN conc_bench.d d ON t.k = d.k WHERE t.w < 50 AND d.grp < 5 GROUP BY d.region;" ;;
	*) echo "unknown query: $1" >&2; exit 2 ;;
	esac
}

face_opts() {
	case $1 in
	native) echo "-c gpuops.enabled=off" ;;
	cpu) echo "-c gpuops.device=cpu" ;;
	gpu) echo "-c gpuops.device=gpu" ;;
	auto) echo "-c gpuops.device=auto" ;;
	*) echo "unknown face: $1" >&2; exit 2 ;;
	esac
}

# Peak memory.used (MiB) of the GPUs, sampled every 0.2 s until the file $1 appears.
gpu_peak() {
	local stop=$1 peak=0 m
	while [ ! -e "$stop" ]; do
		for m in $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null); do
			[ "$m" -gt "$peak" ] && peak=$m
		done
		sleep 0.2
	done
	echo "$peak"
}

# 95th percentile of the latencies (µs, third field) of pgbench's logs $1.*, in ms.
p95_ms() {
	cat "$1".* 2>/dev/null | awk '{print $3}' | sort -n |
		awk '{a[NR] = $1} END {if (NR == 0) print "-"; else {i = int(NR * 0.95); if (i < 1) i = 1; printf "%.1f", a[i] / 1000}}'
}

echo
echo "machine: $(nproc) cores; rows: $rows; ${duration} s a run; gpu usable: $gpu_usable"
echo "budget: $(psql_q -c "SELECT format('shared %s, max_threads %s, max_gpu_queries %s', shared, max_threads, max_gpu_queries) FROM gpuops.budget()" 2>/dev/null || echo none)"
echo "openmp wait: $(psql_q -c "SELECT value FROM gpuops.info() WHERE key = 'openmp_wait'" 2>/dev/null)"
echo
echo "| query | face | clients | tps | p95 latency (ms) | peak GPU memory (MiB) |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"

for q in $queries; do
	sqlfile="$logdir/$q.sql"
	query_sql "$q" > "$sqlfile"
	for face in $faces; do
		if [ "$face" = gpu ] && [ "$gpu_usable" != true ]; then
			echo "| $q | gpu | - | skipped: no usable GPU | | |"
			continue
		fi
		opts=$(face_opts "$face")
		plan=$(PGOPTIONS="$opts" psql_q -c "EXPLAIN (COSTS OFF) $(cat "$sqlfile")")
		if [ "$face" != native ] && ! grep -q GpuOpsAgg <<<"$plan"; then
			echo "| $q | $face | - | native plan! | | |"
			continue
		fi
		for c in $clients; do
			prefix="$logdir/$q-$face-$c"
			rm -f "$prefix".* "$prefix"-*
			peak=-
			if [ $have_smi = 1 ]; then
				gpu_peak "$prefix-stop" > "$prefix-peak" &
				peak_pid=$!
			fi
			out=$(PGOPTIONS="$opts" pgbench -n -f "$sqlfile" -c "$c" -j "$c" -T "$duration" \
				-l --log-prefix="$prefix" 2>&1) || { echo "| $q | $face | $c | pgbench failed: $(tail -1 <<<"$out") | | |"; }
			if [ $have_smi = 1 ]; then
				touch "$prefix-stop"
				wait "$peak_pid"
				peak=$(cat "$prefix-peak")
			fi
			tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' <<<"$out" |
				awk '{printf "%.1f", $1}')
			echo "| $q | $face | $c | ${tps:--} | $(p95_ms "$prefix") | $peak |"
		done
	done
done
echo
echo "pgbench logs: $logdir"
