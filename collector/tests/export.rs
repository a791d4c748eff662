//! `nines export --parquet`: DuckDB and Spark SQL, running the SQL the README gives over the
//! exported Parquet, compute every level `nines stats --json` prints, per run and tag, to the
//! nanosecond; and the buckets of several runs summed per tag give the levels of `nines merge`
//! of them. Inputs: Java-, Python- and JS-written logs from tests/data, and fresh `nines run`
//! archives (io_uring on a temporary file), three of them started at one instant and merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use nines_tests::{nines, nines_bin, nines_ok, root, run_ok};
use serde_json::{json, Value};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The logs of other writers in tests/data that `nines stats` reads at histogram precision.
const LOGS: [&str; 4] = ["tests/data/java-rw.hlog", "tests/data/python-rw.hlog", "tests/data/js-written.hlog", "tests/data/v1-randrw.hlog"];

struct Fixture {
    _dir: tempfile::TempDir,
    dataset: PathBuf,
    /// The directory `nines export --sql` wrote the levels' SQL into.
    sql: PathBuf,
    /// (file, run id) of every exported run.
    ids: Vec<(String, String)>,
    /// The three runs merged, and the merge.
    parts: Vec<String>,
    merged: String,
}

/// `FILE: exported as run ID: ...` lines of `nines export`.
fn exported_ids(said: &str) -> Vec<(String, String)> {
    said.lines()
        .filter_map(|l| {
            let (file, rest) = l.split_once(": exported as run ").or_else(|| l.split_once(": already exported as run "))?;
            Some((file.to_string(), rest.split([':', ' ']).next()?.to_string()))
        })
        .collect()
}

