#!/bin/bash
# Plain SQL aggregate queries: native PostgreSQL vs Custom Scan (GpuOpsAgg) on
# the CPU face and on the GPU face, measured in one run.
#
# Creates agg_bench.t(k int4, k2 int8, v float8, w int4) with N rows, generated
# inside PostgreSQL from hashes of the row number by one session per core
# into an unlogged table (the same N gives the same rows, in another order;
# an existing table with N rows is reused), VACUUM (FREEZE, ANALYZE)s it
# so every page is all-visible, and loads it into shared buffers (pg_prewarm,
# else a count(*)).  Columns: k 1000 distinct values; k2 ~1e6 distinct values;
# v dyadic values (0, 0.25, .. 249.75: sums are exact in float8) with ~1%
# NULLs; w 0..999 with ~1% NULLs.
#
# Each query runs on each face in its own psql session (CREATE EXTENSION IF NOT
# EXISTS gpuops; LOAD 'gpuops'; the settings; the query): one warm-up and RUNS
# timed runs of EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON), whose "Execution
# Time" is the server-side time without shipping the result rows to the
# client; the table shows the median.
#   native: gpuops.enabled = off, max_parallel_workers_per_gather = 0 and =
#           nproc (the table's parallel_workers reloption is set to nproc); the
#           faster of the two is reported, the other is listed below the table
#   cpu:    gpuops.device = cpu        gpu: gpuops.device = gpu
# Every gpuops run must show GpuOpsAgg in its plan (else "native plan!"), and
# each face's result must equal native's: md5 of the sorted result rows, floats
# rounded to 6 decimal places ("same result").
#
# Needs a server reachable by psql through the usual libpq environment
# (PGHOST, PGUSER, PGDATABASE) with gpuops installed; shared_buffers should
# exceed the table (~60 bytes a row: 6 GB at 100M rows), and the server's
# max_worker_processes should be at least nproc for the native parallel plan.
#   usage: bash bench/agg_queries.sh N [faces]
#     N      rows: 100000000 on the GPU machine, 10000000 on a 2-core machine
#     faces  any of "native cpu gpu" (default: all three, gpu only when
#            gpuops.info() says gpu_usable = true); "none" only loads the table
#   env: RUNS (timed runs, default 3), NATIVE_WORKERS (default "0 $(nproc)"),
#        AGG_LOG_DIR (keep each session's output there), QUERIES (the query
#        numbers to run, e.g. "1 3"; default all)
# Locally, in a throwaway cluster (as root):
#   pg_virtualenv -t -v 15 -o shared_buffers=1GB bash bench/agg_queries.sh 1000000
# On the GPU machine, after the server is up (.device/pg-up.sh), as its owner:
#   runuser -u pg -- env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
#     PGHOST=/tmp PGUSER=postgres PGDATABASE=postgres \
#     bash bench/agg_queries.sh 100000000 | tee "$OUT/agg_queries.txt"
# (start that server with shared_buffers of 8GB or more and max_worker_processes
# >= 16; at 100M rows the serial native runs alone take several minutes, so
# NATIVE_WORKERS=16 or a second call that reuses the loaded table may be needed
# to stay within one call's time limit.)
set -euo pipefail

usage() { sed -n '/^#   usage:/,/^#        numbers to run/p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
n=$1
[[ $n =~ ^[1-9][0-9]*$ ]] || usage
faces=${2:-}
runs=${RUNS:-3}
ncpu=$(nproc)
native_workers=${NATIVE_WORKERS:-"0 $ncpu"}

for f in $faces; do
	case $f in native|cpu|gpu) ;; none) [ "$faces" = none ] || usage ;; *) echo "unknown face: $f" >&2; usage ;; esac
done

logdir=${AGG_LOG_DIR:-}
if [ -z "$logdir" ]; then
	logdir=$(mktemp -d)
	trap 'rm -rf "$logdir"' EXIT
fi
mkdir -p "$logdir"

