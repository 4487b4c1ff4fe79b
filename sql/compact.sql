-- gpuops.compact: stable selection of the elements whose keep flag is true

SELECT gpuops.compact(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9],
                      ARRAY[true, false, false, true, false, true, false, false, false]);
SELECT gpuops.compact(ARRAY[10, 20, 30], ARRAY[true, true, true]);
-- nothing kept: an empty array
SELECT gpuops.compact(ARRAY[10, 20, 30], ARRAY[false, false, false]);
SELECT array_dims(gpuops.compact(ARRAY[10, 20, 30], ARRAY[false, false, false])) IS NULL AS empty;
-- a NULL keep flag drops the element
SELECT gpuops.compact(ARRAY[10, 20, 30], ARRAY[NULL, true, NULL]::bool[]);
SELECT gpuops.compact(ARRAY[10, 20, 30], ARRAY[NULL, NULL, NULL]::bool[]);
-- empty input, NULL arguments (STRICT)
SELECT gpuops.compact('{}'::int4[], '{}'::bool[]);
SELECT gpuops.compact(NULL::int4[], ARRAY[true]) IS NULL AS null_array;
SELECT gpuops.compact(ARRAY[1], NULL::bool[]) IS NULL AS null_keep;
-- NULL elements are data: kept or dropped like any other
SELECT gpuops.compact(ARRAY[NULL, 1, NULL, 2]::int4[], ARRAY[true, false, false, true]);

-- every element type
SELECT gpuops.compact(ARRAY[1, -32768, 32767]::int2[], ARRAY[false, true, true]);
SELECT gpuops.compact(ARRAY[9223372036854775807, 1, -9223372036854775808]::int8[],
                      ARRAY[true, false, true]);
SELECT gpuops.compact(ARRAY['NaN', '-0', 'Infinity', 1.5]::float4[], ARRAY[true, true, false, true]);
SELECT gpuops.compact(ARRAY['NaN', '-0', 'Infinity', 1.5]::float8[], ARRAY[true, true, false, true]);
SELECT gpuops.compact(ARRAY['2024-02-29', 'infinity', NULL]::date[], ARRAY[true, true, true]);
SELECT gpuops.compact(ARRAY['2024-02-29 01:02:03.000004', 'infinity']::timestamp[], ARRAY[true, false]);
SELECT gpuops.compact(ARRAY['2024-02-29 01:02:03.000004+00', '-infinity']::timestamptz[], ARRAY[true, true]);
SELECT gpuops.compact(ARRAY[true, false, NULL, true], ARRAY[false, true, true, true]);
SELECT gpuops.compact(ARRAY['a', NULL, 'ccc', repeat('z', 10)], ARRAY[true, true, false, true]);
SELECT gpuops.compact(ARRAY[1.0, 1.00, 'NaN']::numeric[], ARRAY[false, true, true]);
SELECT gpuops.compact(ARRAY['1 day', '2 hours']::interval[], ARRAY[false, true]);
SELECT gpuops.compact(ARRAY[ROW(1, 'x'), ROW(2, 'y')], ARRAY[false, true]);
SELECT pg_typeof(gpuops.compact(ARRAY[1, 2]::int2[], ARRAY[true, true]));

-- multi-dimensional input (storage order) and lower bounds: the result is
-- 1-D with lower bound 1; the mask may have another shape, same count
SELECT gpuops.compact(ARRAY[[1, 2], [3, 4]], ARRAY[true, false, false, true]);
SELECT gpuops.compact('[5:7]={a,b,c}'::text[], ARRAY[false, true, true]);
SELECT array_dims(gpuops.compact('[5:7]={a,b,c}'::text[], ARRAY[false, true, true]));
SELECT gpuops.compact(ARRAY[1, 2, 3, 4], '[0:1][0:1]={{t,f},{t,NULL}}'::bool[]);

-- a mask computed from the data
SELECT gpuops.compact(a, (SELECT array_agg(x % 3 = 0 ORDER BY o)
                            FROM unnest(a) WITH ORDINALITY u(x, o)))
  FROM (SELECT array_agg(i ORDER BY i) AS a FROM generate_series(1, 20) i) s;
