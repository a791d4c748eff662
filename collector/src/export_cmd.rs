//! `nines export`: runs as Parquet tables (runs, windows, buckets, hours, layouts) that a
//! fleet's exports add up to one dataset, and the windows table as CSV. The rows are
//! nines-core's ([`nines_core::export::dataset`]); this module only writes them.
//!
//! Layout: `DIR/runs/ID.parquet`, `DIR/windows/ID.parquet`, `DIR/buckets/ID.parquet`,
//! `DIR/hours/ID.parquet`, `DIR/layouts/ID.parquet`, one file per run and table, where ID
//! is a hash of the run's content (its name, start and every
//! window's tag, times and buckets). Reading `DIR/buckets/*.parquet` reads every run exported
//! there. Exporting a run whose ID is already there is idempotent: each table file is written
//! to a temporary file and renamed into place only if no file of that name is there; one that
//! is there (from an earlier export, or from another export running at the same moment, as
//! when every host of a fleet exports into one shared directory) and holds the same rows is
//! success. One holding other rows is an error unless `--force`, which replaces it; a link in
//! place of a table file or directory is an error. Each file is written whole through
//! [`crate::output`].
//!
//! Parquet is written with the `parquet` crate's column writer API (`SerializedFileWriter`),
//! not through Arrow: the Arrow crates would add several minutes to a cold build for record
//! batches these five fixed schemas do not need. Pages are GZIP-compressed (see
//! [`properties`]), strings dictionary-encoded (the run id and tag repeat on every row).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use nines_core::export::dataset::{self, BucketRow, HourHist, LayoutRow, RunRow, WindowRow};
use nines_core::run::Run;
use nines_core::tag::Tag;
use parquet::basic::{Compression, Encoding};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use sha2::{Digest, Sha256};

use crate::cli::export::ExportArgs;
use crate::output::{self, Inputs, Replace, Written};

/// The tables and their Parquet schemas (README, "Exporting").
const RUNS_SCHEMA: &str = "message runs {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED BYTE_ARRAY name (UTF8);
  REQUIRED BYTE_ARRAY file (UTF8);
  OPTIONAL DOUBLE start_s;
  OPTIONAL BYTE_ARRAY start (UTF8);
  REQUIRED DOUBLE duration_s;
  REQUIRED INT64 windows;
  OPTIONAL BYTE_ARRAY workload_rw (UTF8);
  OPTIONAL INT64 workload_qd;
  OPTIONAL INT64 workload_jobs;
  OPTIONAL INT64 workload_size_bytes;
  OPTIONAL DOUBLE workload_runtime_s;
  OPTIONAL BYTE_ARRAY target_path (UTF8);
  OPTIONAL BYTE_ARRAY target_kind (UTF8);
  OPTIONAL BYTE_ARRAY host_name (UTF8);
  OPTIONAL BYTE_ARRAY host_kernel (UTF8);
  OPTIONAL INT64 host_cpus;
  OPTIONAL BYTE_ARRAY engine (UTF8);
  REQUIRED BYTE_ARRAY meta_json (UTF8);
}";

const WINDOWS_SCHEMA: &str = "message windows {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED INT64 window_index;
  REQUIRED BYTE_ARRAY tag (UTF8);
  OPTIONAL BYTE_ARRAY scope (UTF8);
  REQUIRED BYTE_ARRAY direction (UTF8);
  OPTIONAL BYTE_ARRAY measure (UTF8);
  OPTIONAL DOUBLE start_s;
  REQUIRED DOUBLE offset_s;
  REQUIRED DOUBLE length_s;
  REQUIRED INT64 count;
  REQUIRED INT64 min_ns;
  REQUIRED INT64 max_ns;
  REQUIRED BYTE_ARRAY layout (UTF8);
  OPTIONAL DOUBLE ctx_util;
  OPTIONAL DOUBLE ctx_aqu_sz;
  OPTIONAL DOUBLE ctx_r_await;
  OPTIONAL DOUBLE ctx_w_await;
  OPTIONAL DOUBLE ctx_r_s;
  OPTIONAL DOUBLE ctx_w_s;
  OPTIONAL DOUBLE ctx_rkb_s;
  OPTIONAL DOUBLE ctx_wkb_s;
  OPTIONAL DOUBLE ctx_user;
  OPTIONAL DOUBLE ctx_sys;
  OPTIONAL DOUBLE ctx_iowait;
  OPTIONAL DOUBLE ctx_irq;
  OPTIONAL DOUBLE ctx_softirq;
  OPTIONAL DOUBLE ctx_steal;
  OPTIONAL DOUBLE ctx_io_some;
  OPTIONAL DOUBLE ctx_io_full;
  OPTIONAL DOUBLE ctx_cpu_some;
  OPTIONAL DOUBLE ctx_cpu_full;
  OPTIONAL DOUBLE ctx_nines_cpu;
}";

