#!/bin/bash
# gpuops under Citus: a coordinator and 2 workers as throwaway clusters on
# local ports, distributed tables, and every query checked with gpuops on vs
# off on the workers (EXCEPT ALL empty both ways), plus EXPLAIN of the shard
# queries (citus.explain_all_tasks) for Custom Scan (GpuOpsAgg).
#
#   bash test/citus/run.sh     (as root, after make install; make citus-test)
#
# Builds Citus from the shared folder (test/citus/build.sh) when it is not
# installed; prints "skipped" and exits 0 when neither is available.
# Settings: CITUS_PORT (coordinator port, workers the next two; 5451),
# CITUS_ROWS (rows of the distributed table; 60000), CITUS_SHARDS (8),
# CITUS_TIMEOUT (seconds for the whole run; 600).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
port0=${CITUS_PORT:-5451}
rows=${CITUS_ROWS:-60000}
shards=${CITUS_SHARDS:-8}
limit=${CITUS_TIMEOUT:-600}
started=$(date +%s)

echo "== Citus (coordinator + 2 workers) =="
bash "$here/build.sh"
rc=$?
if [ $rc -eq 3 ]; then
	echo "citus test skipped: Citus is not installed and its source is not available"
	exit 0
elif [ $rc -ne 0 ]; then
	echo "citus test failed: could not build Citus" >&2
	exit 1
fi
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/gpuops.so" ]; then
	echo "citus test failed: gpuops is not installed (run make install first)" >&2
	exit 1
fi

# run a command as the postgres user (directly when already that user)
as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

base=$(mktemp -d /tmp/gpuops-citus.XXXXXX)
chmod 755 "$base"
[ "$(id -u)" = 0 ] && chown postgres "$base"
nodes=(coord w1 w2)
ports=("$port0" $((port0 + 1)) $((port0 + 2)))

# stop every cluster and remove the folder, on every way out
cleanup() {
	for n in "${nodes[@]}"; do
		[ -f "$base/$n/postmaster.pid" ] &&
			as_pg "$bindir/pg_ctl" -D "$base/$n" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$base"
}
trap cleanup EXIT
trap 'echo "citus test interrupted" >&2; exit 1' INT TERM
# the whole run is bounded: past the limit the clusters are stopped, which
# ends any query still waiting, and the run fails
watchdog() {
	sleep "$limit" >/dev/null 2>&1 &
	local s=$!
	trap 'kill $s 2>/dev/null; exit 0' TERM
	wait $s || exit 0
	echo "citus test failed: over ${limit}s, stopping the clusters" >&2
	touch "$base/timed-out"
	for n in "${nodes[@]}"; do
		as_pg "$bindir/pg_ctl" -D "$base/$n" -m immediate -w stop >/dev/null 2>&1
	done
}
watchdog &
watchdog_pid=$!
trap 'kill $watchdog_pid 2>/dev/null; wait $watchdog_pid 2>/dev/null; cleanup' EXIT

for i in 0 1 2; do
	n=${nodes[$i]}
	as_pg "$bindir/initdb" -D "$base/$n" -A trust -E UTF8 --locale=C.UTF-8 >/dev/null ||
		{ echo "citus test failed: initdb $n" >&2; exit 1; }
	cat >>"$base/$n/postgresql.conf" <<CONF
port = ${ports[$i]}
listen_addresses = 'localhost'
unix_socket_directories = '$base'
shared_preload_libraries = 'citus,gpuops'
max_connections = 200
fsync = off
log_min_messages = warning
CONF
	if [ "$n" != coord ]; then
		# shard queries are many and small: no setup cost, so the node is
		# chosen wherever it is eligible
		cat >>"$base/$n/postgresql.conf" <<CONF
gpuops.cpu_setup_cost = 0
gpuops.gpu_setup_cost = 0
CONF
	fi
	as_pg "$bindir/pg_ctl" -D "$base/$n" -l "$base/$n.log" -w start >/dev/null ||
		{ echo "citus test failed: cannot start $n" >&2; cat "$base/$n.log" >&2; exit 1; }
done

# psql on node $1 (0 coordinator, 1 and 2 workers), SQL on stdin or -c
q() {
	local p=${ports[$1]}; shift
	as_pg "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$base" -p "$p" -d postgres "$@"
}

for i in 1 2 0; do
	q $i -c "CREATE EXTENSION citus" -c "CREATE EXTENSION gpuops" ||
		{ echo "citus test failed: CREATE EXTENSION on ${nodes[$i]}" >&2; exit 1; }
