#!/bin/bash
# Small tables and shard-sized ones: the latency of a query natively and
# through GpuOpsAgg (forced: gpuops.cpu_setup_cost = 0), and the plan the
# default costs choose, by table size.  This is what gpuops.cpu_setup_cost
# is set from.  Sessions warm (pgbench reusing its connection) and new (-C:
# a connection a query, the connection's own time included in both faces).
#   bash bench/small_tables.sh        (PGHOST/PGPORT/PGDATABASE as for psql)
# Settings: SIZES ("1000 4000 16000 62500 250000"), DURATION (3 s a run),
# CLIENTS (1), NEW (1: also new sessions; 0: warm only), FACE (auto).
set -uo pipefail
sizes=${SIZES:-1000 4000 16000 62500 250000}
duration=${DURATION:-3}
clients=${CLIENTS:-1}
face=${FACE:-auto}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for n in $sizes; do
	psql -X -q -v ON_ERROR_STOP=1 <<SQL >/dev/null || exit 1
DROP TABLE IF EXISTS small_$n;
CREATE TABLE small_$n (key int8, g int4, v float8, i int4);
INSERT INTO small_$n SELECT x % 100000, x % 1000, (x % 2001 - 1000) / 8.0,
	x % 1000 - 500 FROM generate_series(1, $n) x;
VACUUM ANALYZE small_$n;
SQL
done

queries=(
	"SELECT g, count(*), sum(i), avg(v) FROM T GROUP BY g"
	"SELECT key, count(*), sum(v) FROM T GROUP BY key"
	"SELECT count(*), sum(i), avg(v), max(v) FROM T WHERE v > 0"
	"SELECT g, sum(v) FROM T WHERE i BETWEEN -200 AND 200 GROUP BY g ORDER BY 2 DESC LIMIT 10"
)
# mean latency (ms) of query $1 under PGOPTIONS $2, pgbench options $3
latency() {
	echo "$1;" >"$tmp/q.sql"
	PGOPTIONS="$2" pgbench -n $3 -c "$clients" -j "$clients" -T "$duration" \
		-f "$tmp/q.sql" 2>/dev/null | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p'
}
# the plan's top node and its total cost under PGOPTIONS $2
plan() {
	PGOPTIONS="$2" psql -X -At -c "EXPLAIN $1" | grep -m1 -oE 'GpuOpsAgg|Aggregate|Limit|Sort|Gather' |
		sed 's/^/ /' | tr -d '\n'
	PGOPTIONS="$2" psql -X -At -c "EXPLAIN $1" | head -1 | sed -n 's/.*\.\.\([0-9.]*\) rows.*/ \1/p'
}
off="-c gpuops.enabled=off"
forced="-c gpuops.device=$face -c gpuops.cpu_setup_cost=0 -c gpuops.gpu_setup_cost=0"
dflt="-c gpuops.device=$face"
echo "| rows | query | native warm | node warm | x | native new | node new | x | default plan (cost) | node cost at setup 0 |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
for n in $sizes; do
	for q in "${queries[@]}"; do
		sql=${q//FROM T/FROM small_$n}
		nw=$(latency "$sql" "$off" "")
		gw=$(latency "$sql" "$forced" "")
		if [ "${NEW:-1}" = 1 ]; then
			nn=$(latency "$sql" "$off" "-C")
			gn=$(latency "$sql" "$forced" "-C")
		else
			nn=- gn=-
		fi
		printf '| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$q" \
			"$nw" "$gw" "$(awk -v a="$nw" -v b="$gw" 'BEGIN {printf "%.2f", a / b}')" \
			"$nn" "$gn" "$(awk -v a="$nn" -v b="$gn" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')" \
			"$(plan "$sql" "$dflt")" "$(plan "$sql" "$forced" | awk '{print $NF}')"
	done
done
for n in $sizes; do psql -X -q -c "DROP TABLE small_$n"; done
