-- every SQL function over element types that are not device types:
-- composites (and a domain over one), records, multi-dimensional arrays,
-- arrays of arrays, domains over int and over text, varlena with NULLs,
-- empty arrays, unknown literals, the pseudo-type anyarray; array and query
-- forms.  Each returns PostgreSQL's result or an error with its SQLSTATE.
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

CREATE TYPE ft_pair AS (a int, b text);
CREATE TYPE ft_one AS (t text);
CREATE DOMAIN ft_posint AS int CHECK (VALUE > 0);
CREATE DOMAIN ft_short AS text CHECK (length(VALUE) < 10);
CREATE DOMAIN ft_intarr AS int[];
CREATE DOMAIN ft_pairdom AS ft_pair;
-- a composite with a dropped column
CREATE TABLE ft_tab(a int, gone text, b text);
ALTER TABLE ft_tab DROP COLUMN gone;

-- the reproducer: unique over a composite array spreads each row over the
-- result's columns; a NULL row is a row of NULLs, as PostgreSQL expands a
-- NULL row that a function in FROM returns (unnest: the same rows)
SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a')::ft_pair, ROW(1,'a')::ft_pair,
                                  NULL, ROW(2,NULL)::ft_pair]);
SELECT * FROM unnest(ARRAY[ROW(1,'a')::ft_pair, NULL, ROW(2,NULL)::ft_pair]);
SELECT gpuops.unique(ARRAY[ROW(1,'a')::ft_pair, ROW(1,'a')::ft_pair,
                           NULL, ROW(2,NULL)::ft_pair]);
SELECT u.b FROM gpuops.unique(ARRAY[ROW(1,'x')::ft_pair, ROW(1,'y')::ft_pair]) u;
SELECT (gpuops.unique(ARRAY[ROW(1,'a')::ft_pair])).b;
SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a')::ft_pair]) WITH ORDINALITY;
SELECT * FROM gpuops.rle(ARRAY[ROW(1,'a')::ft_pair, ROW(1,'a')::ft_pair,
                               NULL, NULL, ROW(2,NULL)::ft_pair]);
SELECT * FROM gpuops.unique('{}'::ft_pair[]);
SELECT * FROM gpuops.rle('{}'::ft_pair[]);
SELECT * FROM gpuops.unique(NULL::ft_pair[]);
-- a one-column composite: a NULL row and a row of NULL are both ()
SELECT * FROM gpuops.unique(ARRAY[ROW('x')::ft_one, ROW('x')::ft_one, NULL,
                                  ROW(NULL)::ft_one]);
SELECT * FROM gpuops.rle(ARRAY[ROW('x')::ft_one, NULL, ROW(NULL)::ft_one]);
-- a domain over a composite
SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a')::ft_pairdom, NULL,
                                  ROW(1,'a')::ft_pairdom]);
SELECT * FROM gpuops.rle(ARRAY[ROW(1,'a')::ft_pairdom, ROW(1,'a')::ft_pairdom]);
-- a table's row type with a dropped column
INSERT INTO ft_tab VALUES (1, 'p'), (1, 'p'), (2, NULL);
SELECT * FROM gpuops.unique((SELECT array_agg(t ORDER BY a) FROM ft_tab t));
SELECT * FROM gpuops.unique('SELECT t FROM ft_tab t ORDER BY a', NULL::ft_tab);
-- a long (toasted) text inside a composite
SELECT a, length(b) FROM gpuops.unique(ARRAY[ROW(1, repeat('z', 100000))::ft_pair,
                                             ROW(1, repeat('z', 100000))::ft_pair]);

-- records: a column definition list gives the row's shape; a wrong one is
-- 42804, as for unnest
SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a'::text), ROW(1,'a'::text), NULL])
  AS t(a int, b text);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a'::text)]) AS t(a int, b int)$$);
