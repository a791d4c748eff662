//! Putting untrusted text into a page: everything from an archive (names, tags, metadata,
//! file names) and from the user (title, notes) reaches the page as text only.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Escape text for an HTML element's content or a quoted attribute value (the viewer's
/// tables escape with the same function).
pub use nines_core::html::escape as esc;

/// JSON for a `<script type="application/json">` element: `<`, `>` and `&` only occur inside
/// JSON strings, where their `\u` escapes mean the same, so no `</script>` or `<!--` can end
/// or change the element however hostile the strings are.
pub fn json_for_script(v: &serde_json::Value) -> String {
    serde_json::to_string(v).expect("JSON values serialise").replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// JavaScript to inline in a `<script>` element: `</script` would end the element and `<!--`
/// would switch the parser into its escaped state. Both only occur inside strings, regular
/// expressions or comments of the glue, where `<\/` and `<\!` mean the same.
pub fn js_for_script(js: &str) -> String {
    let mut out = String::with_capacity(js.len());
    let lower = js.to_ascii_lowercase();
    let mut i = 0;
    while i < js.len() {
        if lower[i..].starts_with("</script") {
            out.push_str("<\\/");
            i += 2;
        } else if lower[i..].starts_with("<!--") {
            out.push_str("<\\!--");
            i += 4;
        } else {
            let c = js[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Markdown notes to HTML, with no raw HTML: HTML blocks and inline HTML are shown as text,
/// links keep only http(s), mailto and in-page targets (anything else, `javascript:`
/// included, becomes plain text) and images become their description (a report loads
/// nothing from anywhere).
pub fn markdown(md: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut safe_links = Vec::new();
    let events = Parser::new_ext(md, opts).map(|ev| match ev {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            let ok = safe_url(&dest_url);
            safe_links.push(ok);
            if ok {
                Event::Start(Tag::Link { link_type, dest_url, title, id })
            } else {
                Event::Text(CowStr::Borrowed(""))
            }
        }
        Event::End(TagEnd::Link) => {
            if safe_links.pop().unwrap_or(false) {
                Event::End(TagEnd::Link)
            } else {
                Event::Text(CowStr::Borrowed(""))
            }
        }
        Event::Start(Tag::Image { .. }) => Event::Text(CowStr::Borrowed("[image: ")),
        Event::End(TagEnd::Image) => Event::Text(CowStr::Borrowed("]")),
        e => e,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

fn safe_url(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    // A scheme is what comes before the first ':' if no '/', '?' or '#' precedes it.
    match u.find([':', '/', '?', '#']) {
        Some(i) if u.as_bytes()[i] == b':' => ["http", "https", "mailto"].contains(&&u[..i]),
        // no scheme: only an in-page target; a relative path would point at files beside
        // the report on the reader's machine, which the report does not carry
        _ => u.starts_with('#'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text() {
        assert_eq!(esc(r#"<img src=x onerror="a()">&'"#), "&lt;img src=x onerror=&quot;a()&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn json_cannot_end_its_element() {
        let v = serde_json::json!({ "name": "</script><script>alert(1)</script><!--&" });
        let s = json_for_script(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }

    #[test]
    fn js_cannot_end_its_element() {
        let s = js_for_script("a = '</SCRIPT>'; b = '<!-- x';");
        assert_eq!(s, "a = '<\\/SCRIPT>'; b = '<\\!-- x';");
    }

    #[test]
    fn markdown_renders_without_raw_html() {
        let h = markdown("# Notes\n\n*fast* run <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n");
        assert!(h.contains("<h1>Notes</h1>") && h.contains("<em>fast</em>"), "{h}");
        assert!(!h.contains("<script") && !h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;") && h.contains("&lt;img src=x"), "{h}");
    }

    #[test]
    fn markdown_links_and_images() {
        let h = markdown(
            "[ok](https://example.com/a) [bad](javascript:alert(1)) [bad2]( JavaScript:x) [rel](#top) ![pic](http://example.com/p.png)",
        );
        assert!(h.contains(r#"<a href="https://example.com/a">ok</a>"#), "{h}");
        assert!(h.contains(r##"<a href="#top">rel</a>"##), "{h}");
        assert!(!h.to_ascii_lowercase().contains("javascript"), "{h}");
        assert!(h.contains("bad") && h.contains("bad2"), "{h}");
        assert!(!h.contains("<img") && h.contains("[image: pic]"), "{h}");
    }
}
