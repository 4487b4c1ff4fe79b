#!/bin/bash
# The GPU service on several GPUs, faked: a throwaway cluster runs 3
# services (gpuops.debug_gpu_count = 3) on the CPU face
# (gpuops.debug_gpu_service), so that a machine with one GPU or none tests
# the placement rule.  Checks that one session's requests and those of
# several concurrent sessions reach every service, that every result equals
# PostgreSQL's own, that killing one service's executor leaves the others
# serving (and it comes back), that one service runs several requests at
# once (gpuops.gpu_service_streams), and how the services are counted without
# the override (CUDA_VISIBLE_DEVICES, then /proc/driver/nvidia/gpus).
# Exits non-zero on any failure.  Needs gpuops installed (make install);
# MULTI_BINDIR names the server's binaries where pg_config is not at hand.
#
#   bash test/service/multi.sh
set -euo pipefail
who="test/service/multi.sh"
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=${MULTI_BINDIR:-$("$PG_CONFIG" --bindir)}
pg_user=${MULTI_USER:-postgres}
port=${MULTI_PORT:-54391}
limit=${MULTI_LIMIT:-120}

fail() {
	echo "$who FAILED: $*" >&2
	[ -f "$base/server.log" ] && tail -30 "$base/server.log" >&2
	exit 1
}

# runs a command as the cluster's user (directly when not root), from /
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u "$pg_user" -- env LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" "$@")
	else
		"$@"
	fi
}

base=$(mktemp -d /tmp/gpuops-multi.XXXXXX)
chmod 755 "$base"
[ "$(id -u)" = 0 ] && chown "$pg_user" "$base"
cleanup() {
	[ -f "$base/data/postmaster.pid" ] &&
		as_pg "$bindir/pg_ctl" -D "$base/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$base"
}
trap cleanup EXIT
trap 'echo "$who interrupted" >&2; exit 1' INT TERM

# the whole run is bounded: past the limit the server stops, which ends any
# query still waiting, and the run fails
(
	sleep "$limit"
	echo "$who FAILED: over ${limit}s, stopping the server" >&2
	touch "$base/timed-out"
	as_pg "$bindir/pg_ctl" -D "$base/data" -m immediate -w stop >/dev/null 2>&1
) >/dev/null 2>&1 &
watchdog=$!
trap 'kill $watchdog 2>/dev/null || true; cleanup' EXIT

# the session settings that send every batch of a GROUP BY to the service:
# the GPU face whatever the costs, no running dense groups (they stay on the
# backend's CPU), batches of 16384 rows, no parallel workers
session="-c gpuops.device=gpu -c gpuops.running_groups=off -c gpuops.gpu_setup_cost=0"
session+=" -c gpuops.cpu_setup_cost=0 -c gpuops.gpu_min_rows=0 -c gpuops.debug_chunk_size=64kB"
session+=" -c max_parallel_workers_per_gather=0 -c statement_timeout=60s -c client_min_messages=warning"

# psql as the superuser, stopping at the first error; extra options first
q() {
	as_pg env PGOPTIONS="${opts:-$session}" "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 \
		-h "$base" -p "$port" -U postgres -d postgres "$@"
}

# starts the server with the settings in $1 and the environment in the rest
start() {
	local conf=$1
	shift
	printf '%s\n' "$conf" >"$base/data/postgresql.auto.conf"
	as_pg env "$@" "$bindir/pg_ctl" -D "$base/data" -l "$base/server.log" -w start >/dev/null ||
		fail "the server did not start"
	q -c "CREATE EXTENSION IF NOT EXISTS gpuops" || fail "CREATE EXTENSION"
	# every service up (page-locking and the executors' start take a moment)
	for _ in $(seq 1 300); do
		[ "$(q -c "SELECT count(*) FROM gpuops.service() WHERE state = 'down'")" = 0 ] && return 0
		sleep 0.1
	done
	fail "a GPU service stayed down: $(q -c 'SELECT gpu, state FROM gpuops.service()')"
}

stop() {
	as_pg "$bindir/pg_ctl" -D "$base/data" -m fast -w stop >/dev/null || fail "the server did not stop"
}

# the served counts, one per service in order, as "a b c"
served() {
	q -c "SELECT string_agg(served::text, ' ' ORDER BY gpu) FROM gpuops.service()"
}