psql_at() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# ---- data -----------------------------------------------------------------
psql_at <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpuops;
CREATE SCHEMA IF NOT EXISTS agg_bench;
SQL
want_cols="k integer, k2 bigint, v double precision, w integer"
have_cols=$(psql_at -c "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
	FROM pg_attribute WHERE attrelid = to_regclass('agg_bench.t') AND attnum > 0 AND NOT attisdropped")
have_rows=-1
[ "$have_cols" = "$want_cols" ] && have_rows=$(psql_at -c "SELECT count(*) FROM agg_bench.t")
if [ "$have_rows" = "$n" ]; then
	echo "reusing agg_bench.t ($n rows)" >&2
else
	echo "loading agg_bench.t ($n rows) ..." >&2
	psql_at -c "SET client_min_messages = warning; DROP TABLE IF EXISTS agg_bench.t" \
		-c "CREATE UNLOGGED TABLE agg_bench.t (k int4, k2 int8, v float8, w int4)"
	# one loading session per core, each a slice of the row numbers
	# h1..h4: independent non-negative 63-bit hashes of the row number
	for p in $(seq 0 $((ncpu - 1))); do
		lo=$((n * p / ncpu + 1)) hi=$((n * (p + 1) / ncpu))
		psql_at -c "INSERT INTO agg_bench.t
SELECT (h1 % 1000)::int4, h2 % 1000000,
       CASE WHEN h3 % 100 = 0 THEN NULL ELSE ((h3 / 100) % 1000)::float8 / 4 END,
       CASE WHEN h4 % 100 = 0 THEN NULL ELSE ((h4 / 100) % 1000)::int4 END
FROM (SELECT hashint8extended(i, 1) & 9223372036854775807 AS h1,
             hashint8extended(i, 2) & 9223372036854775807 AS h2,
             hashint8extended(i, 3) & 9223372036854775807 AS h3,
             hashint8extended(i, 4) & 9223372036854775807 AS h4
      FROM generate_series($lo::int8, $hi::int8) AS i OFFSET 0) s" &
	done
	wait
	psql_at -c "VACUUM (FREEZE, ANALYZE) agg_bench.t"
fi
psql_at -c "ALTER TABLE agg_bench.t SET (parallel_workers = $ncpu)"
if [ "$(psql_at -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_prewarm'")" = 1 ] &&
	psql_at -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pg_prewarm" 2>/dev/null; then
	warm="pg_prewarm: $(psql_at -c "SELECT pg_prewarm('agg_bench.t')") blocks"
else
	psql_at -c "SELECT count(*) FROM agg_bench.t" >/dev/null
	warm="count(*) (no pg_prewarm)"
fi

# ---- faces ----------------------------------------------------------------
info() { psql_at -c "SELECT value FROM gpuops.info() WHERE key = '$1'"; }
gpu_usable=$(info gpu_usable)
if [ -z "$faces" ]; then
	faces="native cpu"
	[ "$gpu_usable" = true ] && faces="native cpu gpu"
fi
[ "$faces" = none ] && { echo "agg_bench.t loaded ($n rows); no faces run" >&2; exit 0; }

# ---- queries: label, SQL, the rounded output columns compared across faces --
labels=(); queries=(); rounded=()
addq() { labels+=("$1"); queries+=("$2"); rounded+=("$3"); }
addq "1e3 groups" \
	"SELECT k, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM t GROUP BY k" \
	"k, n, round(s::numeric, 6), round(a::numeric, 6), round(lo::numeric, 6), round(hi::numeric, 6)"
addq "1e6 groups" \
	"SELECT k2, count(*) AS n, sum(v) AS s FROM t GROUP BY k2" \
	"k2, n, round(s::numeric, 6)"
addq "WHERE ~1%" \
	"SELECT k, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM t WHERE w < 10 GROUP BY k" \
	"k, n, round(s::numeric, 6), round(a::numeric, 6), round(lo::numeric, 6), round(hi::numeric, 6)"
addq "WHERE ~90%" \
	"SELECT k, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM t WHERE w >= 100 GROUP BY k" \
	"k, n, round(s::numeric, 6), round(a::numeric, 6), round(lo::numeric, 6), round(hi::numeric, 6)"
addq "no GROUP BY" \
	"SELECT count(*) AS n, sum(v) AS s, avg(w) AS a, min(w) AS lo, max(v) AS hi FROM t" \
	"n, round(s::numeric, 6), round(a, 6), lo, round(hi::numeric, 6)"
addq "2 keys (k, w)" \
	"SELECT k, w, count(*) AS n, sum(v) AS s FROM t GROUP BY k, w" \
	"k, w, n, round(s::numeric, 6)"

# one psql session: settings, the plan, a warm-up, RUNS timed runs, the checksum
session() { # out-file settings query rounded-columns
	{
		echo "SET client_min_messages = warning;"
		echo "CREATE EXTENSION IF NOT EXISTS gpuops;"
		echo "LOAD 'gpuops';"
		echo "SET search_path = agg_bench, public;"
		echo "$2"
		echo "\\echo @plan"
		echo "EXPLAIN (COSTS OFF) $3;"
		echo "\\echo @warmup"
		echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) $3;"
		for _ in $(seq "$runs"); do
			echo "\\echo @run"
			echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) $3;"
		done
		echo "\\echo @md5"
		echo "SELECT count(*), md5(string_agg(r::text, ',' ORDER BY r::text)) FROM (SELECT $4 FROM ($3) q) r;"
		echo "\\echo @end"
	} | psql -X -q -At >"$1" 2>&1 || true
	# a crashed backend sends the server through recovery: wait for it
	for _ in $(seq 120); do
		pg_isready -q && psql -X -q -At -c "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 1
	done
	echo "server not back after a session ($1)" >&2
	exit 1
}