SELECT pg_temp.try($$SELECT * FROM unnest(ARRAY[ROW(1,'a'::text)]) AS t(a int, b int)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a'::text)]) AS t(a int)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a'::text)]) AS t(a int, b text, c int)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique(ARRAY[ROW(1,'a')])$$);
SELECT pg_temp.try($$SELECT gpuops.unique(ARRAY[ROW(1,'a')])$$);
SELECT * FROM gpuops.rle(ARRAY[ROW(1,'a'), ROW(1,'a'), NULL]);
SELECT gpuops.compact(ARRAY[ROW(1,'a'), NULL, ROW(2,'b')], ARRAY[true, true, false]);

-- composites and records in the other functions
SELECT gpuops.compact(ARRAY[ROW(1,'a')::ft_pair, NULL, ROW(2,NULL)::ft_pair],
                      ARRAY[false, true, true]);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY[ROW(1,'a')::ft_pair], ARRAY[ROW(1,'a')::ft_pair])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[ROW(1,'a')::ft_pair], ARRAY[1]::float8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[ROW(1,'a')::ft_pair], ARRAY[1]::int8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[ROW(1,'a')::ft_pair], 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY[ROW(1,'a')], ARRAY[ROW(1,'a')])$$);

-- the query forms over composites and records
SELECT * FROM gpuops.unique($q$SELECT ROW(1,'a')::ft_pair FROM generate_series(1, 3)
                               UNION ALL SELECT NULL UNION ALL SELECT ROW(2,NULL)::ft_pair$q$,
                            NULL::ft_pair);
SELECT gpuops.unique($q$SELECT ROW(1,'a')::ft_pair UNION ALL SELECT NULL$q$, NULL::ft_pair);
SELECT * FROM gpuops.rle($q$SELECT ROW(1,'a')::ft_pair FROM generate_series(1, 3)
                            UNION ALL SELECT NULL UNION ALL SELECT ROW(2,NULL)::ft_pair$q$,
                         NULL::ft_pair);
SELECT * FROM gpuops.unique('SELECT ROW(1,''a'')::ft_pairdom', NULL::ft_pairdom);
SELECT * FROM gpuops.unique('SELECT ROW(1,''a'')::ft_pair WHERE false', NULL::ft_pair);
SELECT * FROM gpuops.unique($q$SELECT ROW(1,'a'::text) UNION ALL SELECT ROW(1,'a'::text)$q$,
                            NULL::record) AS t(a int, b text);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT ROW(1,''a''::text)', NULL::record) AS t(a int, b int)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT ROW(1,''a'')::ft_pair', NULL::record) AS t(a int, b text)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT ROW(1,''a'')::ft_pair', NULL::ft_pairdom)$$);
SELECT * FROM gpuops.rle('SELECT ROW(1,''a'') UNION ALL SELECT ROW(1,''a'')', NULL::record);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT ROW(1,''a'')::ft_pair, 1::float8', NULL::ft_pair)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT ROW(1,''a'')::ft_pair', 3)$$);
-- runs of composites across chunk seams (1 MB chunks: 131072 rows)
SET gpuops.chunk_size = '1MB';
SELECT * FROM gpuops.rle($q$SELECT ROW(i / 50000, 'x')::ft_pair FROM generate_series(0, 299999) i$q$,
                         NULL::ft_pair);
RESET gpuops.chunk_size;

-- multi-dimensional arrays and lower bounds: storage order, every function
SELECT * FROM gpuops.unique(ARRAY[[1,1],[NULL,2]]);
SELECT * FROM gpuops.rle('[0:1][1:1][1:2]={{{1,2}},{{2,2}}}'::int[]);
SELECT * FROM gpuops.rle(ARRAY[[ROW(1,'a')::ft_pair], [ROW(1,'a')::ft_pair]]);
SELECT * FROM gpuops.unique(ARRAY[['a','a'],[NULL,'b']]);
SELECT gpuops.compact('{{1,2},{3,4}}'::int[], '{{t,f},{NULL,t}}');
SELECT gpuops.compact(ARRAY[['a','b'],['c',NULL]], ARRAY[false, true, true, true]);
SELECT * FROM gpuops.histogram('{{1,2},{3,NULL}}'::int[], 2);
SELECT * FROM gpuops.hash_join('{{1,2},{2,NULL}}'::int[], '[5:5]={2}'::int[]);
SELECT * FROM gpuops.group_agg(ARRAY[[1,2],[1,NULL]], ARRAY[[1::float8, 2],[3,4]]);
SELECT gpuops.prefix_sum('{{1,2},{3,NULL}}'::int8[]);
SELECT gpuops.prefix_sum('[0:1]={1,2}'::float8[], false);

