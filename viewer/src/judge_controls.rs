//! The judge panels' controls (compare's baselines, the sweep's parameter and view, the
//! steady-state check's run, track and rounds), as [`crate::tree`] nodes: the page mounts
//! them and reads their `data-act` in one change handler a panel.

use crate::index_set::IndexSet;

use crate::state::{SteadyView, TRACKS};
use crate::tree::{el, text, tx, Node};

/// A checkbox per run (checked: a baseline), and candidates compared as one set.
pub fn compare(names: &[String], base: &IndexSet, cset: bool) -> Vec<Node> {
    let mut boxes: Vec<Node> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut attrs = vec![
                ("type", "checkbox".to_string()),
                ("data-testid", format!("baseline-{i}")),
                ("data-act", "base".into()),
                ("data-run", i.to_string()),
            ];
            if base.contains(&i) {
                attrs.push(("checked", String::new()));
            }
            el(
                "label",
                vec![("class", "check".into()), ("title", "baseline run (several: compared by their run-to-run band)".into())],
                vec![el("input", attrs, vec![]), text(name.clone())],
            )
        })
        .collect();
    let mut attrs = vec![("type", "checkbox".to_string()), ("data-testid", "candidate-set".into()), ("data-act", "cset".into())];
    if cset {
        attrs.push(("checked", String::new()));
    }
    boxes.push(el(
        "label",
        vec![
            ("class", "check".into()),
            ("title", "compare the other shown runs as one set of repeats (their run-to-run band), not one by one".into()),
        ],
        vec![el("input", attrs, vec![]), text("candidates as one set")],
    ));
    boxes
}

/// The sweep's view (by parameter or the latency curve), its parameter (the loaded runs'
/// `params` offered) and the log IOPS axis of the curve.
pub fn sweep(param: Option<&str>, params: &[String], curve_on: bool, curve_log: bool) -> Vec<Node> {
    let input = el(
        "input",
        vec![
            ("type", "text".into()),
            ("list", "nines-params".into()),
            ("size", "14".into()),
            ("data-testid", "sweep-param".into()),
            ("data-act", "sweep".into()),
            ("value", param.unwrap_or_default().to_string()),
        ],
        vec![],
    );
    let list = el(
        "datalist",
        vec![("id", "nines-params".into())],
        params.iter().map(|p| el("option", vec![("value", p.clone())], vec![])).collect(),
    );
    let opt = |v: &str, label: &str, sel: bool| {
        let mut a = vec![("value", v.to_string())];
        if sel {
            a.push(("selected", String::new()));
        }
        tx("option", a, label.to_string())
    };
    let view = el(
        "select",
        vec![("data-testid", "sweep-view".into()), ("data-act", "sweep-view".into())],
        vec![opt("param", "parameter", !curve_on), opt("curve", "latency curve", curve_on)],
    );
    let mut log = vec![("type", "checkbox".to_string()), ("data-testid", "curve-log".into()), ("data-act", "curve-log".into())];
    if curve_log {
        log.push(("checked", String::new()));
    }
    let log = el("label", vec![("class", "check".into())], vec![el("input", log, vec![]), text("log IOPS")]);
    vec![view, tx("span", vec![("class", "glabel".into())], "parameter".to_string()), input, list, log]
}