# each session's times as soon as it ends, so a run cut short still reports
progress() {
	echo "   ms: $(grep -h 'Execution Time' "$1" | awk '{printf "%s ", $3}')" >&2
}

selected=" ${QUERIES:-$(seq -s ' ' ${#queries[@]})} "
for i in "${!queries[@]}"; do
	q=$((i + 1))
	[[ $selected == *" $q "* ]] || continue
	for f in $faces; do
		case $f in
		native)
			for w in $native_workers; do
				echo "q$q ${labels[$i]}: native, $w workers" >&2
				set_w="SET gpuops.enabled = off; SET max_parallel_workers_per_gather = $w;"
				[ "$w" -gt 0 ] && set_w="$set_w SET max_parallel_workers = $w;"
				session "$logdir/q$q.native.$w" "$set_w" "${queries[$i]}" "${rounded[$i]}"
				progress "$logdir/q$q.native.$w"
			done ;;
		cpu|gpu)
			echo "q$q ${labels[$i]}: gpuops $f" >&2
			session "$logdir/q$q.$f" "SET gpuops.enabled = on; SET gpuops.device = $f;" \
				"${queries[$i]}" "${rounded[$i]}"
			progress "$logdir/q$q.$f" ;;
		esac
	done
done

# ---- report ---------------------------------------------------------------
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
gpu_name=$(info gpu_name)
[ "$gpu_usable" = true ] || gpu_name="none usable (${gpu_name:-no name}; $(info gpu_error))"
setting() { psql_at -c "SELECT current_setting('$1')"; }
echo "## GpuOpsAgg vs native: $n rows"
echo
echo "- machine: $ncpu cores ($(nproc --all) online), CPU: ${cpu_model:-unknown}; GPU: $gpu_name"
echo "- $(psql_at -c "SELECT version()")"
echo "- gpuops $(info extension_version) (build $(info build)), OpenMP threads $(info openmp_threads)"
echo "- shared_buffers $(setting shared_buffers), max_parallel_workers_per_gather $(setting max_parallel_workers_per_gather)" \
	"(server default; native sets 0 and nproc), max_parallel_workers $(setting max_parallel_workers)," \
	"max_worker_processes $(setting max_worker_processes), work_mem $(setting work_mem)"
echo "- table agg_bench.t: $n rows, $(psql_at -c "SELECT pg_size_pretty(pg_table_size('agg_bench.t'))")," \
	"all-visible after VACUUM (FREEZE, ANALYZE), warmed by $warm"
echo "- time: server-side \"Execution Time\" of EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) (no rows shipped" \
	"to the client), median of $runs runs after 1 warm-up, each face in its own session"
echo "- ratios: native ms / gpuops ms (above 1: gpuops faster)"
echo
python3 - "$logdir" "$runs" "$faces" "$native_workers" "$selected" "${labels[@]}" <<'PY'
import os, sys, statistics
logdir, runs, faces, nworkers = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
selected = [int(q) for q in sys.argv[5].split()]
labels = sys.argv[6:]

