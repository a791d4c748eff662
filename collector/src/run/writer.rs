//! The writer thread: merges the jobs' windows per tag, appends each window to the archive as
//! soon as every job has closed it (one line per tag, empty windows included, so stalls
//! show), prints the progress line and checks the steady-state criterion.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;

use anyhow::Result;
use hdrhistogram::Histogram;
use nines_core::archive::ArchiveWriter;
use nines_core::hist::Hist;
use nines_core::meta::SteadyMeta;
use nines_core::quantile::{value_at, Level};
use nines_core::steady::{evaluate, Metric};
use nines_core::units::{format_ns, format_rate};

use super::context::Feed;
use super::job::{new_hist, JobWindow, Msg, Pool, TagWindow, STOP, STOP_STEADY};
use super::workload::{WindowRule, Workload, NT, SYNC, TAGS};

pub struct WriterCfg {
    /// The run's workload (with several concurrent ones, the first: its window rule, stop
    /// rule and steady-state rule are the run's).
    pub w: std::sync::Arc<Workload>,
    pub jobs: u32,
    pub rec_start_ns: u64,
    pub quiet: bool,
    pub pool: Pool,
    /// The archive's tags, in the order they are written: the run's own directions first,
    /// then the scoped ones.
    pub out: Vec<OutTag>,
    /// For each job, for each of its slots (`target * NT + tag`), the `out` tags it adds to.
    pub routes: Vec<Vec<Vec<usize>>>,
    /// Where each window's `#[context ...]` line comes from (None: none written).
    pub context: Option<Feed>,
}

/// One tag of the archive.
#[derive(Clone, Debug, PartialEq)]
pub struct OutTag {
    /// As written (`read`, `probe/read`, `a.dat/write.svc`).
    pub name: String,
    /// The recorder's tag it holds (READ, WRITE, ..., READ_SVC + d).
    pub tag: usize,
    /// Unscoped: a direction of the whole run (or its `.svc`).
    pub whole: bool,
}

impl WriterCfg {
    /// One workload's jobs over one target: the tags of `w`, each job's slots routed to them.
    pub fn plain(w: std::sync::Arc<Workload>, rec_start_ns: u64, quiet: bool, pool: Pool) -> WriterCfg {
        let out: Vec<OutTag> = w.tags().into_iter().map(|t| OutTag { name: TAGS[t].to_string(), tag: t, whole: true }).collect();
        let mut route: Vec<Vec<usize>> = vec![Vec::new(); NT];
        for (i, o) in out.iter().enumerate() {
            route[o.tag].push(i);
        }
        WriterCfg { jobs: w.jobs, routes: vec![route; w.jobs as usize], w, rec_start_ns, quiet, pool, out, context: None }
    }
}

/// What the run's steady-state check (`--steady`, fio's criteria) found; written to the
/// archive's end metadata as `steady`.
#[derive(Clone, Debug, PartialEq)]
pub enum SteadyOutcome {
    /// The criterion held over the last `windows` windows, `at_s` seconds into the recording.
    Reached { criterion: String, at_s: f64, windows: usize, mean: f64, measure: f64, criterion_value: f64 },
    /// It never held in the `windows_checked` windows recorded.
    NotReached { criterion: String, windows_checked: usize },
}

impl SteadyOutcome {
    /// The metadata object (the same keys as before it was typed; `reached` tells them apart).
    pub fn to_meta(&self) -> SteadyMeta {
        match self {
            SteadyOutcome::Reached { criterion, at_s, windows, mean, measure, criterion_value } => SteadyMeta {
                criterion: criterion.clone(),
                reached: true,
                at_s: Some(*at_s),
                windows: Some(*windows as u64),
                mean: Some(*mean),
                measure: Some(*measure),
                criterion_value: Some(*criterion_value),
                ..SteadyMeta::default()
            },
            SteadyOutcome::NotReached { criterion, windows_checked } => SteadyMeta {
                criterion: criterion.clone(),
                reached: false,
                windows_checked: Some(*windows_checked as u64),
                ..SteadyMeta::default()
            },
        }
    }
}