const BUCKETS_SCHEMA: &str = "message buckets {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED INT64 window_index;
  REQUIRED INT32 bucket_index;
  REQUIRED INT64 count;
}";

const HOURS_SCHEMA: &str = "message hours {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED BYTE_ARRAY tag (UTF8);
  OPTIONAL BYTE_ARRAY scope (UTF8);
  REQUIRED BYTE_ARRAY direction (UTF8);
  OPTIONAL BYTE_ARRAY measure (UTF8);
  OPTIONAL DOUBLE hour_start_s;
  REQUIRED INT64 run_hour;
  REQUIRED BYTE_ARRAY layout (UTF8);
  REQUIRED INT32 bucket_index;
  REQUIRED INT64 count;
}";

const LAYOUTS_SCHEMA: &str = "message layouts {
  REQUIRED BYTE_ARRAY layout (UTF8);
  REQUIRED INT32 bucket_index;
  REQUIRED INT64 lower_ns;
  REQUIRED INT64 upper_ns;
}";

/// Rows of a row group of the buckets table (an hour of 1 s windows of two directions holds
/// a few million buckets; a row group of 1M rows keeps the writer's memory to tens of MB).
const BUCKET_ROWS_PER_GROUP: usize = 1 << 20;

pub fn run(args: &ExportArgs, out: &mut impl Write) -> Result<()> {
    if let Some(dir) = &args.parquet {
        output::refuse_stdout(dir, "--parquet", "the dataset's directory of table files")?;
    }
    // with the CSV on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if args.csv.as_deref().is_some_and(output::goes_to_stdout) { &mut err } else { out };
    // One run in memory at a time, so that exporting a thousand run-hours takes the memory of
    // one: the runs' names are read first (each run read and dropped) so that runs sharing a
    // name get the distinct names the whole set would give them, then each run is read again,
    // exported and dropped.
    let paths = crate::load::each_file_once(&args.files);
    let names = if paths.len() > 1 {
        let mut named = Vec::with_capacity(paths.len());
        for p in &paths {
            let r = crate::load::load_run(p)?;
            named.push((r.name, r.source));
        }
        nines_core::run::distinct_names(&named.iter().map(|(n, s)| (n.as_str(), s.as_str())).collect::<Vec<_>>())
    } else {
        Vec::new()
    };
    let inputs = Inputs::new(&args.files);
    // (the dataset's directories are made once the first run has been read: a damaged only
    // input leaves nothing behind)
    let mut tables: Option<[PathBuf; 5]> = None;
    let mut each = |i: usize, p: &Path, out: &mut dyn Write| -> Result<(String, Run)> {
        let mut run = crate::load::load_run(p)?;
        if let Some(n) = names.get(i) {
            run.name = n.clone();
        }
        let id = run_id(&run);
        if let Some(dir) = &args.parquet {
            if tables.is_none() {
                tables = Some(table_dirs(dir)?);
            }
            if let Some(t) = &tables {
                export_run(&run, &id, t, args.force, &inputs, out)?;
            }
        }
        Ok((id, run))
    };
    match &args.csv {
        None => {
            for (i, p) in paths.iter().enumerate() {
                each(i, p, out)?;
            }
        }
        Some(csv) => {
            let replace = if args.force { Replace::Always } else { Replace::Never };
            // the CSV is written as the runs go; an error exporting one stops the command
            let mut failed: Option<anyhow::Error> = None;
            output::write_output_with(csv, replace, &inputs, |w| {
                w.write_all(dataset::WINDOWS_CSV_HEADER.as_bytes())?;
                for (i, p) in paths.iter().enumerate() {
                    match each(i, p, out) {
                        Ok((id, run)) => {
                            let rows = dataset::window_rows(&run);
                            w.write_all(dataset::windows_csv_rows(&id, &rows).as_bytes())?;
                        }
                        Err(e) => {
                            failed = Some(e);
                            return Err(std::io::Error::other("stopped"));
                        }
                    }
                }
                Ok(())
            })
            .or_else(|e| failed.take().map_or(Err(e), Err))?;
            writeln!(out, "wrote the windows of {} runs to {}", paths.len(), output::shown(csv))?;
        }
    }
    if let (Some(sql), Some(dataset)) = (&args.sql, &args.parquet) {
        write_sql(sql, dataset, args.force, &inputs)?;
        writeln!(out, "wrote the levels' SQL (DuckDB macro nines_levels, Spark view nines_levels) to {}", sql.display())?;
    }
    Ok(())
}

