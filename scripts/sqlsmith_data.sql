-- scripts/sqlsmith.sh's database: gpuops-shaped tables of every key and
-- value type GpuOpsAgg takes, with NULLs, NaN, infinities, -0.0, the
-- integer extremes, infinite dates, empty and long text, all-NULL columns,
-- a partitioned table and tables after UPDATE and DELETE.
CREATE EXTENSION gpuops;
SELECT setseed(0.5);

-- every type, with the special values spread over the rows
CREATE TABLE t_all (
	id int PRIMARY KEY, k2 int2, k4 int4, k8 int8, f4 float4, f8 float8,
	d date, ts timestamp, tz timestamptz, b bool, t text, tc text COLLATE "C",
	v int4, w float8);
INSERT INTO t_all
SELECT i,
       (CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN -32768 WHEN 2 THEN 32767 ELSE i % 50 END)::int2,
       CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647
            ELSE i % 97 END,
       CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN -9223372036854775808
            WHEN 2 THEN 9223372036854775807 ELSE (i % 89)::int8 * 1000000007 END,
       (ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', NULL, '3.5', '1e30',
              '-1e-30', '7'])[1 + i % 10]::float4,
       CASE i % 17 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
            WHEN 3 THEN '-0' WHEN 4 THEN NULL WHEN 5 THEN 1e300 WHEN 6 THEN -1e300
            ELSE (i % 37) / 4.0 END,
       CASE i % 19 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
            ELSE date '2000-01-01' + (i % 400) END,
       CASE i % 23 WHEN 0 THEN 'infinity'::timestamp WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
            ELSE timestamp '2020-02-29 12:00' + (i % 300) * interval '1 hour' END,
       CASE i % 29 WHEN 0 THEN 'infinity'::timestamptz WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
            ELSE timestamptz '1999-12-31 23:00+00' + (i % 200) * interval '1 minute' END,
       CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
       CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN repeat('long', 500)
            WHEN 3 THEN 'Äpfel' WHEN 4 THEN 'apfel' ELSE 'k' || (i % 40) END,
       CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN repeat('z', 3000)
            WHEN 3 THEN 'B' WHEN 4 THEN 'a' ELSE 'c' || (i % 30) END,
       CASE WHEN i % 9 = 0 THEN NULL ELSE i % 1000 - 500 END,
       CASE WHEN i % 8 = 0 THEN NULL ELSE (i % 101) - 50.25 END
  FROM generate_series(1, 3000) i;

-- all-NULL columns, and an empty table
CREATE TABLE t_nulls (k int4, k8 int8, d date, t text, v int4, w float8, b bool);
INSERT INTO t_nulls SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM generate_series(1, 500);
INSERT INTO t_nulls (k) VALUES (1);
CREATE TABLE t_empty (k int4, v float8, t text, d date);

-- a partitioned table: range partitions, a default one, one partition empty
CREATE TABLE t_part (k int4, g int8, v float8, t text, d date) PARTITION BY RANGE (k);
CREATE TABLE t_part_lo PARTITION OF t_part FOR VALUES FROM (MINVALUE) TO (0);
CREATE TABLE t_part_mid PARTITION OF t_part FOR VALUES FROM (0) TO (100);
CREATE TABLE t_part_hi PARTITION OF t_part FOR VALUES FROM (100) TO (1000);
CREATE TABLE t_part_empty PARTITION OF t_part FOR VALUES FROM (1000) TO (2000);
CREATE TABLE t_part_def PARTITION OF t_part DEFAULT;
INSERT INTO t_part
SELECT CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 37) % 3000 - 500 END,
       i % 50, CASE WHEN i % 13 = 0 THEN 'NaN'::float8 ELSE i % 77 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE 'p' || (i % 25) END,
       date '2010-01-01' + i % 100
  FROM generate_series(1, 4000) i;

-- a table after UPDATE and DELETE (dead tuples, HOT chains), not vacuumed
CREATE TABLE t_upd (k int4, g text, v float8, n int8) WITH (fillfactor = 70);
INSERT INTO t_upd SELECT i % 100, 'g' || (i % 10), i, i FROM generate_series(1, 5000) i;
UPDATE t_upd SET v = v * 2, n = -n WHERE k % 3 = 0;
DELETE FROM t_upd WHERE k % 7 = 0;
UPDATE t_upd SET k = NULL WHERE k = 5;
INSERT INTO t_upd VALUES (NULL, NULL, 'Infinity', NULL), (1, '', '-0', 0);

-- a composite type and a domain, for the functions' generic paths
CREATE TYPE pair AS (a int4, b text);
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE TABLE t_misc (p pair, pi posint, arr int4[], n numeric, j jsonb);
INSERT INTO t_misc
SELECT CASE WHEN i % 4 = 0 THEN NULL ELSE ROW(i % 3, CASE WHEN i % 5 = 0 THEN NULL ELSE 'x' END)::pair END,
       CASE WHEN i % 6 = 0 THEN NULL ELSE 1 + i % 9 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ARRAY[i % 2, NULL, i % 3] END,
       (i % 11) / 3.0, jsonb_build_object('a', i % 4)
  FROM generate_series(1, 300) i;

ANALYZE;
