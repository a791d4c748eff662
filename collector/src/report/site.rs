//! `nines site`: a static site (the viewer's shell and assets, the archives under `runs/`
//! with each run's compact form beside it, `manifest.json` listing them) for any static host.
//! The page draws from the compact forms (see [`nines_core::compact`]); a brushed range counts
//! the groups that start in it, as in a report. Adding runs to an existing site keeps the runs
//! its manifest already lists, and gives those without a compact form one.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::{bundle, file_name};
use crate::cli::report::SiteArgs;
use crate::load::load_with_bytes;
use crate::output::{self, Inputs, Replace};

/// A file name safe in a URL path and on every file system: letters, digits, `.`, `-`, `_`.
pub fn safe_name(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "run".into()
    } else {
        s
    }
}

/// The largest manifest.json read.
const MAX_MANIFEST: u64 = 64 << 20;
/// The viewer's files in a site's directory, replaced by each `nines site`.
const VIEWER_FILES: [&str; 7] =
    ["index.html", "style.css", "worker.js", "nines_viewer.js", "nines_viewer_bg.wasm", "nines_worker.js", "nines_worker_bg.wasm"];

/// The manifest's entries (`{"runs":[{"file":"runs/a.hlog","name":"a"}]}`), or none.
fn read_manifest(path: &Path) -> Result<Vec<Value>> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Vec::new());
    }
    let bytes = output::read_bounded(path, MAX_MANIFEST, "the manifest")?;
    let v: Value = serde_json::from_slice(&bytes).with_context(|| format!("'{}' is not valid JSON; fix or remove it", path.display()))?;
    let list = v.get("runs").and_then(Value::as_array).or_else(|| v.as_array());
    let Some(list) = list else { bail!("'{}' has no \"runs\" list; fix or remove it", path.display()) };
    Ok(list
        .iter()
        .map(|e| match e {
            Value::String(f) => json!({ "file": f }),
            e => e.clone(),
        })
        .collect())
}

/// Is the site's `index.html` nines' own (so the viewer's files may be replaced)?
fn ours(index: &Path) -> bool {
    output::read_bounded(index, 1 << 20, "index.html").is_ok_and(|b| {
        let t = String::from_utf8_lossy(&b);
        t.contains("<title>nines viewer</title>") && t.contains("id=\"nines-runs\"")
    })
}

/// Take the site directory's lock (an advisory `flock` on the directory itself), so that
/// concurrent `nines site` runs on one directory add their runs one after the other.
fn lock(dir: &Path) -> Result<File> {
    let f = File::open(dir).with_context(|| format!("could not open the site directory '{}'", dir.display()))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            crate::diag!("nines: waiting for another nines site writing '{}'", dir.display());
            f.lock().with_context(|| format!("could not lock the site directory '{}'", dir.display()))?;
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(anyhow::Error::new(e).context(format!("could not lock the site directory '{}'", dir.display())))
        }
    }
    Ok(f)
}