/// The one definition of a level for SQL engines, shipped in the repository's `sql/` and
/// tested verbatim against `nines stats` (collector/tests/export.rs).
const LEVELS_DUCKDB: &str = include_str!("../sql/levels.duckdb.sql");
const LEVELS_SPARK: &str = include_str!("../sql/levels.spark.sql");

/// `--sql DIR`: the DuckDB macro as it is, the Spark view over `dataset`'s absolute path. A
/// file already holding the same text is left alone.
fn write_sql(dir: &Path, dataset: &Path, force: bool, inputs: &Inputs) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("could not create the directory '{}' (--sql)", dir.display()))?;
    let abs = std::fs::canonicalize(dataset).with_context(|| format!("the dataset '{}'", dataset.display()))?;
    let abs =
        abs.to_str().ok_or_else(|| anyhow::anyhow!("the dataset's path '{}' is not UTF-8, which SQL text cannot hold", abs.display()))?;
    anyhow::ensure!(!abs.contains('`'), "the dataset's path '{abs}' holds a backquote, which Spark SQL cannot quote");
    for (name, text) in [("levels.duckdb.sql", LEVELS_DUCKDB.to_string()), ("levels.spark.sql", LEVELS_SPARK.replace("DATASET", abs))] {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|b| b == text.as_bytes()) {
            continue;
        }
        output::write_output(&path, text.as_bytes(), if force { Replace::Always } else { Replace::Never }, inputs)?;
    }
    Ok(())
}

/// A run's id: the first 16 hex digits (64 bits) of the SHA-256 of its content (name, start,
/// and every window's tag, start, length, layout and buckets), so the same run exported from
/// anywhere gets the same id and two different runs practically never share one.
pub fn run_id(run: &Run) -> String {
    let mut h = Sha256::new();
    h.update(run.name.as_bytes());
    h.update([0]);
    h.update(run.start_time.map_or(u64::MAX, f64::to_bits).to_le_bytes());
    for w in &run.windows {
        h.update(w.tag.as_deref().map_or(&b"\0untagged"[..], str::as_bytes));
        h.update([0]);
        h.update(w.start_s.to_bits().to_le_bytes());
        h.update(w.length_s.to_bits().to_le_bytes());
        let l = w.hist.layout();
        h.update(l.low.to_le_bytes());
        h.update([l.sigfig]);
        h.update((w.hist.bucket_count() as u64).to_le_bytes());
        for (v, c) in w.hist.buckets() {
            h.update(v.to_le_bytes());
            h.update(c.to_le_bytes());
        }
    }
    h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// `DIR/runs`, `DIR/windows`, `DIR/buckets`, created when missing (by any number of exports
/// at once: an existing directory is success); a link in their place is refused, checked
/// after creating too (the files must land in the dataset, not wherever a planted link
/// points).
fn table_dirs(dir: &Path) -> Result<[PathBuf; 5]> {
    if dir.exists() && !dir.is_dir() {
        bail!("'{}' is not a directory; --parquet takes the dataset's directory", dir.display());
    }
    let tables = ["runs", "windows", "buckets", "hours", "layouts"].map(|t| dir.join(t));
    for t in &tables {
        if std::fs::symlink_metadata(t).is_err() {
            std::fs::create_dir_all(t).with_context(|| format!("could not create directory '{}'", t.display()))?;
        }
        match std::fs::symlink_metadata(t) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => bail!("'{}' is not a directory (a file or a link); expected the dataset's table directory", t.display()),
            Err(e) => return Err(anyhow::Error::new(e).context(format!("could not create directory '{}'", t.display()))),
        }
    }
    Ok(tables)
}

