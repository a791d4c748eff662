//! A small DOM tree for data-driven tables and lists, as plain data: the panels build it
//! natively (and their tests read it), `app::dom` mounts it through `web_sys` with text set as
//! text.
//!
//! Why not Leptos views here: a typed `view!` is compiled into its own render, rebuild and
//! mount code for every shape, and the judge panels' tables (a cell shape per measure, verdict
//! and direction) cost about 100 KB of gzipped wasm that way, past the viewer's 400 KB goal.
//! These tables are rebuilt whole whenever their inputs change, so one generic element type
//! and one mount function do the same job. Names, tags and file names only ever reach the page
//! through `set_text_content` and `set_attribute`, never as markup.

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    El { tag: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node> },
    Text(String),
}

/// An element.
pub fn el(tag: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node>) -> Node {
    Node::El { tag, attrs, children }
}

/// A text node.
pub fn text(s: impl Into<String>) -> Node {
    Node::Text(s.into())
}

/// An element holding only text.
pub fn tx(tag: &'static str, attrs: Vec<(&'static str, String)>, s: impl Into<String>) -> Node {
    el(tag, attrs, vec![text(s)])
}

impl Node {
    /// The value of attribute `name` (None for text or a missing attribute).
    pub fn attr(&self, name: &str) -> Option<&str> {
        match self {
            Node::El { attrs, .. } => attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str()),
            Node::Text(_) => None,
        }
    }

    /// The text in this node and below it, in document order.
    pub fn text(&self) -> String {
        match self {
            Node::Text(s) => s.clone(),
            Node::El { children, .. } => children.iter().map(Node::text).collect(),
        }
    }

    /// Every element at or below this node whose `data-testid` is `id`, in document order.
    pub fn by_testid<'a>(&'a self, id: &str) -> Vec<&'a Node> {
        let mut out = Vec::new();
        self.walk(&mut |n| {
            if n.attr("data-testid") == Some(id) {
                out.push(n)
            }
        });
        out
    }

    fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        if let Node::El { children, .. } = self {
            for c in children {
                c.walk(f);
            }
        }
    }
}