/// The steady-state check's run, tracked result, rounds in its window and round length.
pub fn steady(names: &[String], ss: &SteadyView) -> Vec<Node> {
    let select = |id: &str, opts: Vec<(String, String, bool)>| {
        let options = opts
            .into_iter()
            .map(|(v, label, sel)| {
                let mut a = vec![("value", v)];
                if sel {
                    a.push(("selected", String::new()));
                }
                tx("option", a, label)
            })
            .collect();
        el("select", vec![("data-testid", format!("steady-{id}")), ("data-act", format!("ss-{id}"))], options)
    };
    let label = |s: &str| tx("span", vec![("class", "glabel".into())], s.to_string());
    let runs = names.iter().enumerate().map(|(i, n)| (i.to_string(), n.clone(), ss.run == i)).collect();
    let tracks = TRACKS.iter().map(|t| (t.to_string(), t.to_string(), ss.track == *t)).collect();
    let rounds = [0.0, 1.0, 5.0, 10.0, 30.0, 60.0]
        .iter()
        .map(|&r| (r.to_string(), if r == 0.0 { "each window".to_string() } else { format!("{r} s") }, ss.round_s.unwrap_or(0.0) == r))
        .collect();
    let n = el(
        "input",
        vec![
            ("type", "number".into()),
            ("min", "2".into()),
            ("max", "100".into()),
            ("data-testid", "steady-rounds".into()),
            ("data-act", "ss-rounds".into()),
            ("value", ss.rounds.to_string()),
        ],
        vec![],
    );
    vec![
        label("run"),
        select("run", runs),
        label("track"),
        select("track", tracks),
        label("rounds in window"),
        n,
        label("round"),
        select("round", rounds),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("run{i}")).collect()
    }

    fn page(nodes: Vec<Node>) -> Node {
        el("div", vec![], nodes)
    }

    /// The children of `n` as (value, text, selected).
    fn options(n: &Node) -> Vec<(String, String, bool)> {
        match n {
            Node::El { children, .. } => {
                children.iter().map(|o| (o.attr("value").unwrap_or("").to_string(), o.text(), o.attr("selected").is_some())).collect()
            }
            Node::Text(_) => vec![],
        }
    }

    fn selected(p: &Node, id: &str) -> Vec<String> {
        options(p.by_testid(id)[0]).into_iter().filter(|o| o.2).map(|o| o.1).collect()
    }

    #[test]
    fn the_baselines_checked_are_the_views_and_the_candidate_set_box_follows_cset() {
        let p = page(compare(&names(3), &[0, 2].into(), true));
        let checked = |id: &str| p.by_testid(id)[0].attr("checked").is_some();
        assert_eq!((checked("baseline-0"), checked("baseline-1"), checked("baseline-2")), (true, false, true));
        assert!(checked("candidate-set"));
        assert_eq!(p.by_testid("baseline-1")[0].attr("data-run"), Some("1"));
        assert!(p.text().contains("run1"));
        assert!(page(compare(&names(1), &IndexSet::new(), false)).by_testid("candidate-set")[0].attr("checked").is_none());
    }

    #[test]
    fn the_sweep_controls_offer_the_runs_parameters_and_select_the_view_shown() {
        let params = vec!["numjobs".to_string(), "iodepth".to_string()];
        let p = page(sweep(Some("iodepth"), &params, true, false));
        assert_eq!(p.by_testid("sweep-param")[0].attr("value"), Some("iodepth"));
        let Node::El { children, .. } = &p else { unreachable!() };
        let list = children.iter().find(|n| n.attr("id") == Some("nines-params")).unwrap();
        assert_eq!(options(list).into_iter().map(|o| o.0).collect::<Vec<_>>(), vec!["numjobs", "iodepth"]);
        assert_eq!(selected(&p, "sweep-view"), vec!["latency curve"]);
        assert!(p.by_testid("curve-log")[0].attr("checked").is_none());
        let p = page(sweep(None, &params, false, true));
        assert_eq!(selected(&p, "sweep-view"), vec!["parameter"]);
        assert_eq!(p.by_testid("sweep-param")[0].attr("value"), Some(""));
        assert!(p.by_testid("curve-log")[0].attr("checked").is_some());
    }

    #[test]
    fn the_steady_controls_select_the_views_run_track_and_round() {
        let ss = SteadyView { run: 1, track: "p99.9".into(), rounds: 7, round_s: Some(10.0) };
        let p = page(steady(&names(2), &ss));
        assert_eq!(selected(&p, "steady-run"), vec!["run1"]);
        assert_eq!(selected(&p, "steady-track"), vec!["p99.9"]);
        assert_eq!(selected(&p, "steady-round"), vec!["10 s"]);
        assert_eq!(p.by_testid("steady-rounds")[0].attr("value"), Some("7"));
        // each recorded window a round
        assert_eq!(selected(&page(steady(&names(2), &SteadyView::default())), "steady-round"), vec!["each window"]);
    }
}