fn export_run(run: &Run, id: &str, tables: &[PathBuf; 5], force: bool, inputs: &Inputs, out: &mut dyn Write) -> Result<()> {
    let [runs_dir, windows_dir, buckets_dir, hours_dir, layouts_dir] = tables;
    let file = |d: &Path| d.join(format!("{id}.parquet"));
    let layouts = dataset::layout_rows(run).map_err(|e| anyhow::anyhow!("{}: {e}", run.source))?;
    let windows = dataset::window_rows(run);
    let buckets = dataset::bucket_rows(run);
    let hours = dataset::hour_hists(run);
    let row = dataset::run_row(run, id);
    // the runs table last: a run listed there has its windows, buckets and layouts
    let written = [
        write_parquet(&file(layouts_dir), LAYOUTS_SCHEMA, force, inputs, |w| write_layouts(w, &layouts))?,
        write_parquet(&file(buckets_dir), BUCKETS_SCHEMA, force, inputs, |w| write_buckets(w, id, &buckets))?,
        write_parquet(&file(hours_dir), HOURS_SCHEMA, force, inputs, |w| write_hours(w, id, &hours))?,
        write_parquet(&file(windows_dir), WINDOWS_SCHEMA, force, inputs, |w| write_windows(w, id, &windows))?,
        write_parquet(&file(runs_dir), RUNS_SCHEMA, force, inputs, |w| write_runs(w, &row))?,
    ];
    if written.iter().all(|w| *w == Written::Same) {
        writeln!(out, "{}: already exported as run {id} (its files hold the same rows): nothing written", run.source)?;
    } else {
        writeln!(
            out,
            "{}: exported as run {id}: {} windows, {} buckets, {} hour sums",
            run.source,
            windows.len(),
            buckets.len(),
            hours.len()
        )?;
    }
    Ok(())
}

type Writer<'a, 'b> = SerializedFileWriter<&'a mut std::io::BufWriter<&'b std::fs::File>>;

/// Write one Parquet file whole: one already there with the same rows is kept; one with other
/// rows is an error unless `force` (see [`output::write_same_or_new`]).
fn write_parquet(
    path: &Path,
    schema: &str,
    force: bool,
    inputs: &Inputs,
    fill: impl FnOnce(&mut Writer) -> parquet::errors::Result<()>,
) -> Result<Written> {
    let props = properties(&format!("nines {}", env!("CARGO_PKG_VERSION")));
    output::write_same_or_new(path, force, inputs, &same_rows, |buf| write_table(buf, schema, props, fill))
        .with_context(|| format!("could not write '{}'", path.display()))
}

/// The writer's settings, the footer's `created_by` naming the writer.
fn properties(created_by: &str) -> Arc<WriterProperties> {
    // GZIP (DEFLATE, pure Rust through flate2's miniz_oxide, read by every Parquet reader;
    // zstd would need a C library in the static build): 3.2 MB a run-hour of the benchmark's
    // runs against 4.3 MB with Snappy (BENCHMARKS.md, export)
    let mut props =
        WriterProperties::builder().set_compression(Compression::GZIP(Default::default())).set_created_by(created_by.to_string());
    // Ascending integers (a window's bucket indexes, windows in file order) as deltas,
    // bit-packed (Parquet's DELTA_BINARY_PACKED, which DuckDB and Spark read) rather than a
    // dictionary of mostly distinct values; names absent from a table are ignored. Counts,
    // mostly 1 to 3, stay dictionary-coded: their deltas would take more bits.
    for c in ["window_index", "bucket_index"] {
        props = props
            .set_column_dictionary_enabled(ColumnPath::from(c), false)
            .set_column_encoding(ColumnPath::from(c), Encoding::DELTA_BINARY_PACKED);
    }
    Arc::new(props.build())
}

