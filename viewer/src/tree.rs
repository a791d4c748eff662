//! A small DOM tree for data-driven tables and lists, as plain data: the panels build it
//! natively (and their tests read it), `app::dom` mounts it through `web_sys` with text set as
//! text.
//!
//! Why not Leptos views here: a typed `view!` is compiled into its own render, rebuild and
//! mount code for every shape, and the judge panels' tables (a cell shape per measure, verdict
//! and direction) cost about 100 KB of gzipped wasm that way, past the viewer's 400 KB goal.
//! These tables are rebuilt whole whenever their inputs change, so one generic element type
//! and one mount function do the same job. `app::dom` mounts a tree as one string of HTML
//! ([`Node::html`]): the browser's parser builds a 300-row table in a fraction of the time
//! that thousands of `createElement`/`setAttribute` calls from wasm took. Names, tags and file
//! names (untrusted: they come from archives) are escaped there as the HTML standard's
//! serialisation escapes text and attribute values, so they only ever reach the page as text
//! (`nines_core::html`, as the report writer escapes them).

use nines_core::html::escape_into as escape;

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

    /// The nodes as HTML, for an element's `innerHTML`. Text and attribute values are escaped
    /// (`&`, `<`, `>`, `"` and `'`), so no name or tag from an archive can open an element,
    /// close one or end an attribute; tags and attribute names are the code's own. The trees
    /// nest as the HTML parser keeps them (rows in a `thead` or `tbody`, no block in a `p`).
    pub fn html(nodes: &[Node]) -> String {
        let mut out = String::new();
        nodes.iter().for_each(|n| n.write_html(&mut out));
        out
    }

    fn write_html(&self, out: &mut String) {
        match self {
            Node::Text(s) => escape(s, out),
            Node::El { tag, attrs, children } => {
                out.push('<');
                out.push_str(tag);
                for (k, v) in attrs {
                    out.push(' ');
                    out.push_str(k);
                    out.push_str("=\"");
                    escape(v, out);
                    out.push('"');
                }
                out.push('>');
                // a void element has no end tag (its children, if any were given, are dropped)
                if *tag == "input" {
                    return;
                }
                children.iter().for_each(|c| c.write_html(out));
                out.push_str("</");
                out.push_str(tag);
                out.push('>');
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_names_and_values_from_archives() {
        let hostile = r#"</td><script>alert('x')</script> & "q""#;
        let t = el(
            "tr",
            vec![("data-run", hostile.into()), ("class", "a".into())],
            vec![tx("td", vec![], hostile), el("td", vec![], vec![el("input", vec![("value", hostile.into())], vec![]), text("x")])],
        );
        let h = Node::html(&[t, text("<b>")]);
        let esc = "&lt;/td&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;";
        assert_eq!(h, format!(r#"<tr data-run="{esc}" class="a"><td>{esc}</td><td><input value="{esc}">x</td></tr>&lt;b&gt;"#));
        // no markup of the hostile text survives: every '<' is the code's own
        assert_eq!(h.matches('<').count(), 7);
        assert_eq!(Node::html(&[]), "");
    }
}
