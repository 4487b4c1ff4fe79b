-- Custom Scan (GpuOpsAgg) with min(x) and max(x) of a text or varchar
-- column: the node groups by the query's keys and x (as for count(DISTINCT
-- x)) and keeps each group's least and greatest x by the aggregate's
-- collation.  Checked against PostgreSQL's own answer: NULLs, empty
-- strings, compressed and external (TOASTed) values, non-ASCII text, the C
-- and the default collation, FILTER, HAVING, no GROUP BY, no rows, worker
-- processes and spilled groups; several columns at once, each one more
-- key, with count(DISTINCT) of one of them.  Aggregates the node can't fold
-- keep the native plan.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

CREATE TABLE tm (id int4, g int4, u text, c text COLLATE "C", vc varchar(40),
				 sv varchar(5), bc char(6), ext text, v float8);
ALTER TABLE tm ALTER COLUMN ext SET STORAGE EXTERNAL;
INSERT INTO tm
SELECT i, i % 37,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 50 = 0 THEN ''
			ELSE 'page/' || (i % 700) || repeat('x', i % 30) END,
	   CASE WHEN i % 3 = 0 THEN 'Zürich ' || (i % 7) WHEN i % 3 = 1 THEN 'a' || (i % 5)
			ELSE 'B' || (i % 4) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'vc-' || (i % 13) END,
	   CASE WHEN i % 9 = 0 THEN NULL ELSE 's' || (i % 17) END,
	   'b' || (i % 5),
	   CASE WHEN i % 3000 = 1 THEN 'e' || (i % 2) || repeat(md5(i::text), 100) ELSE 'short' || (i % 3) END,
	   i * 0.5
FROM generate_series(1, 30000) i;
-- compressed values kept in the row
UPDATE tm SET u = repeat('long ' || (id % 2), 2000) WHERE id % 4999 = 3;
-- multibyte characters where the encoding has them
INSERT INTO tm
SELECT 100000 + i, i % 37, s, s, s, 'x', 'y', s, i
FROM generate_series(1, 30) i,
	 unnest(CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
				 THEN ARRAY[chr(233) || 'té', chr(8364), chr(19996) || chr(20140), 'Ölkanne', 'apple']
				 ELSE ARRAY['x', 'y', 'w', 'Olkanne', 'apple'] END) s;
VACUUM ANALYZE tm;