-- arrays of arrays: a query's column of arrays (rle and unique compare
-- whole arrays, by their bytes); the ARRAY constructor of domain arrays is
-- PostgreSQL's own error
SELECT * FROM gpuops.unique($q$SELECT ARRAY[[1,2],[3,4]] UNION ALL SELECT ARRAY[[1,2],[3,4]]
                               UNION ALL SELECT NULL UNION ALL SELECT '{}'$q$, NULL::int[]);
SELECT * FROM gpuops.rle($q$VALUES (ARRAY['a',NULL]), (ARRAY['a',NULL]), ('{b}')$q$, NULL::text[]);
SELECT pg_temp.try($$SELECT gpuops.unique(ARRAY[ARRAY[1,2]::ft_intarr, NULL])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT ARRAY[1], 1::float8', NULL::int[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT ARRAY[1]', 3)$$);

-- domains over int and over text: ARRAY[] over a NULL and domain values is
-- of the base type; an array of the domain itself (ft_posint[]) goes through
-- rle, unique and compact (any type), and the functions that compute on
-- keys refuse it with 0A000
SELECT * FROM gpuops.unique(ARRAY[1::ft_posint, 1::ft_posint, NULL, 2::ft_posint]);
SELECT * FROM gpuops.rle('{1,1,NULL,2}'::ft_posint[]);
SELECT pg_typeof(gpuops.compact('{1,1,NULL}'::ft_posint[], '{t,f,t}')),
       gpuops.compact('{1,1,NULL}'::ft_posint[], '{t,f,t}');
