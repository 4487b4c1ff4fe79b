#!/bin/bash
# On the GPU machine (carry [".device"]): where the query-fed functions and
# GpuOpsAgg spend their time on N rows (default 2e7): the stream's DEBUG1
# line (rows, chunks, total and engine ms) for histogram and rle on both
# faces, and GpuOpsAgg's read and engine times under several chunk sizes.
# Starts its own server (pg-up.sh), so run it after anything needing the
# previous one.  Output: $OUT/diag.txt.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/diag.txt") 2>&1
PG_UP_OPTIONS="-c shared_preload_libraries=gpuops" \
	source .device/pg-up.sh .device/pg.tar.xz >/dev/null || exit 1
N=${N:-20000000}
P="as_pg psql -X -q -At"
$P -c "CREATE EXTENSION gpuops" -c "CREATE EXTENSION pg_prewarm" \
	-c "CREATE TABLE qf AS SELECT (i/16)::int4 % 1000 AS k, random() AS v FROM generate_series(1, $N) i" \
	-c "CREATE TABLE t AS SELECT (hashint8extended(i,1) & 9223372036854775807)::int8 % 1000 AS k, (hashint8extended(i,3) % 1000)::float8/4 AS v FROM generate_series(1,$N) i" \
	-c "VACUUM (FREEZE, ANALYZE) qf" -c "VACUUM (FREEZE, ANALYZE) t" \
	-c "SELECT pg_prewarm('qf'), pg_prewarm('t')" >/dev/null
for dev in cpu gpu; do
	echo "=== query-fed functions, $N rows, gpuops.device = $dev"
	$P <<SQL 2>&1 | grep -v '^[0-9]*$'
SET max_parallel_workers_per_gather = 0;
SET gpuops.device = $dev;
SELECT count(v) FROM qf;
\timing on
SELECT count(v) FROM qf;
SET client_min_messages = debug1;
SELECT count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf\$\$, 100, 0, 1);
SELECT count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf\$\$, 100, 0, 1);
SELECT count(*) FROM gpuops.rle(\$\$SELECT k FROM qf\$\$, NULL::int4);
SQL
done
for dev in cpu gpu; do
	for cs in 4MB 16MB 64MB; do
		echo "=== GpuOpsAgg 1e3 groups, $N rows, $dev, chunk_size $cs"
		$P <<SQL 2>&1 | grep -E 'Batch|Chunks|Read Time|Engine Time|Execution Time' | tr -s ' ' | tr '\n' ' '
SET gpuops.cpu_setup_cost = 0; SET gpuops.gpu_setup_cost = 0;
SET gpuops.cpu_row_cost = 0; SET gpuops.gpu_row_cost = 0;
SET gpuops.device = $dev; SET gpuops.chunk_size = '$cs';
SELECT count(*) FROM t;
EXPLAIN (ANALYZE) SELECT k, count(*), sum(v), min(v), max(v) FROM t GROUP BY k;
EXPLAIN (ANALYZE) SELECT k, count(*), sum(v), min(v), max(v) FROM t GROUP BY k;
SQL
		echo
	done
done
