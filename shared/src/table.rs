//! Plain-text tables for the CLI: first column left-aligned, the others right-aligned.

/// Render rows (the first is the header) as aligned text, one line per row.
pub fn render(rows: &[Vec<String>]) -> String {
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..ncol).map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                line.push_str(&format!("{cell:<w$}", w = widths[c]));
            } else {
                line.push_str(&format!("  {cell:>w$}", w = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns() {
        let rows = vec![vec!["dir".to_string(), "count".into()], vec!["read".into(), "1,000".into()]];
        assert_eq!(super::render(&rows), "dir   count\nread  1,000\n");
    }
}