/// One table of `schema` into `buf`, its rows from `fill`.
fn write_table<'a, 'b>(
    buf: &'a mut std::io::BufWriter<&'b std::fs::File>,
    schema: &str,
    props: Arc<WriterProperties>,
    fill: impl FnOnce(&mut Writer<'a, 'b>) -> parquet::errors::Result<()>,
) -> std::io::Result<()> {
    let schema = Arc::new(parse_message_type(schema).expect("the tables' schemas parse"));
    let mut w = SerializedFileWriter::new(buf, schema, props).map_err(std::io::Error::other)?;
    fill(&mut w).map_err(std::io::Error::other)?;
    w.close().map_err(std::io::Error::other)?;
    Ok(())
}

/// Do two Parquet files hold the same schema and rows, in order? Files of one run written by
/// the same nines are the same bytes (compared before this is asked); another version writes
/// the same rows with another `created_by` in the footer, or other pages. A file the reader
/// cannot read holds other content.
fn same_rows(_path: &Path, old: &std::fs::File, new: &std::fs::File) -> Result<bool> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let open =
        |f: &std::fs::File| -> parquet::errors::Result<SerializedFileReader<std::fs::File>> { SerializedFileReader::new(f.try_clone()?) };
    let (Ok(a), Ok(b)) = (open(old), open(new)) else { return Ok(false) };
    if a.metadata().file_metadata().schema() != b.metadata().file_metadata().schema()
        || a.metadata().file_metadata().num_rows() != b.metadata().file_metadata().num_rows()
    {
        return Ok(false);
    }
    let (Ok(mut x), Ok(mut y)) = (a.get_row_iter(None), b.get_row_iter(None)) else { return Ok(false) };
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ok(true),
            (Some(Ok(r)), Some(Ok(s))) if r == s => {}
            _ => return Ok(false),
        }
    }
}

/// One column's values for one row group.
enum Col {
    I32(Vec<i32>),
    I64(Vec<i64>),
    OptI64(Vec<Option<i64>>),
    F64(Vec<f64>),
    OptF64(Vec<Option<f64>>),
    Str(Vec<ByteArray>),
    OptStr(Vec<Option<ByteArray>>),
}

/// The values present and the definition levels (1 present, 0 null) of an optional column.
fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
    (v.iter().flatten().cloned().collect(), v.iter().map(|x| i16::from(x.is_some())).collect())
}

fn row_group(w: &mut Writer, cols: Vec<Col>) -> parquet::errors::Result<()> {
    let mut rg = w.next_row_group()?;
    let mut cols = cols.into_iter();
    while let Some(mut c) = rg.next_column()? {
        let col = cols.next().ok_or_else(|| parquet::errors::ParquetError::General("a column without values".into()))?;
        match col {
            Col::I32(v) => c.typed::<Int32Type>().write_batch(&v, None, None)?,
            Col::I64(v) => c.typed::<Int64Type>().write_batch(&v, None, None)?,
            Col::OptI64(v) => {
                let (v, d) = split(&v);
                c.typed::<Int64Type>().write_batch(&v, Some(&d), None)?
            }
            Col::F64(v) => c.typed::<DoubleType>().write_batch(&v, None, None)?,
            Col::OptF64(v) => {
                let (v, d) = split(&v);
                c.typed::<DoubleType>().write_batch(&v, Some(&d), None)?
            }
            Col::Str(v) => c.typed::<ByteArrayType>().write_batch(&v, None, None)?,
            Col::OptStr(v) => {
                let (v, d) = split(&v);
                c.typed::<ByteArrayType>().write_batch(&v, Some(&d), None)?
            }
        };
        c.close()?;
    }
    rg.close()?;
    Ok(())
}