/// What the writer saw, for the end summary.
#[derive(Default)]
pub struct WriterResult {
    pub windows: u64,
    /// Per `out` tag.
    pub counts: Vec<u64>,
    pub bytes: Vec<u64>,
    pub end_ns: u64,
    pub steady: Option<SteadyOutcome>,
    pub errors: Vec<String>,
    /// Why the context lines stopped during the run (reading /proc failed).
    pub context_failed: Option<String>,
}

struct Pending {
    reported: Vec<bool>,
    start: u64,
    end: u64,
    /// Per `out` tag.
    tags: Vec<Option<TagWindow>>,
}

pub fn writer_loop<W: Write>(rx: Receiver<Msg>, aw: &mut ArchiveWriter<W>, mut cfg: WriterCfg) -> Result<WriterResult> {
    let jobs = cfg.jobs as usize;
    let mut feed = cfg.context.take();
    let mut pending: BTreeMap<u64, Pending> = BTreeMap::new();
    let mut done: Vec<Option<Option<u64>>> = vec![None; jobs];
    let mut next = 0u64;
    let mut res =
        WriterResult { end_ns: cfg.rec_start_ns, counts: vec![0; cfg.out.len()], bytes: vec![0; cfg.out.len()], ..Default::default() };
    let empty = new_hist();
    let mut progress = Progress::new(&cfg);
    let mut samples: Vec<f64> = Vec::new();
    let mut write_error: Option<anyhow::Error> = None;

    while let Ok(msg) = rx.recv() {
        match msg {
            Msg::Window(jw) => add(&mut pending, *jw, jobs, &cfg),
            Msg::Done { job, last_index, error } => {
                done[job as usize] = Some(last_index);
                if let Some(e) = error {
                    res.errors.push(e);
                }
            }
        }
        // Write every window all jobs have closed, in order.
        loop {
            let complete = (0..jobs)
                .all(|j| pending.get(&next).is_some_and(|p| p.reported[j]) || matches!(done[j], Some(li) if li.is_none_or(|l| l < next)));
            if !complete {
                break;
            }
            let Some(p) = pending.remove(&next) else { break };
            if write_error.is_none() {
                if let Err(e) = write_window(aw, &p, &cfg, &empty, &mut res, feed.as_mut()) {
                    // Keep draining the jobs; report at the end.
                    write_error = Some(e);
                    STOP.compare_exchange(0, super::job::STOP_ERROR, Ordering::Relaxed, Ordering::Relaxed).ok();
                }
            }
            let len_s = (p.end - p.start) as f64 / 1e9;
            progress.window(&p, len_s, &cfg.out, &res);
            if let Some((c, sw)) = &cfg.w.steady {
                if res.steady.is_none() {
                    let WindowRule::Time(wns) = cfg.w.window else { unreachable!("checked in Workload") };
                    samples.push(metric(c.metric, &p, &cfg.out, len_s));
                    let n = (*sw / wns) as usize;
                    if samples.len() >= n {
                        let ev = evaluate(c, &samples[samples.len() - n..], wns as f64 / 1e9);
                        if let Some(ev) = ev.filter(|e| e.holds) {
                            let at_s = (p.end - cfg.rec_start_ns) as f64 / 1e9;
                            res.steady = Some(SteadyOutcome::Reached {
                                criterion: c.to_string(),
                                at_s,
                                windows: n,
                                mean: ev.mean,
                                measure: ev.measure,
                                criterion_value: ev.criterion,
                            });
                            STOP.compare_exchange(0, STOP_STEADY, Ordering::Relaxed, Ordering::Relaxed).ok();
                        }
                    }
                }
            }
            recycle(p, &cfg.pool);
            next += 1;
        }
        if done.iter().all(Option::is_some) && pending.range(next..).next().is_none() {
            break;
        }
    }
    progress.finish();
    res.context_failed = feed.and_then(|f| f.failed);
    if let Some((c, _)) = &cfg.w.steady {
        if res.steady.is_none() {
            res.steady = Some(SteadyOutcome::NotReached { criterion: c.to_string(), windows_checked: samples.len() });
        }
    }
    if let Some(e) = write_error {
        return Err(e);
    }
    Ok(res)
}

