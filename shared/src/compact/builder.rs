//! Compact forms of a run at several groupings, its points computed once.

use std::borrow::Cow;

use super::points::traces_of;
use super::{without_windows, Compact, TagGroups, Trace};
use crate::hist::Accumulator;
use crate::pyramid::Pyramid;
use crate::run::{is_direction, Run, Window};
use crate::series::Direction;

/// The directions of a run a compact form carries: every tag in order of first appearance,
/// then "all" when the run has direction tags.
fn directions(run: &Run) -> Vec<Direction> {
    let tags = run.tags();
    let any_direction = tags.iter().any(|t| is_direction(t.as_deref()));
    let mut out: Vec<Direction> = tags.into_iter().map(Direction::Tag).collect();
    if any_direction {
        out.push(Direction::All);
    }
    out
}

pub(super) fn group_text(traces: &[Trace], group: usize) -> String {
    let length = traces.iter().find(|t| matches!(t.dir, Direction::Tag(_))).and_then(|t| t.slots.first()).map_or(0.0, |s| s.length_s);
    let secs = crate::units::format_duration((length * group as f64 * 1e9).round() as u64);
    if group == 1 {
        format!("every window ({secs})")
    } else {
        format!("{secs} (groups of {group} windows)")
    }
}

/// Group sizes offered, in windows: with 1 s windows the round durations of 1 s to a day,
/// then doublings, up to the first that holds every window.
fn group_sizes(windows: usize) -> Vec<usize> {
    const ROUND: [usize; 17] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400];
    let mut out: Vec<usize> = Vec::new();
    for g in ROUND.into_iter().chain((0..).map(|k| 172_800usize.saturating_mul(1 << k.min(40)))) {
        out.push(g);
        if g >= windows || g == usize::MAX {
            break;
        }
    }
    out
}

/// Builds compact forms of one run at several groupings, computing its points once.
pub struct Builder<'a> {
    run: &'a Run,
    pyramids: Vec<(Direction, Pyramid)>,
    traces: Vec<Trace>,
}

impl<'a> Builder<'a> {
    pub fn new(run: &'a Run) -> Builder<'a> {
        // build() merges each group once: no stored levels needed
        let pyramids: Vec<(Direction, Pyramid)> = directions(run).into_iter().map(|d| (d.clone(), Pyramid::unstored(run, &d))).collect();
        let traces = traces_of(run, &pyramids);
        Builder { run, pyramids, traces }
    }

    /// The group sizes worth offering, finest first; the last holds every window of a tag.
    pub fn group_sizes(&self) -> Vec<usize> {
        group_sizes(self.pyramids.iter().map(|(_, p)| p.slots().len()).max().unwrap_or(0))
    }

    /// The length of a tag's first window, in seconds (0 without windows).
    pub fn window_s(&self) -> f64 {
        self.traces.iter().find(|t| matches!(t.dir, Direction::Tag(_))).and_then(|t| t.slots.first()).map_or(0.0, |s| s.length_s)
    }

    /// The coarsest group size of [`Builder::group_sizes`] whose groups cover at most
    /// `seconds` (1: every window, when even one window is longer).
    pub fn group_within(&self, seconds: f64) -> usize {
        let w = self.window_s();
        self.group_sizes().into_iter().filter(|&g| g == 1 || w * g as f64 <= seconds).max().unwrap_or(1)
    }

    /// [`Compact::group_text`] of a group size.
    pub fn group_text(&self, group: usize) -> String {
        group_text(&self.traces, group.max(1))
    }

    /// The compact form with windows merged in groups of `group` per tag.
    pub fn build(&self, group: usize) -> Compact {
        let group = group.max(1);
        let run = self.run;
        let mut acc = None;
        let per_tag: Vec<Vec<Window>> = self
            .pyramids
            .iter()
            .filter_map(|(d, p)| match d {
                Direction::Tag(t) => Some(
                    (0..p.slots().len().div_ceil(group))
                        .filter_map(|i| {
                            let s = group_of(run, p, i * group, group, &mut acc)?;
                            Some(Window { start_s: s.start_s, length_s: s.length_s, tag: t.clone(), hist: s.hist.into_owned() })
                        })
                        .collect(),
                ),
                Direction::All => None,
            })
            .collect();
        let tags: Vec<Option<String>> = self
            .pyramids
            .iter()
            .filter_map(|(d, _)| match d {
                Direction::Tag(t) => Some(t.clone()),
                Direction::All => None,
            })
            .collect();
        let groups: Vec<TagGroups> = tags.into_iter().zip(per_tag).map(|(t, w)| TagGroups::new(t, w)).collect();
        // decoded groups cannot fail to merge
        let whole: Vec<Window> = groups.iter().filter_map(|g| g.whole(None).ok().flatten()).collect();
        Compact {
            run: Run { windows: whole, context: run.context.clone(), ..without_windows(run) },
            group,
            windows: run.windows.len(),
            context_group: 1,
            traces: self.traces.clone(),
            groups,
            groups_at: None,
            edges: None,
            windows_at: std::sync::OnceLock::new(),
        }
    }

    /// [`Builder::build`], carrying beside the groups every recorded window of each tag, so
    /// that a range is exact at any window edge (see `edges.rs`).
    pub fn build_exact(&self, group: usize) -> Compact {
        let hists = self
            .pyramids
            .iter()
            .filter_map(|(d, p)| match d {
                Direction::Tag(t) => {
                    Some((t.clone(), (0..p.slots().len()).filter_map(|j| Some(p.group(self.run, j, 1)?.hist.into_owned())).collect()))
                }
                Direction::All => None,
            })
            .collect();
        self.build(group).with_windows_of(hists)
    }
}

/// [`Pyramid::group`]: the exact merge of `n` slots of `p` from slot `first`, with the counters
/// of `acc` reused from group to group when the windows share a layout (the same sums).
fn group_of<'a>(run: &'a Run, p: &'a Pyramid, first: usize, n: usize, acc: &mut Option<Accumulator>) -> Option<crate::pyramid::Span<'a>> {
    let slots = p.slots().get(first..first.checked_add(n)?.min(p.slots().len()))?;
    let (a, b) = (slots.first()?, slots.last()?);
    let layout = run.windows[*a.windows.first()?].hist.layout();
    let windows = slots.iter().flat_map(|s| &s.windows).map(|&i| &run.windows[i].hist);
    if n == 1 || !windows.clone().all(|h| h.layout() == layout) {
        return p.group(run, first, n);
    }
    let acc = match acc {
        Some(acc) if acc.layout() == layout => acc,
        _ => acc.insert(Accumulator::new(layout)),
    };
    windows.for_each(|h| acc.add(h));
    let hist = Cow::Owned(acc.take());
    Some(crate::pyramid::Span { start_s: a.start_s, length_s: b.start_s + b.length_s - a.start_s, ios_before: a.ios_before, hist })
}