/// `nines site`.
pub fn run(args: &SiteArgs, out: &mut impl Write) -> Result<()> {
    let dir = &args.output;
    output::refuse_stdout(dir, "-o", "the site's directory")?;
    if dir.exists() && !dir.is_dir() {
        bail!("'{}' exists and is not a directory", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("could not create '{}'", dir.display()))?;
    let _lock = lock(dir)?;
    let runs_dir = dir.join("runs");
    match std::fs::symlink_metadata(&runs_dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            bail!("'{}' is not a directory (a link or a file); nines writes runs only into a real runs/ directory", runs_dir.display())
        }
        Err(_) => std::fs::create_dir(&runs_dir).with_context(|| format!("could not create '{}'", runs_dir.display()))?,
    }
    if !args.force && !ours(&dir.join("index.html")) {
        if let Some(f) = VIEWER_FILES.iter().map(|f| dir.join(f)).find(|p| std::fs::symlink_metadata(p).is_ok()) {
            bail!(
                "'{}' exists and is not nines' viewer; nines will not replace another site's files: give an empty or nines directory, or pass --force",
                f.display()
            );
        }
    }
    let read = Inputs::new(&args.files);
    let group_s = args.group;
    let mut new_files: Vec<String> = Vec::new();
    let manifest_path = dir.join("manifest.json");
    let mut entries = read_manifest(&manifest_path)?;
    let kept = entries.len();
    let mut added = 0;
    for f in &crate::load::each_file_once(&args.files) {
        let (run, bytes) = load_with_bytes(f)?;
        let name = safe_name(&file_name(f));
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => (&name[..i], &name[i..]),
            _ => (name.as_str(), ""),
        };
        // The same bytes under the same name are already there; another run with that name
        // (or anything else there, such as a link) gets a numbered one.
        let mut rel = format!("runs/{name}");
        let mut n = 1;
        loop {
            let p = dir.join(&rel);
            match std::fs::symlink_metadata(&p) {
                Err(_) => {
                    output::write_atomic(&p, &bytes, Replace::Never, &read)?;
                    break;
                }
                Ok(m) if m.is_file() && m.len() == bytes.len() as u64 && std::fs::read(&p).ok().as_deref() == Some(&bytes[..]) => break,
                Ok(_) => {}
            }
            n += 1;
            rel = format!("runs/{stem}-{n}{ext}");
        }
        if !entries.iter().any(|e| e.get("file").and_then(Value::as_str) == Some(rel.as_str())) {
            entries.push(json!({ "file": rel, "name": run.name }));
            added += 1;
        }
        new_files.push(rel);
    }
    // every run gets its compact form and its trend summary (those of older sites too)
    let mut upgraded = 0;
    for (idx, e) in entries.iter_mut().enumerate() {
        let Some(rel) = e.get("file").and_then(Value::as_str).map(str::to_string) else { continue };
        let compact = format!("{rel}.compact");
        let has = e.get("compact").and_then(Value::as_str) == Some(compact.as_str());
        // runs given now take this command's --group; the others keep theirs
        let given = group_s.is_some() && new_files.contains(&rel);
        // a form of an older version is written again: from version 4 on the page fetches only
        // the bytes before its groups (an HTTP range request) until a range needs them
        let groups_at = (has && !given).then(|| groups_at(&dir.join(&compact))).flatten();
        let has_compact = groups_at.is_some();
        if let Some(at) = groups_at {
            e["compact_groups_at"] = json!(at);
        }
        let has_trend = e.get("trend").is_some() && !new_files.contains(&rel);
        if has_compact && has_trend {
            continue;
        }
        // only runs nines keeps in runs/ (a manifest may list other paths: left as they are)
        if !rel.starts_with("runs/") || rel[5..].contains('/') || !std::fs::symlink_metadata(dir.join(&rel)).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let (run, _) = load_with_bytes(&dir.join(&rel))?;
        if !has_trend {
            // the trend view draws every run's whole-run levels without loading any run
            let stats = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
            e["trend"] = nines_core::trend::Summary::of(&run, &stats).to_json();
        }
        if has_compact {
            continue;
        }
        let (bytes, _) = super::budget::default_compact(&run, if given { group_s } else { None })?;
        let at = nines_core::compact::Compact::read(&compact, &bytes)?.groups_at();
        output::write_atomic(&dir.join(&compact), &bytes, Replace::Always, &read)?;
        e["compact"] = json!(compact);
        e["compact_groups_at"] = json!(at);
        if idx < kept && (!has || !given) {
            upgraded += 1;
        }
    }
    let v = bundle::viewer();
    let files: [(&str, &[u8]); 7] = [
        ("index.html", v.index_html.as_bytes()),
        ("style.css", v.style_css.as_bytes()),
        ("worker.js", v.worker_js.as_bytes()),
        ("nines_viewer.js", v.glue_js.as_bytes()),
        ("nines_viewer_bg.wasm", v.wasm),
        ("nines_worker.js", v.worker_glue_js.as_bytes()),
        ("nines_worker_bg.wasm", v.worker_wasm),
    ];
    for (name, bytes) in files {
        output::write_atomic(&dir.join(name), bytes, Replace::Always, &read)?;
    }
    let manifest = serde_json::to_string_pretty(&json!({ "runs": entries })).expect("JSON serialises");
    output::write_atomic(&manifest_path, format!("{manifest}\n").as_bytes(), Replace::Always, &read)?;
    writeln!(
        out,
        "site: {} ({} run{} listed, {added} added, {kept} kept{}); serve the directory and open index.html",
        dir.display(),
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        if upgraded > 0 { format!(", {upgraded} given a compact form") } else { String::new() }
    )?;
    Ok(())
}

/// Where the groups of the compact form at `path` begin, when it is a regular file holding a
/// form of version 4 on that reads; None for anything else (it is written again).
fn groups_at(path: &Path) -> Option<usize> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    nines_core::compact::Compact::read(&path.display().to_string(), &bytes).ok()?.groups_at()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_url_and_path_safe() {
        assert_eq!(safe_name("a b#c?.hlog"), "a_b_c_.hlog");
        assert_eq!(safe_name("../../x.hlog"), "_.._x.hlog");
        assert_eq!(safe_name("<script>.hlog"), "_script_.hlog");
        assert_eq!(safe_name("..."), "run");
    }
}
