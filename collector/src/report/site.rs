//! `nines site`: a static site (the viewer's shell and assets, the archives under `runs/`
//! with each run's compact form beside it, `manifest.json` listing them) for any static host.
//! The page draws from the compact forms (see [`nines_core::compact`]); a brushed range counts
//! the groups that start in it, as in a report. Adding runs to an existing site keeps the runs
//! its manifest already lists, and gives those without a compact form one.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

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

/// The largest manifest.json read. Its entries are read one at a time (a site of 10,000
/// runs has a manifest of about 50 MB: about 5 KB a run, most of it the trend summary).
const MAX_MANIFEST: u64 = 1 << 30;
/// The viewer's files in a site's directory, replaced by each `nines site`.
const VIEWER_FILES: [&str; 7] =
    ["index.html", "style.css", "worker.js", "nines_viewer.js", "nines_viewer_bg.wasm", "nines_worker.js", "nines_worker_bg.wasm"];

/// Call `each` with every entry of the manifest at `path`, in order and one at a time, so
/// that a site's memory does not grow with its runs (`{"runs":[{"file":"runs/a.hlog",
/// "name":"a"}, ...]}`; a plain list of file names, as early sites wrote, gives
/// `{"file": NAME}` entries). No manifest there calls it for none.
///
/// serde_json reads a whole document into one value; a visitor over the `runs` list takes
/// its elements as they are parsed instead.
fn each_entry(path: &Path, mut each: impl FnMut(Value) -> Result<()>) -> Result<()> {
    use serde::de::{Deserializer as _, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::io::Read;

    struct Entries<'f> {
        each: &'f mut dyn FnMut(Value) -> Result<()>,
        failed: &'f mut Option<anyhow::Error>,
    }
    impl<'de> Visitor<'de> for Entries<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of runs")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(e) = seq.next_element::<Value>()? {
                let e = match e {
                    Value::String(f) => json!({ "file": f }),
                    e => e,
                };
                if let Err(e) = (self.each)(e) {
                    *self.failed = Some(e);
                    return Err(A::Error::custom("stopped"));
                }
            }
            Ok(())
        }
    }
    impl<'de> serde::de::DeserializeSeed<'de> for Entries<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    /// The document: an object holding `runs` (other keys are skipped), or the list itself.
    struct Manifest<'f>(Entries<'f>);
    impl<'de> Visitor<'de> for Manifest<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object with a \"runs\" list")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut entries = Some(self.0);
            while let Some(key) = map.next_key::<String>()? {
                match entries.take_if(|_| key == "runs") {
                    Some(e) => map.next_value_seed(e)?,
                    None => drop(map.next_value::<IgnoredAny>()?),
                }
            }
            match entries {
                Some(_) => Err(A::Error::custom(NO_RUNS)),
                None => Ok(()),
            }
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            self.0.visit_seq(seq)
        }
    }
    const NO_RUNS: &str = "no \"runs\" list";

    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let f = File::open(path).with_context(|| format!("could not read the manifest '{}'", path.display()))?;
    let mut failed = None;
    let mut read = std::io::BufReader::new(f.take(MAX_MANIFEST + 1));
    let mut de = serde_json::Deserializer::from_reader(&mut read);
    let parsed = de.deserialize_any(Manifest(Entries { each: &mut each, failed: &mut failed })).and_then(|()| de.end());
    if let Some(e) = failed {
        return Err(e);
    }
    if read.into_inner().limit() == 0 {
        bail!(
            "the manifest '{}' is larger than {}, the most nines reads for it",
            path.display(),
            nines_core::units::format_size(MAX_MANIFEST)
        );
    }
    match parsed {
        Err(e) if e.to_string().starts_with(NO_RUNS) => bail!("'{}' has no \"runs\" list; fix or remove it", path.display()),
        Err(e) => Err(anyhow::Error::new(e).context(format!("'{}' is not valid JSON; fix or remove it", path.display()))),
        Ok(()) => Ok(()),
    }
}

