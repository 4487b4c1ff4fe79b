-- Custom Scan (GpuOpsAgg) with derived keys: a grouping key that is an
-- expression of other keys alone (integer-like columns), as ClickBench's
-- GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3, which the
-- engine does not group by: the node computes it per group.  Checked
-- against PostgreSQL's own answer: int2/int4/int8, date, timestamp and bool
-- sources, two source keys, NULL keys, HAVING and ORDER BY on the derived
-- key, a derived key that is not shown, count(DISTINCT) and text min/max,
-- small batches, spilled groups, a partitioned table, workers, the column
-- cache.  A row whose derived key
-- fails raises PostgreSQL's error (22003, 22012) even when its group is
-- never shown (WHERE lets it through; HAVING or LIMIT drop it).  What stays
-- a key of its own: a float or text source, an expression of a column that
-- is not a key, a volatile function.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

\i :abs_srcdir/sql/include/check_error.psql

\i :abs_srcdir/sql/include/from_cache.psql

CREATE TABLE tder (id int4, w int4, k int2, b8 int8, f float8, d date, ts timestamp,
				   flag bool, u text)
	WITH (autovacuum_enabled = off);
INSERT INTO tder
SELECT i, (i * 7919) % 5003 - 2500, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 9 END,
	   (i % 97)::int8 * 1000000007,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 100) / 7.0 END,
	   date '2024-01-01' + (i % 400),
	   timestamp '2024-01-01' + (i % 5000) * interval '37 minutes',
	   CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END,
	   'u' || (i % 23)
FROM generate_series(1, 50000) i;
VACUUM ANALYZE tder;

-- the plan: one key the engine groups by, three computed per group
SELECT * FROM pg_temp.plan('SELECT w, w - 1, w - 2, w - 3, count(*) FROM tder GROUP BY w, w - 1, w - 2, w - 3');
SELECT pg_temp.check('SELECT w, w - 1 AS a, w - 2 AS b, w - 3 AS c, count(*) AS n, sum(id) AS s FROM tder GROUP BY w, w - 1, w - 2, w - 3');
SELECT pg_temp.check_order('SELECT w, w - 1 AS a, w - 2 AS b, w - 3 AS c, count(*) AS n FROM tder GROUP BY w, w - 1, w - 2, w - 3 ORDER BY n DESC, w, w - 1, w - 2, w - 3 LIMIT 10');
-- int2 with NULLs, int8, bool; a key of two keys
SELECT pg_temp.check('SELECT k, k * 2 AS k2, k::int8 + b8 AS kb, b8, count(*) AS n FROM tder GROUP BY k, k * 2, b8, k::int8 + b8');
SELECT pg_temp.check('SELECT flag, NOT flag AS nf, flag IS NULL AS nul, count(*) AS n FROM tder GROUP BY 1, 2, 3');
SELECT pg_temp.check('SELECT k, w % 10 AS wm, w % 10 + k AS s, count(*) AS n, sum(id) AS si FROM tder GROUP BY k, w % 10, w % 10 + k');
-- dates and timestamps
SELECT pg_temp.check('SELECT d, extract(year FROM d) AS y, extract(dow FROM d) AS dw, d + 7 AS nx, count(*) AS n FROM tder GROUP BY 1, 2, 3, 4');
SELECT pg_temp.check('SELECT ts, date_trunc(''hour'', ts) AS h, extract(minute FROM ts) AS m, count(*) AS n FROM tder GROUP BY 1, 2, 3');
-- HAVING and ORDER BY on a derived key; a derived key not shown
SELECT pg_temp.check('SELECT w, w * 3 AS w3, count(*) AS n FROM tder GROUP BY 1, 2 HAVING w * 3 > 100 OR count(*) > 11');
SELECT pg_temp.check_order('SELECT w, count(*) AS n FROM tder GROUP BY w, w / 7 ORDER BY w / 7 DESC, w LIMIT 20');
SELECT pg_temp.check('SELECT k, sum(w) AS s FROM tder WHERE id > 100 GROUP BY k, k + 100');
-- beside count(DISTINCT x) and text min/max: the groups fold over the other keys first
SELECT * FROM pg_temp.plan('SELECT d, extract(dow FROM d), count(DISTINCT k) FROM tder GROUP BY 1, 2');
SELECT pg_temp.check('SELECT d, extract(dow FROM d) AS dw, count(DISTINCT k) AS dk, count(*) AS n FROM tder GROUP BY 1, 2');
SELECT pg_temp.check('SELECT w, w - 1 AS a, count(DISTINCT k) AS dk FROM tder WHERE id % 3 = 0 GROUP BY 1, 2');
SELECT pg_temp.check('SELECT k, k * 10 AS k10, min(u) AS lo, max(u) AS hi, count(*) AS n FROM tder GROUP BY 1, 2');
SELECT pg_temp.check_order('SELECT d, d + 1 AS nx, count(DISTINCT w) AS dw FROM tder GROUP BY 1, 2 ORDER BY dw DESC, d LIMIT 5');
-- small batches
SET gpuops.debug_chunk_size = 1000;
SELECT pg_temp.check('SELECT w, w - 1 AS a, id % 3 AS m, count(*) AS n FROM tder GROUP BY 1, 2, 3');
RESET gpuops.debug_chunk_size;
-- groups past gpuops.max_group_memory spill (statistics taken with 10
-- distinct ids, then 40,000 rows of ~20,000)
CREATE TABLE tders (id int4, w int4) WITH (autovacuum_enabled = off);
INSERT INTO tders SELECT i % 10, i FROM generate_series(1, 1000) i;
ANALYZE tders;
INSERT INTO tders SELECT (i * 31) % 20011, i % 37 FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT id, id + 1 AS a, count(*) FROM tders GROUP BY 1, 2',
				   ARRAY['Spilled Runs']);
