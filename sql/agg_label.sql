-- Custom Scan (GpuOpsAgg) with label keys: a grouping key that is a CASE or
-- COALESCE of type text or varchar whose results are constants (or NULL)
-- and at most one text column, which the device evaluates over codes: the
-- labels' and the column's, of one dictionary.  Checked against
-- PostgreSQL's own answer: searched and simple CASEs, no ELSE (a NULL
-- group), repeated labels, an empty label, non-ASCII labels, varchar
-- labels, beside column keys, text keys and a second label key, with
-- FILTER, HAVING, count(DISTINCT), min and max of text, device and CPU
-- WHERE clauses (on the column too), NULL conditions, spilled groups, a
-- partitioned table, a star join, the column cache, workers; an error in a
-- condition raises PostgreSQL's own.  What keeps the native plan: results
-- of two columns or of an expression, a column that is also a key or min's
-- argument, a column in a star join, a short varchar column or type, a
-- label CASE inside count(DISTINCT), a condition the device can't run.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

\i :abs_srcdir/sql/include/from_cache.psql

CREATE TABLE tlab (id int4, w int4, k int4, f float8, d date, u text, c text COLLATE "C",
				   vc varchar(20))
	WITH (autovacuum_enabled = off);
INSERT INTO tlab
SELECT i, i % 37, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 5 END,
	   CASE WHEN i % 13 = 0 THEN NULL WHEN i % 101 = 0 THEN 'NaN' ELSE (i % 100) / 7.0 END,
	   date '2024-01-01' + (i % 400),
	   CASE WHEN i % 17 = 0 THEN NULL ELSE 'u' || (i % 23) END,
	   'c' || (i % 3),
	   CASE WHEN i % 19 = 0 THEN NULL ELSE 'x' || (i % 4) END
FROM generate_series(1, 50000) i;
VACUUM ANALYZE tlab;