/// The archives a site's manifest lists, as paths under `dir` (for `nines view DIR`), or
/// None when `dir` holds no `manifest.json`. An entry is taken only as a relative path of
/// plain names (no `..`, no root): a manifest naming a file outside its site is an error
/// naming the entry.
pub fn site_runs(dir: &Path) -> Result<Option<Vec<PathBuf>>> {
    let manifest = dir.join("manifest.json");
    if std::fs::symlink_metadata(&manifest).is_err() {
        return Ok(None);
    }
    let mut out = Vec::new();
    each_entry(&manifest, |e| {
        let Some(file) = e.get("file").and_then(Value::as_str) else {
            bail!("'{}': an entry of \"runs\" has no \"file\"", manifest.display());
        };
        let rel = Path::new(file);
        if file.is_empty() || !rel.components().all(|c| matches!(c, std::path::Component::Normal(_))) {
            bail!(
                "'{}': the run {file:?} is not a path inside the site (expected a relative path such as runs/a.hlog)",
                manifest.display()
            );
        }
        out.push(dir.join(rel));
        Ok(())
    })?;
    Ok(Some(out))
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
    let manifest_path = dir.join("manifest.json");
    // The runs the manifest lists, read through once before anything is written (a manifest
    // that cannot be read stops the command here and stays as it is); only their names stay.
    let mut listed: HashSet<String> = HashSet::new();
    let mut kept = 0;
    each_entry(&manifest_path, |e| {
        kept += 1;
        listed.extend(e.get("file").and_then(Value::as_str).map(str::to_string));
        Ok(())
    })?;
    let mut new_files: Vec<String> = Vec::new();
    let mut new_entries: Vec<Value> = Vec::new();
    for f in &crate::load::each_file_once(&args.files) {
        let (run, bytes) = load_with_bytes(f)?;
        let name = safe_name(&file_name(f));
        let rel = place_run(dir, &name, &bytes, &read)?;
        if !listed.contains(&rel) && !new_entries.iter().any(|e| e.get("file").and_then(Value::as_str) == Some(rel.as_str())) {
            new_entries.push(json!({ "file": rel, "name": run.name }));
        }
        new_files.push(rel);
    }
    let added = new_entries.len();
    write_viewer(dir, &read)?;
    // The manifest again, entry by entry into its new version (one line a run): every run
    // gets its compact form and its trend summary (those of older sites too).
    let site = Completing { dir, new_files: &new_files, group_s, inputs: &read };
    let (mut upgraded, mut runs, mut failed) = (0, 0, None);
    let written = output::write_atomic_with(&manifest_path, Replace::Always, &read, |w| {
        w.write_all(b"{\"runs\": [")?;
        let mut put = |e: &Value| -> Result<()> {
            w.write_all(if runs == 0 { b"\n" } else { b",\n" })?;
            serde_json::to_writer(&mut *w, e)?;
            runs += 1;
            Ok(())
        };
        let mut listed_now = 0;
        let streamed = each_entry(&manifest_path, |mut e| {
            // a manifest changed since it was read (only another user can: the lock is ours)
            listed_now += 1;
            if listed_now > kept {
                bail!("'{}' changed while nines site read it; run it again", manifest_path.display());
            }
            upgraded += usize::from(site.complete(&mut e, true)?);
            put(&e)
        })
        .and_then(|()| {
            for mut e in std::mem::take(&mut new_entries) {
                site.complete(&mut e, false)?;
                put(&e)?;
            }
            Ok(())
        });
        if let Err(e) = streamed {
            failed = Some(e);
            return Err(std::io::Error::other("stopped"));
        }
        w.write_all(b"\n]}\n")
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written?;
    writeln!(
        out,
        "site: {} ({} run{} listed, {added} added, {kept} kept{}); serve the directory and open index.html",
        dir.display(),
        runs,
        if runs == 1 { "" } else { "s" },
        if upgraded > 0 { format!(", {upgraded} given a compact form") } else { String::new() }
    )?;
    Ok(())
}

/// Copies a run's bytes into runs/ under its name (`name` made safe), or finds them there
/// already; the path written or found, relative to the site.
fn place_run(dir: &Path, name: &str, bytes: &[u8], read: &Inputs) -> Result<String> {
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    // The same bytes under the same name are already there; another run with that name
    // (or anything else there, such as a link) gets a numbered one.
    let mut rel = format!("runs/{name}");
    let mut n = 1;
    loop {
        let p = dir.join(&rel);
        match std::fs::symlink_metadata(&p) {
            Err(_) => {
                output::write_atomic(&p, bytes, Replace::Never, read)?;
                break;
            }
            Ok(m) if m.is_file() && m.len() == bytes.len() as u64 && std::fs::read(&p).ok().as_deref() == Some(bytes) => break,
            Ok(_) => {}
        }
        n += 1;
        rel = format!("runs/{stem}-{n}{ext}");
    }
    Ok(rel)
}

/// Writes the viewer's files into the site, replacing those there.
fn write_viewer(dir: &Path, read: &Inputs) -> Result<()> {
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
        output::write_atomic(&dir.join(name), bytes, Replace::Always, read)?;
    }
    Ok(())
}

/// A site being written: what [`Completing::complete`] needs of it.
struct Completing<'a> {
    dir: &'a Path,
    /// The runs given to this command (`runs/NAME` as listed).
    new_files: &'a [String],
    group_s: Option<f64>,
    inputs: &'a Inputs,
}