def parse(path):
    """sections of one session's output -> plan, timed runs, checksum, errors"""
    r = {"plan": "", "times": [], "node_runs": 0, "launched": [], "gpu_calls": [],
         "md5": None, "errors": [], "runs": 0, "crash": False}
    if not os.path.exists(path):
        return None
    sec = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if "server closed the connection" in line:
            r["crash"] = True
        if ("ERROR:" in line or "FATAL:" in line or "error:" in line
                or "server closed" in line or "connection to server was lost" in line):
            r["errors"].append(line.strip())
            continue
        if line.startswith("@"):
            sec = line[1:]
            if sec == "run":
                r["runs"] += 1
            continue
        if sec == "plan":
            r["plan"] += line + "\n"
        elif sec == "run":
            if "GpuOpsAgg" in line:
                r["node_runs"] += 1
            if "Workers Launched:" in line:
                r["launched"].append(int(line.split(":")[1]))
            # the backend's own GPU calls, and the batches the GPU service ran
            if "GPU Calls:" in line or "GPU Service Batches:" in line:
                r["gpu_calls"].append(int(line.split(":")[1]))
            if line.strip().startswith("Execution Time:"):
                r["times"].append(float(line.split()[2]))
        elif sec == "md5" and "|" in line:
            r["md5"] = line
    return r

def med(r):
    return statistics.median(r["times"]) if r and len(r["times"]) == runs else None

def fmt(ms):
    return "%.1f" % ms if ms >= 10 else "%.2f" % ms

rows, details, errors = [], [], []
for qi, label in enumerate(labels, 1):
    if qi not in selected:
        continue
    # native: the faster worker setting
    nat, nat_w, nat_md5s = None, None, []
    for w in nworkers if "native" in faces else []:
        r = parse(os.path.join(logdir, "q%d.native.%s" % (qi, w)))
        m = med(r)
        for e in r["errors"][:2]:
            errors.append("q%d native (%s workers): %s" % (qi, w, e))
        launched = max(r["launched"]) if r["launched"] else 0
        groups = r["md5"].split("|")[0] if r["md5"] else "?"
        details.append("| q%d %s | %s | %s | %s | %s | %s |" % (
            qi, label, groups, w, launched, fmt(m) if m is not None else "ERROR",
            ", ".join(fmt(t) for t in r["times"])))
        if r["md5"]:
            nat_md5s.append(r["md5"])
        if m is not None and (nat is None or m < nat):
            nat, nat_w = m, w
    if "native" in faces:
        ncell = "%s (%s workers)" % (fmt(nat), nat_w) if nat is not None else "ERROR/CRASH"
    else:
        ncell = "—"
    cells, ratios, same = [], [], []
    if len(set(nat_md5s)) > 1:
        same.append("native settings differ!")
    ref = nat_md5s[0] if nat_md5s else None
    for f in ("cpu", "gpu"):
        if f not in faces:
            cells.append("—"); ratios.append("—"); continue
        r = parse(os.path.join(logdir, "q%d.%s" % (qi, f)))
        m = med(r)
        for e in r["errors"][:3]:
            errors.append("q%d gpuops %s: %s" % (qi, f, e))
        on_node = "GpuOpsAgg" in r["plan"] and r["node_runs"] == r["runs"] == runs
        if m is None:
            cell = "CRASH" if r["crash"] else "ERROR"
        elif not on_node:
            cell = "native plan! (%s)" % fmt(m)
        elif f == "gpu" and r["gpu_calls"] and max(r["gpu_calls"]) == 0:
            cell = "%s (0 GPU calls!)" % fmt(m)
        else:
            cell = fmt(m)
        cells.append(cell)
        ok = m is not None and on_node and nat is not None
        ratios.append("%.2fx" % (nat / m) if ok and m > 0 else "—")
        if ref is None or r["md5"] is None:
            same.append("? %s" % f)
        elif r["md5"] != ref:
            same.append("NO: %s" % f)
    if not same:
        same = ["yes"] if ref is not None and any(f in faces for f in ("cpu", "gpu")) else ["—"]
    rows.append("| q%d %s | %s | %s | %s | %s | %s | %s |" % (
        qi, label, ncell, cells[0], cells[1], ratios[0], ratios[1], "; ".join(same)))

print("| query | native ms (workers) | gpuops cpu ms | gpuops gpu ms | native/cpu | native/gpu | same result |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
print("\n".join(rows))
if details:
    print("\nNative runs (result rows, max_parallel_workers_per_gather, workers launched, median ms, each timed run):\n")
    print("| query | result rows | setting | launched | median ms | runs ms |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    print("\n".join(details))
if errors:
    print("\nErrors:\n")
    for e in errors:
        print("- " + e)
PY
echo
echo "Queries (t = agg_bench.t):"
echo
for i in "${!queries[@]}"; do
	echo "- q$((i + 1)) ${labels[$i]}: \`${queries[$i]}\`"
done
