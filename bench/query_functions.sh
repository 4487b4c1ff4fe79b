#!/bin/bash
# Times the query-fed functions against the query alone, in one session:
#   SELECT count(v) FROM t          (the cost of running the query, by
#                                    PostgreSQL itself: gpuops.enabled = off,
#                                    else the aggregate node would run it)
#   gpuops.histogram($$SELECT v FROM t$$, 100)
#   gpuops.rle($$SELECT k FROM t$$, NULL::int4)
# on both faces, and the growth of the backend's private memory while
# histogram, rle and group_agg stream the table (sampled from /proc: run it
# on the server's machine, as a user that may read the backend's status).
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
SET gpuops.enabled = off;
\timing on
SELECT 'count(v)', count(v) FROM qf_bench;
SELECT 'count(v)', count(v) FROM qf_bench;
SELECT 'count(v)', count(v) FROM qf_bench;
\timing off
RESET gpuops.enabled;
\timing on
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
# one session per call: the growth of the backend's private memory (RssAnon
# in /proc, sampled every 5 ms while the call runs) over its value before
# the call, after a warm-up count(v); the shared buffers are not counted
memory() { # device label call
	local pidfile out peak=0 base=0 rss pid
	pidfile=$(mktemp) out=$(mktemp)
	psql -X -q -At -v ON_ERROR_STOP=1 >"$out" 2>&1 <<SQL &
SET max_parallel_workers_per_gather = 0;
SET gpuops.device = $1;
SELECT count(v) FROM qf_bench \gset
SELECT pg_backend_pid() \g $pidfile
SELECT pg_sleep(0.5);
SELECT count(*) FROM ($3) s;
SQL
	local job=$!
	while [ ! -s "$pidfile" ] && kill -0 $job 2>/dev/null; do sleep 0.01; done
	pid=$(cat "$pidfile")
	sleep 0.25
	base=$(awk '/^RssAnon:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
	while kill -0 $job 2>/dev/null; do
		rss=$(awk '/^RssAnon:/ {print $2}' /proc/$pid/status 2>/dev/null) || break
		[ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
		sleep 0.005
	done
	wait $job || cat "$out"
	printf '%-16s private memory peak growth %7.1f MB  (chunk_size %s, %s result rows)\n' "$2" \
		"$(awk -v p="$peak" -v b="$base" 'BEGIN {print (p - b) / 1024}')" "$(psql -X -At -c 'SHOW gpuops.chunk_size')" "$(tail -1 "$out")"
	rm -f "$pidfile" "$out"
}
for dev in $devs; do
	echo "== gpuops.device = $dev (rows $n, chunk_size default 64MB, one backend) =="
	run "SET gpuops.device = $dev;" 2>&1 | summarize || true
	memory $dev histogram "SELECT * FROM gpuops.histogram(\$\$SELECT v FROM qf_bench\$\$, 100)" 2>&1 || true
	memory $dev rle "SELECT * FROM gpuops.rle(\$\$SELECT k FROM qf_bench\$\$, NULL::int4)" 2>&1 || true
	memory $dev group_agg "SELECT * FROM gpuops.group_agg(\$\$SELECT k, v FROM qf_bench\$\$, NULL::int4)" 2>&1 || true
done