impl Completing<'_> {
    /// Give a manifest entry the compact form and trend summary it lacks (runs of older
    /// sites, runs added now), and a new compact form to a run given again with `--group`;
    /// whether a run listed before (`kept`) was given a compact form.
    fn complete(&self, e: &mut Value, kept: bool) -> Result<bool> {
        let Some(rel) = e.get("file").and_then(Value::as_str).map(str::to_string) else { return Ok(false) };
        let compact = format!("{rel}.compact");
        let has = e.get("compact").and_then(Value::as_str) == Some(compact.as_str());
        // runs given now take this command's --group; the others keep theirs
        let given = self.group_s.is_some() && self.new_files.contains(&rel);
        // a form of an older version, or one without its recorded windows, is written again:
        // the page fetches only the bytes before its groups (an HTTP range request) until a
        // range needs them, then the groups, then the windows of the groups a range cuts
        let listed = (e.get("compact_groups_at").and_then(Value::as_u64), e.get("compact_windows_at").and_then(Value::as_u64));
        let places = (has && !given).then(|| form_places(&self.dir.join(&compact), listed)).flatten();
        let has_compact = places.is_some();
        if let Some((at, wat)) = places {
            e["compact_groups_at"] = json!(at);
            if let Some(w) = wat {
                e["compact_windows_at"] = json!(w);
            }
        }
        // a trend summary of an older nines lacks the run's workload key: written again
        let has_trend = e.get("trend").is_some_and(|t| t.get("workload").is_some()) && !self.new_files.contains(&rel);
        if has_compact && has_trend {
            return Ok(false);
        }
        // only runs nines keeps in runs/ (a manifest may list other paths: left as they are)
        if !rel.starts_with("runs/") || rel[5..].contains('/') || !std::fs::symlink_metadata(self.dir.join(&rel)).is_ok_and(|m| m.is_file())
        {
            return Ok(false);
        }
        let (run, _) = load_with_bytes(&self.dir.join(&rel))?;
        if !has_trend {
            // the trend view draws every run's whole-run levels without loading any run
            let stats = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
            e["trend"] = nines_core::trend::Summary::of(&run, &stats).to_json();
            // the run's own keys (`nines run --meta`), which the trend can order its runs by
            if let Some(user) = run.meta.other.get("user").filter(|u| u.as_object().is_some_and(|o| !o.is_empty())) {
                e["user"] = user.clone();
            }
        }
        if has_compact {
            return Ok(false);
        }
        let (bytes, _) = super::budget::default_compact(&run, if given { self.group_s } else { None })?;
        let form = nines_core::compact::Compact::read(&compact, &bytes)?;
        output::write_atomic(&self.dir.join(&compact), &bytes, Replace::Always, self.inputs)?;
        e["compact"] = json!(compact);
        e["compact_groups_at"] = json!(form.groups_at());
        if let Some(w) = form.windows_at() {
            e["compact_windows_at"] = json!(w);
        }
        Ok(kept && (!has || !given))
    }
}

