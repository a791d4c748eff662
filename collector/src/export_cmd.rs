//! `nines export`: runs as Parquet tables (runs, windows, buckets) that a fleet's exports add
//! up to one dataset, and the windows table as CSV. The rows are nines-core's
//! ([`nines_core::export::dataset`]); this module only writes them.
//!
//! Layout: `DIR/runs/ID.parquet`, `DIR/windows/ID.parquet`, `DIR/buckets/ID.parquet`, one file
//! per run and table, where ID is a hash of the run's content (its name, start and every
//! window's tag, times and buckets). Reading `DIR/buckets/*.parquet` reads every run exported
//! there. Exporting a run whose ID is already there is idempotent: its files hold the same
//! rows, so the run is skipped (only a table file missing, say after a full disk, is written).
//! No file is ever replaced; each is written whole through [`crate::output`].
//!
//! Parquet is written with the `parquet` crate's column writer API (`SerializedFileWriter`),
//! not through Arrow: the Arrow crates would add several minutes to a cold build for record
//! batches these three fixed schemas do not need. Pages are Snappy-compressed (pure Rust
//! `snap`, the codec every Parquet reader has), strings dictionary-encoded (the run id and tag
//! repeat on every row).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use nines_core::export::dataset::{self, BucketRow, RunRow, WindowRow};
use nines_core::run::Run;
use parquet::basic::{Compression, Encoding};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use sha2::{Digest, Sha256};

use crate::cli::export::ExportArgs;
use crate::load::load_runs;
use crate::output::{self, Inputs, Replace};

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
}";

const BUCKETS_SCHEMA: &str = "message buckets {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED BYTE_ARRAY tag (UTF8);
  REQUIRED INT64 window_index;
  REQUIRED INT64 lower_ns;
  REQUIRED INT64 upper_ns;
  REQUIRED INT64 count;
}";

/// Rows of a row group of the buckets table (an hour of 1 s windows of two directions holds
/// a few million buckets; a row group of 1M rows keeps the writer's memory to tens of MB).
const BUCKET_ROWS_PER_GROUP: usize = 1 << 20;

