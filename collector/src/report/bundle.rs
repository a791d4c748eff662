//! The viewer bundle built by `build.rs` (see `xtask::build_viewer`) and carried in the binary.

/// The files of the viewer, as built when this binary was.
pub struct Viewer {
    /// The shell page of a static site (`static/index.html`).
    pub index_html: &'static str,
    pub style_css: &'static str,
    /// The module worker that decodes raw runs for a site's page (`static/worker.js`).
    pub worker_js: &'static str,
    /// wasm-bindgen's `--target web` glue, an ES module.
    pub glue_js: &'static str,
    pub wasm: &'static [u8],
    /// The workers' module (nines-worker, built for speed): its glue and its wasm.
    pub worker_glue_js: &'static str,
    pub worker_wasm: &'static [u8],
}

macro_rules! bundled {
    ($f:literal) => {
        include_bytes!(concat!(env!("OUT_DIR"), "/viewer/", $f))
    };
}

/// The viewer this binary carries.
pub fn viewer() -> Viewer {
    let text = |b: &'static [u8], f: &str| std::str::from_utf8(b).unwrap_or_else(|_| panic!("bundled {f} is UTF-8"));
    Viewer {
        index_html: text(bundled!("index.html"), "index.html"),
        style_css: text(bundled!("style.css"), "style.css"),
        worker_js: text(bundled!("worker.js"), "worker.js"),
        glue_js: text(bundled!("nines_viewer.js"), "nines_viewer.js"),
        wasm: bundled!("nines_viewer_bg.wasm"),
        worker_glue_js: text(bundled!("nines_worker.js"), "nines_worker.js"),
        worker_wasm: bundled!("nines_worker_bg.wasm"),
    }
}

impl Viewer {
    /// The glue as the body of an inline module script: its `export` keywords dropped (an
    /// inline module exports nothing) so that the bootstrap after it can call `__wbg_init`.
    pub fn inline_glue(&self) -> anyhow::Result<String> {
        let mut out = String::with_capacity(self.glue_js.len());
        for line in self.glue_js.lines() {
            let t = line.trim_start();
            if t.starts_with("export {") {
                continue;
            }
            if t.starts_with("import ") {
                anyhow::bail!("the viewer's glue imports another module ({t:?}); it cannot be inlined into a report");
            }
            out.push_str(line.strip_prefix("export ").unwrap_or(line));
            out.push('\n');
        }
        if !out.contains("function __wbg_init") {
            anyhow::bail!("the viewer's glue has no __wbg_init; was it built with wasm-bindgen --target web?");
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundle_is_a_viewer() {
        let v = super::viewer();
        assert_eq!(&v.wasm[..4], b"\0asm");
        assert_eq!(&v.worker_wasm[..4], b"\0asm");
        assert!(v.worker_glue_js.contains("export function summarise"), "the workers' glue exports summarise");
        assert!(v.index_html.contains("id=\"nines-runs\""));
        let g = v.inline_glue().unwrap();
        assert!(!g.lines().any(|l| l.trim_start().starts_with("export ")));
    }
}
