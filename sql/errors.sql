-- errors raised by gpuops functions, each with its SQLSTATE
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- int8 overflow: 22003, PostgreSQL's own message
SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, 1]::int8[]);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, 1]::int8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[-9223372036854775808, -1]::int8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1, NULL, 9223372036854775807]::int8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, 1, -1]::int8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[4611686018427387904, 4611686018427387904, -4611686018427387904]::int8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, 1, 0]::int8[], false)$$);
-- every prefix, the sum of the whole array included, must be in range, also
-- for an exclusive sum (which does not return the whole sum)
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, 1]::int8[], false)$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[-9223372036854775808, -1]::int8[], false)$$);
-- the same overflow in plain SQL
SELECT pg_temp.try($$SELECT 9223372036854775807::int8 + 1$$);
-- the overflow may happen late in a long array
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(array_agg(CASE WHEN i = 50000 THEN 9223372036854775000 ELSE 1 END)::int8[])
                     FROM generate_series(1, 100000) i$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(array_agg(CASE WHEN i = 50000 THEN 9223372036854675807 ELSE 1 END)::int8[])
                     FROM generate_series(1, 100000) i$$);

-- float8 overflow of finite values: 22003, as float8pl
SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308]::float8[]);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[-1e308, NULL, -1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308, 0]::float8[], false)$$);
SELECT pg_temp.try($$SELECT 1e308::float8 + 1e308::float8$$);
-- as for int8, the sum of the whole array counts for an exclusive sum too
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308]::float8[], false)$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308, NULL]::float8[], false)$$);
-- no error where an input is already infinite or NaN
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY['Infinity', 1e308, 1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY['NaN', 1e308, 1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 'NaN', 1e308]::float8[], false)$$);
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1e308, 1e308, '-Infinity']::float8[], false)$$);

-- compact: element counts differ: 22023 with both counts
SELECT gpuops.compact(ARRAY[1, 2, 3], ARRAY[true, false]);
SELECT pg_temp.try($$SELECT gpuops.compact(ARRAY[1, 2, 3], ARRAY[true, false])$$);
SELECT pg_temp.try($$SELECT gpuops.compact('{}'::int[], ARRAY[true])$$);
SELECT pg_temp.try($$SELECT gpuops.compact(ARRAY[[1, 2], [3, 4]], ARRAY[true, false, true])$$);

-- wrong argument types are rejected by the resolver
SELECT pg_temp.try($$SELECT gpuops.prefix_sum(ARRAY[1, 2]::int4[])$$);
SELECT pg_temp.try($$SELECT gpuops.compact(ARRAY[1, 2], ARRAY[1, 0])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle(1)$$);

-- nothing is left behind by an error: the next call works
SELECT gpuops.prefix_sum(ARRAY[1, 2]::int8[]);
