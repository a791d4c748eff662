//! `nines site`: a static site (the viewer's shell and assets, the archives under `runs/`,
//! `manifest.json` listing them) for any static host. Adding runs to an existing site keeps
//! the runs its manifest already lists.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};

use super::{bundle, file_name, write_file};
use crate::load::load_run;

#[derive(Args, Debug, Clone)]
pub struct SiteArgs {
    /// Runs to add: nines archives and every format `nines stats` reads.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The site's directory; created if missing. Runs already listed in its manifest.json
    /// stay, the viewer's files are replaced by this version's.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
}

/// A file name safe in a URL path and on every file system: letters, digits, `.`, `-`, `_`.
pub fn safe_name(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() { "run".into() } else { s }
}

/// The manifest's entries (`{"runs":[{"file":"runs/a.hlog","name":"a"}]}`), or none.
fn read_manifest(path: &Path) -> Result<Vec<Value>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("could not read '{}'", path.display()))?;
    let v: Value = serde_json::from_str(&text).with_context(|| format!("'{}' is not valid JSON; fix or remove it", path.display()))?;
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

/// `nines site`.
pub fn run(args: &SiteArgs, out: &mut impl Write) -> Result<()> {
    let dir = &args.output;
    if dir.exists() && !dir.is_dir() {
        bail!("'{}' exists and is not a directory", dir.display());
    }
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).with_context(|| format!("could not create '{}'", runs_dir.display()))?;
    let manifest_path = dir.join("manifest.json");
    let mut entries = read_manifest(&manifest_path)?;
    let kept = entries.len();
    let mut added = 0;
    for f in &args.files {
        let run = load_run(f)?;
        let bytes = std::fs::read(f).with_context(|| format!("could not read '{}'", f.display()))?;
        let name = safe_name(&file_name(f));
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => (&name[..i], &name[i..]),
            _ => (name.as_str(), ""),
        };
        // The same bytes under the same name are already there; another run with that name
        // gets a numbered one.
        let mut rel = format!("runs/{name}");
        let mut n = 1;
        loop {
            let p = dir.join(&rel);
            if !p.exists() {
                std::fs::write(&p, &bytes).with_context(|| format!("could not write '{}'", p.display()))?;
                break;
            }
            if std::fs::read(&p).ok().as_deref() == Some(&bytes[..]) {
                break;
            }
            n += 1;
            rel = format!("runs/{stem}-{n}{ext}");
        }
        if !entries.iter().any(|e| e.get("file").and_then(Value::as_str) == Some(rel.as_str())) {
            entries.push(json!({ "file": rel, "name": run.name }));
            added += 1;
        }
    }
    let v = bundle::viewer();
    write_file(&dir.join("index.html"), v.index_html.as_bytes())?;
    write_file(&dir.join("style.css"), v.style_css.as_bytes())?;
    write_file(&dir.join("nines_viewer.js"), v.glue_js.as_bytes())?;
    write_file(&dir.join("nines_viewer_bg.wasm"), v.wasm)?;
    let manifest = serde_json::to_string_pretty(&json!({ "runs": entries })).expect("JSON serialises");
    write_file(&manifest_path, format!("{manifest}\n").as_bytes())?;
    writeln!(
        out,
        "site: {} ({} run{} listed, {added} added, {kept} kept); serve the directory and open index.html",
        dir.display(),
        entries.len(),
        if entries.len() == 1 { "" } else { "s" }
    )?;
    Ok(())
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
