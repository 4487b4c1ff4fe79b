#!/bin/bash
# On the GPU machine (through the device tool, carry [".device"]): GPU unit
# tests, the primitive benchmark, and pg_regress under gpuops.device = 'gpu'.
# Logs go to $OUT; a summary is printed last.  QF_ROWS=N adds
# bench/query_functions.sh over N rows on both faces.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
echo "== unit tests =="
timeout ${UNIT_TIMEOUT:-300} ./.device/test_core >"$OUT/unit.log" 2>&1; unit_rc=$?
grep -E "FAIL|SKIP" "$OUT/unit.log" | head -20; tail -3 "$OUT/unit.log"
bench_rc=0
for b in .device/gpu_*; do
	echo "== $(basename $b) =="
	timeout ${BENCH_TIMEOUT:-60} "$b" ${BENCH_ROWS:-100000000} >"$OUT/$(basename $b).md" 2>&1 || bench_rc=$?
	cat "$OUT/$(basename $b).md"
done
echo "== pg_regress (gpuops.device = gpu) =="
source .device/pg-up.sh .device/pg.tar.xz >/dev/null || { echo "pg-up failed"; exit 1; }
rm -rf /tmp/w && cp -r . /tmp/w && chown -R pg /tmp/w && cd /tmp/w
tests=$(ls sql/*.sql | grep -v 'sql/gpuops--' | xargs -n1 basename | sed 's/\.sql$//' | sort)
PGOPTIONS="-c gpuops.device=gpu" timeout ${REGRESS_TIMEOUT:-240} runuser -u pg -- env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" PGHOST=/tmp PGUSER=postgres PGOPTIONS="-c gpuops.device=gpu" $PG_REGRESS --dbname=regress_gpu --load-extension=gpuops $tests >"$OUT/regress.log" 2>&1; reg_rc=$?
tail -30 "$OUT/regress.log"
[ -f regression.diffs ] && cp regression.diffs "$OUT/"
as_pg psql -X -d regress_gpu -c "SELECT * FROM gpuops.info()" 2>&1 | tee "$OUT/info.txt"
if [ -n "${QF_ROWS:-}" ]; then
	echo "== query-fed functions, $QF_ROWS rows =="
	timeout ${QF_TIMEOUT:-240} runuser -u pg -- env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" PGHOST=/tmp PGUSER=postgres PGDATABASE=regress_gpu \
		bash bench/query_functions.sh "$QF_ROWS" 2>&1 | tee "$OUT/query_functions.txt"
fi
echo "SUMMARY unit=$unit_rc bench=$bench_rc regress=$reg_rc"