/// Add a job's window into the pending window's tags: each of its slots into every archive
/// tag it is routed to (the run's direction, and the job's and the target's scoped ones).
fn add(pending: &mut BTreeMap<u64, Pending>, jw: JobWindow, jobs: usize, cfg: &WriterCfg) {
    let pool = &cfg.pool;
    let p = pending.entry(jw.index).or_insert_with(|| Pending {
        reported: vec![false; jobs],
        start: jw.start_ns,
        end: jw.end_ns,
        tags: (0..cfg.out.len()).map(|_| None).collect(),
    });
    p.reported[jw.job as usize] = true;
    p.start = p.start.min(jw.start_ns);
    p.end = p.end.max(jw.end_ns);
    let routes = &cfg.routes[jw.job as usize];
    for (local, tw) in jw.tags.into_iter().enumerate() {
        let Some(tw) = tw else { continue };
        let dests = routes.get(local).map_or(&[][..], |r| &r[..]);
        let mut tw = Some(tw);
        for (k, &d) in dests.iter().enumerate() {
            let last = k + 1 == dests.len();
            let src = if last {
                tw.take().expect("moved at the last destination only")
            } else {
                let t = tw.as_ref().expect("present before the last");
                TagWindow { hist: t.hist.clone(), max: t.max, count: t.count, bytes: t.bytes, sum: t.sum }
            };
            match &mut p.tags[d] {
                slot @ None => *slot = Some(src),
                Some(acc) => {
                    // Auto-resizing histograms of the same precision always add.
                    let _ = acc.hist.add(&src.hist);
                    acc.max = acc.max.max(src.max);
                    acc.count += src.count;
                    acc.bytes += src.bytes;
                    acc.sum += src.sum;
                    give_back(pool, src.hist);
                }
            }
        }
        if let Some(t) = tw {
            give_back(pool, t.hist);
        }
    }
}

fn give_back(pool: &Pool, mut h: Histogram<u64>) {
    h.reset();
    if let Ok(mut p) = pool.lock() {
        if p.len() < 64 {
            p.push(h);
        }
    }
}

fn recycle(p: Pending, pool: &Pool) {
    for tw in p.tags.into_iter().flatten() {
        give_back(pool, tw.hist);
    }
}

fn write_window<W: Write>(
    aw: &mut ArchiveWriter<W>,
    p: &Pending,
    cfg: &WriterCfg,
    empty: &Histogram<u64>,
    res: &mut WriterResult,
    feed: Option<&mut Feed>,
) -> Result<()> {
    let start_s = p.start.saturating_sub(cfg.rec_start_ns) as f64 / 1e9;
    let len_s = (p.end - p.start) as f64 / 1e9;
    for (i, o) in cfg.out.iter().enumerate() {
        match &p.tags[i] {
            Some(tw) => {
                aw.write_hdr(start_s, len_s, Some(&o.name), &tw.hist, Some(tw.max))?;
                res.counts[i] += tw.count;
                res.bytes[i] += tw.bytes;
            }
            None => aw.write_hdr(start_s, len_s, Some(&o.name), empty, Some(0))?,
        }
    }
    // the window's context right after its lines (readers of HdrHistogram logs skip it)
    if let Some(c) = feed.and_then(|f| f.window(p.start, p.end)) {
        let out = aw.get_mut();
        writeln!(out, "{}", c.to_line())?;
        out.flush()?;
    }
    res.windows += 1;
    res.end_ns = res.end_ns.max(p.end);
    Ok(())
}

/// A window's value of a steady-state metric, over the run's directions (not `.svc`, not
/// `sync`, not scoped).
fn metric(m: Metric, p: &Pending, out: &[OutTag], len_s: f64) -> f64 {
    let dirs = p.tags.iter().zip(out).filter(|(_, o)| o.whole && o.tag < SYNC).filter_map(|(tw, _)| tw.as_ref());
    let (mut count, mut bytes, mut sum) = (0u64, 0u64, 0u64);
    for tw in dirs {
        count += tw.count;
        bytes += tw.bytes;
        sum += tw.sum;
    }
    match m {
        Metric::Iops => count as f64 / len_s,
        Metric::Bw => bytes as f64 / len_s,
        Metric::Lat => {
            if count == 0 {
                f64::NAN
            } else {
                sum as f64 / count as f64
            }
        }
    }
}

