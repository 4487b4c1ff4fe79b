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
	echo "citus test skipped: Citus is not installed and can't be built here"
	exit 0
elif [ $rc -ne 0 ]; then
	echo "citus test failed: could not build Citus" >&2
	exit 1
fi
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/gpuops.so" ]; then
	echo "citus test failed: gpuops is not installed (run make install first)" >&2
	exit 1
fi

who="citus test"
# shard queries are many and small: no setup cost on the workers, so the node
# is chosen wherever it is eligible
worker_conf="gpuops.cpu_setup_cost = 0
gpuops.gpu_setup_cost = 0"
source "$here/cluster.sh"
cluster_start || exit 1

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

# check NAME EXPECT SQL [CLOSE]: gpuops on vs off on the workers give the
# same rows (EXCEPT ALL both ways, row counts equal and non-zero); EXPECT=gpu
# requires every shard query on GpuOpsAgg, EXPECT=native none, EXPECT=any
# reports.  CLOSE ("key col ...") compares float results instead: each row's
# key matches one row of the other side whose columns are NULL alike or
# within 1e-9 + 1e-12 x their size (floats summed in another order differ in
# the last bits, as between two native plans with different worker counts).
check() {
	local name=$1 expect=$2 sql=$3 close=${4:-} res cmp_on cmp_off
	cmp_on="SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off"
	cmp_off="SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on"
	if [ -n "$close" ]; then
		local key=${close%% *} cols=${close#* } c cond
		cond="a.$key IS NOT DISTINCT FROM b.$key"
		for c in $cols; do
			cond="$cond AND ((a.$c IS NULL AND b.$c IS NULL) OR
				abs(a.$c - b.$c) <= 1e-9 + 1e-12 * greatest(abs(a.$c), abs(b.$c)))"
		done
		cmp_on="SELECT * FROM r_on a WHERE NOT EXISTS (SELECT FROM r_off b WHERE $cond)"
		cmp_off="SELECT * FROM r_off a WHERE NOT EXISTS (SELECT FROM r_on b WHERE $cond)"
	fi
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
       (SELECT count(*) FROM ($cmp_on) x),
       (SELECT count(*) FROM ($cmp_off) x);
SELECT 'on-off', * FROM ($cmp_on LIMIT 3) x;
SELECT 'off-on', * FROM ($cmp_off LIMIT 3) x;
SQL
)
	if [ $? -ne 0 ]; then bad "$name: $res"; return; fi
	local n_on n_off d1 d2
	IFS='|' read -r n_on n_off d1 d2 <<<"$(grep -v '^o[nf]*-o' <<<"$res" | tail -1)"
	if [ "$n_on" != "$n_off" ] || [ "$d1" != 0 ] || [ "$d2" != 0 ] || [ "$n_on" = 0 ]; then
		bad "$name: on $n_on rows, off $n_off rows, on-off $d1, off-on $d2"
		grep '^o[nf]*-o' <<<"$res" | sed 's/^/     /'
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

# check_error NAME SQLSTATE SQL: the query fails with that SQLSTATE with
# gpuops on and off on the workers, and its shard queries run on GpuOpsAgg
check_error() {
	local name=$1 state=$2 sql=$3 mode got tasks on
	for mode in on off; do
		got=$(q 0 -At -v VERBOSITY=verbose 2>&1 <<SQL
SET citus.propagate_set_commands = 'local';
BEGIN;
SET LOCAL gpuops.enabled = $mode;
$sql;
COMMIT;
SQL
)
		grep -q "ERROR:  $state" <<<"$got" ||
			{ bad "$name: gpuops $mode: expected $state, got: $(head -2 <<<"$got")"; return; }
	done
	read -r tasks on <<<"$(explain_count on "$sql")"
	[ "$tasks" != error ] && [ "$tasks" -gt 0 ] && [ "$on" = "$tasks" ] ||
		{ bad "$name: $on of $tasks shard queries on GpuOpsAgg, expected all"; return; }
	printf 'ok   %-28s %s on and off, GpuOpsAgg in %s of %s shard queries\n' "$name" "$state" "$on" "$tasks"
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
