-- Custom Scan (GpuOpsAgg) with length(), char_length(), character_length()
-- and octet_length() of text, varchar and char(n) columns: each is read as
-- an int4 column of its own (the reader counts the strings), in aggregate
-- arguments, grouping keys, FILTER and WHERE clauses.  Each query is
-- checked against PostgreSQL's own answer: NULLs, empty strings, trailing
-- spaces (char(n)'s length drops them, its octet_length keeps them),
-- compressed and external (TOASTed) values, non-ASCII text where the
-- encoding has it, page batches and slots, workers.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

CREATE TABLE tl (id int4, g int4, u text, vc varchar(40), ch char(8), x int4,
				 ext text);
ALTER TABLE tl ALTER COLUMN ext SET STORAGE EXTERNAL;
INSERT INTO tl
SELECT i, i % 7,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 50 = 0 THEN ''
			ELSE 'http://example.com/p/' || (i % 700) || repeat('x', i % 30) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'vc ' || (i % 13) || repeat(' ', i % 3) END,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE substr('ab cd   ', 1, i % 9) END,
	   i % 13,
	   CASE WHEN i % 5000 = 1 THEN repeat(md5(i::text), 100) ELSE 'e' || (i % 3) END
FROM generate_series(1, 60000) i;
-- compressed values kept in the row
UPDATE tl SET u = repeat('long ' || (id % 2), 2000) WHERE id % 4999 = 3;
-- multibyte characters where the encoding has them
INSERT INTO tl
SELECT 100000 + i, i % 7, s, s, s, i % 13, s
FROM generate_series(1, 30) i,
	 unnest(CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
				 THEN ARRAY[chr(233) || 't' || chr(233) || ' ', chr(8364), chr(19996) || chr(20140) || '  ']
				 ELSE ARRAY['x', 'y  ', 'w'] END) s;
VACUUM ANALYZE tl;

-- page batches, with the lengths counted by the reader
SELECT * FROM pg_temp.table_read('SELECT sum(length(u)) FROM tl');
SELECT pg_temp.plan('SELECT g, avg(length(u)) FROM tl WHERE octet_length(vc) > 4 GROUP BY g');

-- aggregate arguments: every function, every type
SELECT pg_temp.check('SELECT g, sum(length(u)) AS a, avg(char_length(u)) AS b, max(character_length(u)) AS c, min(octet_length(u)) AS d, count(*) AS n FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT g, sum(length(vc)) AS a, avg(octet_length(vc)) AS b, max(char_length(vc)) AS c FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT g, sum(length(ch)) AS a, sum(octet_length(ch)) AS b, max(char_length(ch)) AS c, min(character_length(ch)) AS d FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT sum(length(ext)) AS a, sum(octet_length(ext)) AS b, count(length(ext)) AS c FROM tl');
SELECT pg_temp.check('SELECT sum(length(u) + x) AS a, avg(octet_length(u) * 2 - length(vc)) AS b, sum(CASE WHEN length(ch) > 3 THEN 1 ELSE 0 END) AS c FROM tl');
-- the length and the string itself, side by side
SELECT pg_temp.check('SELECT u, length(u) AS l, count(*) AS n FROM tl GROUP BY u');
SELECT pg_temp.check('SELECT vc, sum(length(vc)) AS l, count(*) AS n FROM tl WHERE vc <> ''vc 3'' GROUP BY vc');
-- grouping keys
SELECT pg_temp.check('SELECT length(u) AS l, count(*) AS n, sum(x) AS s FROM tl GROUP BY 1');
SELECT pg_temp.check('SELECT octet_length(ch) AS o, length(ch) AS l, count(*) AS n FROM tl GROUP BY 1, 2');
SELECT pg_temp.check('SELECT length(u) / 10 AS b, g, count(*) AS n FROM tl GROUP BY 1, 2');
-- FILTER and WHERE (run on the device; the other clauses before the rows are decoded)
SELECT pg_temp.check('SELECT g, count(*) FILTER (WHERE length(u) > 30) AS a, sum(x) FILTER (WHERE octet_length(ch) = 8) AS b FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE length(u) BETWEEN 25 AND 40 GROUP BY g');
SELECT * FROM pg_temp.lines('SELECT g, count(*) FROM tl WHERE x < 3 AND length(vc) > 4 GROUP BY g',
							ARRAY['Device Filter', 'Table Read', 'Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);
SELECT pg_temp.check('SELECT g, count(*) AS n, sum(length(u)) AS s FROM tl WHERE x < 3 AND length(vc) > 4 GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE length(ch) IS NULL OR octet_length(u) = 0 GROUP BY g');

-- a comparison with the empty string is a test of the length: no dictionary
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE u <> '''' GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n, sum(length(u)) AS l FROM tl WHERE '''' = u OR vc = '''' GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE ch = '''' GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE ch <> ''   ''::char(3) GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) FILTER (WHERE vc <> '''') AS a, count(*) FILTER (WHERE ch = '''') AS b FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT u, count(*) AS n FROM tl WHERE u <> '''' AND x = 4 GROUP BY u');
-- (a string of spaces is no empty text)
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tl WHERE vc <> '' '' AND u COLLATE "C" <> '''' GROUP BY g');
SELECT * FROM pg_temp.lines('SELECT g, count(*) FROM tl WHERE x < 3 AND u <> '''' GROUP BY g',
							ARRAY['Rows In', 'Rows Filtered Before Decoding', 'Rows Passed']);

-- a star join: the fact table's lengths, the dimension's keys
CREATE TABLE tdim (k int PRIMARY KEY, cat char(4));
INSERT INTO tdim SELECT i, substr('ab  ', 1, i % 4) FROM generate_series(0, 5) i;
ANALYZE tdim;
SELECT pg_temp.check('SELECT d.cat, sum(length(t.u)) AS a, count(*) FILTER (WHERE t.vc <> '''') AS b, avg(octet_length(t.ch)) AS c FROM tl t JOIN tdim d ON t.g = d.k WHERE length(t.u) < 40 GROUP BY d.cat');
DROP TABLE tdim;

-- the slot path: a CPU clause sends the table through slots
SELECT * FROM pg_temp.table_read('SELECT sum(length(u)) FROM tl WHERE u LIKE ''%7x%'' OR id::text LIKE ''1%''');
SELECT pg_temp.check('SELECT g, sum(length(u)) AS a, sum(octet_length(ch)) AS b, sum(length(ch)) AS c, sum(length(ext)) AS d FROM tl WHERE u LIKE ''%7x%'' OR id::text LIKE ''1%'' GROUP BY g');

-- worker processes: each counts its own rows' strings
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT g, sum(length(u)) FROM tl GROUP BY g',
							ARRAY['Workers Launched', 'Table Read', 'Rows In']);
SELECT pg_temp.check('SELECT g, sum(length(u)) AS a, avg(octet_length(ch)) AS b, max(length(ext)) AS c FROM tl GROUP BY g');
SELECT pg_temp.check('SELECT length(vc) AS l, count(*) AS n FROM tl WHERE x > 2 GROUP BY 1');
\i :abs_srcdir/sql/include/workers_off.psql

-- what keeps the native plan: a length of another type, or of an expression
CREATE TABLE tb2 (b bytea, t text);
INSERT INTO tb2 SELECT 'ab'::bytea, 'x' || i FROM generate_series(1, 100) i;
ANALYZE tb2;
SELECT pg_temp.check('SELECT sum(length(b)) FROM tb2');
SELECT pg_temp.check('SELECT sum(length(t || ''y'')) FROM tb2');
DROP TABLE tb2;
DROP TABLE tl;
