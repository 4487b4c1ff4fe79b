#!/bin/bash
# On the GPU machine (through the device tool, carry [".device"]): GPU unit
# tests, the primitive benchmarks, pg_regress under gpuops.device = 'gpu', and
# optionally the query-function and aggregate-query benchmarks.  Logs go to
# $OUT; a summary is printed last.
#   STEPS       which steps, default "unit bench regress" (also: qf agg)
#   UNIT_QUICK  1: unit tests skip the cases above 10M rows
#   QF_ROWS     rows for bench/query_functions.sh (step qf)
#   AGG_ROWS    rows for bench/agg_queries.sh (step agg); AGG_RUNS timed runs,
#               AGG_QUERIES the query numbers (default all), AGG_FACES the
#               faces (default all: native cpu gpu)
#   REGRESS     pg_regress tests to run (default: all, agg_node first)
#   step overlap (after agg): q1 on the GPU with gpuops.overlap off and on
#               (ALT: the boolean settings to alternate, default gpuops.overlap;
#               ALT_QUERY another query, ALT_REPS rounds, default 3,
#               ALT_VALUES the values, default "off on")
#   step conc: bench/concurrency.sh (pgbench, many sessions; CONC_ROWS rows,
#               CONC_CACHE 1: from the column cache,
#               CONC_CLIENTS, CONC_DURATION, CONC_FACES, CONC_QUERIES)
#   step streams (after conc): the GPU face under load with each
#               gpuops.gpu_service_streams of STREAMS_LIST (default "1 4"),
#               the server restarted for each (STREAMS_CLIENTS, CONC_ROWS)
#   step explain (after streams): EXPLAIN ANALYZE of EXPLAIN_QUERY (default
#               the light query of step conc) on the GPU face, EXPLAIN_REPS times
#   step multi (after streams): test/service/multi.sh, its own cluster; on a
#               GPU machine service 0 serves on the GPU, so the concurrent
#               sessions and the several-requests-at-once part run there
#   step first (after conc): bench/first_query.sh, a new session's first
#               query against a warm session's (FIRST_REPS)
#   PG_EXTRA_OPTS  more server options (e.g. "-c gpuops.gpu_service=off")
#   SERVER_CONF    lines for postgresql.auto.conf, the server restarted with them
#               (e.g. "gpuops.gpu_service_streams = 4"; step streams may change them)
#   step small: bench/small_tables.sh (SMALL_SIZES, SMALL_DURATION, SMALL_FACE)
#   step citus: test/citus/bench.sh, Citus from the bundle, three clusters
#               of its own (CITUS_ROWS, CITUS_FACES, CITUS_SIZES, CITUS_REPS)
#   step smith: scripts/sqlsmith.sh SMITH_QUERIES (default 10000) under
#               gpuops.device = 'gpu' (SMITH_SEED, SMITH_TIME seconds, SMITH_CALLS)
#   step sql (after agg): runs SQL_FILE (a file of the tree) in one psql
#               session and keeps the lines matching SQL_GREP (default: echo
#               lines, timings, workers, calls, strategy); SQL_VARS psql's
#               options (e.g. "-v rows=10000000 -v copies=4")
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
steps=" ${STEPS:-unit bench regress} "
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
unit_rc=- bench_rc=- reg_rc=- qf_rc=- agg_rc=-
if [[ $steps == *" unit "* ]]; then
	echo "== unit tests =="
	GPO_TEST_QUICK=${UNIT_QUICK:-0} timeout ${UNIT_TIMEOUT:-300} ./.device/test_core >"$OUT/unit.log" 2>&1; unit_rc=$?
	grep -E "FAIL|^ok|SKIP" "$OUT/unit.log" | head -40; tail -2 "$OUT/unit.log"
fi
if [[ $steps == *" bench "* ]]; then
	bench_rc=0
	for b in .device/gpu_*; do
		echo "== $(basename $b) =="
		timeout ${BENCH_TIMEOUT:-60} "$b" ${BENCH_ROWS:-100000000} >"$OUT/$(basename $b).md" 2>&1 || bench_rc=$?
		cat "$OUT/$(basename $b).md"
	done
