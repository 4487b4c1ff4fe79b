-- gpuops.unique: adjacent-unique values in first-occurrence order, with the
-- same equality as gpuops.rle

-- the seed examples: adjacent, not global, uniqueness
SELECT * FROM gpuops.unique(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]);
SELECT * FROM gpuops.unique(ARRAY[2, 2, 5, 2]);
SELECT * FROM gpuops.unique(ARRAY[2, 2, 5, 2]) WITH ORDINALITY AS u(v, n);
-- in the target list
SELECT gpuops.unique(ARRAY[2, 2, 5, 2]);
SELECT gpuops.unique(ARRAY['b', 'b', 'a']) AS v;

-- empty, NULL, all-NULL, NULL runs
SELECT * FROM gpuops.unique('{}'::int4[]);
SELECT * FROM gpuops.unique(NULL::text[]);
SELECT * FROM gpuops.unique(ARRAY[NULL, NULL]::int8[]);
SELECT * FROM gpuops.unique(ARRAY[NULL, 1, 1, NULL, NULL, 1, NULL]::int4[]) WITH ORDINALITY;

-- each element type
SELECT * FROM gpuops.unique(ARRAY[1, 1, -32768, NULL, NULL, 32767]::int2[]);
SELECT * FROM gpuops.unique(ARRAY[-2147483648, -2147483648, 2147483647]::int4[]);
SELECT * FROM gpuops.unique(ARRAY[-9223372036854775808, 9223372036854775807,
                                  9223372036854775807]::int8[]);
SELECT * FROM gpuops.unique(ARRAY['NaN', '-NaN', '-0', '0', 'Infinity', NULL,
                                  '-Infinity', '-Infinity']::float4[]);
SELECT * FROM gpuops.unique(ARRAY['NaN', '-NaN', '-0', '0', 'Infinity', NULL,
                                  '-Infinity', '-Infinity']::float8[]);
SELECT * FROM gpuops.unique(ARRAY['0', '-0']::float8[]);
SELECT * FROM gpuops.unique(ARRAY['2024-01-01', '2024-01-01', NULL, '2024-01-02']::date[]);
SELECT * FROM gpuops.unique(ARRAY['2024-01-01 00:00', '2024-01-01 00:00:00.000001',
                                  '2024-01-01 00:00:00.000001']::timestamp[]);
SELECT * FROM gpuops.unique(ARRAY['2024-01-01 00:00+00', '2023-12-31 16:00-08',
                                  '-infinity']::timestamptz[]);
SELECT * FROM gpuops.unique(ARRAY[false, false, true, true, NULL, false]);
SELECT * FROM gpuops.unique(ARRAY['a', 'a', 'A', NULL, NULL, 'a']);
SELECT * FROM gpuops.unique(ARRAY[1.0, 1.00, 1.00, 1.0, 'NaN', 'NaN']::numeric[]);

-- multi-dimensional arrays and lower bounds
SELECT * FROM gpuops.unique('[3:4][7:8]={{1,1},{1,2}}'::int4[]);

-- unique is the value column of rle, for every element type
SELECT count(*) AS mismatches FROM (
  (SELECT v, n FROM gpuops.unique(ARRAY[1.0, 1.00, NULL, NULL, 2]::numeric[])
                    WITH ORDINALITY AS u(v, n)
   EXCEPT ALL
   SELECT value, row_number() OVER (ORDER BY start_pos)
     FROM gpuops.rle(ARRAY[1.0, 1.00, NULL, NULL, 2]::numeric[]))
  UNION ALL
  (SELECT value, row_number() OVER (ORDER BY start_pos)
     FROM gpuops.rle(ARRAY[1.0, 1.00, NULL, NULL, 2]::numeric[])
   EXCEPT ALL
   SELECT v, n FROM gpuops.unique(ARRAY[1.0, 1.00, NULL, NULL, 2]::numeric[])
                    WITH ORDINALITY AS u(v, n))) d;
SELECT count(*) AS mismatches FROM (
  (SELECT v, n FROM gpuops.unique(ARRAY['NaN', 'NaN', '-0', '0', NULL, 1]::float8[])
                    WITH ORDINALITY AS u(v, n)
   EXCEPT ALL
   SELECT value, row_number() OVER (ORDER BY start_pos)
     FROM gpuops.rle(ARRAY['NaN', 'NaN', '-0', '0', NULL, 1]::float8[]))
  UNION ALL
  (SELECT value, row_number() OVER (ORDER BY start_pos)
     FROM gpuops.rle(ARRAY['NaN', 'NaN', '-0', '0', NULL, 1]::float8[])
   EXCEPT ALL
   SELECT v, n FROM gpuops.unique(ARRAY['NaN', 'NaN', '-0', '0', NULL, 1]::float8[])
                    WITH ORDINALITY AS u(v, n))) d;
