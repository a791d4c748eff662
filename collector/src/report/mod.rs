//! `nines report`: one self-contained HTML file holding the viewer (glue and wasm inlined),
//! the runs, a title, notes and a static summary; and `nines site` (see [`site`]).
//!
//! The page opens from `file://` with no network and makes no request: its
//! Content-Security-Policy allows no connection and no external resource, only the page's
//! own module script and style sheet (by hash), the instantiation of WebAssembly, and style
//! attributes (the viewer sizes its canvases with them; a style attribute runs no script and
//! can load nothing under this policy).
//!
//! Layout of the page:
//!
//! ```text
//! <header>     title and notes (Markdown, no raw HTML)           always shown
//! <section id="nines-summary">  run list, stats tables           hidden once the viewer starts
//! <script type="application/json" id="nines-report-runs">   {"runs":[{"name","gzip"|"base64"}]}
//! <script type="application/octet-stream" id="nines-wasm">  gzip'd wasm, base64
//! <script type="module">  wasm-bindgen glue + bootstrap (gunzip with DecompressionStream)
//! ```
//!
//! Archives and the wasm travel gzip'd and base64'd: the archives' histograms are DEFLATE
//! inside but written in base64 text, which gzip takes back to about its binary size. A
//! compact form is one zlib stream already and travels in base64 alone.

pub mod budget;
pub mod bundle;
pub mod html;
pub mod input;
pub mod pts;
pub mod site;
pub mod summary;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use nines_core::run::Run;
use nines_core::stats::{self, RunStats};
use serde_json::json;
use sha2::{Digest, Sha256};

pub use input::Input;

use crate::cli::report::ReportArgs;
use crate::load::load_with_bytes;
use crate::output::{self, Inputs, Replace};

/// The largest notes file (Markdown) a report takes.
pub const MAX_NOTES: u64 = 1 << 20;

/// The longest spec text a report's viewer takes (its view link carries it; the viewer's
/// `state::MAX_SPEC`).
const MAX_VIEW_SPEC: usize = 16 * 1024;

/// What the view link keeps of a spec's text: letters, digits and `-_.~` (RFC 3986's
/// unreserved set), every other byte as `%XX`, as the viewer's `state::encode` writes it.
const SPEC_KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// What a report holds besides runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub title: Option<String>,
    /// Markdown.
    pub notes: Option<String>,
    pub tag: Option<String>,
    /// The view the page opens with when its link has none (a URL hash, e.g. `base=0`).
    pub view: Option<String>,
    /// Preformatted text shown in the static summary (`nines compare`'s tables).
    pub comparison: Option<String>,
    /// The verdicts of `--spec`/`--limit`, computed on the runs as read (before any grouping).
    pub qos: Option<Arc<summary::Qos>>,
}

/// The last component of a path, for showing; never a directory.
pub fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The scoped direction a report opens on, when its runs have nothing the viewer's `all`
/// would show: `--tag` naming a scoped direction (`qos/write`), or, where every run's tags are
/// scoped (an archive of `nines pts`, whose cells ran one after another), the first run's
/// first scoped direction. Otherwise `None`: the page opens on `all` as always.
fn opening_direction(inputs: &[Input], tag: Option<&str>) -> Option<String> {
    let scoped_direction = |t: &str| {
        let p = nines_core::tag::Tag::parse(t);
        p.scope.is_some_and(|s| !s.is_empty()) && !p.direction.is_empty() && p.measure.is_none()
    };
    if let Some(t) = tag {
        return scoped_direction(t).then(|| t.to_string());
    }
    let shows_all = |r: &Run| r.windows.iter().any(|w| nines_core::tag::is_direction(w.tag.as_deref()));
    if inputs.iter().any(|i| shows_all(&i.run)) {
        return None;
    }
    let first = inputs.first()?;
    first.run.tags().into_iter().flatten().find(|t| scoped_direction(t))
}

