#!/bin/bash
# Times the query-fed functions against the query alone, in one session:
#   SELECT count(v) FROM t          (the cost of running the query)
#   gpuops.histogram($$SELECT v FROM t$$, 100)
#   gpuops.rle($$SELECT k FROM t$$, NULL::int4)
# on both faces, and the backend's peak resident memory (VmHWM) growth.
# Needs a server reachable by psql (e.g. under pg_virtualenv) with gpuops installed.
#   usage: bench/query_functions.sh [rows]
set -euo pipefail
n=${1:-10000000}
psql -X -q -v ON_ERROR_STOP=1 <<SQL
DROP EXTENSION IF EXISTS gpuops; CREATE EXTENSION gpuops;
DROP TABLE IF EXISTS qf_bench;
CREATE TABLE qf_bench AS
  SELECT (i / 16)::int4 % 1000 AS k, random() AS v FROM generate_series(1, $n) AS i;
VACUUM ANALYZE qf_bench;
SQL
run() {
	# one session: warm the table, then time each statement (median of 3)
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
SET max_parallel_workers_per_gather = 0;
SELECT count(v) FROM qf_bench;
$1
\timing on
SELECT 'count(v)', count(v) FROM qf_bench;
SELECT 'count(v)', count(v) FROM qf_bench;
SELECT 'count(v)', count(v) FROM qf_bench;
SELECT 'histogram', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100);
SELECT 'histogram', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100);
SELECT 'histogram', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100);
SELECT 'histogram given', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100, 0, 1);
SELECT 'histogram given', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100, 0, 1);
SELECT 'histogram given', count(*) FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100, 0, 1);
SELECT 'rle', count(*) FROM gpuops.rle(\$\$SELECT k FROM qf_bench\$\$, NULL::int4);
SELECT 'rle', count(*) FROM gpuops.rle(\$\$SELECT k FROM qf_bench\$\$, NULL::int4);
SELECT 'rle', count(*) FROM gpuops.rle(\$\$SELECT k FROM qf_bench\$\$, NULL::int4);
\timing off
SELECT 'ran on', device FROM gpuops.last_run();
SQL
}
# "label|value" then "Time: X ms" lines -> each label's median time
summarize() {
	python3 -c '
import sys, statistics
times, order, label = {}, [], None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("Time:"):
        times.setdefault(label, []).append(float(line.split()[1]))
        if label not in order: order.append(label)
    elif line.startswith("ran on|") or line.startswith("ERROR") or "ERROR:" in line:
        print(line)
    elif "|" in line:
        label = line.split("|")[0]
for l in order:
    print("%-16s median %9.1f ms   (%s)" % (l, statistics.median(times[l]), ", ".join("%.1f" % t for t in times[l])))
'
}
devs=cpu
[ "$(psql -X -At -c "SELECT value FROM gpuops.info() WHERE key = 'gpu_usable'")" = true ] && devs="cpu gpu"
for dev in $devs; do
	echo "== gpuops.device = $dev (rows $n, chunk_size default 64MB, one backend) =="
	run "SET gpuops.device = $dev;" 2>&1 | summarize || true
done
