//! Text for HTML: shared by the report writer's static pages and the viewer's tables, which both
//! put names, tags and metadata from archives (untrusted) into a page.

/// Append `s` escaped for an element's text or a quoted attribute value: `&`, `<`, `>`, `"`
/// and `'` as character references, as the HTML standard's serialisation escapes text and
/// attribute values (the single quote too, for attributes quoted with it), so that the text
/// only ever reaches the page as text.
pub fn escape_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// [`escape_into`] a new string.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_become_references() {
        assert_eq!(
            escape(r#"</td><script>alert('x')</script> & "q" µs"#),
            "&lt;/td&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot; µs"
        );
        let mut out = String::from("a");
        escape_into("&", &mut out);
        assert_eq!(out, "a&amp;");
    }
}
