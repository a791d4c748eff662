-- nines_levels: the levels of nines per run and tag of a dataset written by `nines export
-- --parquet`, exactly as `nines stats` computes them (a Spark SQL temporary view). `nines
-- export --parquet DIR --sql SQLDIR` writes this file with the dataset's path in its FROM
-- clauses. Run the file with spark.sql(...), then: SELECT * FROM nines_levels
-- It reads the hours table (each tag's buckets summed per hour; whole runs are sums of
-- hours) and the layouts table (each bucket index's value range).
CREATE OR REPLACE TEMPORARY VIEW nines_levels AS
  WITH src AS (
    SELECT h.run_id AS grp, h.tag, h.scope, h.measure, h.layout, h.bucket_index, h.count
    FROM parquet.`DATASET/hours` h
  ),
  -- every tag, and `all`: the unscoped directions (no scope, no measure) merged
  tagged AS (
    SELECT grp, tag, layout, bucket_index, count FROM src
    UNION ALL
    SELECT grp, 'all', layout, bucket_index, count FROM src WHERE scope IS NULL AND measure IS NULL
  ),
  -- histograms merge exactly by adding the counts of equal buckets
  merged AS (
    SELECT grp, tag, layout, bucket_index, sum(count) AS n FROM tagged GROUP BY grp, tag, layout, bucket_index
  ),
  -- each bucket's value range (every run's layouts file lists the indexes it uses)
  edges AS (
    SELECT DISTINCT layout, bucket_index, lower_ns, upper_ns FROM parquet.`DATASET/layouts`
  ),
  running AS (
    SELECT grp, tag, upper_ns,
           sum(n) OVER (PARTITION BY grp, tag ORDER BY lower_ns) AS cum,
           sum(n) OVER (PARTITION BY grp, tag) AS total
    FROM merged JOIN edges USING (layout, bucket_index)
  ),
  -- the levels nines stats prints, as 1 - 1/den
  levels AS (
    SELECT * FROM (VALUES ('p50', 2), ('p90', 10), ('p99', 100), ('p99.9', 1000), ('p99.99', 10000),
      ('p99.999', 100000), ('p99.9999', 1000000), ('p99.99999', 10000000), ('p99.999999', 100000000),
      ('p99.9999999', 1000000000)) AS t(label, den)
  ),
  -- rank ceil(q*N) = N - floor(N/den) for q = 1 - 1/den, in integers; the I/Os beyond it
  ranked AS (
    SELECT t.grp, t.tag, t.total, t.max_ns, l.label, l.den, t.total div l.den AS beyond, t.total - t.total div l.den AS rnk
    FROM (SELECT grp, tag, max(total) AS total, max(upper_ns) AS max_ns FROM running GROUP BY grp, tag) t CROSS JOIN levels l
  )
  -- the value: the upper edge of the bucket where the running count reaches the rank; none
  -- when no I/O lies beyond the level (it would only repeat the max)
  SELECT r.grp, r.tag, r.label, r.total AS count, r.beyond, r.max_ns,
         CASE WHEN r.beyond = 0 THEN NULL ELSE min(c.upper_ns) END AS value_ns
  FROM ranked r JOIN running c ON c.grp = r.grp AND c.tag = r.tag AND c.cum >= r.rnk
  GROUP BY r.grp, r.tag, r.label, r.den, r.total, r.beyond, r.max_ns
  ORDER BY r.grp, r.tag, r.den
