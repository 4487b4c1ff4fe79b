#!/bin/bash
# On the GPU machine (carry [".device"]): GpuOpsAgg's 1,000-group query on N
# rows (default 2e7) on the GPU face with gpuops.overlap off and on,
# alternating in one session (Read, Engine and Execution Time of each), then
# pg_regress agg_node under gpuops.device = 'gpu' (set REGRESS= to skip).
# Output: $OUT/overlap.txt, $OUT/regress.log.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PG_UP_OPTIONS="-c shared_preload_libraries=gpuops" \
	source .device/pg-up.sh .device/pg.tar.xz >/dev/null || exit 1
N=${N:-20000000}
P="as_pg psql -X -q -At"
$P -c "CREATE EXTENSION gpuops" -c "CREATE EXTENSION pg_prewarm" \
	-c "CREATE UNLOGGED TABLE t AS SELECT ((hashint8extended(i,1) & 9223372036854775807) % 1000)::int4 AS k, (hashint8extended(i,3) % 1000)::float8/4 AS v FROM generate_series(1,$N) i" \
	-c "VACUUM (FREEZE, ANALYZE) t" -c "SELECT pg_prewarm('t')" >/dev/null
q="SELECT k, count(*), sum(v), avg(v), min(v), max(v) FROM t GROUP BY k"
{
	echo "SET gpuops.device = gpu; SET gpuops.gpu_setup_cost = 0; SET gpuops.gpu_row_cost = 0;"
	echo "SET max_parallel_workers_per_gather = 0;"
	echo "EXPLAIN (ANALYZE, TIMING OFF) $q;"
	for i in 1 2 3; do
		for o in off on; do
			echo "\\echo overlap $o"
			echo "SET gpuops.overlap = $o; EXPLAIN (ANALYZE) $q;"
		done
		# where the build has it: batches page-locked (on) or staged (off)
		for pb in off on; do
			echo "\\echo overlap off pinned_batches $pb"
			echo "SET gpuops.overlap = off; SET gpuops.pinned_batches = $pb; EXPLAIN (ANALYZE) $q;"
		done
		echo "RESET gpuops.pinned_batches;"
	done
} >/tmp/overlap.sql
chmod 644 /tmp/overlap.sql
$P -f /tmp/overlap.sql 2>&1 | grep -E "overlap|Read Time|Pinning Time|Engine Time|Execution Time" | tr -s ' ' |
	tr '\n' ' ' | sed 's/overlap/\noverlap/g' | tee "$OUT/overlap.txt"
echo
if [ -n "${REGRESS-agg_node}" ]; then
	rm -rf /tmp/w && cp -r . /tmp/w && chown -R pg /tmp/w && cd /tmp/w
	timeout ${REGRESS_TIMEOUT:-120} runuser -u pg -- env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
		PGHOST=/tmp PGUSER=postgres PGOPTIONS="-c gpuops.device=gpu" \
		$PG_REGRESS --dbname=regress_gpu --load-extension=gpuops ${REGRESS-agg_node} >"$OUT/regress.log" 2>&1
	echo "regress rc=$?"; grep -E "^test|tests" "$OUT/regress.log"
	[ -f regression.diffs ] && cp regression.diffs "$OUT/"
fi
