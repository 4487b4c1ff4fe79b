#!/bin/bash
# What the column cache's trigger costs writers: pgbench with CLIENTS clients
# updating, inserting and deleting single rows of one table for DURATION
# seconds each, the table not cached, then cached (gpuops.cache_table, its
# row trigger marking each changed tuple's range stale); tps and the
# trigger's cost per changed row.  Then a cached aggregate query beside the
# writers: the rows it still gets from the cache.
#
# Creates cache_writes.t(id int8 primary key, k int4, v float8) with ROWS rows.
# Needs gpuops in shared_preload_libraries and a server reachable by psql and
# pgbench through the usual libpq variables.
#   bash bench/cache_writes.sh [ROWS] [CLIENTS] [DURATION]
set -euo pipefail
ROWS=${1:-1000000}
CLIENTS=${2:-4}
DURATION=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS gpuops;
DROP SCHEMA IF EXISTS cache_writes CASCADE;
CREATE SCHEMA cache_writes;
CREATE TABLE cache_writes.t (id int8 PRIMARY KEY, k int4, v float8);
INSERT INTO cache_writes.t SELECT i, i % 1000, i * 0.5 FROM generate_series(1, $ROWS) i;
VACUUM (FREEZE, ANALYZE) cache_writes.t;
SQL

cat >"$work/update.sql" <<SQL
\set id random(1, $ROWS)
UPDATE cache_writes.t SET v = v + 1 WHERE id = :id;
SQL
cat >"$work/insdel.sql" <<SQL
\set id random($ROWS + 1, $ROWS * 2)
INSERT INTO cache_writes.t VALUES (:id, 1, 1) ON CONFLICT (id) DO NOTHING;
DELETE FROM cache_writes.t WHERE id = :id - 7;
SQL

# tps of one script for DURATION seconds
run() {
	pgbench -n -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" -f "$1" 2>/dev/null |
		awk '/^tps/ {printf "%.0f", $3}'
}

# the best of ROUNDS runs of each, uncached and cached alternately
ROUNDS=${ROUNDS:-3}
printf '%-22s %12s %12s %12s\n' "writes (tps)" "uncached" "cached" "us a row"
for script in update insdel; do
	off=0
	on=0
	for r in $(seq "$ROUNDS"); do
		psql -X -q -c "SELECT gpuops.uncache_table('cache_writes.t')" >/dev/null
		t=$(run "$work/$script.sql")
		off=$(( t > off ? t : off ))
		psql -X -q -c "SELECT gpuops.cache_table('cache_writes.t', auto_refresh => false)" >/dev/null
		t=$(run "$work/$script.sql")
		on=$(( t > on ? t : on ))
	done
	# rows changed per transaction: update 1 (old and new tuple, one trigger
	# call), insert + delete 2
	rows=$([ "$script" = update ] && echo 1 || echo 2)
	cost=$(awk -v a="$off" -v b="$on" -v c="$CLIENTS" -v r="$rows" \
		'BEGIN { if (a > 0 && b > 0) printf "%.1f", (c / b - c / a) * 1e6 / r; else print "-" }')
	printf '%-22s %12s %12s %12s\n' "$script ($CLIENTS clients)" "$off" "$on" "$cost"
done

# one statement changing many rows: the trigger's cost a row, without the
# noise of many clients (best of ROUNDS, uncached and cached alternately)
bulk() {
	psql -X -At -c "SELECT gpuops.$1('cache_writes.t'$2)" \
		-c "\\timing on" -c "UPDATE cache_writes.t SET v = v + 1 WHERE id <= $BULK" |
		awk '/^Time:/ {print $2}'
}
BULK=$(( ROWS / 5 ))
best_off=
best_on=
for r in $(seq "$ROUNDS"); do
	t=$(bulk uncache_table "")
	best_off=$(awk -v a="$t" -v b="${best_off:-1e99}" 'BEGIN {print (a < b) ? a : b}')
	t=$(bulk cache_table ", auto_refresh => false")
	best_on=$(awk -v a="$t" -v b="${best_on:-1e99}" 'BEGIN {print (a < b) ? a : b}')
done
awk -v a="$best_off" -v b="$best_on" -v n="$BULK" \
	'BEGIN {printf "UPDATE of %d rows in one statement: %.1f ms uncached, %.1f ms cached: %.2f us a row\n", n, a, b, (b - a) * 1000 / n}'

echo "== a cached query while the writers run (rows from the cache, of all)"
psql -X -q -c "VACUUM cache_writes.t" -c "SELECT gpuops.cache_refresh('cache_writes.t')" >/dev/null
pgbench -n -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" -f "$work/update.sql" >/dev/null 2>&1 &
sleep 1
for i in 1 2 3; do
	psql -X -At -c "SET gpuops.cpu_setup_cost = 0" \
		-c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) SELECT k, count(*), sum(v) FROM cache_writes.t GROUP BY k" |
		awk -F': ' '/Rows In/ {n = $2} /Rows From Cache/ {c = $2} END {printf "after %ds: %d of %d rows from the cache\n", '"$i"', c, n}'
	sleep 1
done
wait
psql -X -q -c "SELECT gpuops.uncache_table('cache_writes.t')" -c "DROP SCHEMA cache_writes CASCADE" >/dev/null
