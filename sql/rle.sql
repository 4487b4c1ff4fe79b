-- gpuops.rle: run-length encoding of arrays of every element type
-- (the expected output is the same under gpuops.device = cpu and gpu)

-- the seed examples
SELECT * FROM gpuops.rle(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]);
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5, 2]);
-- run lengths give the offsets [0, 3, 5, 9]
SELECT array_agg(start_pos - 1 ORDER BY start_pos) || sum(run_length)::bigint AS offsets
  FROM gpuops.rle(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]);

-- called in the target list
SELECT gpuops.rle(ARRAY[2, 2, 5, 2]);
SELECT (gpuops.rle(ARRAY['x', 'x', 'y'])).*;

-- empty, NULL, single, all-NULL, NULL runs
SELECT * FROM gpuops.rle('{}'::int4[]);
SELECT * FROM gpuops.rle(NULL::int4[]);
SELECT * FROM gpuops.rle(ARRAY[42]);
SELECT * FROM gpuops.rle(ARRAY[NULL, NULL, NULL]::int4[]);
SELECT * FROM gpuops.rle(ARRAY[NULL, 1, 1, NULL, NULL, 1, NULL]::int4[]);

-- int2
SELECT * FROM gpuops.rle(ARRAY[1, 1, -32768, -32768, 32767, NULL, NULL, 1]::int2[]);
-- int4 extremes
SELECT * FROM gpuops.rle(ARRAY[2147483647, 2147483647, -2147483648, 0, 0]::int4[]);
-- int8 extremes (values that differ only in their high bits)
SELECT * FROM gpuops.rle(ARRAY[9223372036854775807, 9223372036854775807,
                               -9223372036854775808, 4294967296, 0, 0]::int8[]);
-- float4: NaN equals NaN, -0.0 equals 0.0, a run's value is its first element
SELECT * FROM gpuops.rle(ARRAY['NaN', 'NaN', '-0', '0', '-0', '1.5', 'Infinity',
                               'Infinity', '-Infinity', NULL, 'NaN']::float4[]);
SELECT * FROM gpuops.rle(ARRAY['0', '-0', '-NaN', 'NaN']::float4[]);
-- float8 likewise
SELECT * FROM gpuops.rle(ARRAY['NaN', 'NaN', '-0', '0', '-0', '1.5', 'Infinity',
                               'Infinity', '-Infinity', NULL, 'NaN']::float8[]);
SELECT * FROM gpuops.rle(ARRAY['0', '-0', '0.25', '0.25', '-0.25']::float8[]);
-- float8 values that differ in the last bit are different runs
SELECT value = 1 AS is_one, value - 1 = power(2::float8, -52) AS is_next, start_pos, run_length
  FROM gpuops.rle(ARRAY[1, 1 + power(2::float8, -52), 1 + power(2::float8, -52), 1]);
-- date, timestamp, timestamptz
SELECT * FROM gpuops.rle(ARRAY['2024-02-29', '2024-02-29', 'infinity', '-infinity',
                               '-infinity', NULL, '2000-01-01']::date[]);
SELECT * FROM gpuops.rle(ARRAY['2024-02-29 12:00', '2024-02-29 12:00',
                               '2024-02-29 12:00:00.000001', 'infinity']::timestamp[]);
SELECT * FROM gpuops.rle(ARRAY['2024-03-10 01:59:59-08', '2024-03-10 09:59:59+00',
                               '2024-03-10 03:00:00-07', NULL]::timestamptz[]);
-- bool
SELECT * FROM gpuops.rle(ARRAY[true, true, false, NULL, NULL, false, true]);

-- text: binary equality (bytes, not collation)
SELECT * FROM gpuops.rle(ARRAY['a', 'a', 'A', 'b', NULL, NULL, 'b', 'b', '', '']);
SELECT s, l, octet_length(v) FROM gpuops.rle(ARRAY['été', 'été', 'ete', repeat('x', 3000), repeat('x', 3000)]::text[]) AS r(v, s, l);
-- numeric: binary equality, so 1.0 and 1.00 are different runs; NaN equals NaN
SELECT * FROM gpuops.rle(ARRAY[1.0, 1.0, 1.00, 1.00, NULL, 'NaN', 'NaN', 2]::numeric[]);
-- uuid (fixed length, by reference)
SELECT * FROM gpuops.rle(ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
                               'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
                               'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12']::uuid[]);
-- a composite type
CREATE TYPE rle_pair AS (a int, b text);
SELECT * FROM gpuops.rle(ARRAY[ROW(1, 'x'), ROW(1, 'x'), ROW(1, 'y'), NULL]::rle_pair[]);
DROP TYPE rle_pair;
-- interval: binary equality ('1 day' and '24 hours' are equal for =, not here)
SELECT * FROM gpuops.rle(ARRAY['1 day', '1 day', '24 hours']::interval[]);

-- multi-dimensional arrays are flattened in storage order (as unnest does)
SELECT * FROM gpuops.rle(ARRAY[[1, 1], [1, 2], [2, 2]]);
-- positions are 1-based ordinals, whatever the lower bounds
SELECT * FROM gpuops.rle('[5:8]={7,7,8,8}'::int4[]);
SELECT * FROM gpuops.rle('[-2:-1][0:2]={{1,1,2},{2,2,NULL}}'::int8[]);
SELECT * FROM gpuops.rle('[0:3]={a,a,b,b}'::text[]);

-- the value column has the element type
SELECT pg_typeof(value), count(*) FROM gpuops.rle(ARRAY[1, 1, 2]::int2[]) GROUP BY 1;
SELECT pg_typeof(value), count(*) FROM gpuops.rle(ARRAY['2024-01-01']::date[]) GROUP BY 1;
SELECT pg_typeof(value), count(*) FROM gpuops.rle(ARRAY[1.5]::numeric[]) GROUP BY 1;

-- a column of arrays
CREATE TEMP TABLE rle_t (id int, a int4[]);
INSERT INTO rle_t VALUES (1, '{1,1,2}'), (2, '{}'), (3, NULL), (4, '{3,NULL,NULL}');
SELECT id, r.* FROM rle_t, gpuops.rle(a) r ORDER BY id, start_pos;
