//! Mounting a [`crate::tree`] of nodes through `web_sys`, text set as text (the tree itself is
//! plain data, built and tested natively).

use wasm_bindgen::JsCast;

pub(super) use crate::tree::{el, text, tx, Node};

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
