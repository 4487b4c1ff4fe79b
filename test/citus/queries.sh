# The queries of the Citus test, run by run.sh: check NAME EXPECT SQL.
# EXPECT gpu: every shard query must run on GpuOpsAgg; native: none may;
# any: reported only (variances of integers by another column, for which
# Citus gathers the rows).  Grouped queries name their columns
# for CREATE TABLE AS.

# GROUP BY the distribution column: the whole query runs on the workers
check "group by key" gpu "SELECT key, count(*) AS n, count(v) AS nv, sum(i) AS si,
	sum(b) AS sb, sum(v) AS sv, min(v) AS mn, max(v) AS mx, min(d) AS md, max(d) AS xd
	FROM t GROUP BY key"
check "group by key having" gpu "SELECT key, count(*) AS n, sum(s) AS ss FROM t
	GROUP BY key HAVING count(*) > 11"
check "group by key order limit" gpu "SELECT key, sum(i) AS si, max(b) AS mb FROM t
	GROUP BY key ORDER BY sum(i) DESC NULLS LAST, key LIMIT 20"
check "group by key, g" gpu "SELECT key, g, count(*) AS n, avg(i) AS ai FROM t GROUP BY key, g"
# GROUP BY other columns: partial aggregates on the workers, combined on the coordinator
check "group by int" gpu "SELECT g, count(*) AS n, count(i) AS ni, sum(i) AS si, sum(s) AS ss,
	sum(b) AS sb, sum(v) AS sv, sum(v4) AS sv4, min(i) AS mi, max(i) AS xi FROM t GROUP BY g"
check "group by int, avg" gpu "SELECT g, avg(i) AS ai, avg(s) AS as_, avg(b) AS ab,
	avg(v) AS av, avg(v4) AS av4 FROM t GROUP BY g"
check "group by text" gpu "SELECT k, count(*) AS n, sum(i) AS si, min(v) AS mv FROM t GROUP BY k"
check "group by date" gpu "SELECT d, count(*) AS n, max(v) AS xv, sum(s) AS ss FROM t GROUP BY d"
check "group by bool, int2" gpu "SELECT flag, s, count(*) AS n, sum(b) AS sb FROM t GROUP BY flag, s"
check "group by float" gpu "SELECT v4, count(*) AS n, sum(i) AS si FROM t GROUP BY v4"
check "where on the device" gpu "SELECT g, count(*) AS n, sum(v) AS sv FROM t
	WHERE v > 0 AND i BETWEEN -400 AND 400 AND d IS NOT NULL GROUP BY g"
check "where in, or, not" gpu "SELECT k, count(*) AS n, avg(i) AS ai FROM t
	WHERE (s IN (1, 2, 3, 32767) OR NOT flag) AND v4 <> 0 GROUP BY k"
check "where on the cpu" gpu "SELECT g, count(*) AS n, sum(i) AS si FROM t
	WHERE k LIKE 'k1%' AND abs(i::int8) > 5 GROUP BY g"
check "filter clause" gpu "SELECT g, count(*) FILTER (WHERE v > 0) AS np,
	sum(i) FILTER (WHERE s < 0) AS sn FROM t GROUP BY g"
check "having on the coordinator" gpu "SELECT g, count(*) AS n, sum(i) AS si FROM t
	GROUP BY g HAVING sum(i) > 0 AND count(*) > 10"
check "order by limit" gpu "SELECT g, count(*) AS n, sum(s) AS ss FROM t
	GROUP BY g ORDER BY count(*) DESC, g LIMIT 5"
# no GROUP BY
check "plain aggregate" gpu "SELECT count(*) AS n, count(v) AS nv, sum(i) AS si, sum(b) AS sb,
	sum(v) AS sv, avg(i) AS ai, avg(b) AS ab, min(d) AS md, max(d) AS xd, min(v) AS mv FROM t"
check "plain aggregate, where" gpu "SELECT count(*) AS n, sum(i) AS si, max(b) AS xb FROM t
	WHERE g < 50 AND v IS NOT NULL"
check "plain, one key" gpu "SELECT count(*) AS n, sum(i) AS si, avg(s) AS as_ FROM t WHERE key = 42"
# variances: by the distribution column the workers compute them whole;
# by another column Citus asks the workers for worker_partial_agg's state
# of a float variance ({N, Sx, Sxx}, which the node gives), and gathers
# the rows of an integer one (whose state is internal).  The coordinator
# combines float8 states in the order the shards answer, which changes the
# last bits from run to run (with gpuops off too), so the float ones are
# compared to 9 decimals; the numeric ones are exact.
check "stddev, variance" any "SELECT g, round(stddev(v4)::numeric, 9) AS sd,
	variance(i) AS vi, stddev_samp(s) AS ss, var_pop(b) AS vb FROM t GROUP BY g"
check "stddev by key" gpu "SELECT key, stddev(i) AS sd, round(var_samp(v)::numeric, 9) AS vv,
	count(*) AS n FROM t GROUP BY key" "key sd vv n"
check "stddev of floats" gpu "SELECT g, round(stddev(v4)::numeric, 9) AS sd,
	round(var_pop(v)::numeric, 9) AS vv, round(variance(v * 2)::numeric, 9) AS v2 FROM t GROUP BY g" \
	"g sd vv v2"
check "stddev of floats, no group" gpu "SELECT 1 AS one, round(stddev_pop(v)::numeric, 9) AS sd,
	round(var_samp(v4)::numeric, 9) AS vv FROM t WHERE i > 0" "one sd vv"
# expressions: keys, aggregate arguments, WHERE
check "expressions" gpu "SELECT g % 7 AS m, sum(i::int8 * 2 + s) AS s2, count(*) AS n,
	max(CASE WHEN v > 0 THEN b ELSE 0 END) AS mb, avg(v * 0.5) AS av FROM t
	WHERE i % 3 <> 0 GROUP BY g % 7"
check "expression keys by date" gpu "SELECT extract(month FROM d) AS mo, count(*) AS n,
	sum(i) AS si FROM t GROUP BY 1"
# joins Citus pushes down: a reference table and a colocated table, each
# shard query a star join on the workers (the fact table's shard read in
# batches, the other side built into a join table)
check "join reference table" gpu "SELECT r.name, count(*) AS n, sum(t.i) AS si
	FROM t JOIN ref r ON t.g = r.g GROUP BY r.name"
check "join reference table, filtered" gpu "SELECT r.name, count(*) AS n, sum(t.v) AS sv
	FROM t JOIN ref r ON t.g = r.g WHERE r.name LIKE 'group 1%' AND t.i > 0 GROUP BY r.name"
check "semi join reference table" gpu "SELECT t.g, count(*) AS n, sum(t.b) AS sb FROM t
	WHERE t.g IN (SELECT g FROM ref WHERE name = 'group 3') GROUP BY t.g"
check "colocated join" gpu "SELECT t2.w, count(*) AS n, sum(t.s) AS ss
	FROM t JOIN t2 ON t.key = t2.key GROUP BY t2.w"
# errors: a shard query's error reaches the coordinator with its SQLSTATE
check_error "integer overflow" 22003 "SELECT g, sum(i * 2) FROM t GROUP BY g"
check_error "division by zero" 22012 "SELECT g, sum(100 / (i % 7)) FROM t GROUP BY g"