/// The live progress line on stderr.
struct Progress {
    on: bool,
    tty: bool,
    last_print_ns: u64,
    total_s: Option<f64>,
    total_ios: Option<u64>,
    rec_start_ns: u64,
    printed: bool,
}

impl Progress {
    fn new(cfg: &WriterCfg) -> Progress {
        Progress {
            on: !cfg.quiet,
            tty: std::io::stderr().is_terminal(),
            last_print_ns: 0,
            total_s: cfg.w.runtime_ns.map(|n| n as f64 / 1e9),
            total_ios: cfg.w.ios,
            rec_start_ns: cfg.rec_start_ns,
            printed: false,
        }
    }

    fn window(&mut self, p: &Pending, len_s: f64, out: &[OutTag], res: &WriterResult) {
        if !self.on {
            return;
        }
        // At most one line a second, however short the windows.
        if self.printed && p.end.saturating_sub(self.last_print_ns) < 1_000_000_000 {
            return;
        }
        self.last_print_ns = p.end;
        self.printed = true;
        let elapsed = (p.end - self.rec_start_ns) as f64 / 1e9;
        let done_ios: u64 = res.counts.iter().zip(out).filter(|(_, o)| o.whole && o.tag < SYNC).map(|(c, _)| c).sum();
        let eta = match (self.total_s, self.total_ios) {
            (Some(t), _) => Some((t - elapsed).max(0.0)),
            (None, Some(n)) if done_ios > 0 => Some((n.saturating_sub(done_ios)) as f64 * elapsed / done_ios as f64),
            _ => None,
        };
        let mut line = format!("[{elapsed:.0}s");
        match eta {
            Some(e) => line.push_str(&format!(" eta {e:.0}s]")),
            None => line.push(']'),
        }
        for (i, o) in out.iter().enumerate() {
            if !o.whole || o.tag >= SYNC {
                continue;
            }
            let t = o.tag;
            match &p.tags[i] {
                Some(tw) if len_s > 0.0 => {
                    let h = Hist::from_hdr(&tw.hist);
                    let q = |k| value_at(&h, &Level::nines(k)).map_or("-".to_string(), format_ns);
                    line.push_str(&format!(
                        " {} {} IOPS {:.1} MB/s p99 {} p99.99 {}",
                        TAGS[t],
                        format_rate(tw.count as f64 / len_s),
                        tw.bytes as f64 / len_s / 1e6,
                        q(2),
                        q(4)
                    ));
                }
                _ => line.push_str(&format!(" {} 0 IOPS (stalled)", TAGS[t])),
            }
            line.push_str(" |");
        }
        let line = line.trim_end_matches(" |");
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn finish(&mut self) {
        if self.on && self.tty && self.printed {
            crate::diag!("");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::Given;
    use crate::cli::{Cli, Cmd};
    use crate::run::job::TagWindow;
    use clap::Parser;
    use nines_core::archive::Header;
    use std::sync::{Arc, Mutex};

    fn workload(extra: &[&str]) -> Workload {
        let mut v = vec!["nines", "run", "--target", "t", "-o", "o.hlog", "--seed", "1"];
        v.extend_from_slice(extra);
        let Cmd::Run(a) = Cli::try_parse_from(v).unwrap().cmd else { panic!() };
        Workload::from_config(&a.config(&Given::default())).unwrap()
    }

    fn tw(values: &[u64]) -> TagWindow {
        let mut hist = new_hist();
        for &v in values {
            hist.record(v).unwrap();
        }
        TagWindow {
            max: values.iter().copied().max().unwrap_or(0),
            count: values.len() as u64,
            bytes: 4096 * values.len() as u64,
            sum: values.iter().sum(),
            hist,
        }
    }

    fn window(job: u32, index: u64, read: &[u64], write: &[u64]) -> Msg {
        let mut tags: Vec<Option<TagWindow>> = (0..NT).map(|_| None).collect();
        if !read.is_empty() {
            tags[0] = Some(tw(read));
        }
        if !write.is_empty() {
            tags[1] = Some(tw(write));
        }
        let s = 1_000_000_000 * index;
        Msg::Window(Box::new(JobWindow { job, index, start_ns: s, end_ns: s + 1_000_000_000, tags }))
    }

    #[test]
    fn merges_jobs_and_writes_every_tag_of_every_window() {
        let w = Arc::new(workload(&["--rw", "randrw"]));
        let (tx, rx) = std::sync::mpsc::channel();
        // Job 1 sends its windows out of order with job 0 and ends after window 0;
        // window 1 has no writes at all and window 2 no I/O (a stall).
        tx.send(window(1, 0, &[300, 7000], &[50])).unwrap();
        tx.send(window(0, 0, &[100, 200], &[])).unwrap();
        tx.send(Msg::Done { job: 1, last_index: Some(0), error: None }).unwrap();
        tx.send(window(0, 1, &[150], &[])).unwrap();
        tx.send(window(0, 2, &[], &[])).unwrap();
        tx.send(Msg::Done { job: 0, last_index: Some(2), error: None }).unwrap();
        drop(tx);
        let mut aw = ArchiveWriter::new(Vec::new(), &Header { start_time: 1000.0, meta: Default::default() }).unwrap();
        let mut cfg = WriterCfg::plain(w, 0, true, Arc::new(Mutex::new(Vec::new())));
        cfg.jobs = 2;
        cfg.routes = vec![cfg.routes[0].clone(); 2];
        let res = writer_loop(rx, &mut aw, cfg).unwrap();
        assert_eq!(res.windows, 3);
        assert_eq!(res.counts[0], 5);
        assert_eq!(res.counts[1], 1);
        let bytes = aw.into_inner();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("Tag=")).collect();
        assert_eq!(lines.len(), 6, "{text}");
        // The exact max (7000 ns = 0.007 ms) is in the informative column.
        assert!(lines[0].starts_with("Tag=read,0.000,1.000,0.007,"), "{}", lines[0]);
        assert!(lines[5].starts_with("Tag=write,2.000,1.000,0.000,"), "{}", lines[5]);
        let run = nines_core::archive::read("w.hlog", &bytes).unwrap();
        let counts: Vec<u64> = run.windows.iter().map(|w| w.hist.count()).collect();
        assert_eq!(counts, [4, 1, 1, 0, 0, 0]);
    }

    #[test]
    fn steady_state_sets_the_stop_flag() {
        // STOP is process-wide and job-loop tests read it: hold their lock, reset it after.
        let _stop = crate::run::job::STOP_TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let w = Arc::new(workload(&["--steady", "iops:5%", "--steady-window", "3s"]));
        let (tx, rx) = std::sync::mpsc::channel();
        for (i, n) in [50usize, 10, 100, 101, 99, 100].iter().enumerate() {
            tx.send(window(0, i as u64, &vec![1000; *n], &[])).unwrap();
        }
        tx.send(Msg::Done { job: 0, last_index: Some(5), error: None }).unwrap();
        drop(tx);
        let mut aw = ArchiveWriter::new(Vec::new(), &Header::default()).unwrap();
        let cfg = WriterCfg::plain(w, 0, true, Arc::new(Mutex::new(Vec::new())));
        let res = writer_loop(rx, &mut aw, cfg).unwrap();
        let st = res.steady.unwrap();
        // Windows 2..4 (100, 101, 99 IOPS) are the first three within 5% of their mean;
        // window 4 ends at 5 s.
        let SteadyOutcome::Reached { at_s, windows, .. } = &st else { panic!("not reached: {st:?}") };
        assert_eq!((*at_s, *windows), (5.0, 3));
        let meta = st.to_meta();
        assert_eq!((meta.reached, meta.at_s, meta.windows), (true, Some(5.0), Some(3)));
        STOP.store(0, Ordering::Relaxed);
    }
}