done
q 0 -c "SELECT citus_set_coordinator_host('localhost', ${ports[0]})" \
	-c "SELECT citus_add_node('localhost', ${ports[1]})" \
	-c "SELECT citus_add_node('localhost', ${ports[2]})" >/dev/null ||
	{ echo "citus test failed: citus_add_node" >&2; exit 1; }

echo "loading $rows rows in $shards shards"
sed -e "s/@ROWS@/$rows/g" -e "s/@SHARDS@/$shards/g" "$here/setup.sql" | q 0 >/dev/null ||
	{ echo "citus test failed: loading the tables" >&2; exit 1; }

pass=0
fail=0
gpu_tasks=0
all_tasks=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# EXPLAIN of query $2 with explain_all_tasks; prints "tasks on-node"
explain_count() {
	local mode=$1 sql=$2 out
	out=$(q 0 -At <<SQL
SET citus.explain_all_tasks = on;
SET citus.propagate_set_commands = 'local';
BEGIN;
SET LOCAL gpuops.enabled = $mode;
EXPLAIN (COSTS OFF) $sql;
COMMIT;
SQL
) || { echo "error error"; return; }
	echo "$(grep -cE -- '->[[:space:]]+Task$' <<<"$out") $(grep -c 'Custom Scan (GpuOpsAgg)' <<<"$out")"
}

# check NAME EXPECT SQL: gpuops on vs off on the workers give the same rows
# (EXCEPT ALL both ways, row counts equal and non-zero); EXPECT=gpu requires
# every shard query on GpuOpsAgg, EXPECT=native none, EXPECT=any reports
check() {
	local name=$1 expect=$2 sql=$3 res
	res=$(q 0 -At 2>&1 <<SQL
SET citus.propagate_set_commands = 'local';
BEGIN;
SET LOCAL gpuops.enabled = on;
CREATE TEMP TABLE r_on AS $sql;
COMMIT;
BEGIN;
SET LOCAL gpuops.enabled = off;
CREATE TEMP TABLE r_off AS $sql;
COMMIT;
SELECT (SELECT count(*) FROM r_on), (SELECT count(*) FROM r_off),
       (SELECT count(*) FROM (SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off) a),
       (SELECT count(*) FROM (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on) b);
SQL
)
	if [ $? -ne 0 ]; then bad "$name: $res"; return; fi
	local n_on n_off d1 d2
	IFS='|' read -r n_on n_off d1 d2 <<<"$(tail -1 <<<"$res")"
	if [ "$n_on" != "$n_off" ] || [ "$d1" != 0 ] || [ "$d2" != 0 ] || [ "$n_on" = 0 ]; then
		bad "$name: on $n_on rows, off $n_off rows, on-off $d1, off-on $d2"
		return
	fi
	local on off
	read -r tasks on <<<"$(explain_count on "$sql")"
	read -r tasks_off off <<<"$(explain_count off "$sql")"
	if [ "$tasks" = error ] || [ "$tasks_off" = error ]; then bad "$name: EXPLAIN failed"; return; fi
	if [ "$off" != 0 ]; then bad "$name: GpuOpsAgg with gpuops.enabled = off ($off)"; return; fi
	case $expect in
	gpu) [ "$tasks" -gt 0 ] && [ "$on" = "$tasks" ] ||
		{ bad "$name: $on of $tasks shard queries on GpuOpsAgg, expected all"; return; } ;;
	native) [ "$on" = 0 ] || { bad "$name: $on shard queries on GpuOpsAgg, expected none"; return; } ;;
	esac
	gpu_tasks=$((gpu_tasks + on))
	all_tasks=$((all_tasks + tasks))
	printf 'ok   %-28s %6s rows, GpuOpsAgg in %s of %s shard queries\n' "$name" "$n_on" "$on" "$tasks"
	ok
}

source "$here/queries.sh"

# the toggle reaches the workers: the same shard query, on and off
read -r t_on n_on <<<"$(explain_count on 'SELECT g, count(*) FROM t GROUP BY g')"
read -r t_off n_off <<<"$(explain_count off 'SELECT g, count(*) FROM t GROUP BY g')"
if [ "$n_on" = "$t_on" ] && [ "$t_on" -gt 0 ] 2>/dev/null && [ "$n_off" = 0 ]; then
	ok; echo "ok   SET LOCAL gpuops.enabled reaches the workers ($t_on tasks)"
else
	bad "SET LOCAL gpuops.enabled propagation: on $n_on/$t_on, off $n_off/$t_off"
fi

echo "GpuOpsAgg ran $gpu_tasks of $all_tasks shard queries; $(( $(date +%s) - started ))s"
[ -f "$base/timed-out" ] && bad "the run went over ${limit}s"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