pub fn run(args: &ExportArgs, out: &mut impl Write) -> Result<()> {
    let runs = load_runs(&args.files)?;
    let inputs = Inputs::new(&args.files);
    let ids: Vec<String> = runs.iter().map(run_id).collect();
    if let Some(dir) = &args.parquet {
        let tables = table_dirs(dir)?;
        for (r, id) in runs.iter().zip(&ids) {
            export_run(r, id, &tables, &inputs, out)?;
        }
    }
    if let Some(csv) = &args.csv {
        let rows: Vec<Vec<WindowRow>> = runs.iter().map(dataset::window_rows).collect();
        let text = dataset::windows_csv(ids.iter().map(String::as_str).zip(rows.iter().map(Vec::as_slice)));
        let replace = if args.force { Replace::Always } else { Replace::Never };
        output::write_atomic(csv, text.as_bytes(), replace, &inputs)?;
        writeln!(out, "wrote the windows of {} runs to {}", runs.len(), csv.display())?;
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

/// `DIR/runs`, `DIR/windows`, `DIR/buckets`, created when missing; a link in their place is
/// refused (the files must land in the dataset, not wherever a planted link points).
fn table_dirs(dir: &Path) -> Result<[PathBuf; 3]> {
    if dir.exists() && !dir.is_dir() {
        bail!("'{}' is not a directory; --parquet takes the dataset's directory", dir.display());
    }
    let tables = ["runs", "windows", "buckets"].map(|t| dir.join(t));
    for t in &tables {
        match std::fs::symlink_metadata(t) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => bail!("'{}' is not a directory (a file or a link); expected the dataset's table directory", t.display()),
            Err(_) => std::fs::create_dir_all(t).with_context(|| format!("could not create directory '{}'", t.display()))?,
        }
    }
    Ok(tables)
}

fn export_run(run: &Run, id: &str, tables: &[PathBuf; 3], inputs: &Inputs, out: &mut impl Write) -> Result<()> {
    let [runs_dir, windows_dir, buckets_dir] = tables;
    let file = |d: &Path| d.join(format!("{id}.parquet"));
    let (runs_file, windows_file, buckets_file) = (file(runs_dir), file(windows_dir), file(buckets_dir));
    let there = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if there(&runs_file) && there(&windows_file) && there(&buckets_file) {
        writeln!(out, "{}: already exported as run {id} (its files hold the same rows): skipped", run.source)?;
        return Ok(());
    }
    let windows = dataset::window_rows(run);
    // the runs table last: a run listed there has its windows and buckets
    let mut buckets = 0;
    if !there(&buckets_file) {
        let rows = dataset::bucket_rows(run).map_err(|e| anyhow::anyhow!("{}: {e}", run.source))?;
        buckets = rows.len();
        write_parquet(&buckets_file, BUCKETS_SCHEMA, inputs, |w| write_buckets(w, id, &windows, &rows))?;
    }
    if !there(&windows_file) {
        write_parquet(&windows_file, WINDOWS_SCHEMA, inputs, |w| write_windows(w, id, &windows))?;
    }
    if !there(&runs_file) {
        let row = dataset::run_row(run, id);
        write_parquet(&runs_file, RUNS_SCHEMA, inputs, |w| write_runs(w, &row))?;
    }
    writeln!(out, "{}: exported as run {id}: {} windows, {buckets} buckets", run.source, windows.len())?;
    Ok(())
}

type Writer<'a, 'b> = SerializedFileWriter<&'a mut std::io::BufWriter<&'b std::fs::File>>;

/// Write one Parquet file whole (never over an existing file).
fn write_parquet(path: &Path, schema: &str, inputs: &Inputs, fill: impl FnOnce(&mut Writer) -> parquet::errors::Result<()>) -> Result<()> {
    let schema = Arc::new(parse_message_type(schema).expect("the tables' schemas parse"));
    let mut props =
        WriterProperties::builder().set_compression(Compression::SNAPPY).set_created_by(format!("nines {}", env!("CARGO_PKG_VERSION")));
    // Ascending integers (a window's buckets in value order, windows in file order) as
    // deltas, bit-packed (Parquet's DELTA_BINARY_PACKED, which DuckDB and Spark read) rather
    // than a dictionary of mostly distinct values; names absent from a table are ignored.
    for c in ["window_index", "lower_ns", "upper_ns"] {
        props = props
            .set_column_dictionary_enabled(ColumnPath::from(c), false)
            .set_column_encoding(ColumnPath::from(c), Encoding::DELTA_BINARY_PACKED);
    }
    let props = Arc::new(props.build());
    output::write_atomic_with(path, Replace::Never, inputs, |buf| {
        let mut w = SerializedFileWriter::new(buf, schema, props).map_err(std::io::Error::other)?;
        fill(&mut w).map_err(std::io::Error::other)?;
        w.close().map_err(std::io::Error::other)?;
        Ok(())
    })
    .with_context(|| format!("could not write '{}'", path.display()))
}

/// One column's values for one row group.
enum Col {
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
/// and every value was checked against it ([`dataset::bucket_rows`]).
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
        ],
    )
}

fn write_buckets(w: &mut Writer, id: &str, windows: &[WindowRow], rows: &[BucketRow]) -> parquet::errors::Result<()> {
    let id = s(id);
    // one ByteArray per tag, shared by its rows (a reference count, not a copy)
    let tags: Vec<ByteArray> = windows.iter().map(|r| s(r.tag)).collect();
    for chunk in rows.chunks(BUCKET_ROWS_PER_GROUP) {
        row_group(
            w,
            vec![
                Col::Str(vec![id.clone(); chunk.len()]),
                Col::Str(chunk.iter().map(|b| tags[b.window as usize].clone()).collect()),
                Col::I64(chunk.iter().map(|b| b.window).collect()),
                Col::I64(chunk.iter().map(|b| i(b.lower_ns)).collect()),
                Col::I64(chunk.iter().map(|b| i(b.upper_ns)).collect()),
                Col::I64(chunk.iter().map(|b| i(b.count)).collect()),
            ],
        )?;
    }
    Ok(())
}
