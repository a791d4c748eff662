//! The digest of what the viewer bundle is built from: the viewer's, the workers' and the
//! analysis core's sources and manifests, the shell in `static/`, the workspace manifest and
//! lock file (which decide how they build), the toolchain file and the build procedure
//! (`xtask/src/lib.rs`; its command line in main.rs is not part of it).
//!
//! `cargo run -p xtask -- dist` records it in `collector/viewer-dist/SOURCES` beside the
//! bundle it builds; the `nines` build script (a clone) takes that bundle only while the
//! digest of the checkout's sources still equals it, and builds the viewer otherwise. The
//! same file is compiled into both (`#[path]` in xtask), so they cannot disagree on what
//! counts.
//!
//! Text is hashed with its line ends normalised (CRLF as LF), so that a checkout with
//! `core.autocrlf` (Windows) hashes as the repository does.

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The inputs, relative to the workspace root: folders are taken whole (every file below).
pub const INPUTS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "viewer/Cargo.toml",
    "viewer/src",
    "worker/Cargo.toml",
    "worker/src",
    "shared/Cargo.toml",
    "shared/src",
    "static/index.html",
    "static/style.css",
    "static/worker.js",
    "xtask/Cargo.toml",
    "xtask/src/lib.rs",
    "collector/viewer_sources.rs",
];

/// The name of the record beside a shipped bundle.
pub const RECORD: &str = "SOURCES";

/// The SHA-256 (hex) over every input file's path (with `/`), length and bytes, in path order.
pub fn digest(root: &Path) -> io::Result<String> {
    let mut files = Vec::new();
    for input in INPUTS {
        let p = root.join(input);
        if p.is_dir() {
            walk(&p, &mut files)?;
        } else {
            files.push(p);
        }
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(root).unwrap_or(&f);
            let name = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/");
            (name, f)
        })
        .collect();
    named.sort();
    let mut h = Sha256::new();
    for (name, path) in named {
        let bytes = std::fs::read(&path).map_err(|e| io::Error::new(e.kind(), format!("'{}': {e}", path.display())))?;
        let bytes = without_cr(bytes);
        h.update(name.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The digest a bundle's record names (its `sources` line), if the record reads.
pub fn recorded(dist: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dist.join(RECORD)).ok()?;
    text.lines().find_map(|l| l.strip_prefix("sources ")).map(|s| s.trim().to_string())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            walk(&e.path(), out)?;
        } else if t.is_file() {
            out.push(e.path());
        }
    }
    Ok(())
}

/// CRLF as LF (files with other bytes unchanged: a checkout's line ends are not sources).
fn without_cr(bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.windows(2).any(|w| w == b"\r\n") {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(String, &[u8])]) -> tempfile_free::Dir {
        let d = tempfile_free::Dir::new();
        for (name, bytes) in files {
            let p = d.0.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        d
    }

    /// A temporary folder without a dependency (this file is also a build script's module).
    mod tempfile_free {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!("viewer-sources-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// Every input (a folder as one file in it), the viewer's lib.rs, and `extra`.
    fn all(extra: &[(&str, &'static [u8])]) -> Vec<(String, &'static [u8])> {
        let mut files: Vec<(String, &[u8])> =
            INPUTS.iter().map(|i| (if i.contains('.') { i.to_string() } else { format!("{i}/a.rs") }, b"x\n" as &[u8])).collect();
        files.push(("viewer/src/lib.rs".into(), b"fn a() {}\nfn b() {}\n"));
        files.extend(extra.iter().map(|(n, b)| (n.to_string(), *b)));
        files
    }

    fn replaced(name: &str, bytes: &'static [u8]) -> Vec<(String, &'static [u8])> {
        let mut files = all(&[]);
        files.retain(|(n, _)| n != name);
        files.push((name.into(), bytes));
        files
    }

    #[test]
    fn line_ends_do_not_count_and_content_and_names_do() {
        let base = digest(&tree(&all(&[])).0).unwrap();
        assert_eq!(base.len(), 64);
        // a Windows checkout (core.autocrlf) of the same sources
        assert_eq!(digest(&tree(&replaced("viewer/src/lib.rs", b"fn a() {}\r\nfn b() {}\r\n")).0).unwrap(), base);
        // one byte changed, a file added below an input folder, a file outside the inputs
        assert_ne!(digest(&tree(&replaced("viewer/src/lib.rs", b"fn a() {}\nfn c() {}\n")).0).unwrap(), base);
        assert_ne!(digest(&tree(&all(&[("shared/src/new.rs", b"")])).0).unwrap(), base);
        assert_eq!(digest(&tree(&all(&[("collector/src/main.rs", b"fn main() {}")])).0).unwrap(), base);
    }

    #[test]
    fn a_missing_input_is_an_error_that_names_it() {
        let mut files = all(&[]);
        files.retain(|(n, _)| n != "Cargo.lock");
        let e = digest(&tree(&files).0).unwrap_err().to_string();
        assert!(e.contains("Cargo.lock"), "{e}");
    }

    #[test]
    fn the_record_names_its_digest() {
        let d = tree(&[("SOURCES".into(), b"sources abc123\nrustc rustc 1.95.0\n")]);
        assert_eq!(recorded(&d.0).as_deref(), Some("abc123"));
        assert_eq!(recorded(&d.0.join("nowhere")), None);
    }
}