fn fixture() -> Fixture {
    let d = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    let at = (now + 2.0).ceil();
    let parts: Vec<String> = (0..3).map(|i| s(&d.path().join(format!("host{i}.hlog"))).to_string()).collect();
    let children: Vec<_> = (0..3)
        .map(|i| {
            Command::new(nines_bin())
                .args(["run", "--target", s(&d.path().join(format!("dev{i}"))), "--size", "4MiB", "--rw", "randrw", "--qd", "2"])
                .args(["--window", "250ms", "--runtime", "1s", "--quiet", "--no-summary", "--start-at", &format!("{at}")])
                .args(["--name", &format!("host{i}"), "-o", &parts[i]])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let merged = s(&d.path().join("fleet.hlog")).to_string();
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["-o", &merged, "--label", "a", "--label", "b", "--label", "c"]);
    nines_ok(&args);
    let dataset = d.path().join("ds");
    let logs: Vec<String> = LOGS.iter().map(|l| s(&root().join(l)).to_string()).collect();
    let sql = d.path().join("sql");
    let mut args = vec!["export", "--parquet", s(&dataset), "--sql", s(&sql)];
    args.extend(logs.iter().map(String::as_str));
    args.extend(parts.iter().map(String::as_str));
    args.push(&merged);
    let ids = exported_ids(&nines_ok(&args));
    assert_eq!(ids.len(), LOGS.len() + 4, "{ids:?}");
    Fixture { _dir: d, dataset, sql, ids, parts, merged }
}

/// The shipped definition of a level for `engine` (sql/levels.ENGINE.sql), as `nines export
/// --sql` wrote it beside the dataset: checked to be the repository's file (the DuckDB macro
/// verbatim, the Spark view with the dataset's path filled in), and run as the session's setup.
fn shipped_sql(engine: &str, f: &Fixture) -> String {
    let shipped = std::fs::read_to_string(root().join(format!("collector/sql/levels.{engine}.sql"))).unwrap();
    let written = std::fs::read_to_string(f.sql.join(format!("levels.{engine}.sql"))).unwrap();
    let ds = std::fs::canonicalize(&f.dataset).unwrap();
    assert_eq!(written, if engine == "spark" { shipped.replace("DATASET", s(&ds)) } else { shipped });
    written
}

/// The levels per run: the macro or view called as README shows.
fn levels_sql(engine: &str, dataset: &Path) -> String {
    match engine {
        "duckdb" => format!("SELECT * FROM nines_levels('{}')", s(dataset)),
        _ => "SELECT * FROM nines_levels".to_string(),
    }
}

/// The same, over some runs taken together (a fleet) rather than per run: the DuckDB macro's
/// `runs`; for Spark, the view's query edited to group those runs as one.
fn fleet_sql(engine: &str, setup: &str, dataset: &Path, ids: &[&str]) -> String {
    let list = ids.iter().map(|i| format!("'{i}'")).collect::<Vec<_>>().join(", ");
    if engine == "duckdb" {
        return format!("SELECT * FROM nines_levels('{}', runs := [{list}])", s(dataset));
    }
    let sql = &setup[setup.find(" AS\n").expect("CREATE ... VIEW nines_levels AS") + 4..];
    let sql = sql.replacen("SELECT h.run_id AS grp,", "SELECT 'fleet' AS grp,", 1);
    let sql = sql.replacen("/hours` h\n", &format!("/hours` h WHERE h.run_id IN ({list})\n"), 1);
    assert!(sql.contains("'fleet' AS grp") && sql.contains("WHERE h.run_id IN"), "the SQL's shape changed:\n{sql}");
    sql
}

/// The shipped definition with its source swapped from the hours table to the window-level
/// tables (buckets joined to windows for the tag): a view or macro `nines_levels_windows`
/// that must give the same levels, so that queries over windows (a time range, a runtime
/// level) rank the same buckets.
fn windows_setup(engine: &str, setup: &str) -> String {
    let from = setup.find("  WITH src AS (").expect("WITH src AS (");
    let to = setup.find("  -- every tag, and `all`").expect("the tagged CTE");
    let src = if engine == "duckdb" {
        "  WITH src AS (
    SELECT CASE WHEN runs IS NULL THEN b.run_id ELSE 'fleet' END AS grp, w.tag, w.scope, w.measure,
           w.layout, b.bucket_index, b.count
    FROM read_parquet(dataset || '/buckets/*.parquet') b
    JOIN read_parquet(dataset || '/windows/*.parquet') w USING (run_id, window_index)
    WHERE runs IS NULL OR list_contains(runs, b.run_id)
  ),\n"
            .to_string()
    } else {
        let ds = &setup[setup.find("parquet.`").unwrap() + 9..setup.find("/hours`").unwrap()];
        format!(
            "  WITH src AS (
    SELECT b.run_id AS grp, w.tag, w.scope, w.measure, w.layout, b.bucket_index, b.count
    FROM parquet.`{ds}/buckets` b JOIN parquet.`{ds}/windows` w USING (run_id, window_index)
  ),\n"
        )
    };
    let out = format!("{}{src}{}", &setup[..from], &setup[to..]);
    let out = out.replacen("MACRO nines_levels(", "MACRO nines_levels_windows(", 1).replacen(
        "VIEW nines_levels ",
        "VIEW nines_levels_windows ",
        1,
    );
    assert!(out.contains("nines_levels_windows"), "the SQL's shape changed:\n{out}");
    out
}

/// One query's rows: {(grp, tag): {label: row}}.
type Levels = BTreeMap<(String, String), BTreeMap<String, Value>>;

/// Run the jobs in one engine session; rows grouped as {job: Levels}.
fn query(engine: &str, setup: &[String], jobs: &[(String, String)]) -> BTreeMap<String, Levels> {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("jobs.json");
    let list: Vec<Value> = jobs.iter().map(|(n, q)| json!({"name": n, "sql": q})).collect();
    std::fs::write(&file, serde_json::to_string(&json!({"setup": setup, "jobs": list})).unwrap()).unwrap();
    let script = root().join("tests/interop/sql_levels.py");
    let out = run_ok(Command::new("python3").arg(script).arg(engine).arg(&file));
    let v: Value = serde_json::from_str(out.lines().last().expect("the engine's JSON")).unwrap();
    let mut res = BTreeMap::new();
    for (name, rows) in v.as_object().unwrap() {
        let mut by = Levels::new();
        for r in rows.as_array().unwrap() {
            let key = (r["grp"].as_str().unwrap().to_string(), r["tag"].as_str().unwrap().to_string());
            by.entry(key).or_default().insert(r["label"].as_str().unwrap().to_string(), r.clone());
        }
        res.insert(name.clone(), by);
    }
    res
}

