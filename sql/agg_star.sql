-- Star joins under Custom Scan (GpuOpsAgg): one large table joined to up to
-- 8 smaller ones, each on one equality of integer or date columns: inner
-- joins, semi joins (EXISTS, IN), anti joins (NOT EXISTS) and left joins
-- with the large table outer.  The smaller tables are the node's child
-- plans; each batch of the large one is joined to them on the engine and
-- their columns gathered into it.  Checked against PostgreSQL's own answer:
-- 1 to 4 dimensions, duplicate and missing dimension keys, NULL keys on both
-- sides, keys of int2/int4/int8/date and across int types, dimension columns
-- as keys (int, text, short text, float, date, numeric), as aggregate arguments and
-- in expressions, with WHERE on both sides, FILTER, HAVING, no GROUP BY,
-- empty dimensions, small batches, workers, a dimension read by a Gather's
-- workers, MVCC, row-level security, a
-- cancel (while a dimension is read, and while the fact table is joined),
-- errors, numeric dimension columns.  Full joins, joins that are
-- not one equality and clauses over a left join's inner side above it keep
-- the native plan.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql
\i :abs_srcdir/sql/include/lines.psql

CREATE TABLE st_fact (id int, f1 int, f2 int8, f3 date, f4 int2, v int,
					  x float8, big int8);
INSERT INTO st_fact
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7) % 1100 END,
	   (i * 13) % 250,
	   CASE WHEN i % 89 = 0 THEN NULL ELSE date '2020-01-01' + (i % 400) END,
	   (i % 60)::int2,
	   i % 1000,
	   (i % 77) * 0.25,
	   CASE WHEN i IN (700, 777) THEN 9000000000000000000 ELSE i END
FROM generate_series(1, 60000) i;
-- d1: unique int4 keys 1..1000 (fact keys reach 1099: some miss), one key
-- whose columns are NULL
CREATE TABLE st_d1 (k int PRIMARY KEY, name text, yr int, c char(2), w float8,
					n numeric(6, 2));
INSERT INTO st_d1
SELECT i, 'name' || (i % 13), 1990 + i % 7, chr(65 + i % 5) || 'x',
	   CASE i % 9 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' ELSE i / 8.0 END, i / 4.0
FROM generate_series(1, 1000) i;
INSERT INTO st_d1 VALUES (1001, NULL, NULL, NULL, NULL, NULL);
-- d2: int8 keys, duplicated (a fact row matches up to twice), a NULL key
CREATE TABLE st_d2 (k bigint, cat text, w float8);
INSERT INTO st_d2 SELECT i % 200, 'cat' || (i % 5), i * 0.5 FROM generate_series(1, 300) i;
INSERT INTO st_d2 VALUES (NULL, 'nullkey', 1), (5000000000, 'far', 2);
-- d3: date keys
CREATE TABLE st_d3 (dk date, q int, m int2);
INSERT INTO st_d3 SELECT date '2020-01-01' + i, i % 4, (i % 12)::int2
FROM generate_series(0, 365) i;
-- d4: int2 keys
CREATE TABLE st_d4 (k int2, region varchar(5));
INSERT INTO st_d4 SELECT i, 'r' || (i % 3) FROM generate_series(0, 49) i;
-- a snowflake's branch: orders (o) of customers (c) of nations (n)
CREATE TABLE st_n (nk int PRIMARY KEY, nname text);
INSERT INTO st_n SELECT i, 'nation' || i FROM generate_series(0, 9) i;
CREATE TABLE st_c (ck int PRIMARY KEY, seg char(1), nk int);
INSERT INTO st_c SELECT i, chr(65 + i % 4), i % 12 FROM generate_series(1, 300) i;
CREATE TABLE st_o (ok int8 PRIMARY KEY, ck int, odate date, prio int2);
INSERT INTO st_o SELECT i, CASE WHEN i % 31 = 0 THEN NULL ELSE 1 + (i * 7) % 320 END,
	   date '2020-01-01' + i % 90, (i % 5)::int2
