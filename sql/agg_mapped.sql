-- Custom Scan (GpuOpsAgg) with mapped keys: a grouping key that is a
-- function of one text column and constants (ClickBench's
-- regexp_replace(Referer, ...), lower(url), substr(url, 1, n)), with a text
-- or varchar result.  The engine groups by the column's codes; the node
-- evaluates the function once a distinct value and groups again by its
-- result.  Checked against PostgreSQL's own answer: several values giving
-- one result, NULL columns and NULL results, a non-strict function, a
-- varchar column, non-ASCII text, two mapped keys, beside plain keys, every
-- aggregate kind, HAVING and ORDER BY ... LIMIT, small batches, spilled
-- groups, a partitioned table, worker processes; an error the function
-- raises for some value (22P02), also when its group is never shown, and
-- nothing for rows WHERE drops; the column a key too, count(DISTINCT) and
-- text min/max beside it (ClickBench's q29).  What keeps the native plan:
-- a volatile function, two columns, a result that is not text.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

\i :abs_srcdir/sql/include/check_error.psql

CREATE TABLE tmap (id int4, w int4, f float8, n numeric(10, 2), u text,
				   v varchar(40), r text)
	WITH (autovacuum_enabled = off);
INSERT INTO tmap
SELECT i, i % 17, CASE WHEN i % 13 = 0 THEN NULL ELSE i / 7.0 END,
	   (i % 1000) / 100.0,
	   CASE WHEN i % 11 = 0 THEN NULL
			WHEN i % 5 = 0 THEN 'Ünï-' || (i % 7)
			ELSE 'Path/' || (i % 300) || '/x' END,
	   'V' || (i % 41),
	   CASE (i % 4) WHEN 0 THEN 'https://www.ex' || (i % 9) || '.org/a/' || i
					WHEN 1 THEN 'http://ex' || (i % 9) || '.org/b'
					WHEN 2 THEN '' ELSE 'ftp://x' END
FROM generate_series(1, 40000) i;
VACUUM ANALYZE tmap;

-- the plan: the query's key, the column the engine groups by
SELECT * FROM pg_temp.plan('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, count(*) FROM tmap GROUP BY 1');
-- many values, one result (the host of a URL); HAVING, ORDER BY ... LIMIT
SELECT pg_temp.check('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, avg(length(r)) AS l, count(*) AS c FROM tmap WHERE r <> '''' GROUP BY 1');
SELECT pg_temp.check_order('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, avg(length(r)) AS l, count(*) AS c FROM tmap WHERE r <> '''' GROUP BY k HAVING count(*) > 100 ORDER BY l DESC, k LIMIT 5');
-- every aggregate kind; NULL columns; non-ASCII text
SELECT pg_temp.check('SELECT lower(u) AS k, count(*) AS c, count(f) AS cf, sum(w) AS sw, round(avg(f)::numeric, 6) AS af, min(n) AS mn, max(id) AS mi, sum(n) AS sn, stddev(w) AS sd FROM tmap GROUP BY 1');
SELECT pg_temp.check('SELECT substr(u, 1, 6) AS k, count(*) AS c, sum(id) AS s FROM tmap GROUP BY 1');
SELECT pg_temp.check('SELECT upper(u) || ''!'' AS k, count(*) AS c FROM tmap GROUP BY 1');
-- a non-strict function: a NULL column value has a value (concat)
SELECT pg_temp.check('SELECT concat(u, ''-'') AS k, count(*) AS c, max(w) AS m FROM tmap GROUP BY 1');
-- NULL results of non-NULL values
SELECT pg_temp.check('SELECT nullif(split_part(u, ''/'', 1), ''Path'') AS k, count(*) AS c FROM tmap GROUP BY 1');
-- a varchar column, a varchar result
SELECT pg_temp.check('SELECT left(v, 2)::varchar(5) AS k, count(*) AS c, sum(w) AS s FROM tmap GROUP BY 1');
-- two mapped keys, beside a plain key; a key not shown
SELECT pg_temp.check('SELECT w, lower(u) AS a, left(v, 2) AS b, count(*) AS c FROM tmap GROUP BY 1, 2, 3');
SELECT pg_temp.check_order('SELECT w, count(*) AS c FROM tmap GROUP BY w, lower(u) ORDER BY c DESC, w LIMIT 7');
-- the column a key too, two mapped keys of one column (they share its codes)
SELECT pg_temp.check('SELECT u, lower(u) AS l, count(*) AS c FROM tmap GROUP BY 1, 2');
SELECT pg_temp.check('SELECT lower(u) AS a, substr(u, 1, 2) AS b, count(*) AS c FROM tmap GROUP BY 1, 2');
-- beside count(DISTINCT x) and min/max of text: grouped again, then folded
SELECT * FROM pg_temp.plan('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, min(r) FROM tmap GROUP BY 1');
SELECT pg_temp.check_order('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, avg(length(r)) AS l, count(*) AS c, min(r) AS m FROM tmap WHERE r <> '''' GROUP BY k HAVING count(*) > 100 ORDER BY l DESC, k LIMIT 25');
SELECT pg_temp.check('SELECT lower(u) AS k, count(DISTINCT w) AS dw, max(v) AS mv, count(*) AS c FROM tmap GROUP BY 1');
SELECT pg_temp.check('SELECT substr(u, 1, 3) AS k, count(DISTINCT u) AS du, min(u) AS mu FROM tmap GROUP BY 1');
-- small batches
SET gpuops.debug_chunk_size = 1000;
SELECT pg_temp.check('SELECT lower(u) AS k, w % 3 AS m, count(*) AS c, round(sum(f)::numeric, 6) AS s FROM tmap GROUP BY 1, 2');
RESET gpuops.debug_chunk_size;
-- groups past gpuops.max_group_memory spill, then are grouped again
-- (statistics taken with 10 distinct values, then 40,000 rows of ~20,000)
CREATE TABLE tmaps (id int4, m int4, r text) WITH (autovacuum_enabled = off);
INSERT INTO tmaps SELECT i, i % 3, 'v' || (i % 10) FROM generate_series(1, 1000) i;
ANALYZE tmaps;
INSERT INTO tmaps SELECT i, i % 3, 'w' || ((i * 31) % 20011) FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT substr(r, 1, 3), count(*) FROM tmaps GROUP BY 1',
				   ARRAY['Spilled Runs']);
SELECT pg_temp.check('SELECT substr(r, 1, 3) AS k, count(*) AS c, sum(id) AS s, min(id) AS m FROM tmaps GROUP BY 1');
SELECT pg_temp.check('SELECT m, substr(r, 1, 4) AS k, count(*) AS c FROM tmaps GROUP BY 1, 2');
RESET gpuops.max_group_memory;

-- errors: a value the function fails on raises PostgreSQL's error
CREATE TABLE tmape (s text) WITH (autovacuum_enabled = off);
INSERT INTO tmape SELECT (i % 100)::text FROM generate_series(1, 20000) i;
INSERT INTO tmape VALUES ('x1');
VACUUM ANALYZE tmape;
SELECT pg_temp.check_error('SELECT (s::int4 + 1)::text AS k, count(*) FROM tmape GROUP BY 1');
SELECT pg_temp.check_error('SELECT (s::int4 + 1)::text AS k, count(*) FROM tmape GROUP BY 1 HAVING count(*) > 1000');
SELECT pg_temp.check_error('SELECT (s::int4 + 1)::text AS k, count(*) FROM tmape GROUP BY 1 LIMIT 1');
-- rows a WHERE clause drops raise nothing
SELECT pg_temp.check('SELECT (s::int4 % 7)::text AS k, count(*) AS c FROM tmape WHERE s <> ''x1'' GROUP BY 1');

-- a partitioned table
CREATE TABLE tmap_p (id int4, u text) PARTITION BY RANGE (id);
CREATE TABLE tmap_p1 PARTITION OF tmap_p FOR VALUES FROM (0) TO (20000);
CREATE TABLE tmap_p2 PARTITION OF tmap_p FOR VALUES FROM (20000) TO (60000);
INSERT INTO tmap_p SELECT id, u FROM tmap;
ANALYZE tmap_p;
SELECT pg_temp.check('SELECT lower(u) AS k, count(*) AS c, sum(id) AS s FROM tmap_p GROUP BY 1');
INSERT INTO tmap_p VALUES (50000, 'y2');
SELECT pg_temp.check_error('SELECT (u::int4)::text AS k, count(*) FROM tmap_p WHERE id >= 50000 OR u LIKE ''P%'' GROUP BY 1');
DROP TABLE tmap_p;

-- worker processes: they group by the column, the backend maps and groups again
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT lower(u), count(*) FROM tmap GROUP BY 1',
							ARRAY['Workers Launched', 'Mapped Key Columns']);
SELECT pg_temp.check('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, avg(length(r)) AS l, count(*) AS c, round(sum(f)::numeric, 6) AS s FROM tmap GROUP BY 1');
SELECT pg_temp.check('SELECT w, substr(u, 1, 3) AS k, count(*) AS c FROM tmap GROUP BY 1, 2');
SELECT pg_temp.check('SELECT regexp_replace(r, ''^https?://(?:www\.)?([^/]+)/.*$'', ''\1'') AS k, count(*) AS c, min(r) AS m, count(DISTINCT w) AS dw FROM tmap GROUP BY 1');
SELECT pg_temp.check('SELECT u, lower(u) AS l, count(*) AS c FROM tmap GROUP BY 1, 2');
SELECT pg_temp.check_error('SELECT (s::int4 + 1)::text AS k, count(*) FROM tmape GROUP BY 1 LIMIT 1');
-- plain keys with workers: their pieces gathered, then merged once
SELECT pg_temp.check('SELECT m, count(*) AS c, sum(id) AS s FROM tmaps GROUP BY 1');
SELECT pg_temp.check('SELECT r, count(*) AS c, sum(id) AS s FROM tmaps GROUP BY 1');
-- workers' spilled groups, gathered and merged a few hundred at a time
SET gpuops.max_group_memory = 64;
SELECT * FROM pg_temp.lines('SELECT r, count(*) FROM tmaps GROUP BY 1',
							ARRAY['Workers Launched']);
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT r, count(*) FROM tmaps GROUP BY 1', ARRAY['Spilled Runs']);
SELECT pg_temp.check('SELECT r, count(*) AS c, sum(id) AS s, max(m) AS m FROM tmaps GROUP BY 1');
SELECT pg_temp.check('SELECT m, substr(r, 1, 4) AS k, count(*) AS c FROM tmaps GROUP BY 1, 2');
RESET gpuops.max_group_memory;
\i :abs_srcdir/sql/include/workers_off.psql
DROP TABLE tmaps;
DROP TABLE tmape;

-- a rescan (the inner side of a nested loop) reads and maps again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, x.k, x.c FROM generate_series(1, 3) g LEFT JOIN (SELECT substr(u, 1, 6) AS k, count(*) AS c FROM tmap GROUP BY 1) x ON x.c > g * 1000');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- what keeps the native plan (no GpuOpsAgg)
-- a label key of the same column (read as the label key's codes)
SELECT count(*) AS node FROM pg_temp.plan('SELECT CASE WHEN w > 5 THEN u ELSE ''x'' END, lower(u), count(*) FROM tmap GROUP BY 1, 2') p WHERE p LIKE '%GpuOpsAgg%';
-- a volatile function, two columns, a result that is not text
SELECT count(*) AS node FROM pg_temp.plan('SELECT u || random()::text, count(*) FROM tmap GROUP BY 1') p WHERE p LIKE '%GpuOpsAgg%';
SELECT count(*) AS node FROM pg_temp.plan('SELECT u || v, count(*) FROM tmap GROUP BY 1') p WHERE p LIKE '%GpuOpsAgg%';
SELECT count(*) AS node FROM pg_temp.plan('SELECT lower(u) > ''m'', count(*) FROM tmap GROUP BY 1') p WHERE p LIKE '%GpuOpsAgg%';

DROP TABLE tmap;