/// Every tag and level of `nines stats --json` for `stats_run` equals the SQL's rows of
/// group `grp`; the SQL has no tag more (but `untagged` of a log without tags, which
/// `nines stats` shows as `all` alone).
fn assert_same(what: &str, stats_run: &Value, sql: &Levels, grp: &str, only: Option<&[&str]>) {
    let tags = stats_run["tags"].as_object().unwrap();
    let mut checked = 0;
    for (tag, t) in tags {
        if only.is_some_and(|o| !o.contains(&tag.as_str())) {
            continue;
        }
        let rows = sql.get(&(grp.to_string(), tag.clone())).unwrap_or_else(|| panic!("{what}: no SQL rows for tag {tag}"));
        let levels = t["levels"].as_array().unwrap();
        assert_eq!(rows.len(), levels.len(), "{what} {tag}: levels");
        for l in levels {
            let label = l["label"].as_str().unwrap();
            let r = &rows[label];
            assert_eq!(r["count"], t["count"], "{what} {tag} count");
            assert_eq!(r["max_ns"], t["max_ns"], "{what} {tag} max");
            assert_eq!(r["beyond"], l["beyond"], "{what} {tag} {label} beyond");
            assert_eq!(r["value_ns"], l["value_ns"], "{what} {tag} {label} value");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{what}: only {checked} levels compared");
    if only.is_none() {
        let untagged_only = tags.len() == 1 && tags.contains_key("all");
        for (g, tag) in sql.keys().filter(|(g, _)| g == grp) {
            assert!(
                tags.contains_key(tag) || (untagged_only && tag == "untagged"),
                "{what}: SQL tag {tag} of {g} that nines stats has not"
            );
        }
    }
}

fn stats(files: &[&str]) -> Value {
    let mut args = vec!["stats", "--json"];
    args.extend_from_slice(files);
    serde_json::from_str(&nines_ok(&args)).unwrap()
}

fn engine_reproduces_nines_stats(engine: &str) {
    let f = fixture();
    let id_of = |file: &str| f.ids.iter().find(|(p, _)| p == file).map(|(_, i)| i.as_str()).unwrap_or_else(|| panic!("no id for {file}"));
    let part_ids: Vec<&str> = f.parts.iter().map(|p| id_of(p)).collect();
    let setup = shipped_sql(engine, &f);
    let jobs = vec![
        ("per_run".to_string(), levels_sql(engine, &f.dataset)),
        ("fleet".to_string(), fleet_sql(engine, &setup, &f.dataset, &part_ids)),
        ("windows".to_string(), levels_sql(engine, &f.dataset).replacen("nines_levels", "nines_levels_windows", 1)),
    ];
    let res = query(engine, &[setup.clone(), windows_setup(engine, &setup)], &jobs);
    // the window-level tables rank the same buckets as the hours table
    assert_eq!(res["windows"], res["per_run"], "{engine}: levels from the windows' buckets");
    // every run, every tag, every level
    let files: Vec<&str> = f.ids.iter().map(|(p, _)| p.as_str()).collect();
    let st = stats(&files);
    for (run, (file, id)) in st["runs"].as_array().unwrap().iter().zip(&f.ids) {
        assert_same(&format!("{engine} {file}"), run, &res["per_run"], id, None);
    }
    // the merge's scoped tags are the sources' own (a/read is host0's read)
    let m = stats(&[&f.merged]);
    let mut scoped = 0;
    for (tag, t) in m["runs"][0]["tags"].as_object().unwrap() {
        if let Some((label, dir)) = tag.split_once('/') {
            let src = part_ids["abc".find(label).unwrap()];
            let own = json!({"tags": {dir: t}});
            assert_same(&format!("{engine} {tag}"), &own, &res["per_run"], src, Some(&[dir]));
            assert_eq!(t["scope"], label, "{tag}");
            scoped += 1;
        }
    }
    assert_eq!(scoped, 6, "{m}");
    // the three runs' buckets summed per tag: the levels of their merge
    assert_same(&format!("{engine} fleet"), &m["runs"][0], &res["fleet"], "fleet", Some(&["read", "write", "all"]));
}

#[test]
fn duckdb_reproduces_nines_stats_levels() {
    engine_reproduces_nines_stats("duckdb");
}

#[test]
fn spark_sql_reproduces_nines_stats_levels() {
    engine_reproduces_nines_stats("spark");
}

#[test]
fn readme_shows_how_to_call_the_shipped_sql() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for call in ["--sql", "SELECT * FROM nines_levels('", "runs := [", "SELECT * FROM nines_levels"] {
        assert!(readme.contains(call), "README.md lacks {call:?}");
    }
    assert!(!readme.contains("cum >= r.rnk"), "README.md shows how to call the macro, not its text");
}

#[test]
fn exports_are_added_never_replaced_and_bad_inputs_say_where() {
    let d = tempfile::tempdir().unwrap();
    let ds = d.path().join("ds");
    let java = s(&root().join(LOGS[0])).to_string();
    let py = s(&root().join(LOGS[1])).to_string();
    let first = nines_ok(&["export", &java, "--parquet", s(&ds)]);
    let id = &exported_ids(&first)[0].1;
    let files = |t: &str| std::fs::read_dir(ds.join(t)).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect::<Vec<_>>();
    assert_eq!(files("buckets"), [format!("{id}.parquet")]);
    let before = std::fs::read(ds.join("buckets").join(format!("{id}.parquet"))).unwrap();
    assert_eq!(&before[..4], b"PAR1");
    // again, and with another run: the first is skipped (same id, same rows), the second added
    let again = nines_ok(&["export", &java, &py, "--parquet", s(&ds)]);
    assert!(again.contains(&format!("already exported as run {id}")), "{again}");
    assert_eq!(exported_ids(&again).len(), 2);
    for t in ["runs", "windows", "buckets", "hours", "layouts"] {
        assert_eq!(files(t).len(), 2, "{t}");
    }
    assert_eq!(std::fs::read(ds.join("buckets").join(format!("{id}.parquet"))).unwrap(), before);
    // a table file lost (a full disk): written again, the others kept
    std::fs::remove_file(ds.join("runs").join(format!("{id}.parquet"))).unwrap();
    nines_ok(&["export", &java, "--parquet", s(&ds)]);
    assert_eq!(files("runs").len(), 2);
    // the windows table as CSV, one line per window
    let csv = d.path().join("w.csv");
    nines_ok(&["export", &java, "--csv", s(&csv)]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("run_id,window_index,tag,scope,direction,measure,start_s,"), "{text}");
    let st = stats(&[&java]);
    let tags = st["runs"][0]["tags"].as_object().unwrap();
    let windows: u64 = text.lines().skip(1).map(|l| l.split(',').nth(9).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(windows, tags["all"]["count"].as_u64().unwrap());
    let out = nines(&["export", &java, "--csv", s(&csv)]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--force"));
    // a damaged input: an error naming the file and line, nothing written
    let bad = d.path().join("bad.hlog");
    let good = std::fs::read_to_string(&java).unwrap();
    std::fs::write(&bad, good.replacen("Tag=read,", "Tag=read,x", 1)).unwrap();
    let out = nines(&["export", s(&bad), "--parquet", s(&d.path().join("ds2"))]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("bad.hlog") && err.contains("line"), "{err}");
    assert!(!d.path().join("ds2").exists());
    // a planted link in place of a table directory is refused
    let ds3 = d.path().join("ds3");
    std::fs::create_dir(&ds3).unwrap();
    std::os::unix::fs::symlink(d.path(), ds3.join("buckets")).unwrap();
    let out = nines(&["export", &java, "--parquet", s(&ds3)]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("a file or a link"));
}
