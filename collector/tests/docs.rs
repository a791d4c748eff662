//! The repository's documents point only inside the repository, and every link resolves: a
//! relative link names a file that exists, a `#fragment` names a heading of the page it
//! points into (GitHub's anchors: the heading in lower case, spaces as hyphens, punctuation
//! other than `-` and `_` dropped). Web links (`http://`, `https://`) are not fetched.

use std::path::{Path, PathBuf};

const DOCS: [&str; 4] = ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", "bench/notes/viewer-passes.md"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every `](target)` of a Markdown text (links and images), outside code blocks.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_link_of_the_documents_resolves_inside_the_repository() {
    let root = root();
    let mut bad = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (line, target) in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, fragment) = target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
            // relative to the document's own folder, as GitHub resolves it
            let page = if file.is_empty() { root.join(doc) } else { root.join(doc).parent().unwrap().join(file) };
            if !page.exists() {
                bad.push(format!("{doc}:{line}: {target}: no such file"));
                continue;
            }
            if let Some(a) = fragment {
                let text = std::fs::read_to_string(&page).unwrap_or_default();
                if !anchors(&text).iter().any(|h| h == a) {
                    bad.push(format!("{doc}:{line}: {target}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "links that do not resolve:\n{}", bad.join("\n"));
    assert!(checked >= 20, "only {checked} links found: is the parser still reading the documents?");
}

#[test]
fn the_documents_do_not_point_outside_the_repository() {
    let root = root();
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for needle in ["DESIGN.md", "seed 0", "seeds/", "steering repository"] {
            assert!(!text.contains(needle), "{doc} mentions {needle:?}, which is not in this repository");
        }
    }
}

#[test]
fn anchors_follow_github() {
    assert_eq!(anchor(" Fleets: `nines run --start-at` and `nines merge`"), "fleets-nines-run---start-at-and-nines-merge");
    assert_eq!(
        anchor(" Limits, and what each command does when things go wrong"),
        "limits-and-what-each-command-does-when-things-go-wrong"
    );
    assert_eq!(anchor(" `nines stats`"), "nines-stats");
}
