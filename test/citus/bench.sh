#!/bin/bash
# Timings of distributed queries, gpuops on vs off on the workers, and the
# shard size from which the workers' planner takes GpuOpsAgg at the default
# costs.  A measurement, not a test: run by hand (as root, after make install
# and with Citus installed), e.g.  bash test/citus/bench.sh
# Settings: CITUS_PORT (5451), BENCH_ROWS (10000000), BENCH_KEYS (1000000:
# the distribution key's values, the groups of GROUP BY key), BENCH_SHARDS
# (32), BENCH_REPS (3: the median is printed), BENCH_FACES ("cpu": the
# gpuops.device values timed at the default costs, e.g. "cpu gpu"),
# BENCH_FORCED (1: also the node forced, cpu_setup_cost = 0), BENCH_SIZES
# (the local table sizes of the plan table; "" skips it), BENCH_WORKER_CONF
# (lines for the workers' postgresql.conf, e.g. "shared_buffers = 4GB").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
port0=${CITUS_PORT:-5451}
rows=${BENCH_ROWS:-10000000}
keys=${BENCH_KEYS:-1000000}
shards=${BENCH_SHARDS:-32}
reps=${BENCH_REPS:-3}
faces=${BENCH_FACES:-cpu}
sizes=${BENCH_SIZES-16000 25000 62500 100000 250000 1000000}
limit=${BENCH_TIMEOUT:-1800}
who="citus bench"
started=$(date +%s)
worker_conf=${BENCH_WORKER_CONF:-}
[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] || { echo "$who: Citus is not installed" >&2; exit 2; }
source "$here/cluster.sh"
cluster_start || exit 1

echo "loading $rows rows in $shards shards, $keys keys"
q 0 >/dev/null <<SQL || exit 1
SET citus.shard_count = $shards;
CREATE TABLE b (key int8, g int4, v float8, i int4);
SELECT create_distributed_table('b', 'key');
CREATE TABLE r (g int4 PRIMARY KEY, name text);
SELECT create_reference_table('r');
INSERT INTO b SELECT x % $keys, x % 1000, (x % 2001 - 1000) / 8.0, x % 1000 - 500
FROM generate_series(1, $rows) x;
INSERT INTO r SELECT x, 'name ' || (x % 25) FROM generate_series(0, 999) x;
VACUUM ANALYZE b;
VACUUM ANALYZE r;
SQL

queries=(
	"SELECT g, count(*), sum(i), avg(v) FROM b GROUP BY g"
	"SELECT r.name, count(*), sum(b.v) FROM b JOIN r ON b.g = r.g GROUP BY r.name"
	"SELECT key, count(*), sum(v) FROM b GROUP BY key"
	"SELECT count(*), sum(i), avg(v), max(v) FROM b WHERE v > 0"
	"SELECT g, sum(v) FROM b WHERE i BETWEEN -200 AND 200 GROUP BY g ORDER BY 2 DESC LIMIT 10"
)
# the median of $reps runs of query $2 under the SET LOCALs $1, in ms
time_query() {
	local sets=$1 sql=$2 r
	for r in $(seq "$reps"); do
		q 0 -At <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
SET citus.propagate_set_commands = 'local';
BEGIN;
$sets
\\o /dev/null
\\timing on
$sql;
\\timing off
\\o
COMMIT;
SQL
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
# shard queries of query $2 on GpuOpsAgg under the SET LOCALs $1, of all
on_node() {
	local out
	out=$(q 0 -At <<SQL
SET citus.explain_all_tasks = on;
SET citus.propagate_set_commands = 'local';
BEGIN;
$1
EXPLAIN (COSTS OFF) $2;
COMMIT;
SQL
)
	echo "$(grep -c 'Custom Scan (GpuOpsAgg)' <<<"$out")/$(grep -cE -- '->[[:space:]]+Task$' <<<"$out")"
}
off="SET LOCAL gpuops.enabled = off;"
forced="SET LOCAL gpuops.enabled = on; SET LOCAL gpuops.cpu_setup_cost = 0; SET LOCAL gpuops.device = cpu;"
printf '| query | off ms |'
for f in $faces; do printf ' on, %s ms (GpuOpsAgg tasks) | x |' "$f"; done
[ "${BENCH_FORCED:-1}" = 1 ] && printf ' cpu, cpu_setup_cost = 0 ms (tasks) |'
echo
printf '| --- | ---: |'
for f in $faces; do printf ' ---: | ---: |'; done
[ "${BENCH_FORCED:-1}" = 1 ] && printf ' ---: |'
echo
for sql in "${queries[@]}"; do
	t_off=$(time_query "$off" "$sql")
	printf '| `%s` | %s |' "$sql" "$t_off"
	for f in $faces; do
		on="SET LOCAL gpuops.enabled = on; SET LOCAL gpuops.device = $f;"
		t=$(time_query "$on" "$sql")
		printf ' %s (%s) | %s |' "$t" "$(on_node "$on" "$sql")" \
			"$(awk -v a="$t_off" -v b="$t" 'BEGIN {printf "%.2fx", a / b}')"
	done
	[ "${BENCH_FORCED:-1}" = 1 ] &&
		printf ' %s (%s) |' "$(time_query "$forced" "$sql")" "$(on_node "$forced" "$sql")"
	echo
done

# at the default costs, from which local table size does a worker take the node?
[ -z "$sizes" ] && { echo "elapsed $(( $(date +%s) - started ))s"; exit 0; }
echo
echo "worker, default costs: plan by table size (G = GpuOpsAgg, n = native)"
for n in $sizes; do
	q 1 >/dev/null <<SQL || exit 1
CREATE TABLE s_$n (key int8, g int4, v float8, i int4);
INSERT INTO s_$n SELECT x % 100000, x % 1000, (x % 2001 - 1000) / 8.0, x % 1000 - 500
FROM generate_series(1, $n) x;
VACUUM ANALYZE s_$n;
SQL
done
printf '| query |'; for n in $sizes; do printf ' %s |' "$n"; done; echo
printf '| --- |'; for n in $sizes; do printf ' --- |'; done; echo
for sql in "${queries[@]}"; do
	[[ $sql == *JOIN* ]] && continue	# (the reference table's shard has another name)
	printf '| `%s` |' "$sql"
	for n in $sizes; do
		s=$(sed "s/ FROM b / FROM s_$n /" <<<"$sql")
		if q 1 -At -c "EXPLAIN (COSTS OFF) $s" | grep -q 'GpuOpsAgg'; then printf ' G |'; else printf ' n |'; fi
	done
	echo
done
echo "elapsed $(( $(date +%s) - ${started:-$(date +%s)} ))s"
