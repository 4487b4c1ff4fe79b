-- Custom Scan (GpuOpsAgg) with a top-N bound: a query that orders its
-- groups by a count first and keeps the first N (ORDER BY count(*) DESC
-- LIMIT 10) gets from the node only the groups whose count reaches the N-th
-- largest, ties included; the Sort and Limit above keep the first N.
-- Checked against PostgreSQL's own answer, in order: descending and
-- ascending counts, count(x) with NULLs, ties at the cut (every group tied,
-- WITH TIES, OFFSET), a LIMIT past the groups, text keys, a mapped key,
-- worker processes, spilled groups and count(DISTINCT) (not bounded, the
-- same rows), a rescan; and what keeps every group: HAVING, an output
-- expression that may raise an error (its error raised as PostgreSQL raises
-- it), a LIMIT that is not a constant, another first sort key.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

\i :abs_srcdir/sql/include/check_error.psql

CREATE TABLE tbound (id int4, k int4, t text, x int4, u text)
	WITH (autovacuum_enabled = off);
-- k: counts from 1 to about 300 (skewed), t: 200 strings of 50 rows each (all
-- tied), x: NULL in one row of 7, u: text with NULLs and empty strings
INSERT INTO tbound
SELECT i, (i * 7919 % 10007) % (1 + i % 300), 'tag-' || (i % 200),
	   CASE WHEN i % 7 = 0 THEN NULL ELSE i % 50 END,
	   CASE WHEN i % 13 = 0 THEN NULL WHEN i % 11 = 0 THEN ''
			ELSE 'u' || (i * 31 % 997) END
FROM generate_series(1, 10000) i;
VACUUM ANALYZE tbound;

-- the plan, and how many groups the node emits
SELECT * FROM pg_temp.plan('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 10');
SELECT * FROM pg_temp.lines('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 10',
							ARRAY['Top-N Bound', 'Groups', 'Groups Past The Bound']);
-- descending, ascending, count(x), other aggregates beside it
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 10');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c, k LIMIT 10');
SELECT pg_temp.check_order('SELECT k, count(x) AS c, sum(x) AS s, min(u) AS lo, max(id) AS hi FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 7');
SELECT pg_temp.check_order('SELECT k, count(x) AS c FROM tbound WHERE x IS NULL OR x > 45 GROUP BY k ORDER BY c DESC, k DESC LIMIT 5');
SELECT pg_temp.check_order('SELECT k, avg(x) AS a, count(*) AS c FROM tbound GROUP BY k ORDER BY count(*) DESC, k LIMIT 3');
-- ties at the cut: every group of t has 50 rows
SELECT * FROM pg_temp.lines('SELECT t, count(*) AS c FROM tbound GROUP BY t ORDER BY c DESC, t LIMIT 5',
							ARRAY['Groups', 'Groups Past The Bound']);
SELECT pg_temp.check_order('SELECT t, count(*) AS c FROM tbound GROUP BY t ORDER BY c DESC, t LIMIT 5');
SELECT pg_temp.check_order('SELECT t, count(*) AS c FROM tbound GROUP BY t ORDER BY c DESC, t DESC LIMIT 5');
SELECT pg_temp.check('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC FETCH FIRST 4 ROWS WITH TIES');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 5 OFFSET 6');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k OFFSET 3 LIMIT 2');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 100000');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound WHERE id < 0 GROUP BY k ORDER BY c DESC, k LIMIT 3');
-- text keys (NULL and empty strings), two keys, a mapped key
SELECT pg_temp.check_order('SELECT u, count(*) AS c FROM tbound GROUP BY u ORDER BY c DESC, u LIMIT 10');
SELECT pg_temp.check_order('SELECT u, k, count(*) AS c FROM tbound GROUP BY u, k ORDER BY c DESC, u, k LIMIT 10');
SELECT pg_temp.check_order('SELECT upper(u) AS uu, count(*) AS c FROM tbound GROUP BY 1 ORDER BY c DESC, 1 LIMIT 6');
-- a constant column and a key's type in the output
SELECT pg_temp.check_order('SELECT ''x'' AS tag, k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 4');
-- count(DISTINCT) folds the groups: every group comes out, the same rows
SELECT * FROM pg_temp.lines('SELECT k, count(*) AS c, count(DISTINCT x) AS d FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 4',
							ARRAY['Top-N Bound', 'Groups Past The Bound']);
SELECT pg_temp.check_order('SELECT k, count(*) AS c, count(DISTINCT x) AS d FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 4');
-- spilled groups: not bounded, the same rows (statistics taken with 10
-- distinct keys, then 40,000 rows of ~20,000)
CREATE TABLE tbsp (k text, v int4) WITH (autovacuum_enabled = off);
INSERT INTO tbsp SELECT 'k' || (i % 10), i FROM generate_series(1, 1000) i;
ANALYZE tbsp;
INSERT INTO tbsp SELECT 'key ' || ((i * 31) % 20011) || repeat('.', i % 3), i
FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT * FROM pg_temp.lines('SELECT k, count(*) AS c FROM tbsp GROUP BY k ORDER BY c DESC, k LIMIT 10',
							ARRAY['Top-N Bound', 'Groups Past The Bound']);
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT k, count(*) AS c FROM tbsp GROUP BY k ORDER BY c DESC, k LIMIT 10',
				   ARRAY['Spilled Runs']);
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbsp GROUP BY k ORDER BY c DESC, k LIMIT 10');
RESET gpuops.max_group_memory;
DROP TABLE tbsp;
-- worker processes: the backend's merged groups are bounded
\i :abs_srcdir/sql/include/workers_on.psql
SELECT pg_temp.check_order('SELECT u, count(*) AS c FROM tbound GROUP BY u ORDER BY c DESC, u LIMIT 10');
SELECT pg_temp.check_order('SELECT k, count(x) AS c FROM tbound GROUP BY k ORDER BY c, k LIMIT 10');
\i :abs_srcdir/sql/include/workers_off.psql
-- the inner side of a nested loop
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, x.k, x.c FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 8) x ON x.c > g * 60');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- every group comes out: HAVING, an expression over a group that may fail,
-- a LIMIT of a parameter, a first sort key that is not a count, sum()
SELECT * FROM pg_temp.plan('SELECT k, count(*) AS c FROM tbound GROUP BY k HAVING sum(x) > 10 ORDER BY c DESC, k LIMIT 10');
SELECT pg_temp.check_order('SELECT k, count(*) AS c FROM tbound GROUP BY k HAVING sum(x) > 10 ORDER BY c DESC, k LIMIT 10');
SELECT * FROM pg_temp.plan('SELECT k, count(*) AS c, 1000 / (count(*) - 1) AS r FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 3');
SELECT pg_temp.check_error('SELECT k, count(*) AS c, 1000 / (count(*) - 1) AS r FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT 3');
SELECT * FROM pg_temp.plan('SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY sum(x) DESC, k LIMIT 10');
PREPARE topn(int8) AS SELECT k, count(*) AS c FROM tbound GROUP BY k ORDER BY c DESC, k LIMIT $1;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM pg_temp.plan('EXECUTE topn(3)');
EXECUTE topn(3);
RESET plan_cache_mode;
DEALLOCATE topn;

DROP TABLE tbound;
