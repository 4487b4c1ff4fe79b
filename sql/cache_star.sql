-- Star joins over a cached fact table (gpuops.cache_table): the engine joins
-- the cached ranges to the dimensions' rows where they lie (direct-indexed
-- row maps of the dimensions' keys), filters and groups them, with no batch
-- read.  Checked against PostgreSQL's own answer, with how many rows came
-- from the cache: inner, semi, anti and left joins; missing keys and NULL
-- keys on both sides; int4, int8 and date keys; dimension columns as keys
-- (int, text through its dictionary, short text, date), several keys packed,
-- as aggregate arguments and in expressions; dimensions filtered to a few
-- keys; an empty dimension; WHERE on the fact table; a stale range read from
-- the heap beside the cached ones.  Where a dimension's keys repeat in an
-- inner join, or span too far, the ranges are read as batches and joined
-- there (the same answer).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/from_cache.psql

-- whether q's cached ranges were joined and grouped where they lie (in the
-- host cache, or on the GPU service's device), not read as batches
CREATE FUNCTION pg_temp.in_place(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n bigint := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Ranges Aggregated In Cache:%' OR line LIKE '%Ranges On Device:%' THEN
			n := n + split_part(line, ':', 2)::bigint;
		END IF;
	END LOOP;
	RETURN n > 0;
END
$$;

-- the keys of q's row maps, when its cached ranges were joined in place
CREATE FUNCTION pg_temp.row_maps(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Join Row Map Keys:%' THEN
			RETURN NEXT btrim(line);
		END IF;
	END LOOP;
END
$$;

SET gpuops.cache_range_blocks = 8;
CREATE TABLE cs_fact (id int, f1 int, f2 int8, f3 date, v int, x float8,
					  n numeric(10, 2), big int8);
INSERT INTO cs_fact
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7) % 1100 END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE (i * 13) % 260 END,
	   CASE WHEN i % 89 = 0 THEN NULL ELSE date '2020-01-01' + (i % 400) END,
	   i % 1000,
	   CASE i % 11 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' ELSE (i % 77) * 0.25 END,
	   CASE WHEN i % 61 = 0 THEN NULL ELSE (i % 5000) / 7.0 - 300 END,
	   CASE WHEN i IN (700, 777) THEN 9000000000000000000 ELSE i END
FROM generate_series(1, 30000) i;
-- d1: unique int4 keys 1..1000 with holes (fact keys reach 1099: some
-- miss), one key whose columns are NULL
CREATE TABLE cs_d1 (k int PRIMARY KEY, name text, yr int, c char(2), w float8);
INSERT INTO cs_d1
SELECT i, 'name' || (i % 13), 1990 + i % 7, chr(65 + i % 5) || 'x',
	   CASE i % 9 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' ELSE i / 8.0 END
FROM generate_series(1, 1000) i WHERE i % 10 <> 3;
INSERT INTO cs_d1 VALUES (1001, NULL, NULL, NULL, NULL);
-- d2: int8 keys, unique, one far away; NULL key
CREATE TABLE cs_d2 (k bigint, cat text, m int);
INSERT INTO cs_d2 SELECT i, 'cat' || (i % 5), i % 7 FROM generate_series(0, 199) i;
INSERT INTO cs_d2 VALUES (NULL, 'nullkey', 1);
-- d3: date keys
CREATE TABLE cs_d3 (dk date, yr int, mon int2);
INSERT INTO cs_d3 SELECT date '2020-01-01' + i, 2020 + i / 366, (1 + i % 12)::int2
FROM generate_series(0, 365) i;
-- dup: repeated keys
CREATE TABLE cs_dup (k int, tag int);
INSERT INTO cs_dup SELECT i % 100, i FROM generate_series(1, 300) i;
CREATE TABLE cs_empty (k int, tag int);
VACUUM (FREEZE, ANALYZE) cs_fact;
ANALYZE cs_d1, cs_d2, cs_d3, cs_dup, cs_empty;
SELECT gpuops.cache_table('cs_fact', auto_refresh => false) > 0 AS cached;

-- one dimension: int, text, short text and float keys
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) AS sv, min(f.big), max(f.x), sum(f.n) AS sn FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.from_cache('SELECT d1.yr, count(*), sum(f.v) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr') AS cached_rows,
	   pg_temp.in_place('SELECT d1.yr, count(*), sum(f.v) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr') AS in_place;