/// Where the groups and the recorded windows of the compact form at `path` begin, when it is
/// a regular file holding a form of version 6 on that carries its windows; None for anything
/// else (it is written again). Where the manifest already states both (`listed`), only the
/// form's first bytes are read to check its version, so that adding a run to a site of
/// thousands does not read every run's form.
fn form_places(path: &Path, listed: (Option<u64>, Option<u64>)) -> Option<(usize, Option<usize>)> {
    use nines_core::compact::{MAGIC, VERSION};
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok().filter(|m| m.is_file())?;
    if let (Some(at), wat) = listed {
        if at < meta.len() && wat.is_none_or(|w| at < w && w < meta.len()) {
            // the version is a varint, one byte while it is below 128; a form of version 6
            // listed without windows has every window as a group (nines writes no other)
            let mut head = [0u8; MAGIC.len() + 1];
            File::open(path).ok()?.read_exact(&mut head).ok()?;
            return (head.starts_with(MAGIC) && (6..=VERSION).contains(&u64::from(head[MAGIC.len()])))
                .then_some((at as usize, wat.map(|w| w as usize)));
        }
    }
    let bytes = std::fs::read(path).ok()?;
    let form = nines_core::compact::Compact::read(&path.display().to_string(), &bytes).ok()?;
    let wat = form.windows_at();
    (wat.is_some() || form.group == 1).then_some((form.groups_at()?, wat))
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

    fn entries(text: &str) -> Result<Vec<Value>> {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("manifest.json");
        std::fs::write(&p, text).unwrap();
        let mut all = Vec::new();
        each_entry(&p, |e| {
            all.push(e);
            Ok(())
        })?;
        Ok(all)
    }

    #[test]
    fn manifest_entries_are_read_one_at_a_time_in_every_form() {
        // other keys before and after the list are skipped; early sites' plain lists of names
        let e = entries(r#"{"title": {"a": [1]}, "runs": [{"file": "runs/a.hlog", "name": "a"}, "runs/b.hlog"], "x": 1}"#).unwrap();
        assert_eq!(e, vec![json!({"file": "runs/a.hlog", "name": "a"}), json!({"file": "runs/b.hlog"})]);
        assert_eq!(entries(r#"["runs/c.hlog"]"#).unwrap(), vec![json!({"file": "runs/c.hlog"})]);
        assert!(entries("{\"runs\": []}").unwrap().is_empty());
        // no manifest: no entries
        assert!(each_entry(Path::new("/nonexistent/manifest.json"), |_| bail!("called")).is_ok());
        // what is wrong names the file, and the line where the JSON breaks
        let e = format!("{:#}", entries(r#"{"title": "t"}"#).unwrap_err());
        assert!(e.contains("manifest.json' has no \"runs\" list; fix or remove it"), "{e}");
        let e = format!("{:#}", entries("{\"runs\": [\n{\"file\": 1},\n{oops}]}").unwrap_err());
        assert!(e.contains("manifest.json' is not valid JSON; fix or remove it") && e.contains("line 3"), "{e}");
        let e = format!("{:#}", entries(r#"{"runs": [{}, {}]} trailing"#).unwrap_err());
        assert!(e.contains("is not valid JSON"), "{e}");
        // an error of the caller's stops the reading and is the one returned
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("manifest.json");
        std::fs::write(&p, r#"{"runs": [{"file": "a"}, {"file": "b"}, {"file": "c"}]}"#).unwrap();
        let mut seen = 0;
        let e = each_entry(&p, |_| {
            seen += 1;
            if seen == 2 {
                bail!("second entry refused")
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!((e.to_string(), seen), ("second entry refused".to_string(), 2));
    }
}