/// Read runs for a report: the file's own bytes, or with a tag only that tag's windows
/// re-written as a nines archive.
pub fn inputs(files: &[PathBuf], tag: Option<&str>) -> Result<Vec<Input>> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let (mut run, mut bytes) = load_with_bytes(f)?;
        if let Some(t) = tag {
            let before: Vec<String> = run.tags().iter().map(|t| stats::tag_name(t.as_deref()).to_string()).collect();
            run.windows.retain(|w| stats::tag_name(w.tag.as_deref()) == t);
            if run.windows.is_empty() {
                bail!("{}: no windows with tag '{t}' (tags: {})", f.display(), before.join(", "));
            }
            bytes = nines_core::archive::write(Vec::new(), &run).with_context(|| format!("{}: could not re-write the run", f.display()))?;
        }
        out.push(Input { name: file_name(f), bytes, run, carries: budget::FULL.to_string() });
    }
    // the page and its summary show the runs together: no two of one name
    let names = nines_core::run::distinct_names(&out.iter().map(|i| (i.run.name.as_str(), i.name.as_str())).collect::<Vec<_>>());
    for (i, n) in out.iter_mut().zip(names) {
        i.run.name = n;
    }
    Ok(out)
}

/// `nines report`.
pub fn run(args: &ReportArgs, out: &mut impl Write) -> Result<()> {
    let notes = match &args.notes {
        Some(p) => {
            let bytes = output::read_bounded(p, MAX_NOTES, "the notes")?;
            Some(String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "the notes '{}': byte offset {}: not UTF-8 text; expected Markdown",
                    p.display(),
                    e.utf8_error().valid_up_to()
                )
            })?)
        }
        None => None,
    };
    // baseline files first (the order the page shows), each file once (a baseline may be
    // listed as FILE too; any other file given twice is noted)
    let mut files: Vec<PathBuf> = args.baseline.iter().filter(|b| !args.files.contains(b)).cloned().collect();
    files.extend(args.files.iter().cloned());
    let files = crate::load::each_file_once(&files);
    let mut inputs = inputs(&files, args.tag.as_deref())?;
    let base_ids: Vec<_> = args.baseline.iter().filter_map(|b| crate::load::file_id(b)).collect();
    let is_base = |f: &PathBuf| args.baseline.contains(f) || crate::load::file_id(f).is_some_and(|id| base_ids.contains(&id));
    let base: Vec<usize> = files.iter().enumerate().filter(|(_, f)| is_base(f)).map(|(i, _)| i).collect();
    let mut view = Vec::new();
    let mut comparison = None;
    if !base.is_empty() {
        view.push(format!("base={}", base.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")));
        let b: Vec<&Run> = base.iter().map(|&i| &inputs[i].run).collect();
        let c: Vec<&Run> = (0..inputs.len()).filter(|i| !base.contains(i)).map(|i| &inputs[i].run).collect();
        if c.is_empty() {
            bail!("--baseline: every run of the report is a baseline; give the candidate runs as FILE too");
        }
        // several candidates are a set, as in the summary's `nines compare`
        if c.len() > 1 {
            view.push("cset=1".into());
        }
        let st_opts = stats::Options { tag: args.tag.clone(), ..stats::Options::default() };
        comparison = Some(nines_core::export::text::comparison(&nines_core::compare::compare(&b, &c, &st_opts)));
    }
    if let Some(dir) = opening_direction(&inputs, args.tag.as_deref()) {
        view.push(format!("dir={}", percent_encoding::utf8_percent_encode(&dir, SPEC_KEEP)));
    }
    if let Some(p) = &args.sweep {
        if !p.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) || p.is_empty() || p.len() > 64 {
            bail!("--sweep {p:?}: a parameter name has letters, digits and _.- only");
        }
        view.push(format!("sweep={p}"));
    }
    let qos = if args.spec.is_some() || !args.limit.is_empty() {
        let (spec, text) = crate::check_cmd::load_spec_text(args.spec.as_deref(), &args.limit)?;
        // a direction no run has and nines does not know is a slip in the spec, as for nines check
        let tags: Vec<String> =
            inputs.iter().flat_map(|i| i.run.tags()).map(|t| nines_core::stats::tag_name(t.as_deref()).to_string()).collect();
        spec.check_directions(&tags).map_err(anyhow::Error::msg)?;
        // the viewer judges the runs again from the spec the page opens with (its link keeps
        // it), and draws it on the charts
        if text.len() > MAX_VIEW_SPEC {
            bail!(
                "{}: the spec is {} bytes; a report's viewer takes at most {MAX_VIEW_SPEC} (comments and blank lines count)",
                args.spec.as_deref().map_or("--limit".into(), |p| p.display().to_string()),
                text.len()
            );
        }
        view.push(format!("spec={}", percent_encoding::utf8_percent_encode(&text, SPEC_KEEP)));
        let source = match (&args.spec, args.limit.is_empty()) {
            (Some(p), true) => file_name(p),
            (Some(p), false) => format!("{} and --limit", file_name(p)),
            (None, _) => "--limit".into(),
        };
        let checks = inputs.iter().map(|i| nines_core::spec::check_run(&i.run, &spec, None, None)).collect();
        Some(Arc::new(summary::Qos { source, checks }))
    } else {
        None
    };
    let opts = Options {
        title: args.title.clone(),
        notes,
        tag: args.tag.clone(),
        view: (!view.is_empty()).then(|| view.join("&")),
        comparison,
        qos,
    };
    let viewer = bundle::viewer();
    let page = if args.full {
        render(&inputs, &opts, &viewer)?
    } else {
        let max = args.max_size.map_or(budget::Limit::Default, budget::Limit::Given);
        budget::fit(&mut inputs, max, args.group, |i| render(i, &opts, &viewer))?
    };
    let read = Inputs::new(files.iter().chain(&args.notes).chain(&args.spec));
    output::write_output(&args.output, page.as_bytes(), Replace::Always, &read)?;
    // with the page on stdout, what the command says goes to stderr
    let mut err = std::io::stderr();
    let out: &mut dyn Write = if output::goes_to_stdout(&args.output) { &mut err } else { out };
    writeln!(
        out,
        "report: {} ({} run{}, {} KB)",
        output::shown(&args.output),
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        page.len().div_ceil(1024)
    )?;
    Ok(())
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A CSP hash source of a script or style's text (CSP 3, section 2.3.1: `'sha256-BASE64'`).
pub(crate) fn csp_hash(text: &str) -> String {
    format!("'sha256-{}'", b64(&Sha256::digest(text.as_bytes())))
}

/// Decodes the runs and the wasm (gzip through the browser's DecompressionStream, base64 with
/// `Uint8Array.fromBase64` where the browser has it), hands the runs' bytes to the viewer
/// (`globalThis.ninesRuns`, read once at start), starts it, and hides the static summary once
/// it runs. On failure the summary stays, with the reason above it.
const BOOTSTRAP: &str = r#"
const ninesB64 = (s) => { if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s); const b = atob(s); const u = new Uint8Array(b.length); for (let i = 0; i < b.length; i++) u[i] = b.charCodeAt(i); return u; };
const ninesGunzip = async (u) => new Uint8Array(await new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
(async () => {
  const data = JSON.parse(document.getElementById('nines-report-runs').textContent);
  const wasm = ninesGunzip(ninesB64(document.getElementById('nines-wasm').textContent.trim()));
  const runs = await Promise.all(data.runs.map(async (r) => ({ name: r.name, bytes: r.gzip !== undefined ? await ninesGunzip(ninesB64(r.gzip)) : ninesB64(r.base64) })));
  globalThis.ninesRuns = { runs, view: data.view };
  await __wbg_init({ module_or_path: await wasm });
  document.documentElement.classList.add('nines-started');
})().catch((e) => {
  const p = document.createElement('p');
  p.className = 'ns-error';
  p.dataset.testid = 'viewer-error';
  p.textContent = 'The interactive viewer could not start (' + e + '). The static summary below is complete.';
  document.getElementById('nines-summary').prepend(p);
});
"#;

/// The report page.
pub fn render(inputs: &[Input], opts: &Options, viewer: &bundle::Viewer) -> Result<String> {
    let title = opts.title.clone().unwrap_or_else(|| "nines report".to_string());
    let st_opts = stats::Options { tag: opts.tag.clone(), ..stats::Options::default() };
    let all: Vec<RunStats> = inputs.iter().map(|i| stats::run_stats(&i.run, &st_opts)).collect();
    let entries: Vec<summary::Entry> =
        inputs.iter().zip(&all).map(|(i, s)| summary::Entry { file: &i.name, run: &i.run, stats: s, carries: &i.carries }).collect();
    let notes = opts.notes.as_deref().map(html::markdown);
    let generated =
        nines_core::units::iso_date(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()));
    let summary_html = summary::render(&title, notes.as_deref(), &entries, opts.comparison.as_deref(), opts.qos.as_deref(), &generated);

    let mut runs_json = json!({ "runs": inputs.iter().map(|i| if nines_core::compact::sniff(&i.bytes) {
            json!({ "name": i.name, "base64": b64(&i.bytes) })
        } else {
            json!({ "name": i.name, "gzip": b64(&gzip(&i.bytes)) })
        }).collect::<Vec<_>>() });
    if let Some(v) = &opts.view {
        runs_json["view"] = json!(v);
    }
    let wasm_b64 = b64(&gzip(viewer.wasm));
    let script = html::js_for_script(&format!("{}\n{}", viewer.inline_glue()?, BOOTSTRAP));
    let style = format!("{}\n{}", viewer.style_css, summary::CSS).replace("</", "<\\/");
    let csp = format!(
        "default-src 'none'; script-src {} 'wasm-unsafe-eval'; style-src {}; style-src-attr 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(&script),
        csp_hash(&style)
    );

    let mut p = String::with_capacity(wasm_b64.len() + script.len() + 64 * 1024);
    p.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    p.push_str(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"));
    p.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    p.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    p.push_str("<meta name=\"generator\" content=\"nines\">\n");
    p.push_str(&format!("<title>{}</title>\n", html::esc(&title)));
    p.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    p.push_str(&format!("<style>{style}</style>\n</head>\n<body>\n"));
    p.push_str(&summary_html);
    p.push_str(&format!("<script type=\"application/json\" id=\"nines-report-runs\">{}</script>\n", html::json_for_script(&runs_json)));
    p.push_str(&format!("<script type=\"application/octet-stream\" id=\"nines-wasm\">{wasm_b64}</script>\n"));
    p.push_str(&format!("<script type=\"module\">{script}</script>\n"));
    p.push_str("</body>\n</html>\n");
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::hist::{Hist, Layout};
    use nines_core::meta::{self, RunMeta};
    use nines_core::run::Window;

    #[test]
    fn a_report_of_scoped_runs_opens_on_a_scoped_direction() {
        let plain = input("a.hlog", "a");
        assert_eq!(opening_direction(std::slice::from_ref(&plain), None), None, "runs with directions open on all");
        assert_eq!(opening_direction(std::slice::from_ref(&plain), Some("read")), None);
        assert_eq!(opening_direction(std::slice::from_ref(&plain), Some("qos/write")).as_deref(), Some("qos/write"));
        assert_eq!(opening_direction(std::slice::from_ref(&plain), Some("qos/read.svc")), None, "a measure is no direction");
        // a PTS archive: every tag scoped
        let mut pts = input("p.hlog", "p");
        for w in &mut pts.run.windows {
            w.tag = w.tag.as_deref().map(|t| nines_core::tag::scoped("rnd_65-35_4k", t));
        }
        assert_eq!(opening_direction(std::slice::from_ref(&pts), None).as_deref(), Some("rnd_65-35_4k/read"));
        assert_eq!(opening_direction(&[pts, plain], None), None, "another run shows all");
    }

    fn input(name: &str, meta_name: &str) -> Input {
        let l = Layout::default_ns();
        let windows = (0..3)
            .flat_map(|s| {
                [
                    Window {
                        start_s: s as f64,
                        length_s: 1.0,
                        tag: Some("read".into()),
                        hist: Hist::from_values(l, (1..=500).map(|i| 10_000 + i * 7)),
                    },
                    Window {
                        start_s: s as f64,
                        length_s: 1.0,
                        tag: Some("write".into()),
                        hist: Hist::from_values(l, (1..=200).map(|i| 30_000 + i * 3)),
                    },
                ]
            })
            .collect();
        let meta = RunMeta {
            name: Some(meta_name.into()),
            workload: Some(meta::Workload {
                rw: Some("randrw".into()),
                read_pct: Some(70),
                bs: Some(meta::Size::Text("4KiB".into())),
                qd: Some(16),
                jobs: Some(1),
                direct: Some(true),
                ..meta::Workload::default()
            }),
            ..RunMeta::default()
        };
        let run = Run { name: meta_name.into(), source: name.into(), meta, windows, ..Run::default() };
        let bytes = nines_core::archive::write(Vec::new(), &run).unwrap();
        Input { name: name.into(), bytes, run, carries: budget::FULL.into() }
    }

    fn fake_viewer() -> bundle::Viewer {
        bundle::Viewer {
            index_html: "",
            style_css: "body{}",
            worker_js: "",
            glue_js: "export function start() {}\nasync function __wbg_init(m) {}\nexport { __wbg_init as default };\n",
            wasm: b"\0asm\x01\0\0\0",
            worker_glue_js: "",
            worker_wasm: b"\0asm\x01\0\0\0",
        }
    }

    #[test]
    fn hostile_text_stays_text() {
        let evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";
        let i = input(&format!("{evil}.hlog"), evil);
        let opts = Options { title: Some(evil.into()), notes: Some(format!("notes {evil}")), tag: None, ..Options::default() };
        let page = render(&[i], &opts, &fake_viewer()).unwrap();
        // exactly the page's own elements: three scripts (runs, wasm, module), no image
        assert_eq!(page.matches("<script").count(), 3, "{page}");
        assert_eq!(page.matches("</script>").count(), 3);
        assert!(!page.contains("<img"));
        assert!(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)"));
    }

    #[test]
    fn csp_hashes_match_the_inline_script_and_style() {
        let page = render(&[input("a.hlog", "a")], &Options::default(), &fake_viewer()).unwrap();
        let body = |open: &str, close: &str| {
            let s = page.find(open).unwrap() + open.len();
            page[s..s + page[s..].find(close).unwrap()].to_string()
        };
        let script = body("<script type=\"module\">", "</script>");
        let style = body("<style>", "</style>");
        let csp = body("Content-Security-Policy\" content=\"", "\"");
        assert!(csp.starts_with("default-src 'none'; "));
        assert!(csp.contains(&format!("script-src {} 'wasm-unsafe-eval'", csp_hash(&script))), "{csp}");
        assert!(csp.contains(&format!("style-src {}", csp_hash(&style))), "{csp}");
        assert!(!script.contains("export "));
    }

    #[test]
    fn embedded_runs_round_trip() {
        let i = input("a.hlog", "a");
        let bytes = i.bytes.clone();
        let page = render(&[i], &Options::default(), &fake_viewer()).unwrap();
        let open = "<script type=\"application/json\" id=\"nines-report-runs\">";
        let s = page.find(open).unwrap() + open.len();
        let v: serde_json::Value = serde_json::from_str(&page[s..s + page[s..].find("</script>").unwrap()]).unwrap();
        let gz = base64::engine::general_purpose::STANDARD.decode(v["runs"][0]["gzip"].as_str().unwrap()).unwrap();
        let mut back = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut back).unwrap();
        assert_eq!(back, bytes);
        assert_eq!(v["runs"][0]["name"], "a.hlog");
    }

    #[test]
    fn summary_has_the_stats_cells() {
        let i = input("a.hlog", "a");
        let s = stats::run_stats(&i.run, &stats::Options::default());
        let page = render(&[i], &Options::default(), &fake_viewer()).unwrap();
        assert!(page.contains("randrw 70% reads, 4KiB, QD16, 1 job, O_DIRECT"));
        for tag in ["read", "write", "all"] {
            assert!(page.contains(&format!("data-dir=\"{tag}\"")));
            let cell = format!("data-col=\"count\">{}</td>", nines_core::units::group(s.tags[tag].count));
            assert!(page.contains(&cell), "{cell}");
        }
    }
}
