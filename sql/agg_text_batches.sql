-- Custom Scan (GpuOpsAgg) with text grouping keys read in page batches:
-- the decoding threads note where each string lies in its pinned page and
-- the backend codes them in the key's dictionary; worker processes code
-- them in their own and send their groups' strings to the backend.  A
-- WHERE clause on other columns is tested before the rest of a row is
-- decoded (late materialisation).  Each query is checked against
-- PostgreSQL's own answer: NULLs, empty strings, compressed and external
-- (TOASTed) values, non-ASCII text, the C and the default collation, a
-- wide table, small batches, workers, rescans.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

CREATE TABLE tb (id int4, w int4, u text, c text COLLATE "C", vc varchar(40),
				 x int4, ext text, v float8);
ALTER TABLE tb ALTER COLUMN ext SET STORAGE EXTERNAL;
INSERT INTO tb
SELECT i,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE i % 100 END,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 50 = 0 THEN ''
			ELSE 'http://example.com/page/' || (i % 700) || repeat('x', i % 30) END,
	   CASE WHEN i % 3 = 0 THEN 'Zürich ' || (i % 7) WHEN i % 3 = 1 THEN 'a' || (i % 5)
			ELSE 'B' || (i % 4) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'vc-' || (i % 13) END,
	   i % 13,
	   CASE WHEN i % 5000 = 1 THEN 'e' || (i % 2) || repeat(md5(i::text), 100) ELSE 'short' || (i % 3) END,
	   i * 0.5
FROM generate_series(1, 60000) i;
-- compressed values kept in the row
UPDATE tb SET u = repeat('long ' || (id % 2), 2000) WHERE id % 4999 = 3;
-- multibyte characters where the encoding has them
INSERT INTO tb
SELECT 100000 + i, i % 100, u, u, u, i % 13, u, i
FROM generate_series(1, 30) i,
	 unnest(CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
				 THEN ARRAY[chr(233) || 'té', chr(8364), chr(19996) || chr(20140)] ELSE ARRAY['x', 'y', 'w'] END) u;
VACUUM ANALYZE tb;

-- text keys: page batches, not slots
SELECT * FROM pg_temp.table_read('SELECT u, count(*) FROM tb GROUP BY u');
SELECT * FROM pg_temp.table_read('SELECT c, vc, count(*) FROM tb GROUP BY c, vc');
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s, min(id) AS lo FROM tb GROUP BY u');
SELECT pg_temp.check('SELECT c, count(*) AS n, avg(x) AS a FROM tb GROUP BY c');
SELECT pg_temp.check('SELECT vc, x, count(*) AS n FROM tb GROUP BY vc, x');
SELECT pg_temp.check('SELECT c, vc, u, count(*) AS n, max(v) AS hi FROM tb GROUP BY c, vc, u');
SELECT pg_temp.check('SELECT ext, count(*) AS n, sum(x) AS s FROM tb GROUP BY ext');
SELECT pg_temp.check('SELECT u, count(u) AS nu, count(ext) AS ne, count(DISTINCT x) AS dx FROM tb GROUP BY u');
SELECT pg_temp.check('SELECT c, count(*) AS n FROM tb GROUP BY c HAVING count(*) > 1000');
-- the output order of text keys is not the strings' order: a Sort above
SELECT pg_temp.check_order('SELECT c, count(*) FROM tb GROUP BY c ORDER BY c');

