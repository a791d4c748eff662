//! How much of each run a report carries. By default a run travels in its compact form
//! ([`nines_core::compact`]): every point the runtime and rate charts draw, exact at any zoom,
//! and its windows merged per tag in groups, the finest that keep the file within its size
//! limit. `--full` carries the archives whole instead.

use std::collections::HashMap;

use anyhow::{bail, Result};
use nines_core::compact::Builder;

use super::input::Input;

/// What the summary says of a run carried whole.
pub const FULL: &str = "the full archive";
/// The default limit of a report file: what mail systems take as an attachment.
pub const DEFAULT_MAX: u64 = 20_000_000;
/// Without `--max-size`, a run's compact form keeps to about this much per run-hour (this
/// much for a run under an hour), so that a report of a few runs stays small to send...
pub const DEFAULT_PER_HOUR: u64 = 500_000;
/// ...but its histograms are not coarser than this (seconds a group covers) while the file
/// limit allows: a minute, the round of SNIA PTS steady-state measurement.
pub const DEFAULT_COARSEST_S: f64 = 60.0;

/// The file's size limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// `--max-size`: filled as finely as it allows; an error when even the coarsest
    /// groups do not fit.
    Given(u64),
    /// [`DEFAULT_MAX`], [`DEFAULT_PER_HOUR`] and [`DEFAULT_COARSEST_S`]: a warning when the
    /// file limit cannot be kept.
    Default,
}

/// What a payload adds to the page: gzip (which does not shrink a compact form, already
/// DEFLATE'd) and base64.
fn cost(len: usize) -> u64 {
    let gz = len as u64 + len as u64 / 16_000 * 5 + 64;
    gz.div_ceil(3) * 4
}

/// Compact forms of the runs, encoded once each when first needed.
struct Forms<'a> {
    builders: Vec<Builder<'a>>,
    sizes: Vec<Vec<usize>>,
    encoded: HashMap<(usize, usize), Vec<u8>>,
}

impl Forms<'_> {
    /// Cost in the page of run `i` with group size index `k`.
    fn cost(&mut self, inputs: &[Input], i: usize, k: usize) -> Result<u64> {
        if !self.encoded.contains_key(&(i, k)) {
            let bytes = self.builders[i].build(self.sizes[i][k]).write().map_err(|e| anyhow::anyhow!("{}: {e}", inputs[i].name))?;
            self.encoded.insert((i, k), bytes);
        }
        Ok(cost(self.encoded[&(i, k)].len()))
    }

    fn seconds(&self, i: usize, k: usize) -> f64 {
        self.builders[i].window_s() * self.sizes[i][k] as f64
    }
}

/// The index into `sizes` (group sizes in windows of `window_s`, finest first) of the
/// default group: the finest whose form costs at most [`DEFAULT_PER_HOUR`] per run-hour,
/// or if that is coarser, the coarsest within [`DEFAULT_COARSEST_S`].
fn default_index(window_s: f64, sizes: &[usize], duration_s: f64, mut cost: impl FnMut(usize) -> Result<u64>) -> Result<usize> {
    let allowance = (DEFAULT_PER_HOUR as f64 * (duration_s / 3600.0).max(1.0)) as u64;
    let mut k = sizes.len() - 1;
    while k > 0 && cost(k - 1)? <= allowance {
        k -= 1;
    }
    while k > 0 && window_s * sizes[k] as f64 > DEFAULT_COARSEST_S {
        k -= 1;
    }
    Ok(k)
}

/// A run's compact form with the default group (as a report without `--max-size` takes
/// it) and every recorded window beside (sites and `nines view` fetch those of the groups a
/// range cuts), and what it carries, for the summary and sites.
/// With `group_s`, of that many seconds (whole windows) instead.
pub fn default_compact(run: &nines_core::run::Run, group_s: Option<f64>) -> Result<(Vec<u8>, String)> {
    let b = Builder::new(run);
    let sizes = match group_s {
        Some(s) if b.window_s() > 0.0 => vec![((s / b.window_s()).round() as usize).max(1)],
        Some(_) => vec![1],
        None => b.group_sizes(),
    };
    let mut forms: HashMap<usize, Vec<u8>> = HashMap::new();
    let mut form = |k: usize| -> Result<u64> {
        if let std::collections::hash_map::Entry::Vacant(e) = forms.entry(k) {
            e.insert(b.build(sizes[k]).write().map_err(|e| anyhow::anyhow!("{}: {e}", run.source))?);
        }
        Ok(cost(forms[&k].len()))
    };
    let k = default_index(b.window_s(), &sizes, run.duration_s(), &mut form)?;
    // the group chosen, and every recorded window beside: a page fetches the windows of the
    // groups a range cuts, so that the range is exact at any window edge
    if sizes[k] == 1 {
        form(k)?;
        return Ok((forms.remove(&k).expect("encoded"), b.group_text(1)));
    }
    let bytes = b.build_exact(sizes[k]).write().map_err(|e| anyhow::anyhow!("{}: {e}", run.source))?;
    Ok((bytes, format!("{}, and every window", b.group_text(sizes[k]))))
}

