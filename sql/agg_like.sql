-- Custom Scan (GpuOpsAgg) with "column LIKE 'pattern'" and NOT LIKE: a text,
-- varchar or char(n) column against a constant pattern of literal
-- characters and '%' (escapes allowed) runs on the device, each value's
-- match read by the reader as an int4 column, in WHERE and FILTER clauses,
-- so the table is read in page batches.  Checked against PostgreSQL's own
-- answer: prefixes, suffixes, pieces in order, the empty pattern and '%'
-- alone, doubled '%', escaped '%', '_' and '\', ESCAPE clauses, NULLs,
-- empty strings, compressed and external (TOASTed) values, non-ASCII text,
-- the C and the default collation, char(n) (its stored value, trailing
-- spaces included), workers.  '_', ILIKE and a pattern that is not a
-- constant stay CPU clauses; a pattern that ends with an escape raises
-- PostgreSQL's own error.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/lines.psql

CREATE TABLE tk (id int4, g int4, u text, c text COLLATE "C", vc varchar(40),
				 bc char(6), ext text);
ALTER TABLE tk ALTER COLUMN ext SET STORAGE EXTERNAL;
INSERT INTO tk
SELECT i, i % 7,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 50 = 0 THEN ''
			ELSE 'http://ex.com/' || (i % 700) || '/p%_\' || repeat('ab', i % 5) END,
	   CASE WHEN i % 3 = 0 THEN 'news ' || (i % 7) WHEN i % 3 = 1 THEN 'a' || (i % 5) || 'news'
			ELSE 'B' || (i % 4) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'vc-' || (i % 13) END,
	   'b' || (i % 5),
	   CASE WHEN i % 3000 = 1 THEN 'e' || (i % 2) || repeat(md5(i::text), 100) ELSE 'short' || (i % 3) END
FROM generate_series(1, 30000) i;
-- compressed values kept in the row
UPDATE tk SET u = repeat('long news ' || (id % 2), 1000) WHERE id % 4999 = 3;
-- multibyte characters where the encoding has them
INSERT INTO tk
SELECT 100000 + i, i % 7, s, s, s, 'x', s
FROM generate_series(1, 30) i,
	 unnest(CASE WHEN pg_encoding_max_length(pg_char_to_encoding(getdatabaseencoding())) > 1
				 THEN ARRAY[chr(233) || 't' || chr(233), chr(8364) || 'news', chr(19996) || chr(20140), 'caf' || chr(233)]
				 ELSE ARRAY['x', 'ynews', 'w', 'cafe'] END) s;
VACUUM ANALYZE tk;

-- a device clause, read in page batches
SELECT * FROM pg_temp.plan('SELECT g, count(*) FROM tk WHERE u LIKE ''%news%'' GROUP BY g');
SELECT * FROM pg_temp.table_read('SELECT count(*) FROM tk WHERE u LIKE ''%news%''');
-- the only clauses: matched in a first pass, before the rows' other
-- strings are coded (late materialisation); beside an integer clause, after
SELECT * FROM pg_temp.lines('SELECT c, count(*) FROM tk WHERE u LIKE ''%news%'' GROUP BY c',
							ARRAY['Rows Filtered Before Decoding']);
SELECT * FROM pg_temp.lines('SELECT c, count(*) FROM tk WHERE u LIKE ''%news%'' AND g < 3 GROUP BY c',
							ARRAY['Rows Filtered Before Decoding']);