SELECT pg_temp.check('SELECT d1.name, count(*), avg(f.v) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.name');
SELECT pg_temp.in_place('SELECT d1.name, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.name') AS in_place;
SELECT pg_temp.check('SELECT d1.c, count(*) FROM cs_fact f JOIN cs_d1 d1 ON d1.k = f.f1 GROUP BY d1.c');
SELECT pg_temp.check('SELECT d1.w, count(*), sum(f.v) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.w');
-- no GROUP BY; a dimension column aggregated
SELECT pg_temp.check('SELECT count(*), sum(d1.yr), min(d1.w), max(d1.yr), avg(d1.w) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k');
-- WHERE on both sides
SELECT pg_temp.check('SELECT d1.yr, count(*), sum(f.v) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE f.v < 300 AND d1.yr IN (1991, 1995) GROUP BY d1.yr');
-- several dimensions and packed keys: a fact column and dimension columns
SELECT pg_temp.check('SELECT d1.yr, d3.mon, count(*), sum(f.v) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon');
SELECT pg_temp.in_place('SELECT d1.yr, d3.mon, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon') AS in_place;
SELECT pg_temp.row_maps('SELECT d1.yr, d3.mon, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon');
SELECT pg_temp.check('SELECT d2.m, d1.yr, f.v % 3 AS r, count(*), sum(f.x) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d2 d2 ON f.f2 = d2.k
	WHERE d2.cat <> ''cat2'' GROUP BY d2.m, d1.yr, f.v % 3');
SELECT pg_temp.check('SELECT d1.yr, d2.m, d3.yr AS y3, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d2 d2 ON f.f2 = d2.k JOIN cs_d3 d3 ON f.f3 = d3.dk
	WHERE d3.mon < 4 GROUP BY d1.yr, d2.m, d3.yr');
-- expressions over dimension columns
SELECT pg_temp.check('SELECT d1.yr - 1990 AS y, count(*), sum(f.v * d2.m) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d2 d2 ON f.f2 = d2.k GROUP BY d1.yr - 1990');
-- a dimension filtered to a few keys
SELECT pg_temp.check('SELECT d1.name, count(*) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE d1.k IN (7, 500, 999) GROUP BY d1.name');
-- row maps past gpuops.max_join_memory (here the 993 keys of three rows):
-- read as batches
SET gpuops.max_join_memory = '2kB';
SELECT pg_temp.check('SELECT d1.name, count(*) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE d1.k IN (7, 500, 999) GROUP BY d1.name');
SELECT pg_temp.in_place('SELECT d1.name, count(*) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE d1.k IN (7, 500, 999) GROUP BY d1.name') AS in_place;
RESET gpuops.max_join_memory;
-- semi and anti joins
SELECT pg_temp.check('SELECT f.v % 10 AS r, count(*) FROM cs_fact f
	WHERE EXISTS (SELECT 1 FROM cs_d1 d1 WHERE d1.k = f.f1 AND d1.yr = 1993) GROUP BY f.v % 10');
SELECT pg_temp.check('SELECT f.v % 10 AS r, count(*) FROM cs_fact f
	WHERE NOT EXISTS (SELECT 1 FROM cs_d1 d1 WHERE d1.k = f.f1) GROUP BY f.v % 10');
SELECT pg_temp.check('SELECT count(*) FROM cs_fact f
	WHERE f.f1 IN (SELECT k FROM cs_dup) AND NOT EXISTS (SELECT 1 FROM cs_d2 d2 WHERE d2.k = f.f2)');
SELECT pg_temp.in_place('SELECT count(*) FROM cs_fact f
	WHERE f.f1 IN (SELECT k FROM cs_dup) AND NOT EXISTS (SELECT 1 FROM cs_d2 d2 WHERE d2.k = f.f2)') AS in_place;
-- left join: NULL dimension columns where none matches
SELECT pg_temp.check('SELECT d1.yr, count(*) AS c, count(d1.w) AS cw, sum(f.v) FROM cs_fact f
	LEFT JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.in_place('SELECT d1.yr, count(*) FROM cs_fact f
	LEFT JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr') AS in_place;
-- an empty dimension
SELECT pg_temp.check('SELECT e.tag, count(*) FROM cs_fact f JOIN cs_empty e ON f.f1 = e.k GROUP BY e.tag');
SELECT pg_temp.check('SELECT count(*) FROM cs_fact f LEFT JOIN cs_empty e ON f.f1 = e.k');
-- keys that repeat in an inner join: read as batches, joined there
SELECT pg_temp.check('SELECT dp.tag % 5 AS t, count(*) FROM cs_fact f JOIN cs_dup dp ON f.f1 = dp.k
	GROUP BY dp.tag % 5');
SELECT pg_temp.from_cache('SELECT dp.tag % 5 AS t, count(*) FROM cs_fact f JOIN cs_dup dp ON f.f1 = dp.k
	GROUP BY dp.tag % 5') AS cached_rows,
	   pg_temp.in_place('SELECT dp.tag % 5 AS t, count(*) FROM cs_fact f JOIN cs_dup dp ON f.f1 = dp.k
	GROUP BY dp.tag % 5') AS in_place;
-- an expression error on a joined row is raised, as PostgreSQL raises it
SELECT pg_temp.try('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.in_place('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE f.big < 1000000 GROUP BY d1.yr') AS in_place;
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
RESET gpuops.enabled;
-- a row the join drops raises no error: fact row 700 (f1 = 500) is
-- dropped where d1 keeps keys below 400 alone
SELECT pg_temp.check('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE d1.k < 400 GROUP BY d1.yr');

-- the GPU face: the GPU service joins the ranges it keeps, the dimensions
-- carried in the request (in CI the service runs on the CPU face:
-- gpuops.debug_gpu_service)
SET gpuops.device = gpu;
SELECT pg_temp.check('SELECT d1.yr, d3.mon, count(*), sum(f.v), max(f.x) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon');
SELECT pg_temp.in_place('SELECT d1.yr, d3.mon, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon') AS in_place;
SELECT pg_temp.check('SELECT d1.name, count(*), sum(d1.w) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k WHERE f.v < 700 GROUP BY d1.name');
SELECT pg_temp.check('SELECT d2.m, d1.yr, f.v % 3 AS r, count(*), sum(f.x) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d2 d2 ON f.f2 = d2.k
	WHERE d2.cat <> ''cat2'' GROUP BY d2.m, d1.yr, f.v % 3');
SELECT pg_temp.check('SELECT d1.yr - 1990 AS y, count(*), sum(f.v * d2.m) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d2 d2 ON f.f2 = d2.k GROUP BY d1.yr - 1990');
SELECT pg_temp.check('SELECT d1.c, count(*) FROM cs_fact f JOIN cs_d1 d1 ON d1.k = f.f1 GROUP BY d1.c');
SELECT pg_temp.check('SELECT f.v % 10 AS r, count(*) FROM cs_fact f
	WHERE NOT EXISTS (SELECT 1 FROM cs_d1 d1 WHERE d1.k = f.f1) GROUP BY f.v % 10');
SELECT pg_temp.check('SELECT d1.yr, count(*) AS c, count(d1.w) AS cw, sum(f.v) FROM cs_fact f
	LEFT JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT e.tag, count(*) FROM cs_fact f JOIN cs_empty e ON f.f1 = e.k GROUP BY e.tag');
SELECT pg_temp.try('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr');
SELECT pg_temp.check('SELECT d1.yr, sum(f.big * 2) FROM cs_fact f JOIN cs_d1 d1 ON f.f1 = d1.k
	WHERE d1.k < 400 GROUP BY d1.yr');
RESET gpuops.device;

-- a changed range is read from the heap, the rest from the cache
UPDATE cs_fact SET v = v + 1 WHERE id = 5;
SELECT pg_temp.check('SELECT d1.yr, d3.mon, count(*), sum(f.v) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k JOIN cs_d3 d3 ON f.f3 = d3.dk GROUP BY d1.yr, d3.mon');
SELECT pg_temp.from_cache('SELECT d1.yr, count(*) FROM cs_fact f
	JOIN cs_d1 d1 ON f.f1 = d1.k GROUP BY d1.yr') BETWEEN 1 AND 29999 AS partly_cached;

SELECT gpuops.uncache_table('cs_fact');
DROP TABLE cs_fact, cs_d1, cs_d2, cs_d3, cs_dup, cs_empty;