SELECT pg_temp.check('SELECT id, id + 1 AS a, id * 2 AS b, count(*) AS n, sum(w) AS s FROM tders GROUP BY 1, 2, 3');
RESET gpuops.max_group_memory;
DROP TABLE tders;

-- errors: a row whose derived key fails raises PostgreSQL's error, shown or not
CREATE TABLE tdere (x int4, y int8) WITH (autovacuum_enabled = off);
INSERT INTO tdere SELECT i, i FROM generate_series(1, 50000) i;
INSERT INTO tdere VALUES (2147483647, 9223372036854775807), (-2147483648, 0);
VACUUM ANALYZE tdere;
-- (the strategy the plan predicts for x's range differs by face)
SELECT p FROM pg_temp.plan('SELECT x, x + 1, count(*) FROM tdere GROUP BY 1, 2') p
WHERE p NOT LIKE '%Strategy%';
SELECT pg_temp.check_error('SELECT x, x + 1, count(*) FROM tdere GROUP BY 1, 2');
SELECT pg_temp.check_error('SELECT x, count(*) FROM tdere GROUP BY x, x + 1 HAVING x < 10');
SELECT pg_temp.check_error('SELECT x, count(*) FROM tdere GROUP BY x, x + 1 HAVING max(x) < 10');
SELECT pg_temp.check_error('SELECT x, x + 1, count(*) FROM tdere GROUP BY 1, 2 LIMIT 1');
SELECT pg_temp.check_error('SELECT y, y * 2, count(*) FROM tdere GROUP BY 1, 2 HAVING count(*) > 5');
SELECT pg_temp.check_error('SELECT x, 100 / (x - 7), count(*) FROM tdere GROUP BY 1, 2');
-- rows a WHERE clause drops raise nothing
SELECT pg_temp.check('SELECT x, x + 1 AS a, x - 1 AS b, count(*) AS n FROM tdere WHERE x BETWEEN 0 AND 100000 GROUP BY 1, 2, 3');

-- a partitioned table
CREATE TABLE tder_p (id int4, w int4) PARTITION BY RANGE (id);
CREATE TABLE tder_p1 PARTITION OF tder_p FOR VALUES FROM (0) TO (20000);
CREATE TABLE tder_p2 PARTITION OF tder_p FOR VALUES FROM (20000) TO (60000);
INSERT INTO tder_p SELECT id, w FROM tder;
ANALYZE tder_p;
SELECT pg_temp.check('SELECT w, w - 1 AS a, count(*) AS n, sum(id) AS s FROM tder_p GROUP BY 1, 2');
INSERT INTO tder_p VALUES (50000, 2147483647);
SELECT pg_temp.check_error('SELECT w, w + 1, count(*) FROM tder_p GROUP BY 1, 2 LIMIT 1');
DROP TABLE tder_p;

-- from the column cache
SELECT gpuops.cache_table('tdere', auto_refresh => false) > 0 AS cached;
SELECT pg_temp.from_cache('SELECT x, x % 10, count(*) FROM tdere GROUP BY 1, 2') > 0 AS from_cache;
SELECT pg_temp.check('SELECT x, x % 10 AS m, x / 3 AS t, count(*) AS n FROM tdere GROUP BY 1, 2, 3');
SELECT pg_temp.from_cache('SELECT x, x - 1, count(*) FROM tdere WHERE x > 0 GROUP BY 1, 2') > 0 AS from_cache;
SELECT pg_temp.check_error('SELECT x, x + 1, count(*) FROM tdere GROUP BY 1, 2 LIMIT 1');
SELECT pg_temp.check('SELECT x, x - 1 AS a, count(*) AS n FROM tdere WHERE x > 0 GROUP BY 1, 2');
SELECT gpuops.uncache_table('tdere');

-- worker processes: each evaluates the checks, the backend the keys
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT w, w - 1, count(*) FROM tder GROUP BY 1, 2',
							ARRAY['Workers Launched', 'Derived Keys']);
SELECT pg_temp.check('SELECT w, w - 1 AS a, w - 2 AS b, count(*) AS n, sum(id) AS s, max(f) AS mf FROM tder GROUP BY 1, 2, 3');
SELECT pg_temp.check_error('SELECT x, x + 1, count(*) FROM tdere GROUP BY 1, 2 LIMIT 1');
SELECT pg_temp.check('SELECT k, k + 1 AS a, count(DISTINCT w) AS dw, max(u) AS mu FROM tder GROUP BY 1, 2');
SELECT pg_temp.check_error('SELECT x, x + 1, count(DISTINCT y) FROM tdere GROUP BY 1, 2 LIMIT 1');
\i :abs_srcdir/sql/include/workers_off.psql
DROP TABLE tdere;

-- what stays a key of its own (no Derived Keys line)
-- a float source (-0.0 and 0.0 are one group, not one value), a text one
SELECT * FROM pg_temp.plan('SELECT f, f * 2, count(*) FROM tder GROUP BY 1, 2');
SELECT * FROM pg_temp.plan('SELECT u, length(u), count(*) FROM tder GROUP BY 1, 2');
-- a column that is not a key, a volatile function
SELECT * FROM pg_temp.plan('SELECT w, w + id, count(*) FROM tder GROUP BY 1, 2');
SELECT * FROM pg_temp.plan('SELECT w, w + (random() * 0)::int, count(*) FROM tder GROUP BY 1, 2');

DROP TABLE tder;