fn s(v: &str) -> ByteArray {
    ByteArray::from(v)
}
fn os(v: Option<&str>) -> Option<ByteArray> {
    v.map(ByteArray::from)
}
/// A count or value as INT64: every count of a run is at most 2^63-1 (nines-core's invariant)
/// and every value was checked against it ([`dataset::layout_rows`]).
fn i(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn write_runs(w: &mut Writer, r: &RunRow) -> parquet::errors::Result<()> {
    row_group(
        w,
        vec![
            Col::Str(vec![s(&r.run_id)]),
            Col::Str(vec![s(&r.name)]),
            Col::Str(vec![s(&r.file)]),
            Col::OptF64(vec![r.start_s]),
            Col::OptStr(vec![os(r.start.as_deref())]),
            Col::F64(vec![r.duration_s]),
            Col::I64(vec![r.windows]),
            Col::OptStr(vec![os(r.workload_rw.as_deref())]),
            Col::OptI64(vec![r.workload_qd]),
            Col::OptI64(vec![r.workload_jobs]),
            Col::OptI64(vec![r.workload_size_bytes]),
            Col::OptF64(vec![r.workload_runtime_s]),
            Col::OptStr(vec![os(r.target_path.as_deref())]),
            Col::OptStr(vec![os(r.target_kind.as_deref())]),
            Col::OptStr(vec![os(r.host_name.as_deref())]),
            Col::OptStr(vec![os(r.host_kernel.as_deref())]),
            Col::OptI64(vec![r.host_cpus]),
            Col::OptStr(vec![os(r.engine.as_deref())]),
            Col::Str(vec![s(&r.meta_json)]),
        ],
    )
}

fn write_windows(w: &mut Writer, id: &str, rows: &[WindowRow]) -> parquet::errors::Result<()> {
    let id = s(id);
    row_group(
        w,
        vec![
            Col::Str(vec![id; rows.len()]),
            Col::I64(rows.iter().map(|r| r.window).collect()),
            Col::Str(rows.iter().map(|r| s(r.tag)).collect()),
            Col::OptStr(rows.iter().map(|r| os(r.scope)).collect()),
            Col::Str(rows.iter().map(|r| s(r.direction)).collect()),
            Col::OptStr(rows.iter().map(|r| os(r.measure)).collect()),
            Col::OptF64(rows.iter().map(|r| r.start_s).collect()),
            Col::F64(rows.iter().map(|r| r.offset_s).collect()),
            Col::F64(rows.iter().map(|r| r.length_s).collect()),
            Col::I64(rows.iter().map(|r| i(r.count)).collect()),
            Col::I64(rows.iter().map(|r| i(r.min_ns)).collect()),
            Col::I64(rows.iter().map(|r| i(r.max_ns)).collect()),
            Col::Str(rows.iter().map(|r| s(&dataset::layout_key(&r.layout))).collect()),
        ]
        .into_iter()
        .chain(nines_core::context::NUMBERS.iter().map(|(_, get)| Col::OptF64(rows.iter().map(|r| r.context.and_then(get)).collect())))
        .collect(),
    )
}

fn write_buckets(w: &mut Writer, id: &str, rows: &[BucketRow]) -> parquet::errors::Result<()> {
    let id = s(id);
    for chunk in rows.chunks(BUCKET_ROWS_PER_GROUP) {
        row_group(
            w,
            vec![
                Col::Str(vec![id.clone(); chunk.len()]),
                Col::I64(chunk.iter().map(|b| b.window).collect()),
                Col::I32(chunk.iter().map(|b| b.index as i32).collect()),
                Col::I64(chunk.iter().map(|b| i(b.count)).collect()),
            ],
        )?;
    }
    Ok(())
}

fn write_hours(w: &mut Writer, id: &str, hours: &[HourHist]) -> parquet::errors::Result<()> {
    // one row per bucket of each sum, its sum's columns repeated (dictionary- and
    // run-length-coded, they cost next to nothing)
    let keys: Vec<ByteArray> = hours.iter().map(|h| s(&dataset::layout_key(&h.hist.layout()))).collect();
    let mut rows: Vec<(&HourHist, Tag<'_>, &ByteArray, u32, u64)> = Vec::new();
    for (h, key) in hours.iter().zip(&keys) {
        let t = Tag::parse(&h.tag);
        rows.extend(h.hist.indexed().map(|(index, count)| (h, t, key, index, count)));
    }
    row_group(
        w,
        vec![
            Col::Str(vec![s(id); rows.len()]),
            Col::Str(rows.iter().map(|r| s(&r.0.tag)).collect()),
            Col::OptStr(rows.iter().map(|r| os(r.1.scope)).collect()),
            Col::Str(rows.iter().map(|r| s(r.1.direction)).collect()),
            Col::OptStr(rows.iter().map(|r| os(r.1.measure)).collect()),
            Col::OptF64(rows.iter().map(|r| r.0.hour_start_s).collect()),
            Col::I64(rows.iter().map(|r| r.0.run_hour).collect()),
            Col::Str(rows.iter().map(|r| r.2.clone()).collect()),
            Col::I32(rows.iter().map(|r| r.3 as i32).collect()),
            Col::I64(rows.iter().map(|r| i(r.4)).collect()),
        ],
    )
}

fn write_layouts(w: &mut Writer, rows: &[LayoutRow]) -> parquet::errors::Result<()> {
    row_group(
        w,
        vec![
            Col::Str(rows.iter().map(|r| s(&r.layout)).collect()),
            Col::I32(rows.iter().map(|r| r.index as i32).collect()),
            Col::I64(rows.iter().map(|r| i(r.lower_ns)).collect()),
            Col::I64(rows.iter().map(|r| i(r.upper_ns)).collect()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rows` of the windows table written with `created_by` into a new temporary file.
    fn windows_file(id: &str, rows: &[WindowRow], created_by: &str) -> std::fs::File {
        let f = tempfile::tempfile().unwrap();
        let mut buf = std::io::BufWriter::new(&f);
        write_table(&mut buf, WINDOWS_SCHEMA, properties(created_by), |w| write_windows(w, id, rows)).unwrap();
        drop(buf);
        f
    }

    fn bytes(f: &std::fs::File) -> Vec<u8> {
        use std::io::{Read, Seek};
        let mut f = f.try_clone().unwrap();
        f.rewind().unwrap();
        let mut v = Vec::new();
        f.read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn the_same_rows_by_another_version_are_the_same_content() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/java-rw.hlog");
        let runs = crate::load::load_runs(&[path]).unwrap();
        let id = run_id(&runs[0]);
        let rows = dataset::window_rows(&runs[0]);
        let ours = windows_file(&id, &rows, "nines 0.1.0");
        let other_version = windows_file(&id, &rows, "nines 9.9.9");
        assert_ne!(bytes(&ours), bytes(&other_version));
        let p = Path::new("w.parquet");
        assert!(same_rows(p, &other_version, &ours).unwrap());
        // one count changed: other rows
        let mut changed = rows.clone();
        changed[3].count += 1;
        assert!(!same_rows(p, &windows_file(&id, &changed, "nines 0.1.0"), &ours).unwrap());
        // a row fewer, another id, or no Parquet at all: other content
        assert!(!same_rows(p, &windows_file(&id, &rows[1..], "nines 0.1.0"), &ours).unwrap());
        assert!(!same_rows(p, &windows_file("0000000000000000", &rows, "nines 0.1.0"), &ours).unwrap());
        let junk = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut &junk, b"PAR1 not a table PAR1").unwrap();
        assert!(!same_rows(p, &junk, &ours).unwrap());
    }

    #[test]
    fn context_columns_are_named_alike_in_parquet_and_csv() {
        let cols = dataset::context_columns();
        let parquet: Vec<&str> = WINDOWS_SCHEMA.lines().filter_map(|l| l.trim().strip_prefix("OPTIONAL DOUBLE ctx_")).collect();
        let parquet: Vec<String> = parquet.iter().map(|c| format!("ctx_{}", c.trim_end_matches(';'))).collect();
        assert_eq!(parquet, cols);
        let header = dataset::WINDOWS_CSV_HEADER.trim_end();
        assert!(header.ends_with(&format!(",{}", cols.join(","))), "{header}");
    }
}
