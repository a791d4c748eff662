//! Plain-text tables for the CLI: first column left-aligned, the others right-aligned.
//!
//! Cells come from files (tags, run names, notes) and are printed to terminals, so a control
//! character in a cell (ESC, NUL, a newline, any `char::is_control`) is shown escaped as
//! `\u{1b}`, never raw: a file cannot move the cursor, recolour the terminal or break the
//! table's lines. Widths count the characters shown, escapes included, and padding is pushed
//! by hand (`format!`'s width is a `u16` and panics on a cell wider than 65,535).

use std::borrow::Cow;

/// A cell as it is printed: control characters escaped.
pub fn shown(cell: &str) -> Cow<'_, str> {
    if !cell.chars().any(char::is_control) {
        return Cow::Borrowed(cell);
    }
    let mut out = String::with_capacity(cell.len() + 8);
    for c in cell.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Characters a cell takes once printed (see [`shown`]).
pub fn width(cell: &str) -> usize {
    shown(cell).chars().count()
}

fn pad(line: &mut String, n: usize) {
    line.extend(std::iter::repeat_n(' ', n));
}

/// Render rows (the first is the header) as aligned text, one line per row.
pub fn render(rows: &[Vec<String>]) -> String {
    let cells: Vec<Vec<Cow<'_, str>>> = rows.iter().map(|r| r.iter().map(|c| shown(c)).collect()).collect();
    let ncol = cells.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..ncol).map(|c| cells.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &cells {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let gap = widths[c] - cell.chars().count();
            if c == 0 {
                line.push_str(cell);
                pad(&mut line, gap);
            } else {
                pad(&mut line, 2 + gap);
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns() {
        let rows = vec![vec!["dir".to_string(), "count".into()], vec!["read".into(), "1,000".into()]];
        assert_eq!(render(&rows), "dir   count\nread  1,000\n");
    }

    #[test]
    fn cells_wider_than_u16_are_padded() {
        let wide = "x".repeat(70_000);
        let rows = vec![vec!["tag".to_string(), "n".into()], vec![wide.clone(), "12".into()], vec!["a".into(), "3".into()]];
        let text = render(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], format!("tag{}   n", " ".repeat(70_000 - 3)));
        assert_eq!(lines[1], format!("{wide}  12"));
        assert_eq!(lines[2].chars().count(), 70_000 + 2 + 2);
        // a wide right-aligned column too
        let rows = vec![vec!["a".to_string(), "b".into()], vec!["c".into(), wide.clone()]];
        assert_eq!(render(&rows).lines().next().unwrap().chars().count(), 1 + 2 + 70_000);
    }

    #[test]
    fn control_characters_are_escaped() {
        let rows =
            vec![vec!["dir".to_string(), "count".into()], vec!["\u{1b}[2Jr\0d".into(), "1".into()], vec!["read".into(), "x\ny".into()]];
        let text = render(&rows);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert_eq!(text.lines().count(), 3);
        assert_eq!(text, "dir                 count\n\\u{1b}[2Jr\\u{0}d        1\nread              x\\u{a}y\n");
        assert_eq!(width("\u{1b}"), 6);
        assert_eq!(shown("plain"), Cow::Borrowed("plain"));
    }
}
