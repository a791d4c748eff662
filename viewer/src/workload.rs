//! The shown runs put together by workload, for run-to-run variability: a spread across runs
//! is a spread across repeats, and what a repeat is has one definition,
//! `nines_core::workload_key` (the one `nines compare` and `nines sweep` use): runs whose
//! stated settings agree. A setting a run does not state never makes it differ.

use nines_core::workload_key::{self, WorkloadKey};

/// The runs of one workload: their positions in the keys given, and what names the group
/// among the others (`rw=randrw qd=16`, the settings the groups differ in; empty with one
/// group).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub members: Vec<usize>,
    pub label: String,
}

/// The runs' groups, in the order of their first run, and the settings the runs differ in
/// (`workload_key::varying`; empty when they are all one workload).
pub fn groups(keys: &[WorkloadKey]) -> (Vec<Group>, Vec<&'static str>) {
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        // a run joins the first group it repeats every run of (a run stating nothing joins
        // the first group: nothing it states differs)
        match members.iter_mut().find(|g| g.iter().all(|&m| keys[m].repeats(k))) {
            Some(g) => g.push(i),
            None => members.push(vec![i]),
        }
    }
    let varying = workload_key::varying(keys);
    let groups = members
        .into_iter()
        .map(|m| {
            let label = if varying.is_empty() {
                String::new()
            } else {
                // each setting the groups differ in, as the first of the group's runs that
                // states it says it
                let parts = varying.iter().filter_map(|n| m.iter().map(|&i| keys[i].describe(&[n])).find(|d| !d.is_empty()));
                parts.collect::<Vec<_>>().join(" ")
            };
            Group { members: m, label }
        })
        .collect();
    (groups, varying)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use nines_core::meta::RunMeta;

    /// The key of the metadata `nines run` writes for a workload (the fields the key reads).
    pub(crate) fn key(rw: &str, qd: u32, sync: bool) -> WorkloadKey {
        let serde_json::Value::Object(m) = serde_json::json!({
            "workload": {"rw": rw, "read_pct": 70, "bs": "4KiB/100", "bs_bytes": [[4096, 100]], "qd": qd, "jobs": 1,
                         "direct": true, "sync": sync, "random_distribution": "random"},
            "engine": {"name": "io_uring"}
        }) else {
            unreachable!()
        };
        WorkloadKey::of(&RunMeta::from_map(m).unwrap())
    }

    #[test]
    fn runs_of_one_key_are_one_group_and_the_label_names_what_differs() {
        let (qd1, qd16, sync) = (key("randrw", 1, false), key("randrw", 16, false), key("randwrite", 1, true));
        let (g, varying) = groups(&[qd1.clone(), qd16.clone(), sync.clone(), qd16.clone()]);
        assert_eq!(varying, ["rw", "qd", "sync"]);
        let got: Vec<(Vec<usize>, &str)> = g.iter().map(|g| (g.members.clone(), g.label.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (vec![0], "rw=randrw qd=1 sync=false"),
                (vec![1, 3], "rw=randrw qd=16 sync=false"),
                (vec![2], "rw=randwrite qd=1 sync=true"),
            ]
        );
        // one workload: one group, no label
        let (g, varying) = groups(&[qd1.clone(), qd1.clone()]);
        assert!(varying.is_empty());
        assert_eq!(g, vec![Group { members: vec![0, 1], label: String::new() }]);
        // a run that states nothing (a latency list) differs from none
        let (g, _) = groups(&[WorkloadKey::default(), qd1, WorkloadKey::default()]);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].members, [0, 1, 2]);
    }
}