fi
if [[ $steps == *" regress "* || $steps == *" small "* || $steps == *" citus "* || $steps == *" qf "* || $steps == *" agg "* || $steps == *" overlap "* || $steps == *" sql "* || $steps == *" conc "* || $steps == *" streams "* || $steps == *" first "* || $steps == *" explain "* || $steps == *" smith "* ]]; then
	# (pgbench's 128 clients of step conc need more than the default 100 connections)
	PG_UP_OPTIONS="-c shared_preload_libraries=gpuops -c max_connections=300 ${PG_EXTRA_OPTS:-}" \
		source .device/pg-up.sh .device/pg.tar.xz >/dev/null || { echo "pg-up failed"; exit 1; }
	rm -rf /tmp/w && cp -r . /tmp/w && chown -R pg /tmp/w && cd /tmp/w
	as_pg createdb regress_gpu
	pgenv=(env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" PGHOST=/tmp PGUSER=postgres)
	if [ -n "${SERVER_CONF:-}" ]; then
		# settings ALTER SYSTEM may change later (step streams), unlike PG_EXTRA_OPTS
		printf '%s\n' "$SERVER_CONF" >>/tmp/pgdata/postgresql.auto.conf
		as_pg pg_ctl -D /tmp/pgdata -w -m fast restart >/dev/null || { echo "restart failed"; exit 1; }
		for _ in $(seq 1 100); do
			[ "$(as_pg psql -X -At -d regress_gpu -c "CREATE EXTENSION IF NOT EXISTS gpuops" -c \
				"SELECT count(*) FROM gpuops.service() WHERE state = 'down'" 2>/dev/null | tail -1)" = 0 ] && break
			sleep 0.2
		done
	fi
fi
if [[ $steps == *" regress "* ]]; then
	echo "== pg_regress (gpuops.device = gpu) =="
	all=$(ls sql/*.sql | grep -v 'sql/gpuops--' | xargs -n1 basename | sed 's/\.sql$//' | grep -v '^agg_node$' | sort)
	tests=${REGRESS:-agg_node $all}
	timeout ${REGRESS_TIMEOUT:-240} runuser -u pg -- "${pgenv[@]}" PGOPTIONS="-c gpuops.device=gpu" \
		$PG_REGRESS --dbname=regress_gpu --load-extension=gpuops $tests >"$OUT/regress.log" 2>&1; reg_rc=$?
	tail -30 "$OUT/regress.log"
	[ -f regression.diffs ] && cp regression.diffs "$OUT/"
	iso=${PG_REGRESS%% *}
	iso=${iso%/regress/pg_regress}/isolation/pg_isolation_regress
	if [ -x "$iso" ]; then
		echo "== isolation specs (gpuops.device = gpu) =="
		timeout ${ISO_TIMEOUT:-120} runuser -u pg -- "${pgenv[@]}" PGOPTIONS="-c gpuops.device=gpu" \
			"$iso" --bindir="$(dirname "$(command -v psql)")" --dbname=iso_gpu --load-extension=gpuops \
			$(ls specs/*.spec | xargs -n1 basename | sed 's/\.spec$//') >"$OUT/isolation.log" 2>&1 || reg_rc=$?
		tail -8 "$OUT/isolation.log"
		[ -f output_iso/regression.diffs ] && cp output_iso/regression.diffs "$OUT/isolation.diffs"
	fi
	as_pg psql -X -d regress_gpu -c "SELECT * FROM gpuops.info()" 2>&1 | tee "$OUT/info.txt"
fi
if [[ $steps == *" qf "* ]]; then
	echo "== query-fed functions, ${QF_ROWS:-10000000} rows =="
	timeout ${QF_TIMEOUT:-240} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		bash bench/query_functions.sh "${QF_ROWS:-10000000}" 2>&1 | tee "$OUT/query_functions.txt"; qf_rc=$?
fi
if [[ $steps == *" agg "* ]]; then
	echo "== aggregate queries, ${AGG_ROWS:-100000000} rows =="
	# the session logs go where the server's user can write; $OUT gets a copy
	rm -rf /tmp/agglogs && mkdir -p /tmp/agglogs && chown pg /tmp/agglogs
	timeout ${AGG_TIMEOUT:-400} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		RUNS=${AGG_RUNS:-3} QUERIES="${AGG_QUERIES:-}" AGG_LOG_DIR=/tmp/agglogs NATIVE_WORKERS="${NATIVE_WORKERS:-$(nproc)}" \
		bash bench/agg_queries.sh "${AGG_ROWS:-100000000}" ${AGG_FACES:+"$AGG_FACES"} 2>&1 | tee "$OUT/agg_queries.txt"; agg_rc=$?
	# one file: a call returns only so many files
	tar czf "$OUT/agg_logs.tgz" -C /tmp agglogs
fi
if [[ $steps == *" overlap "* ]]; then
	# after the agg step (its table): q1 on the GPU with gpuops.overlap off
	# and on, alternating, in one session; Read/Engine/Execution Time each
	echo "== GpuOpsAgg q1, gpuops.overlap off vs on (gpu) =="
	q1=${ALT_QUERY:-"SELECT k, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM agg_bench.t GROUP BY k"}
	{
		echo "SET gpuops.device = gpu; SET max_parallel_workers_per_gather = $(nproc);"
		echo "EXPLAIN (ANALYZE, TIMING OFF) $q1;"
		for i in $(seq ${ALT_REPS:-3}); do
			for g in ${ALT:-gpuops.overlap}; do
				for o in ${ALT_VALUES:-off on}; do
					echo "\\echo $g $o"
					echo "SET $g = $o; EXPLAIN (ANALYZE) $q1; RESET $g;"
				done
			done
		done
	} >/tmp/overlap.sql
	chmod 644 /tmp/overlap.sql
	timeout ${OVERLAP_TIMEOUT:-120} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		psql -X -q -f /tmp/overlap.sql 2>&1 | grep -E "gpuops\.|Read Time|Pinning Time|Engine Time|Execution Time|GPU Calls" |
		tr -s ' ' | tee "$OUT/overlap.txt"
fi
if [[ $steps == *" conc "* ]]; then
	echo "== many sessions (bench/concurrency.sh) =="
	timeout ${CONC_TIMEOUT:-480} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		ROWS=${CONC_ROWS:-10000000} CLIENTS="${CONC_CLIENTS:-1 16 64}" DURATION=${CONC_DURATION:-10} \
		FACES="${CONC_FACES:-native cpu gpu}" QUERIES="${CONC_QUERIES:-light heavy}" CACHE=${CONC_CACHE:-0} \
		bash bench/concurrency.sh 2>&1 | tee "$OUT/concurrency.txt"
fi
if [[ $steps == *" streams "* ]]; then
	# the GPU service's gpuops.gpu_service_streams (a server-start setting): the
	# server restarted with each value of STREAMS_LIST, the GPU face's tps at
	# STREAMS_CLIENTS, then what the service ran at once
	echo "== GPU service streams (bench/concurrency.sh, GPU face) =="
	for n in ${STREAMS_LIST:-1 4}; do
		# (a debug delay an isolation spec cut short may have left set goes too)
		runuser -u pg -- "${pgenv[@]}" psql -X -q -d regress_gpu \
			-c "ALTER SYSTEM RESET gpuops.debug_gpu_service_delay" \
			-c "ALTER SYSTEM SET gpuops.gpu_service_streams = $n" &&
			runuser -u pg -- "${pgenv[@]}" pg_ctl -D /tmp/pgdata -w -m fast restart >/dev/null ||
			{ echo "restart with $n streams failed"; break; }
		for _ in $(seq 1 100); do
			[ "$(runuser -u pg -- "${pgenv[@]}" psql -X -At -d regress_gpu -c \
				"SELECT count(*) FROM gpuops.service() WHERE state = 'down'")" = 0 ] && break
			sleep 0.2
		done
		echo "-- gpuops.gpu_service_streams = $n"
		timeout ${STREAMS_TIMEOUT:-240} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
			ROWS=${CONC_ROWS:-10000000} CLIENTS="${STREAMS_CLIENTS:-16 64}" DURATION=${CONC_DURATION:-10} \
			FACES=gpu QUERIES="${CONC_QUERIES:-light heavy}" \
			bash bench/concurrency.sh 2>&1 | grep -E "^\| (light|heavy)|loading|failed" | tee -a "$OUT/streams.txt"
		runuser -u pg -- "${pgenv[@]}" psql -X -d regress_gpu -c \
			"SELECT gpu, streams, running_peak, served, lost, device_peak FROM gpuops.service()" |
			tee -a "$OUT/streams.txt"
	done
fi
if [[ $steps == *" explain "* ]]; then
	# after conc or streams (their table): EXPLAIN ANALYZE of EXPLAIN_QUERY
	# (default the light query) on the GPU face, EXPLAIN_REPS times in one
	# session, under the server's settings as the last step left them
	echo "== EXPLAIN ANALYZE on the GPU face =="
	eq=${EXPLAIN_QUERY:-"SELECT k, count(*), sum(v) FROM conc_bench.t WHERE w < 50 GROUP BY k"}
	for _ in $(seq ${EXPLAIN_REPS:-3}); do echo "EXPLAIN (ANALYZE) $eq;"; done >/tmp/explain.sql
	chmod 644 /tmp/explain.sql
	timeout ${EXPLAIN_TIMEOUT:-60} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		PGOPTIONS="-c gpuops.device=gpu" psql -X -q -f /tmp/explain.sql 2>&1 | tr -s ' ' | tee "$OUT/explain.txt"
fi
multi_rc=-
if [[ $steps == *" multi "* ]]; then
	echo "== several services and streams (test/service/multi.sh) =="
	timeout ${MULTI_TIMEOUT:-200} env MULTI_USER=pg MULTI_BINDIR="$(dirname "$(command -v psql)")" \
		bash test/service/multi.sh 2>&1 | tee "$OUT/multi.txt"
	multi_rc=${PIPESTATUS[0]}
fi
if [[ $steps == *" first "* ]]; then
	echo "== a new session's first query (bench/first_query.sh) =="
	timeout ${FIRST_TIMEOUT:-120} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		REPS=${FIRST_REPS:-5} bash bench/first_query.sh 2>&1 | tee "$OUT/first_query.txt"
fi
if [[ $steps == *" sql "* ]]; then
	echo "== $SQL_FILE =="
	timeout ${SQL_TIMEOUT:-200} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		psql -X -q ${SQL_VARS:-} -f "$SQL_FILE" >/tmp/sql.log 2>&1
	cp /tmp/sql.log "$OUT/sql.log"
	grep -E "${SQL_GREP:-^[a-z#=]|Time|Workers|Calls|Strategy|Chunks|ERROR}" /tmp/sql.log | tr -s ' ' | tee "$OUT/sql.txt"
fi
if [[ $steps == *" small "* ]]; then
	echo "== small tables (bench/small_tables.sh) =="
	timeout ${SMALL_TIMEOUT:-300} runuser -u pg -- "${pgenv[@]}" PGDATABASE=regress_gpu \
		SIZES="${SMALL_SIZES:-1000 4000 16000 62500 250000}" DURATION=${SMALL_DURATION:-2} FACE=${SMALL_FACE:-auto} \
		bash bench/small_tables.sh 2>&1 | tee "$OUT/small_tables.txt"
fi
if [[ $steps == *" citus "* ]]; then
	echo "== Citus bench (test/citus/bench.sh) =="
	timeout ${CITUS_TIMEOUT:-480} env CITUS_USER=pg PG_CONFIG="$(command -v pg_config)" \
		BENCH_ROWS=${CITUS_ROWS:-10000000} BENCH_FACES="${CITUS_FACES:-cpu gpu}" \
		BENCH_SIZES="${CITUS_SIZES-62500 100000 250000}" BENCH_REPS=${CITUS_REPS:-3} \
		BENCH_WORKER_CONF="shared_buffers = 8GB" BENCH_TIMEOUT=${CITUS_TIMEOUT:-480} bash test/citus/bench.sh 2>&1 | tee "$OUT/citus_bench.txt"
fi
smith_rc=-
if [[ $steps == *" smith "* ]]; then
	echo "== sqlsmith (gpuops.device = gpu) =="
	chmod -R a+rX .device/sqlsmith
	PATH="$PWD/.device/sqlsmith:$PATH" LD_LIBRARY_PATH="$PWD/.device/sqlsmith/lib:$LD_LIBRARY_PATH" \
		SQLSMITH_USER=pg GPUOPS_DEVICE=gpu SQLSMITH_CONF="${SMITH_CONF:-}" SEED=${SMITH_SEED:-1} SQLSMITH_TIME=${SMITH_TIME:-420} \
		CALLS=${SMITH_CALLS:-2000} BINDIR="$(dirname "$(command -v psql)")" \
		bash scripts/sqlsmith.sh ${SMITH_QUERIES:-10000} 2>&1 | tee "$OUT/sqlsmith.txt"
	smith_rc=${PIPESTATUS[0]}
fi
echo "SUMMARY unit=$unit_rc bench=$bench_rc regress=$reg_rc qf=$qf_rc agg=$agg_rc multi=$multi_rc smith=$smith_rc"