# fails unless every service's count in $2 is above its count in $1
served_more() {
	local -a a=($1) b=($2)
	local i
	[ ${#a[@]} = ${#b[@]} ] || fail "$3: the services changed ($1 -> $2)"
	for i in "${!a[@]}"; do
		[ "${b[$i]}" -gt "${a[$i]}" ] || fail "$3: service $i served no request (served $1 -> $2)"
	done
}

as_pg "$bindir/initdb" -D "$base/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null ||
	fail "initdb"
cat >>"$base/data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$base'
shared_preload_libraries = 'gpuops'
gpuops.debug_gpu_service = on
gpuops.gpu_service_memory = 64MB
max_connections = 40
fsync = off
log_min_messages = warning
CONF

echo "== 3 fake GPUs: placement over the services =="
start "gpuops.debug_gpu_count = 3"
# (on the CPU face here; on a GPU machine service 0 is on the GPU)
[ "$(q -c "SELECT string_agg(gpu::text, ' ' ORDER BY gpu) FROM gpuops.service() WHERE state IN ('gpu', 'cpu')")" = "0 1 2" ] ||
	fail "3 services serving expected: $(q -c 'SELECT * FROM gpuops.service()')"
q -c "SELECT gpu, state, device FROM gpuops.service()"
q <<'SQL' || fail "setup"
CREATE TABLE mg_t (k int4, g int8, v float8, w int4);
INSERT INTO mg_t
  SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 97 END, i % 5003,
         CASE WHEN i % 11 = 0 THEN NULL ELSE i / 8.0 END, i
    FROM generate_series(1, 200000) i;
VACUUM ANALYZE mg_t;
-- raises unless q (a query text) gives the same rows with gpuops on and off
CREATE FUNCTION mg_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  m bigint;
  total bigint;
BEGIN
  EXECUTE 'CREATE TEMP TABLE mg_on AS ' || q;
  SET LOCAL gpuops.enabled = off;
  EXECUTE 'CREATE TEMP TABLE mg_off AS ' || q;
  SET LOCAL gpuops.enabled = on;
  SELECT count(*) INTO n FROM (SELECT * FROM mg_on EXCEPT ALL SELECT * FROM mg_off) d;
  SELECT count(*) INTO m FROM (SELECT * FROM mg_off EXCEPT ALL SELECT * FROM mg_on) d;
  SELECT count(*) INTO total FROM mg_off;
  DROP TABLE mg_on;
  DROP TABLE mg_off;
  IF n + m <> 0 OR total = 0 THEN
    RAISE EXCEPTION 'wrong result: % rows differ from PostgreSQL''s (of %) in %', n + m, total, q;
  END IF;
  RETURN 'same';
END
$$;
-- the three queries, each in several batches
CREATE FUNCTION mg_checks() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mg_check('SELECT k, count(*) c, count(v) cv, sum(v) s, min(v) mn, max(v) mx, avg(w) a FROM mg_t GROUP BY k');
  PERFORM mg_check('SELECT k, g, count(*) c, sum(w) s, max(v) mx FROM mg_t GROUP BY k, g');
  PERFORM mg_check('SELECT g, count(*) FILTER (WHERE w % 2 = 0) c, sum(v) s FROM mg_t WHERE w < 150000 GROUP BY g');
END
$$;
SQL
# one batch through the service, seen in EXPLAIN ANALYZE
q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT k, count(*) FROM mg_t GROUP BY k" |
	grep -q "GPU Service Batches: [1-9]" || fail "the batches did not reach the service"

before=$(served)
q -c "SELECT mg_checks()" >/dev/null || fail "one session: a query failed"
after=$(served)
served_more "$before" "$after" "one session"
echo "one session: served $before -> $after"

before=$after
pids=()
for s in 1 2 3 4 5 6; do
	q -c "SELECT mg_checks()" -c "SELECT mg_checks()" >"$base/s$s.out" 2>&1 &
	pids+=($!)
done
for s in "${!pids[@]}"; do
	wait "${pids[$s]}" || { cat "$base/s$((s + 1)).out" >&2; fail "concurrent session $((s + 1)) failed"; }
done
after=$(served)
served_more "$before" "$after" "6 sessions"
[ "$(q -c "SELECT sum(in_flight) + sum(arena_used) FROM gpuops.service()")" = 0 ] ||
	fail "requests left behind: $(q -c 'SELECT * FROM gpuops.service()')"
echo "6 concurrent sessions: served $before -> $after"

echo "== one executor killed: the others serve on =="
gens=$(q -c "SELECT string_agg(pid || '/' || starts, ' ' ORDER BY gpu) FROM gpuops.service() WHERE gpu <> 1")
before=$(served)
# sessions under auto while it goes: a batch lost with it runs on the CPU
pids=()
for s in 1 2 3; do
	opts="$session -c gpuops.device=auto" q -c "SELECT mg_checks()" -c "SELECT mg_checks()" \
		>"$base/k$s.out" 2>&1 &
	pids+=($!)
done
sleep 0.3
[ "$(q -c "SELECT gpuops.service_restart(immediate => true, gpu => 1)")" = t ] ||
	fail "could not kill service 1's executor"
for s in "${!pids[@]}"; do
	wait "${pids[$s]}" || { cat "$base/k$((s + 1)).out" >&2; fail "session $((s + 1)) failed while an executor was killed"; }
done
# the other services kept their executors, and served
[ "$(q -c "SELECT string_agg(pid || '/' || starts, ' ' ORDER BY gpu) FROM gpuops.service() WHERE gpu <> 1")" = "$gens" ] ||
	fail "killing service 1's executor touched the others: $gens -> $(q -c 'SELECT * FROM gpuops.service()')"
q -c "SELECT mg_checks()" >/dev/null || fail "after the kill: a query failed"
after=$(served)
echo "served $before -> $after"
for i in 0 2; do
	a=($before) b=($after)
	[ "${b[$i]}" -gt "${a[$i]}" ] || fail "service $i served nothing after service 1's executor was killed"
done
# and service 1 is back, with a new executor
for _ in $(seq 1 100); do
	[ "$(q -c "SELECT state <> 'down' AND starts >= 2 FROM gpuops.service() WHERE gpu = 1")" = t ] && break
	sleep 0.1
done
[ "$(q -c "SELECT state IN ('gpu', 'cpu') AND starts = 2 FROM gpuops.service() WHERE gpu = 1")" = t ] ||
	fail "service 1 did not come back: $(q -c 'SELECT * FROM gpuops.service() WHERE gpu = 1')"
before=$(served)
q -c "SELECT mg_checks()" >/dev/null || fail "after service 1 came back: a query failed"
served_more "$before" "$(served)" "after service 1 came back"
# (a smaller table for the next part: 2 batches a query)
q -c "CREATE TABLE mg_s AS SELECT * FROM mg_t WHERE w <= 30000" -c "ANALYZE mg_s" ||
	fail "setup of mg_s"
stop

echo "== one service, several requests at once =="
# the peak of requests run at once, with 4 sessions and gpuops.debug_gpu_service_delay
# holding each request 200 ms, under gpuops.gpu_service_streams = $1
peak_with_streams() {
	start "gpuops.debug_gpu_count = 1
gpuops.gpu_service_streams = $1
gpuops.debug_gpu_service_delay = 200"
	[ "$(q -c "SELECT streams FROM gpuops.service()")" = "$1" ] ||
		fail "streams $1 expected: $(q -c 'SELECT * FROM gpuops.service()')"
	local pids=() s
	for s in 1 2 3 4; do
		q -c "SELECT mg_check('SELECT k, count(*) c, sum(v) s, max(w) mx FROM mg_s GROUP BY k')" \
			>"$base/p$s.out" 2>&1 &
		pids+=($!)
	done
	for s in "${!pids[@]}"; do
		wait "${pids[$s]}" || { cat "$base/p$((s + 1)).out" >&2; fail "streams $1: session $((s + 1)) failed"; }
	done
	[ "$(q -c "SELECT running + in_flight + arena_used FROM gpuops.service()")" = 0 ] ||
		fail "streams $1: requests left behind: $(q -c 'SELECT * FROM gpuops.service()')"
	q -c "SELECT running_peak FROM gpuops.service()"
	stop
}
peak=$(peak_with_streams 3)
[ "$peak" -ge 2 ] && [ "$peak" -le 3 ] ||
	fail "gpuops.gpu_service_streams = 3: 2 or 3 requests at once expected, ran $peak"
echo "3 streams: at most $peak requests at once"
peak=$(peak_with_streams 1)
[ "$peak" = 1 ] || fail "gpuops.gpu_service_streams = 1: one request at a time expected, ran $peak"
echo "1 stream: at most $peak request at once"

echo "== the count without the override =="
# count of services the server runs now
nservices() {
	q -c "SELECT count(*) FROM gpuops.service()"
}
start "" CUDA_VISIBLE_DEVICES=0,1
[ "$(nservices)" = 2 ] || fail "CUDA_VISIBLE_DEVICES=0,1: 2 services expected, got $(nservices)"
stop
start "" CUDA_VISIBLE_DEVICES=
[ "$(nservices)" = 1 ] || fail "CUDA_VISIBLE_DEVICES empty: 1 service expected, got $(nservices)"
stop
start "gpuops.debug_gpu_count = 2" CUDA_VISIBLE_DEVICES=0,1,2,3
[ "$(nservices)" = 2 ] || fail "gpuops.debug_gpu_count = 2: 2 services expected, got $(nservices)"
stop
# without CUDA_VISIBLE_DEVICES: one per entry of the driver's list (at least one)
found=$( (ls /proc/driver/nvidia/gpus 2>/dev/null || true) | wc -l)
want=$((found < 1 ? 1 : found > 16 ? 16 : found))
start "" -u CUDA_VISIBLE_DEVICES
[ "$(nservices)" = "$want" ] || fail "driver's list: $want services expected, got $(nservices)"
stop
[ -f "$base/timed-out" ] && fail "timed out"
echo "$who: all passed"