SELECT * FROM pg_temp.plan('SELECT g, min(u), max(u) FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(u) AS hi, count(*) AS n FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(c) AS lo, max(c) AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(c COLLATE "default") AS lo, max(c COLLATE "default") AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u COLLATE "C") AS lo, max(u COLLATE "C") AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT c, min(vc) AS lo, max(vc) AS hi, sum(v) AS s FROM tm GROUP BY c');
SELECT pg_temp.check('SELECT g, min(sv) AS lo, max(sv) AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT c, min(ext) AS lo, max(ext) AS hi, count(ext) AS n FROM tm GROUP BY c');
SELECT pg_temp.check('SELECT min(u) AS lo, max(u) AS hi, count(*) AS n FROM tm');
SELECT pg_temp.check('SELECT min(u) AS lo, max(u) AS hi, count(*) AS n FROM tm WHERE g < 0');
SELECT pg_temp.check('SELECT g, min(u) AS lo FROM tm WHERE g < 0 GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u) FILTER (WHERE id % 2 = 0) AS lo, max(u) FILTER (WHERE v > 1e9) AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, max(u) AS hi FROM tm GROUP BY g HAVING max(u) > ''page/5''');
SELECT pg_temp.check('SELECT g, min(u) AS lo, count(DISTINCT u) AS d FROM tm WHERE id % 5 = 1 GROUP BY g');
SELECT pg_temp.check('SELECT c, min(u) AS lo, max(u) AS hi FROM tm WHERE u <> '''' GROUP BY c');
-- small batches
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(u) AS hi FROM tm GROUP BY g');
RESET gpuops.debug_chunk_size;

-- a star join: min and max of a dimension's text column, and of the fact's
-- grouped by a dimension's column
CREATE TABLE tmd (id int4 PRIMARY KEY, label text, grp int4);
INSERT INTO tmd SELECT i, 'lab ' || (i % 37) || repeat('z', i % 5), i % 7 FROM generate_series(1, 500) i;
CREATE TABLE tmf (k int4, did int4, t text);
INSERT INTO tmf SELECT i % 50, 1 + i % 500, 't' || (i % 91) FROM generate_series(1, 20000) i;
VACUUM ANALYZE tmd;
VACUUM ANALYZE tmf;
SELECT pg_temp.check('SELECT f.k, min(d.label) AS lo, max(d.label) AS hi, count(*) AS n FROM tmf f JOIN tmd d ON f.did = d.id GROUP BY f.k');
SELECT pg_temp.check('SELECT d.grp, min(f.t) AS lo, max(f.t) AS hi FROM tmf f JOIN tmd d ON f.did = d.id GROUP BY d.grp');
SELECT pg_temp.check('SELECT f.k, min(d.label) AS lo, max(f.t) AS hi, count(*) AS n FROM tmf f JOIN tmd d ON f.did = d.id GROUP BY f.k');
DROP TABLE tmf, tmd;

-- several columns: each one more key (count(DISTINCT x)'s first), the
-- engine's groups folded back into the query's
SELECT * FROM pg_temp.plan('SELECT g, min(u), max(c) FROM tm GROUP BY g');
SELECT * FROM pg_temp.plan('SELECT g, min(u), count(DISTINCT c) FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(c) AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u) AS a, max(u) AS b, min(c) AS c, max(vc) AS d, min(ext) AS e, count(*) AS n FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT g, min(u) AS lo, count(DISTINCT c) AS d, max(c) AS hi FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT c, count(DISTINCT vc) AS d, min(u) AS lo, max(ext) AS hi, sum(v) AS s FROM tm GROUP BY c');
SELECT pg_temp.check('SELECT g, count(DISTINCT sv) FILTER (WHERE id % 3 = 0) AS d, min(u) FILTER (WHERE id % 2 = 0) AS lo, max(vc) FILTER (WHERE v > 100) AS hi, count(sv) AS n FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT min(u) AS lo, max(c) AS hi, count(DISTINCT vc) AS d FROM tm');
SELECT pg_temp.check('SELECT min(u) AS lo, max(c) AS hi, count(DISTINCT vc) AS d FROM tm WHERE g < 0');
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(c) AS hi FROM tm GROUP BY g HAVING max(c) > ''a'' AND min(u) < ''page/3''');
SELECT pg_temp.check('SELECT g, min(u COLLATE "C") AS lo, max(c COLLATE "default") AS hi, min(vc) AS v FROM tm WHERE u <> '''' GROUP BY g');

-- the native plan: count(DISTINCT) of two columns, char(n) (its comparison
-- ignores trailing blanks), a grouping key's
SELECT * FROM pg_temp.plan('SELECT g, count(DISTINCT u), count(DISTINCT c) FROM tm GROUP BY g');
SELECT * FROM pg_temp.plan('SELECT c, min(c) FROM tm GROUP BY c');
SELECT * FROM pg_temp.plan('SELECT g, min(bc) FROM tm GROUP BY g');

-- worker processes, and groups past gpuops.max_group_memory
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT g, min(u), max(u) FROM tm GROUP BY g',
							ARRAY['Workers Planned', 'Workers Launched']);
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(u) AS hi, count(*) AS n FROM tm GROUP BY g');
SELECT pg_temp.check('SELECT c, min(vc) AS lo, max(vc) AS hi FROM tm WHERE g < 20 GROUP BY c');
SELECT pg_temp.check('SELECT g, min(u) AS lo, max(c) AS hi, count(DISTINCT vc) AS d, count(*) AS n FROM tm GROUP BY g');
-- (statistics taken with 10 distinct keys, then 40,000 rows of ~20,000)
CREATE TABLE tms (k int4, s text, s2 text) WITH (autovacuum_enabled = off);
INSERT INTO tms SELECT i % 10, 'k' || (i % 10), 'k' FROM generate_series(1, 1000) i;
ANALYZE tms;
INSERT INTO tms
SELECT (i * 31) % 20011, CASE WHEN i % 101 = 0 THEN NULL ELSE 'v ' || (i % 7) || repeat('.', i % 9) END,
	   'w' || (i % 13)
FROM generate_series(1, 40000) i;
SET gpuops.max_group_memory = 64;
SELECT * FROM pg_temp.lines('SELECT k, min(s), max(s) FROM tms GROUP BY k',
							ARRAY['Workers Launched']);
SELECT count(*) > 0 AS spilled
FROM pg_temp.lines('SELECT k, min(s), max(s) FROM tms GROUP BY k', ARRAY['Spilled Runs']);
SELECT pg_temp.check('SELECT k, min(s) AS lo, max(s) AS hi, count(*) AS n FROM tms GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT s2) AS d, min(s) AS lo, max(s2) AS hi FROM tms GROUP BY k');
RESET gpuops.max_group_memory;
DROP TABLE tms;
\i :abs_srcdir/sql/include/workers_off.psql

DROP TABLE tm;