-- every shape of pattern
SELECT q, pg_temp.check(q) FROM (VALUES
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%news%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''http://ex.com/1%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%abab'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''http%/3%ab%b'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''http://ex.com/5/p\%\_\\'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%\%\_%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%p#%#_%'' ESCAPE ''#'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE '''' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''long%%news%1%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''abab%abab'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u NOT LIKE ''%news%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE NOT (u LIKE ''%1%'') GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%1%'' OR c LIKE ''news%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%1%'' AND u NOT LIKE ''%2%'' AND id > 100 GROUP BY g'),
  ('SELECT c, count(*) AS n FROM tk WHERE c LIKE ''%news'' GROUP BY c'),
  ('SELECT c, count(*) AS n FROM tk WHERE c COLLATE "default" LIKE ''a%'' GROUP BY c'),
  ('SELECT vc, count(*) AS n FROM tk WHERE vc LIKE ''vc-1%'' GROUP BY vc'),
  ('SELECT g, count(*) AS n, sum(length(ext)) AS l FROM tk WHERE ext LIKE ''e1%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE ext NOT LIKE ''short%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%' || chr(233) || '%'' OR u LIKE ''%' || chr(20140) || ''' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''caf' || chr(233) || ''' GROUP BY g'),
  ('SELECT count(*) AS n FROM tk WHERE u LIKE ''%news%'''),
  ('SELECT count(*) AS n FROM tk WHERE u LIKE ''no such%'''),
  ('SELECT g, count(*) AS n FROM tk WHERE bc LIKE ''b1%'' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE bc LIKE ''b1'' OR bc LIKE ''%3    '' GROUP BY g'),
  ('SELECT g, count(*) AS n FROM tk WHERE bc NOT LIKE ''b2%'' AND bc LIKE ''%  '' GROUP BY g')
) q(q);

-- FILTER, with the key and the match of one column side by side
SELECT pg_temp.check('SELECT g, count(*) FILTER (WHERE u LIKE ''%news%'') AS a, count(*) FILTER (WHERE u NOT LIKE ''%news%'') AS b, sum(id) FILTER (WHERE c LIKE ''B%'') AS s FROM tk GROUP BY g');
SELECT pg_temp.check('SELECT c, count(*) AS n, count(*) FILTER (WHERE c LIKE ''%s'') AS f FROM tk GROUP BY c');
SELECT pg_temp.check('SELECT c, min(u) AS lo, count(*) AS n FROM tk WHERE u LIKE ''%news%'' GROUP BY c');
-- small batches
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%1%'' AND c NOT LIKE ''a%'' GROUP BY g');
RESET gpuops.debug_chunk_size;

-- CPU clauses: '_', ILIKE, a pattern from a column (read through slots,
-- still checked)
SELECT * FROM pg_temp.plan('SELECT g, count(*) FROM tk WHERE u LIKE ''%new_%'' GROUP BY g');
SELECT * FROM pg_temp.table_read('SELECT count(*) FROM tk WHERE u ILIKE ''%NEWS%''');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%new_%'' GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n FROM tk WHERE u LIKE ''%'' || c || ''%'' GROUP BY g');
-- through slots, a device LIKE beside a CPU clause: matched by textlike
SELECT * FROM pg_temp.table_read('SELECT count(*) FROM tk WHERE u LIKE ''%news%'' AND c ILIKE ''%S%''');
SELECT pg_temp.check('SELECT g, count(*) AS n, count(*) FILTER (WHERE ext LIKE ''e%'') AS e FROM tk WHERE u NOT LIKE ''%1%'' AND c ILIKE ''%S%'' GROUP BY g');
-- a pattern that ends with an escape: PostgreSQL's error, either way
SELECT pg_temp.try('SELECT g, count(*) FROM tk WHERE u LIKE ''http\'' GROUP BY g');
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT g, count(*) FROM tk WHERE u LIKE ''http\'' GROUP BY g');
RESET gpuops.enabled;

-- worker processes, each matching its own rows' strings
\i :abs_srcdir/sql/include/workers_on.psql
SELECT * FROM pg_temp.lines('SELECT g, count(*) FROM tk WHERE u LIKE ''%news%'' GROUP BY g',
							ARRAY['Workers Launched', 'Table Read']);
SELECT pg_temp.check('SELECT g, count(*) AS n, count(*) FILTER (WHERE c LIKE ''news%'') AS f FROM tk WHERE u NOT LIKE ''%1%'' GROUP BY g');
\i :abs_srcdir/sql/include/workers_off.psql

DROP TABLE tk;
