-- Custom Scan (GpuOpsAgg) with short text grouping keys: char(n) and
-- varchar(n) whose values have at most 7 bytes in the database's encoding
-- (char(1) and varchar(1) in any encoding) are read as int64 codes of their
-- bytes, so their tables are read in page batches (and by worker
-- processes), not through slots with dictionary codes; longer ones keep the
-- dictionary.  Each query is checked against PostgreSQL's own answer:
-- NULLs, the empty string, blanks, multibyte characters, several keys.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql
\i :abs_srcdir/sql/include/lines.psql

-- EXPLAIN ANALYZE of q as JSON
CREATE FUNCTION pg_temp.explain_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN j;
END
$$;

CREATE TABLE st_t (i int4, f char(1), s varchar(1), l char(8), v int8);
INSERT INTO st_t
SELECT i,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE (ARRAY['A', 'N', 'R', ' ', 'z'])[1 + i % 5] END,
	   CASE WHEN i % 13 = 0 THEN NULL WHEN i % 11 = 0 THEN '' ELSE chr(97 + i % 7) END,
	   'key ' || (i % 9),
	   i % 1000
FROM generate_series(1, 30000) i;
-- multibyte characters where the encoding has them
INSERT INTO st_t
SELECT i, c, c, c, i
FROM generate_series(1, 40) i,
	 unnest(CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
				 THEN ARRAY[chr(233), chr(8364), chr(119070)] ELSE ARRAY['x', 'y', 'w'] END) c;
VACUUM ANALYZE st_t;

-- short keys: page batches of codes; a char(8) key: page batches of dictionary codes
SELECT * FROM pg_temp.table_read('SELECT f, count(*) FROM st_t GROUP BY f');
SELECT * FROM pg_temp.table_read('SELECT f, s, count(*) FROM st_t GROUP BY f, s');
SELECT * FROM pg_temp.table_read('SELECT l, count(*) FROM st_t GROUP BY l');
SELECT pg_temp.check('SELECT f, count(*), sum(v), min(i), max(v) FROM st_t GROUP BY f');
SELECT pg_temp.check('SELECT s, count(*), avg(v) FROM st_t GROUP BY s');
SELECT pg_temp.check('SELECT f, s, count(*), sum(i) FROM st_t GROUP BY f, s');
SELECT pg_temp.check('SELECT s, i % 3 AS m, f, count(*) FROM st_t GROUP BY s, 2, f');
SELECT pg_temp.check('SELECT f, l, count(*) FROM st_t GROUP BY f, l');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE v < 500 GROUP BY f HAVING count(*) > 10');
SELECT pg_temp.check('SELECT f, count(*) FILTER (WHERE v > 10) AS n FROM st_t WHERE s IS NOT NULL GROUP BY f');
-- the strategies, small chunks
SET gpuops.agg_strategy = dense;
SELECT pg_temp.check('SELECT f, s, count(*), sum(v) FROM st_t GROUP BY f, s');
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check('SELECT f, s, count(*), sum(v) FROM st_t GROUP BY f, s');
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check('SELECT f, s, count(*), sum(v) FROM st_t GROUP BY f, s');
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT f, s, count(*), max(i) FROM st_t GROUP BY f, s');
RESET gpuops.debug_chunk_size;
-- ORDER BY a short key: PostgreSQL sorts above the node, in the collation
SELECT pg_temp.check_order('SELECT f, count(*) FROM st_t GROUP BY f ORDER BY f');
-- worker processes (where the core budget allows a query 3 threads)
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_row_cost = 0;
SET gpuops.threads = 4;
SET parallel_setup_cost = 0;
SET gpuops.debug_chunk_size = 16384;
SELECT ((j->0->'Plan'->>'Workers Launched')::int > 0) =
       ((SELECT max_threads FROM gpuops.budget()) >= 3) AS workers_as_budget_allows
FROM pg_temp.explain_json('SELECT f, s, count(*) FROM st_t GROUP BY f, s') j;
SELECT pg_temp.check('SELECT f, s, count(*), sum(v) FROM st_t GROUP BY f, s');
RESET gpuops.debug_chunk_size;
RESET parallel_setup_cost;
RESET gpuops.threads;
RESET gpuops.cpu_row_cost;
RESET gpuops.parallel_workers;
SET max_parallel_workers_per_gather = 0;
-- text = / <> / IN / NOT IN a constant runs on the device over the codes:
-- a short key's codes of its bytes, a char(8)'s dictionary codes; char(n)
-- compares as bpchar does (trailing spaces do not count, so '' equals a
-- blank), and a constant longer than the column matches no value
SELECT * FROM pg_temp.plan('SELECT s, count(*) FROM st_t WHERE f IN (''A'', ''R'') AND s <> ''a'' AND l = ''key 3'' GROUP BY s');
SELECT * FROM pg_temp.lines('SELECT s, count(*) FROM st_t WHERE f = ''N'' GROUP BY s',
							ARRAY['Table Read', 'Rows In', 'Rows Passed']);
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f = ''A'' GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f = ''A   '' OR f = '''' GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f <> '' '' GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f = ''AB'' OR f = ''zz'' GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f <> ''AB'' GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f IN (''A'', ''R '', NULL) GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f NOT IN (''A'', ''N'') GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f NOT IN (''A'', NULL) GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f = ANY (''{A,z}''::bpchar[]) OR f <> ALL (''{N,R}''::bpchar[]) GROUP BY s');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE s = '''' GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE s IN (''a'', ''b'', ''cc'', '''') GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE s NOT IN (''a'', ''b'') AND s <> ''abcdefghij'' GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE f = chr(233) OR s IN (chr(8364), chr(119070)) GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE l = ''key 3'' GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE l IN (''key 3    '', ''key 4'', ''key 33333'') GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE l NOT IN (''key 3'', ''key 4'') AND l <> ''key 5 and more'' GROUP BY f');
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE l IN (chr(233), chr(8364)) GROUP BY f');
SELECT pg_temp.check('SELECT s, count(*) FILTER (WHERE f = ''N'') AS n, count(*) FILTER (WHERE l IN (''key 1'', ''key 2'')) AS m FROM st_t GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) FROM st_t WHERE f = ''A'' COLLATE "C" GROUP BY s');
-- the slot path (a CPU clause) and a column added later with a default
SELECT pg_temp.check('SELECT f, count(*) FROM st_t WHERE l::text <> ''key 1'' GROUP BY f');
ALTER TABLE st_t ADD COLUMN d char(1) DEFAULT 'q';
INSERT INTO st_t (i, d) VALUES (1, 'w'), (2, NULL);
SELECT pg_temp.check('SELECT d, count(*) FROM st_t GROUP BY d');
DROP TABLE st_t;
