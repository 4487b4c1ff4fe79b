-- gpuops.prefix_sum: running sums of int8[] and float8[]

-- inclusive (the default) and exclusive
SELECT gpuops.prefix_sum(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]::int8[], true);
SELECT gpuops.prefix_sum(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]::int8[], false);
SELECT gpuops.prefix_sum(ARRAY[3, 2, 4]::int8[], inclusive => false);
SELECT gpuops.prefix_sum(ARRAY[1.5, -0.25, 4]::float8[]);
SELECT gpuops.prefix_sum(ARRAY[1.5, -0.25, 4]::float8[], false);

-- empty, NULL arguments (STRICT), single element
SELECT gpuops.prefix_sum('{}'::int8[]);
SELECT gpuops.prefix_sum('{}'::float8[], false);
SELECT gpuops.prefix_sum(NULL::int8[]) IS NULL AS null_array;
SELECT gpuops.prefix_sum(ARRAY[1]::int8[], NULL) IS NULL AS null_inclusive;
SELECT gpuops.prefix_sum(ARRAY[7]::int8[]), gpuops.prefix_sum(ARRAY[7]::int8[], false);

-- NULL elements stay NULL and add nothing
SELECT gpuops.prefix_sum(ARRAY[NULL, 1, NULL, 2, NULL]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[NULL, 1, NULL, 2, NULL]::int8[], false);
SELECT gpuops.prefix_sum(ARRAY[NULL, NULL]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[NULL, 0.5, NULL, 0.25]::float8[]);
SELECT gpuops.prefix_sum(ARRAY[NULL, 0.5, NULL, 0.25]::float8[], false);

-- int8 extremes that stay in range
SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, -1, 1]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[-9223372036854775807, -1]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[9223372036854775807, -9223372036854775808, 9223372036854775807]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[-9223372036854775808, 9223372036854775807, 1]::int8[], false);

-- float8: NaN and infinities propagate (as float8pl does); -0.0
SELECT gpuops.prefix_sum(ARRAY[1, 'NaN', 2]::float8[]);
SELECT gpuops.prefix_sum(ARRAY[1, 'Infinity', 2, '-Infinity', 3]::float8[]);
SELECT gpuops.prefix_sum(ARRAY['-Infinity', 1e308, 1e308]::float8[]);
SELECT gpuops.prefix_sum(ARRAY['Infinity', 'NaN']::float8[], false);
-- -0.0: the sum of -0.0 alone is -0.0, as sum() gives (an exclusive sum
-- starts at 0)
SELECT gpuops.prefix_sum(ARRAY['-0', '-0', 1, '-0']::float8[]);
SELECT array_agg(s ORDER BY o) AS window_sum
  FROM (SELECT o, sum(v) OVER (ORDER BY o) AS s
          FROM unnest(ARRAY['-0', '-0', 1, '-0']::float8[]) WITH ORDINALITY u(v, o)) w;
SELECT gpuops.prefix_sum(ARRAY['-0', '-0', 1]::float8[], false);
SELECT gpuops.prefix_sum(ARRAY[NULL, '-0']::float8[]);
SELECT gpuops.prefix_sum(ARRAY['0', '-0']::float8[]);
SELECT gpuops.prefix_sum(ARRAY[1e308, -1e308, 1e308]::float8[]);

-- the result keeps the input's dimensions and lower bounds
SELECT gpuops.prefix_sum('[0:2]={1,2,3}'::int8[]);
SELECT gpuops.prefix_sum('[2:3][-1:0]={{1,2},{3,NULL}}'::int8[]);
SELECT gpuops.prefix_sum('[2:3][-1:0]={{1,2},{3,NULL}}'::int8[], false);
SELECT gpuops.prefix_sum('[5:6]={0.5,NULL}'::float8[]);
SELECT array_dims(gpuops.prefix_sum(ARRAY[[[1, 2]], [[3, 4]]]::int8[]));

-- against sum() OVER on a small table of arrays
CREATE TEMP TABLE ps_t (id int, a int8[]);
INSERT INTO ps_t VALUES (1, '{5,-3,NULL,10}'), (2, '{}'), (3, '{NULL}'), (4, '{100}');
SELECT id, gpuops.prefix_sum(a) AS inclusive, gpuops.prefix_sum(a, false) AS exclusive
  FROM ps_t ORDER BY id;
SELECT id, array_agg(CASE WHEN v IS NOT NULL THEN s END ORDER BY o) AS window_sum
  FROM (SELECT id, v, o, sum(v) OVER (PARTITION BY id ORDER BY o) AS s
          FROM ps_t, unnest(a) WITH ORDINALITY AS u(v, o)) w
 GROUP BY id ORDER BY id;