/// Choose each run's group size, put its compact form into `inputs`' bytes, and render the
/// page with `render`.
/// With `group_s`, every run's histograms are of that many seconds (whole windows).
pub fn fit(inputs: &mut [Input], limit: Limit, group_s: Option<f64>, render: impl Fn(&[Input]) -> Result<String>) -> Result<String> {
    let max = match limit {
        Limit::Given(m) => m,
        Limit::Default => DEFAULT_MAX,
    };
    // the page without runs
    let bare: Vec<Input> =
        inputs.iter().map(|i| Input { name: i.name.clone(), bytes: Vec::new(), run: i.run.clone(), carries: String::new() }).collect();
    let fixed = render(&bare)?.len() as u64;
    drop(bare);
    let runs: Vec<nines_core::run::Run> = inputs.iter().map(|i| i.run.clone()).collect();
    let builders: Vec<Builder> = runs.iter().map(Builder::new).collect();
    let sizes: Vec<Vec<usize>> = builders
        .iter()
        .map(|b| match group_s {
            Some(s) if b.window_s() > 0.0 => vec![((s / b.window_s()).round() as usize).max(1)],
            Some(_) => vec![1],
            None => b.group_sizes(),
        })
        .collect();
    let mut f = Forms { builders, sizes, encoded: HashMap::new() };
    let n = inputs.len();
    let top: Vec<usize> = f.sizes.iter().map(|s| s.len() - 1).collect();
    let mut k = top.clone();
    match limit {
        Limit::Default => {
            for i in 0..n {
                let (window_s, duration_s) = (f.builders[i].window_s(), inputs[i].run.duration_s());
                let sizes = f.sizes[i].clone();
                k[i] = default_index(window_s, &sizes, duration_s, |j| f.cost(inputs, i, j))?;
            }
        }
        Limit::Given(_) => {
            // refine the coarsest run (in seconds a group covers) while the file has room
            let mut done = vec![false; n];
            while let Some(i) = (0..n).filter(|&i| !done[i] && k[i] > 0).max_by(|&a, &b| f.seconds(a, k[a]).total_cmp(&f.seconds(b, k[b])))
            {
                let mut total = fixed;
                for (j, &kj) in k.iter().enumerate() {
                    total += f.cost(inputs, j, kj)?;
                }
                if total - f.cost(inputs, i, k[i])? + f.cost(inputs, i, k[i] - 1)? <= max {
                    k[i] -= 1;
                } else {
                    done[i] = true;
                }
            }
        }
    }
    // then coarsen the largest run until the file fits, rendering to be sure
    loop {
        for i in 0..n {
            f.cost(inputs, i, k[i])?;
            inputs[i].bytes = f.encoded[&(i, k[i])].clone();
            inputs[i].carries =
                format!("compact form: every chart point exact; histograms of {}", f.builders[i].group_text(f.sizes[i][k[i]]));
        }
        let page = render(inputs)?;
        let mut largest: Option<(u64, usize)> = None;
        for i in (0..n).filter(|&i| k[i] < top[i]) {
            let c = f.cost(inputs, i, k[i])?;
            if largest.is_none_or(|(l, _)| c > l) {
                largest = Some((c, i));
            }
        }
        match largest {
            Some((_, i)) if page.len() as u64 > max => k[i] += 1,
            _ if page.len() as u64 > max => {
                let why = format!("the report would weigh {} with its runs' coarsest histograms, above {}", mb(page.len() as u64), mb(max));
                match limit {
                    Limit::Given(_) if group_s.is_some() => bail!("--max-size: {why}; give a larger --group or --max-size, or fewer runs"),
                    Limit::Given(_) => bail!("--max-size: {why}; give a larger --max-size, fewer runs, or --full"),
                    Limit::Default => {
                        crate::diag!("nines: warning: {why}, what mail systems commonly accept; give --max-size to allow it");
                        return Ok(page);
                    }
                }
            }
            _ => return with_windows(inputs, &f, &k, page, max, &render),
        }
    }
}

/// A report that fits, given each run's recorded windows beside its groups while the file
/// still fits (the runs whose windows cost least first): a range is then exact at any window
/// edge, not only at the groups' (the summary says which runs carry them).
fn with_windows(
    inputs: &mut [Input],
    f: &Forms,
    k: &[usize],
    mut page: String,
    max: u64,
    render: &impl Fn(&[Input]) -> Result<String>,
) -> Result<String> {
    let mut exact: Vec<(u64, usize, Vec<u8>)> = Vec::new();
    // a run carried with every window as a group is exact already
    for (i, input) in inputs.iter().enumerate().filter(|&(i, _)| f.sizes[i][k[i]] > 1) {
        let b = f.builders[i].build_exact(f.sizes[i][k[i]]).write().map_err(|e| anyhow::anyhow!("{}: {e}", input.name))?;
        exact.push((cost(b.len()).saturating_sub(cost(input.bytes.len())), i, b));
    }
    exact.sort_by_key(|e| e.0);
    let mut room = max.saturating_sub(page.len() as u64);
    let mut added = Vec::new();
    for (extra, i, bytes) in exact {
        if extra > room {
            break;
        }
        room -= extra;
        let was = std::mem::replace(&mut inputs[i].bytes, bytes);
        added.push((i, was, inputs[i].carries.clone()));
        inputs[i].carries.push_str(", and every window (a range is exact at any window edge)");
    }
    // the costs are estimates: the page rendered decides, dropping the last windows added
    while !added.is_empty() {
        let with = render(inputs)?;
        if with.len() as u64 <= max {
            page = with;
            break;
        }
        let (i, bytes, carries) = added.pop().expect("not empty");
        inputs[i].bytes = bytes;
        inputs[i].carries = carries;
    }
    Ok(page)
}

/// Megabytes (10^6 bytes, as mail systems state their limits), to one decimal.
fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}
