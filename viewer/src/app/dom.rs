//! A small DOM tree for data-driven tables, mounted through `web_sys` with text set as text.
//!
//! Why not Leptos views here: a typed `view!` is compiled into its own render, rebuild and
//! mount code for every shape, and the judge panels' tables (a cell shape per measure, verdict
//! and direction) cost about 100 KB of gzipped wasm that way, past the viewer's 400 KB goal.
//! These tables are rebuilt whole whenever their inputs change, so one generic element type
//! and one mount function do the same job. Names, tags and file names only ever reach the page
//! through `set_text_content` and `set_attribute`, never as markup.

use wasm_bindgen::JsCast;

pub(super) enum Node {
    El { tag: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node> },
    Text(String),
}

/// An element.
pub(super) fn el(tag: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node>) -> Node {
    Node::El { tag, attrs, children }
}

/// A text node.
pub(super) fn text(s: impl Into<String>) -> Node {
    Node::Text(s.into())
}

/// An element holding only text.
pub(super) fn tx(tag: &'static str, attrs: Vec<(&'static str, String)>, s: impl Into<String>) -> Node {
    el(tag, attrs, vec![text(s)])
}

fn build(doc: &web_sys::Document, node: &Node) -> Option<web_sys::Node> {
    match node {
        Node::Text(s) => Some(doc.create_text_node(s).unchecked_into()),
        Node::El { tag, attrs, children } => {
            let e = if matches!(*tag, "svg" | "line") {
                doc.create_element_ns(Some("http://www.w3.org/2000/svg"), tag).ok()?
            } else {
                doc.create_element(tag).ok()?
            };
            for (k, v) in attrs {
                let _ = e.set_attribute(k, v);
            }
            for c in children {
                if let Some(n) = build(doc, c) {
                    let _ = e.append_child(&n);
                }
            }
            Some(e.unchecked_into())
        }
    }
}

/// Replace the children of `parent` with `nodes`.
pub(super) fn mount(parent: &web_sys::Element, nodes: &[Node]) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let frag = doc.create_document_fragment();
    for n in nodes {
        if let Some(x) = build(&doc, n) {
            let _ = frag.append_child(&x);
        }
    }
    parent.set_text_content(None);
    let _ = parent.append_child(&frag);
}