-- the plan shows the key as the query writes it
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 10 THEN ''small'' WHEN w < 20 THEN ''medium'' ELSE ''large'' END AS b, count(*) FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''small'' WHEN w < 20 THEN ''medium'' ELSE ''large'' END AS b, count(*) AS n, sum(id) AS s FROM tlab GROUP BY 1');
-- no ELSE: rows that match no WHEN make a NULL group; NULL conditions
SELECT pg_temp.check('SELECT CASE WHEN k = 1 THEN ''one'' WHEN k > 2 THEN ''big'' END AS b, count(*) AS n, avg(f) AS a FROM tlab GROUP BY 1');
-- a simple CASE, a label repeated, a NULL result, an empty label
SELECT pg_temp.check('SELECT CASE k WHEN 1 THEN ''odd'' WHEN 2 THEN ''even'' WHEN 3 THEN ''odd'' WHEN 4 THEN NULL ELSE '''' END AS b, count(*) AS n, min(id) AS lo, max(id) AS hi FROM tlab GROUP BY 1');
-- every result NULL
SELECT pg_temp.check('SELECT CASE WHEN w < 5 THEN NULL::text END AS b, count(*) AS n FROM tlab GROUP BY 1');
-- non-ASCII labels where the encoding has them, and labels of varchar
SELECT pg_temp.check('SELECT CASE WHEN w < 12 THEN ' ||
	CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
		 THEN quote_literal(chr(233) || 't' || chr(233)) ELSE '''ete''' END ||
	' WHEN w < 24 THEN ''hiver'' ELSE ''printemps'' END AS b, count(*) AS n FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN w < 12 THEN ''low''::varchar ELSE ''high''::varchar END AS b, count(*) AS n FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN w < 12 THEN ''lowest''::varchar(10) ELSE ''highest''::varchar(10) END AS b, count(*) AS n FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN w < 12 THEN ''lowest''::varchar(10) ELSE ''highest''::varchar(10) END::text AS b, count(*) AS n FROM tlab GROUP BY 1');
-- beside a column key, a text key, an expression key and a second label key
SELECT pg_temp.check('SELECT k, CASE WHEN f < 5 THEN ''lo'' WHEN f >= 5 THEN ''hi'' END AS b, count(*) AS n, sum(w) AS s FROM tlab GROUP BY 1, 2');
SELECT pg_temp.check('SELECT u, CASE WHEN d < ''2024-06-01'' THEN ''h1'' ELSE ''h2'' END AS b, count(*) AS n FROM tlab GROUP BY 1, 2');
SELECT pg_temp.check('SELECT extract(month FROM d) AS m, CASE WHEN w % 2 = 0 THEN ''even'' ELSE ''odd'' END AS b, CASE WHEN id < 25000 THEN ''first'' ELSE ''second'' END AS h, count(*) AS n FROM tlab GROUP BY 1, 2, 3');
-- FILTER, HAVING, ORDER BY and an output expression over the key
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(*) FILTER (WHERE k = 2) AS n2, sum(id) FILTER (WHERE f > 3) AS s FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT upper(CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END) AS b, count(*) AS n FROM tlab GROUP BY CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END HAVING CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END <> ''a'' OR count(*) > 0');
SELECT pg_temp.check_order('SELECT CASE WHEN w < 10 THEN ''x'' WHEN w < 30 THEN ''y'' ELSE ''z'' END AS b, count(*) AS n FROM tlab GROUP BY 1 ORDER BY 1 DESC');
-- count(DISTINCT x), min and max of text beside a label key
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(DISTINCT k) AS dk, min(u) AS lo, max(c) AS hi FROM tlab GROUP BY 1');
-- device and CPU WHERE clauses (the latter: through slots)
SELECT pg_temp.check('SELECT CASE WHEN k IS NULL THEN ''none'' ELSE ''some'' END AS b, count(*) AS n FROM tlab WHERE w > 3 AND u LIKE ''u1%'' GROUP BY 1');
SELECT * FROM pg_temp.table_read('SELECT CASE WHEN k IS NULL THEN ''none'' ELSE ''some'' END AS b, count(*) FROM tlab WHERE u ILIKE ''U1%'' GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN k IS NULL THEN ''none'' ELSE ''some'' END AS b, count(*) AS n FROM tlab WHERE u ILIKE ''U1%'' GROUP BY 1');
-- a column among the results: its strings and the labels share the key's
-- codes (equal strings from either make one group)
SELECT pg_temp.check('SELECT CASE WHEN k = 1 THEN u ELSE ''u1'' END AS b, count(*) AS n, sum(w) AS s FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN k IS NULL THEN ''none'' WHEN w < 5 THEN NULL ELSE c END AS b, w % 3 AS m, count(*) AS n FROM tlab GROUP BY 1, 2');
SELECT pg_temp.check('SELECT CASE k WHEN 2 THEN u WHEN 3 THEN u END AS b, count(*) AS n, max(f) AS mf FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT COALESCE(u, ''(none)'') AS b, count(*) AS n FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT COALESCE(u, NULL, ''u7'') AS b, k, count(*) AS n FROM tlab WHERE u <> ''u3'' AND w > 2 GROUP BY 1, 2');
SELECT pg_temp.check('SELECT CASE WHEN w < 9 THEN vc ELSE ''x'' END AS b, count(*) AS n FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT CASE WHEN w < 9 THEN c ELSE ''c1'' END AS b, count(DISTINCT k) AS dk, min(u) AS mu FROM tlab GROUP BY 1');
SELECT * FROM pg_temp.plan('SELECT CASE WHEN k = 1 THEN u ELSE '''' END AS b, count(*) FROM tlab GROUP BY 1');
SELECT * FROM pg_temp.table_read('SELECT CASE WHEN k = 1 THEN u ELSE '''' END AS b, count(*) FROM tlab GROUP BY 1');
-- a column under device clauses: the clauses compare codes of the key's
-- dictionary
SELECT pg_temp.check('SELECT CASE WHEN w < 9 THEN vc ELSE ''x'' END AS b, count(*) AS n FROM tlab WHERE vc = ''x1'' OR vc = ''x2'' GROUP BY 1');
SELECT pg_temp.check('SELECT COALESCE(vc, ''none'') AS b, count(*) AS n FROM tlab WHERE vc IN (''x1'', ''x3'') AND w > 4 GROUP BY 1');
SELECT * FROM pg_temp.plan('SELECT COALESCE(vc, ''none'') AS b, count(*) AS n FROM tlab WHERE vc IN (''x1'', ''x3'') AND w > 4 GROUP BY 1');
-- a short varchar column (its clauses compare codes of its bytes) keeps the
-- native plan
CREATE TABLE tlab_s (w int4, s1 varchar(1));
INSERT INTO tlab_s SELECT i % 37, CASE WHEN i % 13 = 0 THEN NULL ELSE chr(97 + i % 4) END
FROM generate_series(1, 20000) i;
ANALYZE tlab_s;
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 9 THEN s1 ELSE ''x'' END AS b, count(*) AS n FROM tlab_s WHERE s1 = ''a'' OR s1 = ''b'' GROUP BY 1');
DROP TABLE tlab_s;
-- small batches
SET gpuops.debug_chunk_size = 1000;
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' WHEN w < 20 THEN ''b'' END AS b, id % 50 AS m, count(*) AS n FROM tlab GROUP BY 1, 2');
RESET gpuops.debug_chunk_size;
-- groups past gpuops.max_group_memory spill (statistics taken with 10
-- distinct ids, then 40,000 rows of ~20,000)
CREATE TABLE tlabs (id int4, w int4) WITH (autovacuum_enabled = off);
INSERT INTO tlabs SELECT i % 10, i FROM generate_series(1, 1000) i;
ANALYZE tlabs;
INSERT INTO tlabs SELECT (i * 31) % 20011, i % 37 FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT id, CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlabs GROUP BY 1, 2',
				   ARRAY['Spilled Runs']);
SELECT pg_temp.check('SELECT id, CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(*) AS n, sum(w) AS s FROM tlabs GROUP BY 1, 2');
RESET gpuops.max_group_memory;
DROP TABLE tlabs;
-- an error in a condition: PostgreSQL's, either way
SELECT pg_temp.try('SELECT CASE WHEN 100 / (w - 5) > 1 THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlab GROUP BY 1');
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT CASE WHEN 100 / (w - 5) > 1 THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlab GROUP BY 1');
RESET gpuops.enabled;

-- a partitioned table
CREATE TABLE tlab_p (id int4, w int4, u text) PARTITION BY RANGE (id);
CREATE TABLE tlab_p1 PARTITION OF tlab_p FOR VALUES FROM (0) TO (20000);
CREATE TABLE tlab_p2 PARTITION OF tlab_p FOR VALUES FROM (20000) TO (60000);
INSERT INTO tlab_p SELECT id, w, u FROM tlab;
ANALYZE tlab_p;
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' WHEN w < 20 THEN ''b'' ELSE ''c'' END AS b, count(*) AS n, sum(id) AS s FROM tlab_p GROUP BY 1');
DROP TABLE tlab_p;

-- a star join: a label over the fact table's column, and over a dimension's
CREATE TABLE tlab_dim (dk int4 PRIMARY KEY, nm text, g int4);
INSERT INTO tlab_dim SELECT j, 'name' || (j % 7), j % 3 FROM generate_series(0, 36) j;
ANALYZE tlab_dim;
SELECT pg_temp.check('SELECT d.nm, CASE WHEN t.k < 2 THEN ''lo'' ELSE ''hi'' END AS b, count(*) AS n FROM tlab t JOIN tlab_dim d ON t.w = d.dk GROUP BY 1, 2');
SELECT pg_temp.check('SELECT CASE WHEN d.g = 1 THEN ''g1'' ELSE ''gx'' END AS b, count(*) AS n, sum(t.id) AS s FROM tlab t JOIN tlab_dim d ON t.w = d.dk GROUP BY 1');
DROP TABLE tlab_dim;

-- from the column cache
SELECT gpuops.cache_table('tlab', auto_refresh => false) > 0 AS cached;
SELECT pg_temp.from_cache('SELECT CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlab GROUP BY 1') > 0 AS from_cache;
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' WHEN w < 20 THEN ''b'' END AS b, k, count(*) AS n, sum(f) AS s FROM tlab WHERE id > 100 GROUP BY 1, 2');
SELECT gpuops.uncache_table('tlab');

-- worker processes: each evaluates the codes, the backend reads them as its own
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlab GROUP BY 1',
							ARRAY['Workers Launched', 'Table Read']);
SELECT pg_temp.check('SELECT CASE WHEN w < 10 THEN ''a'' WHEN w < 20 THEN ''b'' END AS b, u, count(*) AS n, sum(f) AS s FROM tlab GROUP BY 1, 2');
SELECT pg_temp.check('SELECT CASE k WHEN 1 THEN ''one'' WHEN 2 THEN ''two'' ELSE ''many'' END AS b, count(DISTINCT u) AS du, max(u) AS mu FROM tlab GROUP BY 1');
SELECT * FROM pg_temp.lines('SELECT CASE WHEN k = 1 THEN u ELSE ''u1'' END AS b, count(*) FROM tlab GROUP BY 1',
							ARRAY['Workers Launched', 'Table Read']);
SELECT pg_temp.check('SELECT CASE WHEN k = 1 THEN u ELSE ''u1'' END AS b, count(*) AS n, sum(w) AS s FROM tlab GROUP BY 1');
SELECT pg_temp.check('SELECT COALESCE(u, ''(none)'') AS b, CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END AS l, count(*) AS n FROM tlab GROUP BY 1, 2');
\i :abs_srcdir/sql/include/workers_off.psql

-- what keeps the native plan
-- results of two columns
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 10 THEN u ELSE c END AS b, count(*) FROM tlab GROUP BY 1');
-- a result that is an expression
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 10 THEN u || ''!'' ELSE ''x'' END AS b, count(*) FROM tlab GROUP BY 1');
-- a label key's column that is also a key, or min's argument
SELECT * FROM pg_temp.plan('SELECT u, CASE WHEN w < 10 THEN u ELSE ''x'' END AS b, count(*) FROM tlab GROUP BY 1, 2');
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 10 THEN u ELSE ''x'' END AS b, min(u) FROM tlab GROUP BY 1');
-- a label key's column in a star join
CREATE TABLE tlab_dim2 (dk int4 PRIMARY KEY, nm text);
INSERT INTO tlab_dim2 SELECT j, 'n' || j FROM generate_series(0, 36) j;
ANALYZE tlab_dim2;
SELECT * FROM pg_temp.plan('SELECT d.nm, CASE WHEN t.k = 1 THEN t.u ELSE ''x'' END AS b, count(*) FROM tlab t JOIN tlab_dim2 d ON t.w = d.dk GROUP BY 1, 2');
SELECT pg_temp.try('SELECT d.nm, CASE WHEN t.k = 1 THEN t.u ELSE ''x'' END AS b, count(*) FROM tlab t JOIN tlab_dim2 d ON t.w = d.dk GROUP BY 1, 2');
DROP TABLE tlab_dim2;
-- a short varchar type (its bytes would be the key, not a code)
SELECT * FROM pg_temp.plan('SELECT CASE WHEN w < 10 THEN ''a''::varchar(1) ELSE ''b''::varchar(1) END AS b, count(*) FROM tlab GROUP BY 1');
-- a label CASE counted DISTINCT
SELECT * FROM pg_temp.plan('SELECT k, count(DISTINCT CASE WHEN w < 10 THEN ''a'' ELSE ''b'' END) FROM tlab GROUP BY 1');
-- a condition the device can't run
SELECT * FROM pg_temp.plan('SELECT CASE WHEN u ILIKE ''U1%'' THEN ''a'' ELSE ''b'' END AS b, count(*) FROM tlab GROUP BY 1');

DROP TABLE tlab;
