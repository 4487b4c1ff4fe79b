-- Custom Scan (GpuOpsAgg) reading columns behind runs of other attributes:
-- the decoder walks a tuple without NULLs in steps, each run of unneeded
-- fixed-width attributes in one (its span known for each start offset
-- modulo 8), and tuples with NULLs or fewer attributes attribute by
-- attribute.  Columns of every alignment (1, 2, 4, 8 bytes), fixed-width
-- ones of odd lengths, short and long (4-byte header, compressed,
-- external) varlena values shift the offsets; each query is checked
-- against PostgreSQL's own answer.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

CREATE TABLE tw2 (id int4, b1 bool, s1 int2, ch "char", t1 text, i1 int4,
				  n1 name, s2 int2, i8a int8, u1 uuid, f4 float4, iv interval,
				  b2 bool, t2 text, s3 int2, d1 date, m1 macaddr, k1 int4,
				  ts timestamp, c1 "char", f8 float8, vc varchar(20), s4 int2,
				  p1 point, i2 int4, t3 text, s5 int2, b3 bool, e int8);
ALTER TABLE tw2 ALTER COLUMN t1 SET STORAGE EXTERNAL;
INSERT INTO tw2
SELECT i, i % 2 = 0, (i % 300)::int2, chr(65 + i % 26)::"char",
	   CASE WHEN i % 1000 = 3 THEN repeat(md5(i::text), 80) ELSE 'w' || repeat('y', i % 9) END,
	   i * 7, ('n' || i % 5)::name, (i % 7)::int2, i::int8 * 1000003,
	   md5(i::text)::uuid, (i % 1000) / 8.0, make_interval(days => i % 30),
	   i % 3 = 0,
	   CASE WHEN i % 500 = 1 THEN repeat('long value ', 300)
			WHEN i % 17 = 0 THEN repeat('z', 100 + i % 60)
			ELSE repeat('v', i % 13) END,
	   (i % 11)::int2, date '2020-01-01' + i % 400,
	   ('08:00:2b:01:02:' || lpad(to_hex(i % 256), 2, '0'))::macaddr,
	   i % 97, timestamp '2021-03-04 05:06:07' + make_interval(secs => i),
	   chr(97 + i % 5)::"char", i * 0.25, 'vc' || i % 23, (i % 5)::int2,
	   point(i, -i), i % 1009,
	   CASE WHEN i % 41 = 0 THEN '' WHEN i % 3 = 0 THEN 'Straße ' || i % 6 ELSE 'k' || i % 9 END,
	   (i % 6)::int2, i % 4 = 1, i::int8 * 3 - 100000
FROM generate_series(1, 30000) i;
-- a tenth of the rows have a NULL among the walked attributes
UPDATE tw2 SET iv = NULL WHERE id % 10 = 0;
UPDATE tw2 SET t2 = NULL WHERE id % 23 = 0;
VACUUM ANALYZE tw2;

-- keys and values after runs that start at every offset modulo 8
SELECT pg_temp.table_read('SELECT k1, sum(f8) AS s, sum(i2) AS t FROM tw2 GROUP BY k1');
SELECT pg_temp.check('SELECT k1, sum(f8) AS s, sum(i2) AS t, count(*) AS n FROM tw2 GROUP BY k1');
SELECT pg_temp.check('SELECT s5, sum(e) AS s, min(s4) AS lo, max(s3) AS hi FROM tw2 GROUP BY s5');
SELECT pg_temp.check('SELECT d1, max(ts) AS t, sum(s2) AS s FROM tw2 WHERE s3 < 4 GROUP BY d1');
SELECT pg_temp.check('SELECT t3, count(*) AS n, sum(e) AS s, bool_or(b3) AS b FROM tw2 GROUP BY t3');
SELECT pg_temp.check('SELECT t3, vc, count(*) AS n FROM tw2 WHERE e % 7 = -1 GROUP BY t3, vc');
SELECT pg_temp.check('SELECT t1, count(*) AS n, sum(f4) AS f FROM tw2 WHERE i2 < 50 GROUP BY t1');
SELECT pg_temp.check('SELECT b1, b2, count(*) AS n, sum(i8a) AS s, sum(i1) AS t FROM tw2 GROUP BY b1, b2');
SELECT pg_temp.check('SELECT count(*) AS n, sum(s1) AS a, sum(e) AS b, min(f8) AS c, max(d1) AS d FROM tw2 WHERE k1 = 5');
SELECT pg_temp.check('SELECT t2, count(*) AS n FROM tw2 WHERE s5 = 2 GROUP BY t2');

-- rows written before a column was added lack it: its default, or NULL
ALTER TABLE tw2 ADD COLUMN late int4 DEFAULT 5;
ALTER TABLE tw2 ADD COLUMN later int8;
INSERT INTO tw2 (id, k1, e, s5, late, later, t3)
SELECT i, i % 97, i, (i % 6)::int2, i % 3, i, 'k' || i % 4
FROM generate_series(30001, 31000) i;
VACUUM ANALYZE tw2;
SELECT pg_temp.check('SELECT k1, sum(late) AS s, count(later) AS n, sum(e) AS t FROM tw2 GROUP BY k1');
SELECT pg_temp.check('SELECT t3, sum(late) AS s, sum(later) AS l, count(*) AS n FROM tw2 WHERE s5 < 5 GROUP BY t3');

DROP TABLE tw2;
