//! Mounting a [`crate::tree`] of nodes: as one string of HTML, text and attribute values
//! escaped (the tree itself is plain data, built and tested natively).

pub(super) use crate::tree::{el, tx, Node};

/// Replace the children of `parent` with `nodes`.
pub(super) fn mount(parent: &web_sys::Element, nodes: &[Node]) {
    parent.set_inner_html(&Node::html(nodes));
}