FROM generate_series(0, 239) i;
ANALYZE st_fact, st_d1, st_d2, st_d3, st_d4, st_n, st_c, st_o;

-- the plans: the dimensions are the node's child plans
SELECT * FROM pg_temp.plan('SELECT d1.name, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
SELECT * FROM pg_temp.plan('SELECT d1.yr, d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k
	WHERE f.v < 500 AND d1.yr > 1991 GROUP BY d1.yr, d2.cat');

-- one dimension: text, int, short text and float keys; missing keys, NULLs
SELECT pg_temp.check('SELECT d1.name, count(*), sum(f.v), avg(f.x), min(f.id), max(f.big)
	FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.c, count(*) FROM st_fact f
	JOIN st_d1 d1 ON d1.k = f.f1 GROUP BY d1.c');
SELECT pg_temp.check('SELECT d1.w, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.w');
-- a fact column and a dimension column as keys
SELECT pg_temp.check('SELECT f.f4, d1.yr, count(*), sum(f.x) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY f.f4, d1.yr');
-- dimension columns as aggregate arguments, counted, in expressions
SELECT pg_temp.check('SELECT d1.yr, sum(d1.w), min(d1.w), max(d1.k), count(d1.name) AS nn,
	count(d1.c) AS nc, avg(d1.yr) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.name, sum(f.v * d1.yr) AS s1, sum(f.x + d1.w) AS s2 FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.yr - 1990 AS y, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr - 1990');
-- WHERE on the fact table (device and CPU) and on the dimension
SELECT pg_temp.check('SELECT d1.name, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.v BETWEEN 100 AND 700 AND d1.yr <> 1993
	GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.id % 3 = 0 GROUP BY d1.name');
-- the fact's own clauses that compare its columns (TPC-H Q12's) run on the
-- device before the join; a fact column against a dimension's stays native
SELECT * FROM pg_temp.plan('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.v < f.f1 AND f.f4 <> f.v GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.name, count(*), sum(f.x) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.v < f.f1 AND f.f4 <> f.v GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.c, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.v < f.f1 AND d1.c IN (''Ax'', ''Bx'') GROUP BY d1.c');
-- FILTER over a dimension column, HAVING, no GROUP BY, no rows
SELECT pg_temp.check('SELECT d1.name, count(*) FILTER (WHERE d1.yr > 1992) AS n,
	sum(f.v) FILTER (WHERE f.x > 3) AS s FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name HAVING count(*) > 3000');
SELECT pg_temp.check('SELECT count(*), sum(f.v), max(d1.yr) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k');
SELECT pg_temp.check('SELECT count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.yr > 3000');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.v < 0 GROUP BY d1.name');
-- duplicate dimension keys multiply the rows; an int4 key against int8 ones,
-- one of them past int4's range
SELECT pg_temp.check('SELECT d2.cat, count(*), sum(f.v) AS sv, sum(d2.w) AS sw FROM st_fact f
	JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d2.cat');
SELECT pg_temp.check('SELECT d2.cat, count(*) FROM st_fact f
	JOIN st_d2 d2 ON f.f1 = d2.k GROUP BY d2.cat');
SELECT pg_temp.check('SELECT d2.cat, count(*) FROM st_fact f
	JOIN st_d2 d2 ON f.big = d2.k GROUP BY d2.cat');
-- date and int2 keys
SELECT pg_temp.check('SELECT d3.q, d3.m, count(*), sum(f.v) FROM st_fact f
	JOIN st_d3 d3 ON f.f3 = d3.dk GROUP BY d3.q, d3.m');
SELECT pg_temp.check('SELECT d4.region, count(*) FROM st_fact f
	JOIN st_d4 d4 ON f.f4 = d4.k GROUP BY d4.region');
-- 2, 3 and 4 dimensions
SELECT pg_temp.check('SELECT d1.yr, d2.cat, count(*), sum(f.v), max(d2.w) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k
	WHERE f.v < 500 AND d1.yr > 1991 GROUP BY d1.yr, d2.cat');
SELECT pg_temp.check('SELECT d1.name, d3.q, count(*), sum(f.x) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k
	JOIN st_d3 d3 ON f.f3 = d3.dk GROUP BY d1.name, d3.q');
SELECT pg_temp.check('SELECT d1.c, d2.cat, d3.m, d4.region, count(*), sum(f.v)
	FROM st_fact f, st_d1 d1, st_d2 d2, st_d3 d3, st_d4 d4
	WHERE f.f1 = d1.k AND f.f2 = d2.k AND f.f3 = d3.dk AND f.f4 = d4.k
	  AND d4.region <> ''r1'' AND d3.q < 3
	GROUP BY d1.c, d2.cat, d3.m, d4.region');
-- one fact column joined to two dimensions; a join key equal to a constant
SELECT pg_temp.check('SELECT d1.name, d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f1 = d2.k GROUP BY d1.name, d2.cat');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.k = 42 GROUP BY d1.name');
-- EXISTS over a unique key: PostgreSQL makes the semi join an inner join
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = f.f1 AND d1.yr = 1992) GROUP BY f.f4');
-- late materialisation by the join: where the fact table has columns
-- behind variable-width ones, its join columns are decoded first and only
-- the rows whose key the first (most selective) dimension can join (inner,
-- semi) or cannot (anti) are decoded in full; a left join drops none
CREATE TABLE st_wide (id int, k int, k2 int2, t text, n numeric(10, 2), v int);
INSERT INTO st_wide
SELECT i, CASE WHEN i % 53 = 0 THEN NULL ELSE (i * 7) % 1100 END, (i % 60)::int2,
	   repeat('w', i % 20), (i % 1000) / 4.0, i % 100
FROM generate_series(1, 40000) i;
VACUUM ANALYZE st_wide;
SELECT * FROM pg_temp.lines('SELECT d1.name, count(*), sum(w.n) FROM st_wide w
	JOIN st_d1 d1 ON w.k = d1.k WHERE d1.yr = 1991 GROUP BY d1.name',
							ARRAY['Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT d1.name, count(*), sum(w.n) AS sn, max(w.t) AS mt FROM st_wide w
	JOIN st_d1 d1 ON w.k = d1.k WHERE d1.yr = 1991 GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.name, d3.q, count(*), sum(w.n) AS sn FROM st_wide w
	JOIN st_d1 d1 ON w.k = d1.k JOIN st_d4 d4 ON w.k2 = d4.k
	JOIN st_d3 d3 ON d3.m = w.k2 WHERE d1.yr = 1991 AND w.v < 50 GROUP BY d1.name, d3.q');
SELECT pg_temp.check('SELECT w.v % 7 AS m, count(*), sum(w.n) AS sn FROM st_wide w
	WHERE EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = w.k AND d1.yr = 1992) GROUP BY 1');
SELECT * FROM pg_temp.lines('SELECT w.v % 7 AS m, count(*), sum(w.n) AS sn FROM st_wide w
	WHERE NOT EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = w.k AND d1.yr <> 1992) GROUP BY 1',
							ARRAY['Star Join', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT w.v % 7 AS m, count(*), sum(w.n) AS sn FROM st_wide w
	WHERE NOT EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = w.k AND d1.yr <> 1992) GROUP BY 1');
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(w.n) AS sn FROM st_wide w
	LEFT JOIN st_d1 d1 ON w.k = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d3.q, count(*), sum(w.n) AS sn FROM st_wide w
	JOIN st_d3 d3 ON w.k = d3.q AND w.k2 = d3.m GROUP BY d3.q');
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT d1.name, count(*), sum(w.n) AS sn FROM st_wide w
	JOIN st_d1 d1 ON w.k = d1.k WHERE d1.yr IN (1991, 1995) AND w.v > 10 GROUP BY d1.name');
RESET gpuops.debug_chunk_size;
DROP TABLE st_wide;

-- snowflakes: a dimension of relations joined among themselves (their join
-- is the child plan), beside a plain one
SELECT * FROM pg_temp.plan('SELECT c.seg, o.prio, count(*), sum(f.v) FROM st_fact f
	JOIN st_o o ON f.f2 = o.ok JOIN st_c c ON o.ck = c.ck
	WHERE c.seg <> ''B'' AND o.odate < date ''2020-03-01'' GROUP BY c.seg, o.prio');
SELECT pg_temp.check('SELECT c.seg, o.prio, count(*), sum(f.v) FROM st_fact f
	JOIN st_o o ON f.f2 = o.ok JOIN st_c c ON o.ck = c.ck
	WHERE c.seg <> ''B'' AND o.odate < date ''2020-03-01'' GROUP BY c.seg, o.prio');
SELECT pg_temp.check('SELECT n.nname, d1.yr, count(*), sum(f.x) FROM st_fact f
	JOIN st_o o ON f.f2 = o.ok JOIN st_c c ON o.ck = c.ck JOIN st_n n ON c.nk = n.nk
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY n.nname, d1.yr');
SELECT pg_temp.check('SELECT o.odate, count(*) FROM st_fact f
	JOIN st_o o ON f.f2 = o.ok JOIN st_c c ON o.ck = c.ck WHERE c.seg = ''Z''
	GROUP BY o.odate');
SELECT pg_temp.check('SELECT d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON d1.yr - 1990 = d2.k GROUP BY d2.cat');
-- a table joined to itself
SELECT pg_temp.check('SELECT a.f4, b.f4 AS f4b, count(*) FROM st_fact a
	JOIN st_fact b ON a.id = b.f1 WHERE b.v < 300 GROUP BY a.f4, b.f4');
-- the node read again under a nested loop: the dimensions' plans run again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM pg_temp.plan('SELECT g, s.n FROM generate_series(1990, 1993) g LEFT JOIN
	(SELECT d1.yr, count(*) n FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr) s
	ON s.yr = g');
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1990, 1993) g LEFT JOIN
	(SELECT d1.yr, count(*) n, sum(f.v) sv FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k
	 GROUP BY d1.yr) s ON s.yr = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- count(DISTINCT) of a dimension column
SELECT pg_temp.check('SELECT d1.yr, count(DISTINCT d2.cat) AS cd, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d1.yr');
-- small batches: many probes
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT d1.name, d2.cat, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d1.name, d2.cat');
RESET gpuops.debug_chunk_size;

-- worker processes beside the backend: the dimensions' tables, text codes
-- included, reach them from the backend
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.threads = 16;
SELECT * FROM pg_temp.plan('SELECT d1.name, d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d1.name, d2.cat');
SELECT pg_temp.check('SELECT d1.name, d2.cat, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d1.name, d2.cat');
SELECT pg_temp.check('SELECT d1.c, d3.m, d4.region, count(*), sum(f.x), max(d1.w) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d3 d3 ON f.f3 = d3.dk JOIN st_d4 d4 ON f.f4 = d4.k
	WHERE f.v > 100 GROUP BY d1.c, d3.m, d4.region');
SELECT pg_temp.check('SELECT f.f4, count(*), sum(d1.yr) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY f.f4');
RESET gpuops.parallel_workers;
RESET max_parallel_workers_per_gather;
RESET gpuops.threads;

-- semi joins (EXISTS, IN), anti joins (NOT EXISTS, LEFT JOIN ... IS NULL) and
-- left joins with the fact table outer: NULL fact keys never match (an anti
-- join keeps them, a left join keeps them with NULL columns), duplicate
-- dimension keys count once in a semi join and multiply in a left join
SELECT * FROM pg_temp.plan('SELECT d1.yr, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2 AND d2.cat <> ''cat1'')
	  AND NOT EXISTS (SELECT 1 FROM st_d3 d3 WHERE d3.dk = f.f3 AND d3.q = 0)
	GROUP BY d1.yr');
SELECT pg_temp.check('SELECT f.f4, count(*), sum(f.v) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2) GROUP BY f.f4');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE f.f2 IN (SELECT d2.k FROM st_d2 d2 WHERE d2.cat IN (''cat1'', ''cat3''))
	GROUP BY f.f4');
SELECT pg_temp.check('SELECT count(*), sum(f.x) FROM st_fact f
	WHERE f.big IN (SELECT k FROM st_d2)');
SELECT pg_temp.check('SELECT f.f4, count(*), max(f.id) FROM st_fact f
	WHERE NOT EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = f.f1) GROUP BY f.f4');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE NOT EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2 AND d2.cat = ''cat2'')
	GROUP BY f.f4');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.k IS NULL GROUP BY f.f4');
SELECT pg_temp.check('SELECT d1.name, count(*), count(d1.yr) AS ny, sum(d1.w) AS sw,
	count(d1.c) AS nc, max(d1.k) AS mk, sum(f.v) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
SELECT pg_temp.check('SELECT d2.cat, count(*), sum(d2.w), count(d2.k) AS nk FROM st_fact f
	LEFT JOIN st_d2 d2 ON f.f2 = d2.k GROUP BY d2.cat');
SELECT pg_temp.check('SELECT d1.yr, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k AND d1.yr = 1992 GROUP BY d1.yr');
SELECT pg_temp.check('SELECT c.seg, count(*), sum(f.v) FROM st_fact f
	LEFT JOIN (st_o o JOIN st_c c ON o.ck = c.ck) ON f.f2 = o.ok GROUP BY c.seg');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_o o JOIN st_c c ON o.ck = c.ck
				  WHERE o.ok = f.f2 AND c.seg = ''A'') GROUP BY f.f4');
-- all kinds at once, with inner dimensions and fact quals
SELECT pg_temp.check('SELECT d1.yr, d4.region, count(*), sum(f.v) FROM st_fact f
	JOIN st_d4 d4 ON f.f4 = d4.k
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2 AND d2.cat <> ''cat1'')
	  AND NOT EXISTS (SELECT 1 FROM st_d3 d3 WHERE d3.dk = f.f3 AND d3.q = 0)
	  AND f.v < 800
	GROUP BY d1.yr, d4.region');
-- empty dimensions, and dimensions filtered to nothing
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE NOT EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = f.f1 AND d1.yr > 3000)
	GROUP BY f.f4');
SELECT pg_temp.check('SELECT d1.name, count(*), sum(d1.yr) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k AND d1.yr > 3000 GROUP BY d1.name');
SELECT pg_temp.check('SELECT count(*) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = f.f1 AND d1.yr > 3000)');
-- the larger table on a left join's inner side: the smaller one is read in batches
SELECT pg_temp.check('SELECT d1.yr, count(*), count(f.v) AS nv, sum(f.v) FROM st_d1 d1
	LEFT JOIN st_fact f ON f.f1 = d1.k GROUP BY d1.yr');
-- small batches, and worker processes
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT d1.name, count(*), sum(f.v) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2)
	  AND NOT EXISTS (SELECT 1 FROM st_d4 d4 WHERE d4.k = f.f4 AND d4.region = ''r0'')
	GROUP BY d1.name');
RESET gpuops.debug_chunk_size;
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.threads = 16;
SELECT pg_temp.check('SELECT d1.name, d4.region, count(*), sum(f.v) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k LEFT JOIN st_d4 d4 ON f.f4 = d4.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2)
	  AND NOT EXISTS (SELECT 1 FROM st_d3 d3 WHERE d3.dk = f.f3 AND d3.m = 4)
	GROUP BY d1.name, d4.region');
RESET gpuops.parallel_workers;
RESET max_parallel_workers_per_gather;
RESET gpuops.threads;
-- a semi join of two dimensions: their join is a dimension's child plan
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = d1.yr - 1990) GROUP BY d1.name');
-- native plans: a left join's clause on the fact table alone, a join clause
-- that is not one equality, a clause over the inner side above the join, a
-- full join
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k AND f.v > 500 GROUP BY d1.name');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE NOT EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2 AND d2.w > f.x)
	GROUP BY f.f4');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k < f.f2 AND d2.k > 190) GROUP BY f.f4');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k WHERE coalesce(d1.yr, 0) < 1993 GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	FULL JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');

-- MVCC: a dimension's rows deleted in the open transaction, then restored by
-- the rollback of a subtransaction
BEGIN;
SAVEPOINT s;
DELETE FROM st_d1 WHERE k % 3 = 0;
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE NOT EXISTS (SELECT 1 FROM st_d1 d1 WHERE d1.k = f.f1) GROUP BY f.f4');
ROLLBACK TO SAVEPOINT s;
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
COMMIT;
-- row-level security on a dimension: its plan applies the policy
CREATE ROLE regress_gpuops_star;
GRANT SELECT ON st_fact, st_d1 TO regress_gpuops_star;
ALTER TABLE st_d1 ENABLE ROW LEVEL SECURITY;
CREATE POLICY st_d1_even ON st_d1 FOR SELECT USING (k % 2 = 0);
SET ROLE regress_gpuops_star;
SELECT * FROM pg_temp.plan('SELECT d1.yr, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.yr, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.yr, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
RESET ROLE;
DROP POLICY st_d1_even ON st_d1;
ALTER TABLE st_d1 DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON st_fact, st_d1 FROM regress_gpuops_star;
DROP ROLE regress_gpuops_star;
-- a cancel while a dimension's plan runs (statement_timeout, 57014); the
-- node runs again after it
CREATE FUNCTION pg_temp.slow(k int) RETURNS boolean LANGUAGE sql VOLATILE
	AS 'SELECT pg_sleep(0.002) IS NOT NULL';
SET statement_timeout = '300ms';
\set VERBOSITY sqlstate
SELECT d1.yr, count(*) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k
WHERE pg_temp.slow(d1.k) GROUP BY d1.yr;
\set VERBOSITY default
RESET statement_timeout;
SELECT pg_temp.check('SELECT d1.yr, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
-- a cancel while the fact table's batches are joined (a clause on the fact
-- table that PostgreSQL runs, 0.2 ms a row, and batches of 512 bytes of the
-- widest column, 64 rows: a batch is joined every 13 ms or so); the node
-- runs again after it
CREATE FUNCTION pg_temp.slow_row(k int) RETURNS boolean LANGUAGE plpgsql VOLATILE
	AS 'BEGIN PERFORM pg_sleep(0.0002); RETURN k IS NOT NULL; END';
SET gpuops.debug_chunk_size = 512;
SELECT * FROM pg_temp.plan('SELECT d1.yr, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE pg_temp.slow_row(f.id) GROUP BY d1.yr');
SET statement_timeout = '300ms';
\set VERBOSITY sqlstate
SELECT d1.yr, count(*) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k
WHERE pg_temp.slow_row(f.id) GROUP BY d1.yr;
\set VERBOSITY default
RESET statement_timeout;
RESET gpuops.debug_chunk_size;
SELECT pg_temp.check('SELECT d1.yr, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.id % 7 = 0 GROUP BY d1.yr');

-- the same errors as PostgreSQL, only from rows that join (row 700 joins,
-- row 777 does not)
SET gpuops.enabled = on;
SELECT sum(f.big * d1.yr) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k;
SELECT sum(f.big * d1.yr) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.id <> 700;
SET gpuops.enabled = off;
SELECT sum(f.big * d1.yr) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k;
SELECT sum(f.big * d1.yr) FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k WHERE f.id <> 700;
SET gpuops.enabled = on;

-- EXPLAIN ANALYZE: each dimension's table (dense for a small key range,
-- else hashed), rows built and rows out of its join
CREATE FUNCTION pg_temp.join_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Join Build Rows%' OR line LIKE '%Join Rows Out%' OR
		   line LIKE '%Join Tables%' OR
		   line LIKE '%Star Join%' THEN
			RETURN NEXT btrim(line);
		END IF;
	END LOOP;
END
$$;
SELECT * FROM pg_temp.join_lines('SELECT d1.yr, d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON f.f2 = d2.k
	WHERE d1.yr > 1991 GROUP BY d1.yr, d2.cat');
SELECT * FROM pg_temp.join_lines('SELECT d1.yr, count(*) FROM st_fact f
	LEFT JOIN st_d1 d1 ON f.f1 = d1.k
	WHERE EXISTS (SELECT 1 FROM st_d2 d2 WHERE d2.k = f.f2 AND d2.cat <> ''cat1'')
	  AND NOT EXISTS (SELECT 1 FROM st_d3 d3 WHERE d3.dk = f.f3 AND d3.q = 0)
	GROUP BY d1.yr');

-- composite keys: a dimension joined on two columns of 32-bit types (int4,
-- int2, date), as TPC-H Q9's partsupp; duplicate pairs, a NULL in either
-- part, negative values; an int8 part, or a semi join's second column,
-- keeps the native plan
-- the workers EXPLAIN ANALYZE says q launched
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Workers Launched:%' THEN
			RETURN btrim(line);
		END IF;
	END LOOP;
	RETURN 'no workers';
END
$$;
CREATE TABLE st_cp (k1 int, k2 int2, tag text, w numeric(8, 2));
INSERT INTO st_cp SELECT i % 1100, ((i * 7) % 60)::int2, 'tag' || (i % 6), i / 4.0
FROM generate_series(1, 3000) i;
INSERT INTO st_cp VALUES (NULL, 3, 'nullk1', 1), (7, NULL, 'nullk2', 2), (-1, -1, 'neg', 3);
INSERT INTO st_fact (id, f1, f4, v) VALUES (60001, -1, -1, 5), (60002, NULL, 3, 6), (60003, 7, NULL, 7);
ANALYZE st_cp;
SELECT * FROM pg_temp.plan('SELECT c.tag, count(*) FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
SELECT pg_temp.check('SELECT c.tag, count(*), sum(f.v) AS sv, sum(c.w) AS sw FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
SELECT pg_temp.check('SELECT c.tag, d3.q, count(*), sum(f.v) FROM st_fact f
	JOIN st_cp c ON f.f4 = c.k2 AND c.k1 = f.f1 JOIN st_d3 d3 ON f.f3 = d3.dk
	WHERE f.v < 700 GROUP BY c.tag, d3.q');
SELECT pg_temp.check('SELECT d3.q, count(*), sum(f.x) FROM st_fact f
	JOIN st_d3 d3 ON f.f3 = d3.dk AND f.f4 = d3.m GROUP BY d3.q');
SELECT pg_temp.check('SELECT c.tag, d1.yr, count(*) FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 JOIN st_d1 d1 ON d1.k = c.k1
	GROUP BY c.tag, d1.yr');
SELECT pg_temp.check('SELECT count(*), sum(c.w) FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 WHERE c.tag <> ''tag1''');
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT c.tag, count(*), sum(f.v) FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
RESET gpuops.debug_chunk_size;
SELECT pg_temp.check('SELECT c.tag, count(*) FROM st_fact f
	JOIN st_cp c ON f.big = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
SELECT pg_temp.check('SELECT f.f4, count(*) FROM st_fact f
	WHERE EXISTS (SELECT 1 FROM st_cp c WHERE c.k1 = f.f1 AND c.k2 = f.f4) GROUP BY f.f4');
SELECT pg_temp.check('SELECT c.tag, count(*) FROM st_fact f
	LEFT JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
-- worker processes get the packed keys' table (a budget of 6 threads, so
-- that 2 workers launch on a machine of any size)
ALTER SYSTEM SET gpuops.max_threads = 6;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.threads = 6;
SET gpuops.cpu_row_cost = 0;
SELECT pg_temp.workers_launched('SELECT c.tag, count(*) FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
SELECT pg_temp.check('SELECT c.tag, count(*), sum(f.v) AS sv, sum(c.w) AS sw FROM st_fact f
	JOIN st_cp c ON f.f1 = c.k1 AND f.f4 = c.k2 GROUP BY c.tag');
RESET gpuops.cpu_row_cost;
RESET gpuops.parallel_workers;
RESET max_parallel_workers_per_gather;
RESET gpuops.threads;
ALTER SYSTEM RESET gpuops.max_threads;
SELECT pg_reload_conf();
DELETE FROM st_fact WHERE id > 60000;
VACUUM st_fact;
DROP TABLE st_cp;

-- native plans: a join that is not one equality, a dimension joined to the
-- fact table twice
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 < d1.k AND d1.k < 3 GROUP BY d1.name');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k AND f.f4 = d1.yr - 1990 GROUP BY d1.name');
SELECT pg_temp.check('SELECT d2.cat, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k JOIN st_d2 d2 ON d1.yr - 1990 = d2.k AND f.f2 = d2.k
	GROUP BY d2.cat');
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f, st_d1 d1
	WHERE d1.k < 3 GROUP BY d1.name');
-- past gpuops.max_join_memory (0: no star join at all)
SET gpuops.max_join_memory = 0;
SELECT pg_temp.check('SELECT d1.name, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
RESET gpuops.max_join_memory;

-- numeric(p, s) dimension columns (scaled integers, as the fact's): keys,
-- aggregate arguments, in expressions and FILTER, NaN included
INSERT INTO st_d1 VALUES (1002, 'nan', 1999, 'zz', 1, 'NaN');
UPDATE st_fact SET f1 = 1002 WHERE id % 1000 = 5;
SELECT pg_temp.check('SELECT d1.n, count(*) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.n');
SELECT pg_temp.check('SELECT d1.yr, sum(d1.n), avg(d1.n), min(d1.n), max(d1.n), sum(f.v * d1.n) AS sp
	FROM st_fact f JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.yr, sum(d1.n), count(d1.n) AS cn
	FROM st_fact f LEFT JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT f.f4, sum(d1.n) FILTER (WHERE d1.n > 100) AS s FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.n < 240 GROUP BY f.f4');

-- a dimension's plan as a Gather over its partial plan, where that costs
-- less than the backend reading it alone: its workers are done before the
-- fact table is read (here every table is worth a worker)
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET gpuops.parallel_workers = 0;
SELECT * FROM pg_temp.plan('SELECT d1.yr, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.w > 10 GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) FROM st_fact f
	JOIN st_d1 d1 ON f.f1 = d1.k WHERE d1.w > 10 GROUP BY d1.yr');
SELECT pg_temp.check('SELECT c.seg, d1.name LIKE ''name1%'' AS n1, count(*), sum(f.x) FROM st_fact f
	JOIN st_o o ON f.f2 = o.ok JOIN st_c c ON o.ck = c.ck
	JOIN st_d1 d1 ON f.f1 = d1.k GROUP BY 1, 2');
RESET gpuops.parallel_workers;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

DROP TABLE st_fact, st_d1, st_d2, st_d3, st_d4, st_n, st_c, st_o;