SELECT * FROM gpuops.unique('{a,a,NULL,b}'::ft_short[]);
SELECT * FROM gpuops.rle(ARRAY['a'::ft_short, 'a', NULL, 'b']);
SELECT * FROM gpuops.hash_join(ARRAY['a'::ft_short, NULL, 'b'], ARRAY['b'::text, NULL, 'a']);
SELECT * FROM gpuops.group_agg(ARRAY[1::ft_posint, NULL, 1::ft_posint], ARRAY[1::int8, 2, 3]);
SELECT * FROM gpuops.histogram(ARRAY[1::ft_posint, 3::ft_posint, NULL], 2);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1::ft_posint, 3::ft_posint], 2)$$);
SELECT * FROM gpuops.unique('{1,1,NULL,2}'::ft_intarr);
SELECT * FROM gpuops.histogram('{1,1,NULL,2}'::ft_intarr, 2);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('{1,1}'::ft_posint[], '{1,2}'::float8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join('{1}'::ft_posint[], '{1}'::ft_posint[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join('{a}'::ft_short[], '{a}'::ft_short[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('{1}'::ft_posint[], 2)$$);
SELECT * FROM gpuops.unique('SELECT x::ft_posint FROM (VALUES (1), (1), (NULL), (2)) v(x)',
                            NULL::ft_posint);
SELECT * FROM gpuops.rle('SELECT x::ft_short FROM (VALUES (''a''), (''a''), (NULL)) v(x)', NULL::ft_short);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT 1', NULL::ft_posint)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT 1::ft_posint', NULL::int)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1::ft_posint, 1::float8', NULL::ft_posint)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1::ft_posint', 2)$$);

-- varlena with NULLs: empty, long (toasted) and NULL elements
SELECT value IS NULL AS is_null, length(value), start_pos, run_length
  FROM gpuops.rle(ARRAY['', '', NULL, NULL, repeat('x', 100000),
                        repeat('x', 100000), repeat('x', 99999), NULL, '']);
SELECT length(v) FROM gpuops.unique(ARRAY[NULL, NULL, repeat('y', 5000)]) v;
SELECT cardinality(gpuops.compact(ARRAY['', NULL, repeat('x', 100000)], ARRAY[true, true, true]));
SELECT * FROM gpuops.hash_join(ARRAY['', NULL, repeat('x', 3000)],
                               ARRAY[repeat('x', 3000), '', NULL]);
SELECT * FROM gpuops.rle(ARRAY['{"a": 1}'::jsonb, '{"a":1}', NULL, NULL]);
SELECT * FROM gpuops.unique(ARRAY[1.0, 1.00, NULL, NULL, 2]::numeric[]);
SELECT * FROM gpuops.unique(ARRAY['1 day'::interval, '1 day', NULL]);
SELECT * FROM gpuops.unique(ARRAY['a'::char(3), 'a  ', NULL]);
SELECT * FROM gpuops.unique(ARRAY['a'::name, 'a', NULL]);
SELECT * FROM gpuops.unique(ARRAY['[1,2)'::int4range, '[1,2)', NULL]);
SELECT * FROM gpuops.unique(ARRAY[point(1,2), point(1,2)]);
SELECT * FROM gpuops.unique(ARRAY['a'::"char", 'a', NULL]);
SELECT * FROM gpuops.unique(ARRAY[1::money, 1::money, NULL]);

-- empty arrays of every kind
SELECT * FROM gpuops.unique('{}'::text[]);
SELECT * FROM gpuops.rle('{}'::numeric[]);
SELECT gpuops.compact('{}'::ft_pair[], '{}');
SELECT * FROM gpuops.hash_join('{}'::text[], '{a}'::text[]);
SELECT * FROM gpuops.group_agg('{}'::int[], '{}'::float8[]);
SELECT * FROM gpuops.group_agg('{}'::date[], '{}'::int8[]);
SELECT * FROM gpuops.histogram('{}'::float8[], 2);
SELECT gpuops.prefix_sum('{}'::int8[]), gpuops.prefix_sum('{}'::float8[], false);

-- unknown literals and untyped NULLs: PostgreSQL's resolution errors
SELECT pg_temp.try($$SELECT gpuops.unique('{1,2}')$$);
SELECT pg_temp.try($$SELECT gpuops.rle(NULL)$$);
SELECT pg_temp.try($$SELECT gpuops.compact(NULL, NULL)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(NULL, NULL)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT 1', NULL)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1, 1.0::float8', NULL)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('{1,2}', 2)$$);
SELECT * FROM gpuops.histogram(NULL, 2);
-- an unknown literal in the query is text
SELECT * FROM gpuops.unique('SELECT ''a'' UNION ALL SELECT ''a''', NULL::text);
SELECT * FROM gpuops.unique('SELECT NULL', NULL::text);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT NULL', NULL::int)$$);

-- the pseudo-type anyarray (pg_stats): the array's own element type
CREATE TABLE ft_stats AS SELECT g % 4 AS i, (g % 3)::text AS t FROM generate_series(1, 1000) g;
ANALYZE ft_stats;
SELECT gpuops.compact(most_common_vals, array_fill(true, ARRAY[cardinality(most_common_vals)]))::text
  FROM pg_stats WHERE tablename = 'ft_stats' AND attname = 't';
SELECT sum(count) FROM pg_stats, gpuops.histogram(most_common_vals, 2)
 WHERE tablename = 'ft_stats' AND attname = 'i';
SELECT pg_temp.try($$SELECT gpuops.unique(most_common_vals) FROM pg_stats$$);
SELECT pg_temp.try($$SELECT * FROM pg_stats, gpuops.hash_join(most_common_vals, most_common_vals)$$);
SELECT pg_temp.try($$SELECT gpuops.unique('SELECT most_common_vals FROM pg_stats', most_common_vals) FROM pg_stats$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle('SELECT most_common_vals FROM pg_stats', (SELECT most_common_vals FROM pg_stats LIMIT 1))$$);

-- the server is still up, and this session too
SELECT 1 AS alive;
