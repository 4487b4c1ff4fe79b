-- Tables of the Citus test: t hash-distributed by key in @SHARDS@ shards,
-- t2 colocated with it, ref a reference table.  Every float value is a small
-- dyadic fraction or a special value, so no summation order changes a sum.
-- (Citus takes no NULL distribution key: the extreme key stands in.)
SET citus.shard_count = @SHARDS@;
CREATE TABLE t (key int8, g int4, k text, d date, v float8, v4 float4,
                i int4, s int2, b int8, flag bool);
CREATE TABLE t2 (key int8, w int4);
CREATE TABLE ref (g int4 PRIMARY KEY, name text);
SELECT create_distributed_table('t', 'key');
SELECT create_distributed_table('t2', 'key', colocate_with => 't');
SELECT create_reference_table('ref');
INSERT INTO t
SELECT CASE WHEN x % 997 = 0 THEN -9223372036854775808 ELSE x % 5000 END,
       CASE WHEN x % 53 = 0 THEN NULL ELSE x % 200 END,
       CASE WHEN x % 59 = 0 THEN NULL ELSE 'k' || (x % 300) END,
       CASE WHEN x % 61 = 0 THEN NULL WHEN x % 4999 = 0 THEN 'infinity'
            WHEN x % 4993 = 0 THEN '-infinity' ELSE date '2020-01-01' + x % 500 END,
       CASE WHEN x % 41 = 0 THEN NULL WHEN x % 5003 = 0 THEN 'NaN'
            WHEN x % 4987 = 0 THEN 'Infinity' WHEN x % 4973 = 0 THEN '-Infinity'
            WHEN x % 43 = 0 THEN '-0' ELSE (x % 2001 - 1000) / 8.0 END,
       CASE WHEN x % 37 = 0 THEN NULL WHEN x % 3001 = 0 THEN 'NaN'
            ELSE (x % 41 - 20) / 4.0 END,
       CASE WHEN x % 19 = 0 THEN NULL WHEN x % 23 = 0 THEN 2147483647
            WHEN x % 29 = 0 THEN -2147483648 ELSE x % 1000 - 500 END,
       CASE WHEN x % 31 = 0 THEN NULL WHEN x % 101 = 0 THEN 32767
            WHEN x % 103 = 0 THEN -32768 ELSE (x % 200 - 100)::int2 END,
       CASE WHEN x % 13 = 0 THEN NULL WHEN x % 7919 = 0 THEN 9223372036854775807
            WHEN x % 7907 = 0 THEN -9223372036854775808
            ELSE 4611686018427387904 + x::int8 * 1000000007 END,
       CASE x % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END
FROM generate_series(1, @ROWS@) x;
INSERT INTO t2 SELECT x, x % 17 FROM generate_series(0, 4999) x;
INSERT INTO ref SELECT x, 'group ' || (x % 10) FROM generate_series(0, 199) x;
ANALYZE t;
ANALYZE t2;
ANALYZE ref;
