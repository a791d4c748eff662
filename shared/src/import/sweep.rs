//! Parameter sweeps: a set of fio results that differ in one or more parameters (a baseline
//! and a patched storage stack run with fio threads from 1 to 1024, one result a folder such
//! as `fio-16-jobs/fio.json`), labelled by what differs.
//!
//! The parameters are the fio options whose values differ between the runs (the document's
//! `global options` merged with its first job's `job options`; paths and log names are left
//! out). When no option differs (fio does not always echo command-line options), the numbers
//! in the file paths that differ are used, named after their path component
//! (`fio-*-jobs`). Each run gets `meta.param` (`{"numjobs": 16}`) and a name from it
//! (`numjobs=16`), and the runs are ordered by their parameters, ready for comparison.

use serde_json::{Map, Value};

use crate::run::Run;

/// Options that differ between runs of a sweep for reasons other than the sweep.
const IGNORED: &[&str] = &[
    "filename",
    "directory",
    "name",
    "output",
    "write_lat_log",
    "write_hist_log",
    "write_bw_log",
    "write_iops_log",
    "per_job_logs",
    "filename_format",
];

fn options_of(run: &Run) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(doc) = run.meta.fio.first() else { return out };
    if let Some(Value::Object(g)) = doc.get("global options") {
        out.extend(g.clone());
    }
    if let Some(Value::Object(j)) = doc.get("jobs").and_then(|j| j.get(0)).and_then(|j| j.get("job options")) {
        out.extend(j.clone());
    }
    for k in IGNORED {
        out.remove(*k);
    }
    out
}

/// A parameter value: a number when the text is one.
fn value_of(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::from(i);
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => Value::from(f),
        _ => Value::from(text),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Split a path component into its text with numbers replaced by `*`, and the numbers.
fn shape(component: &str) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut nums = Vec::new();
    let mut cur = String::new();
    for ch in component.chars() {
        if ch.is_ascii_digit() {
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                nums.push(std::mem::take(&mut cur));
                s.push('*');
            }
            s.push(ch);
        }
    }
    if !cur.is_empty() {
        nums.push(cur);
        s.push('*');
    }
    (s, nums)
}

fn path_params(runs: &[Run]) -> Vec<Map<String, Value>> {
    let parts: Vec<Vec<(String, Vec<String>)>> =
        runs.iter().map(|r| r.source.split(['/', '\\']).filter(|c| !c.is_empty()).map(shape).collect()).collect();
    let mut out = vec![Map::new(); runs.len()];
    let Some(first) = parts.first() else { return out };
    let same_shape = parts.iter().all(|p| p.len() == first.len() && p.iter().zip(first).all(|(a, b)| a.0 == b.0));
    if !same_shape {
        return out;
    }
    for (ci, (shape_text, nums)) in first.iter().enumerate() {
        for ni in 0..nums.len() {
            if parts.iter().all(|p| p[ci].1[ni] == nums[ni]) {
                continue;
            }
            let key = if nums.len() == 1 { shape_text.clone() } else { format!("{shape_text}#{}", ni + 1) };
            for (o, p) in out.iter_mut().zip(&parts) {
                o.insert(key.clone(), value_of(&p[ci].1[ni]));
            }
        }
    }
    out
}

/// Label the runs of a sweep by the parameters that differ, and order them by those.
pub fn label(mut runs: Vec<Run>) -> Vec<Run> {
    let opts: Vec<Map<String, Value>> = runs.iter().map(options_of).collect();
    let mut keys: Vec<String> = opts.iter().flat_map(|o| o.keys().cloned()).collect();
    keys.sort();
    keys.dedup();
    let varying: Vec<String> = keys
        .into_iter()
        .filter(|k| {
            let first = opts[0].get(k);
            opts.iter().any(|o| o.get(k) != first)
        })
        .collect();
    let params: Vec<Map<String, Value>> = if varying.is_empty() {
        path_params(&runs)
    } else {
        opts.iter()
            .map(|o| varying.iter().map(|k| (k.clone(), o.get(k).map_or(Value::Null, |v| value_of(&text_of(v))))).collect())
            .collect()
    };
    for (r, p) in runs.iter_mut().zip(params) {
        if p.is_empty() {
            continue;
        }
        r.name = p.iter().map(|(k, v)| format!("{k}={}", text_of(v))).collect::<Vec<_>>().join(", ");
        r.meta.param = p;
    }
    crate::sort::sort_by(&mut runs, |a, b| {
        let (pa, pb) = (&a.meta.param, &b.meta.param);
        match (pa.is_empty(), pb.is_empty()) {
            (false, false) => {
                for (k, va) in pa {
                    let vb = pb.get(k);
                    let o = match (va.as_f64(), vb.and_then(Value::as_f64)) {
                        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
                        _ => text_of(va).cmp(&vb.map(text_of).unwrap_or_default()),
                    };
                    if o != std::cmp::Ordering::Equal {
                        return o;
                    }
                }
                std::cmp::Ordering::Equal
            }
            _ => std::cmp::Ordering::Equal,
        }
    });
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(source: &str, numjobs: &str) -> Run {
        let meta = crate::meta::tests::meta(
            json!({"fio": [{ "global options": {"rw": "write", "rate_iops": "64"}, "jobs": [{ "job options": {"numjobs": numjobs, "filename": source} }] }]}),
        );
        Run { name: "fio".into(), source: source.into(), meta, ..Run::default() }
    }

    #[test]
    fn labels_by_differing_option_in_numeric_order() {
        let runs = label(vec![run("a/16/fio.json", "16"), run("a/2/fio.json", "2"), run("a/1024/fio.json", "1024")]);
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["numjobs=2", "numjobs=16", "numjobs=1024"]);
        assert_eq!(Value::Object(runs[1].meta.param.clone()), json!({"numjobs": 16}));
    }

    #[test]
    fn falls_back_to_paths() {
        let runs = label(vec![
            run("res/1-hdd/fio-16-jobs/fio.json", "1"),
            run("res/1-hdd/fio-2-jobs/fio.json", "1"),
            run("res/4-hdd/fio-2-jobs/fio.json", "1"),
        ]);
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["*-hdd=1, fio-*-jobs=2", "*-hdd=1, fio-*-jobs=16", "*-hdd=4, fio-*-jobs=2"]);
    }
}
