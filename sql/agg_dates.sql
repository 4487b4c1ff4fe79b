-- Custom Scan (GpuOpsAgg): a date column against timestamp constants (what
-- date '...' - interval '...' folds to) and a timestamp column against date
-- constants run on the device, compared exactly in the column's own type;
-- each checked against PostgreSQL's own answer, NULLs, infinities, dates
-- before the common era and past the timestamp range included.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

CREATE TABLE agg_dt (i int, d date, ts timestamp, v float8);
INSERT INTO agg_dt
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 89 = 0 THEN 'infinity'
            WHEN i % 83 = 0 THEN '-infinity'
            WHEN i % 79 = 0 THEN '5000000-01-01'
            WHEN i % 73 = 0 THEN '4713-11-24 BC'
            ELSE date '1998-06-01' + (i % 400) - 200 END,
       CASE WHEN i % 61 = 0 THEN NULL
            WHEN i % 59 = 0 THEN 'infinity'
            WHEN i % 53 = 0 THEN '-infinity'
            ELSE timestamp '1998-06-01' + (i % 4000 - 2000) * interval '3 hours 7 seconds' END,
       (i % 16) / 4.0
FROM generate_series(1, 20000) i;
ANALYZE agg_dt;

-- the folded constant runs on the device
SELECT pg_temp.plan('SELECT count(*) FROM agg_dt WHERE d <= date ''1998-12-01'' - interval ''90'' day');
SELECT pg_temp.plan('SELECT count(*) FROM agg_dt WHERE ts >= date ''1998-06-01''');

-- a date column against timestamp constants: every operator, a midnight
-- and a time of day, before the common era, the infinities; and NOT,
-- which keeps NULL rows out as PostgreSQL does
SELECT c, op, pg_temp.check(format('SELECT d, count(*) AS n, sum(v) AS s FROM agg_dt WHERE d %s %s GROUP BY d', op, c)) AS plain,
       pg_temp.check(format('SELECT count(*) AS n, sum(v) AS s FROM agg_dt WHERE NOT (d %s %s)', op, c)) AS negated
FROM (VALUES ('timestamp ''1998-06-01'''), ('timestamp ''1998-06-01 12:30'''),
             ('(date ''1998-12-01'' - interval ''90'' day)'),
             ('timestamp ''1998-05-31 23:59:59.999999'''),
             ('timestamp ''0010-03-01 06:00 BC'''), ('timestamp ''4713-11-24 00:00 BC'''),
             ('timestamp ''294276-12-31 23:59:59'''),
             ('timestamp ''infinity'''), ('timestamp ''-infinity''')) cs(c),
     (VALUES ('<'), ('<='), ('='), ('<>'), ('>='), ('>')) ops(op)
ORDER BY c COLLATE "C", op;
-- the constant on the left, BETWEEN, an IN list of timestamps
SELECT pg_temp.check('SELECT count(*) AS n FROM agg_dt WHERE timestamp ''1998-06-01 08:00'' < d');
SELECT pg_temp.check('SELECT d, count(*) AS n FROM agg_dt WHERE d BETWEEN timestamp ''1998-05-01 01:00'' AND timestamp ''1998-06-01'' GROUP BY d');
SELECT pg_temp.check('SELECT count(*) AS n FROM agg_dt WHERE d IN (timestamp ''1998-06-01'', timestamp ''1998-06-02 10:00'', ''infinity''::timestamp, NULL)');
SELECT pg_temp.check('SELECT count(*) AS n FROM agg_dt WHERE d NOT IN (timestamp ''1998-06-01'', timestamp ''1998-06-02 10:00'')');

-- a timestamp column against date constants
SELECT c, op, pg_temp.check(format('SELECT count(*) AS n, sum(v) AS s FROM agg_dt WHERE ts %s %s', op, c)) AS plain,
       pg_temp.check(format('SELECT count(*) AS n FROM agg_dt WHERE NOT (ts %s %s)', op, c)) AS negated
FROM (VALUES ('date ''1998-06-01'''), ('date ''1998-05-20'''), ('date ''infinity'''),
             ('date ''-infinity''')) cs(c),
     (VALUES ('<'), ('<='), ('='), ('<>'), ('>='), ('>')) ops(op)
ORDER BY c COLLATE "C", op;
-- a date past the timestamp range stays on the CPU, with the same answer
SELECT pg_temp.plan('SELECT count(*) FROM agg_dt WHERE ts < date ''5000000-01-01''');
SELECT pg_temp.check('SELECT count(*) AS n FROM agg_dt WHERE ts < date ''5000000-01-01''');
-- timestamptz against a date depends on the time zone: on the CPU
SELECT pg_temp.plan('SELECT count(*) FROM agg_dt WHERE d < timestamptz ''1998-06-01 00:00+00''');

DROP TABLE agg_dt;
