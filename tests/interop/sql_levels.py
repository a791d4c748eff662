"""Run SQL over a `nines export` Parquet dataset with DuckDB or Spark SQL (local mode).

Usage: sql_levels.py duckdb|spark JOBS.json

JOBS.json is {"setup": [statement, ...], "jobs": [{"name": ..., "sql": ...}, ...]}: the setup
statements (the shipped macro or view) run first, then every job, in one engine session (one
Spark start-up for all) and the result is printed as JSON: {name: [row, ...]}, each row an
object of the query's columns. A missing module is an error, never a skip.
"""

import json
import sys


def duckdb_rows(setup, jobs):
    import duckdb

    con = duckdb.connect()
    for stmt in setup:
        con.execute(stmt)
    out = {}
    for job in jobs:
        cur = con.execute(job["sql"])
        cols = [d[0] for d in cur.description]
        out[job["name"]] = [dict(zip(cols, row)) for row in cur.fetchall()]
    return out


def spark_rows(setup, jobs):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("nines-export-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for stmt in setup:
            spark.sql(stmt)
        return {job["name"]: [r.asDict() for r in spark.sql(job["sql"]).collect()] for job in jobs}
    finally:
        spark.stop()


def plain(v):
    # DuckDB's HUGEINT sums and Spark's decimals come back as Python ints or Decimals
    if v is None or isinstance(v, (str, bool)):
        return v
    if isinstance(v, float):
        return v
    return int(v)


def main():
    engine, jobs_file = sys.argv[1], sys.argv[2]
    with open(jobs_file) as f:
        spec = json.load(f)
    rows = {"duckdb": duckdb_rows, "spark": spark_rows}[engine](spec["setup"], spec["jobs"])
    print(json.dumps({k: [{c: plain(v) for c, v in r.items()} for r in rs] for k, rs in rows.items()}))


if __name__ == "__main__":
    main()