-- a WHERE clause on other columns runs before the rows are decoded in full
SELECT * FROM pg_temp.lines('SELECT u, count(*) FROM tb WHERE w < 10 GROUP BY u',
							ARRAY['Table Read', 'Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s FROM tb WHERE w < 10 GROUP BY u');
SELECT pg_temp.check('SELECT u, c, count(*) AS n FROM tb WHERE w IS NULL OR w BETWEEN 40 AND 42 GROUP BY u, c');
SELECT pg_temp.check('SELECT ext, vc, count(*) AS n, sum(x) AS s FROM tb WHERE x = 3 AND w > 90 GROUP BY ext, vc');
SELECT pg_temp.check('SELECT c, count(*) FILTER (WHERE x > 5) AS n, sum(v) AS s FROM tb WHERE w <> 1 GROUP BY c');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE w < 0 GROUP BY u');
SELECT pg_temp.check('SELECT count(*) AS n, sum(v) AS s, max(x) AS hi FROM tb WHERE w = 5');
-- an int key behind the text columns, a selective clause: late too
SELECT * FROM pg_temp.lines('SELECT x, count(*), sum(v) FROM tb WHERE w = 5 GROUP BY x',
							ARRAY['Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT x, count(*) AS n, sum(v) AS s FROM tb WHERE w = 5 GROUP BY x');
-- most rows pass: one pass again after a page batch
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE w IS NOT NULL GROUP BY u');
-- text = / <> a constant runs on the device over the codes (the constant
-- coded in the column's dictionary); the other clauses still run first
SELECT * FROM pg_temp.lines('SELECT u, count(*) FROM tb WHERE u <> '''' AND w < 10 GROUP BY u',
							ARRAY['Device Filter', 'CPU Filter', 'Table Read', 'Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE u <> '''' GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s FROM tb WHERE u <> '''' AND w < 10 GROUP BY u');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE ''a1'' = c GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE c = ''Zürich 3'' OR c = ''B2'' GROUP BY x');
SELECT pg_temp.check('SELECT c, count(*) AS n FROM tb WHERE vc <> ''vc-3'' AND NOT (u = '''') GROUP BY c');
SELECT pg_temp.check('SELECT x, count(ext) AS n, count(*) AS m FROM tb WHERE ext = ''short1'' GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE ext <> ''short1'' AND ext <> ''short2'' GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) FILTER (WHERE c = ''a2'') AS n, count(*) FILTER (WHERE u <> '''') AS m FROM tb GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE u = ''no such url'' GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE u <> '''' COLLATE "C" GROUP BY x');
-- and so do IN and NOT IN lists
SELECT * FROM pg_temp.plan('SELECT x, count(*) FROM tb WHERE u IN (''a'', ''b'') AND vc NOT IN (''vc-1'', ''vc-2'') GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE c IN (''Zürich 3'', ''B2'', ''a1'') GROUP BY x');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE vc NOT IN (''vc-1'', ''vc-2'') AND w < 30 GROUP BY u');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE vc NOT IN (''vc-1'', NULL) GROUP BY x');
SELECT pg_temp.check('SELECT x, count(ext) AS n FROM tb WHERE ext IN (''short1'', ''short2'', ''nothing'') OR u = ANY (''{"",x,y}''::text[]) GROUP BY x');
SELECT pg_temp.check('SELECT x, count(*) FILTER (WHERE c IN (''a2'', ''a3'')) AS n FROM tb GROUP BY x');
-- other text clauses run on the CPU, through slots (LIKE of literal pieces
-- and '%' runs on the device: agg_like)
SELECT * FROM pg_temp.table_read('SELECT u, count(*) FROM tb WHERE u ILIKE ''http%'' GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE u ILIKE ''http%'' GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE u LIKE ''http%'' GROUP BY u');
SELECT pg_temp.check('SELECT x, count(*) AS n FROM tb WHERE c < ''a'' GROUP BY x');

-- small batches: many page batches and spans, rows cut anywhere
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s FROM tb GROUP BY u');
SELECT pg_temp.check('SELECT c, vc, count(*) AS n FROM tb WHERE w % 3 = 0 GROUP BY c, vc');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE w < 3 OR w IS NULL GROUP BY u');
RESET gpuops.debug_chunk_size;

-- worker processes: each codes its own strings, the backend merges them
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT u, count(*) FROM tb GROUP BY u',
							ARRAY['Workers Planned', 'Workers Launched', 'Table Read', 'Rows In']);
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s FROM tb GROUP BY u');
SELECT pg_temp.check('SELECT c, vc, x, count(*) AS n, min(v) AS lo FROM tb GROUP BY c, vc, x');
SELECT pg_temp.check('SELECT ext, count(*) AS n FROM tb WHERE w < 50 GROUP BY ext');
SELECT pg_temp.check('SELECT u, count(DISTINCT x) AS dx FROM tb WHERE w < 20 GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE u <> '''' AND c <> ''a1'' GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE vc IN (''vc-3'', ''vc-4'') AND c NOT IN (''a1'', ''B1'') GROUP BY u');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tb WHERE w < x AND vc <> ''vc-5'' GROUP BY u');
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT u, c, count(*) AS n FROM tb GROUP BY u, c');
RESET gpuops.debug_chunk_size;
-- the backend codes the strings of both workers' pieces in one call (it
-- waits for a piece of each), with their maps kept apart
SET gpuops.debug_worker_sweep = on;
SELECT pg_temp.check('SELECT u, count(*) AS n, sum(v) AS s FROM tb GROUP BY u');
SELECT pg_temp.check('SELECT c, vc, x, count(*) AS n, min(v) AS lo FROM tb GROUP BY c, vc, x');
SELECT pg_temp.check('SELECT u, count(DISTINCT x) AS dx FROM tb WHERE w < 20 GROUP BY u');
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT u, c, count(*) AS n FROM tb GROUP BY u, c');
RESET gpuops.debug_chunk_size;
-- pieces larger than a worker's queue (1 MB): read where the queue put them
CREATE TABLE tlong (k text, v int4) WITH (autovacuum_enabled = off);
INSERT INTO tlong SELECT 'long key ' || (i % 24000) || repeat('-', 100 + i % 7), i
FROM generate_series(1, 48000) i;
VACUUM ANALYZE tlong;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, max(v) AS hi FROM tlong GROUP BY k');
RESET gpuops.debug_worker_sweep;
SELECT pg_temp.check('SELECT k, count(*) AS n, min(v) AS lo FROM tlong GROUP BY k');
DROP TABLE tlong;
-- groups past gpuops.max_group_memory spill, in workers and in the backend
-- (statistics taken with 10 distinct keys, then 40,000 rows of ~20,000)
CREATE TABLE tsp (k text, v int4) WITH (autovacuum_enabled = off);
INSERT INTO tsp SELECT 'k' || (i % 10), i FROM generate_series(1, 1000) i;
ANALYZE tsp;
INSERT INTO tsp
SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE 'key ' || ((i * 31) % 20011) || repeat('.', i % 9) END, i
FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT * FROM pg_temp.lines('SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo FROM tsp GROUP BY k',
							ARRAY['Workers Launched', 'Groups']);
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo FROM tsp GROUP BY k');
SET gpuops.debug_worker_sweep = on;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo FROM tsp GROUP BY k');
RESET gpuops.debug_worker_sweep;
RESET gpuops.max_group_memory;
DROP TABLE tsp;
-- a rescan reads in the backend alone
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, s.c, s.n FROM generate_series(1, 3) g LEFT JOIN (SELECT x, c, count(*) n FROM tb WHERE w < 30 GROUP BY x, c) s ON s.x = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
\i :abs_srcdir/sql/include/workers_off.psql

-- a wide table: keys and clauses behind many variable-width columns
DO $$
DECLARE
	cols text := '';
	vals text := '';
BEGIN
	FOR i IN 1..60 LOOP
		cols := cols || format(', c%s %s', i, CASE WHEN i % 3 = 0 THEN 'text' WHEN i % 3 = 1 THEN 'int4' ELSE 'int8' END);
		vals := vals || CASE WHEN i % 3 = 0 THEN format(', CASE WHEN g %% %s = 0 THEN NULL ELSE ''s'' || (g %% %s) END', i + 1, i)
							 WHEN i % 3 = 1 THEN format(', g %% %s', i + 2)
							 ELSE format(', CASE WHEN g %% 5 = 0 THEN NULL ELSE g * %s END', i) END;
	END LOOP;
	EXECUTE 'CREATE TABLE tw (id int4' || cols || ')';
	EXECUTE 'INSERT INTO tw SELECT g' || vals || ' FROM generate_series(1, 20000) g';
END
$$;
VACUUM ANALYZE tw;
SELECT pg_temp.check('SELECT c60, count(*) AS n, sum(c59) AS s FROM tw GROUP BY c60');
SELECT pg_temp.check('SELECT c3, c57, count(*) AS n, max(c58) AS hi FROM tw WHERE c1 < 2 GROUP BY c3, c57');
SELECT pg_temp.check('SELECT c58, count(*) AS n FROM tw WHERE c55 = 4 GROUP BY c58');
SELECT pg_temp.check('SELECT count(*) AS n, sum(c2) AS s, count(c60) AS t FROM tw WHERE c58 > 1000');
SELECT * FROM pg_temp.lines('SELECT c30, count(*) FROM tw WHERE c1 = 0 GROUP BY c30',
							ARRAY['Table Read', 'Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);

DROP TABLE tb;
DROP TABLE tw;
