//! Tables of any cells: never a panic, one line per row, no raw control character, and every
//! line as wide as the cells (escaped) and the two-space gaps make it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nines_core::table::{render, width};

fuzz_target!(|data: &[u8]| {
    // rows split by 0xff bytes, cells by 0xfe, text as lossy UTF-8
    let rows: Vec<Vec<String>> =
        data.split(|&b| b == 0xff).map(|r| r.split(|&b| b == 0xfe).map(|c| String::from_utf8_lossy(c).into_owned()).collect()).collect();
    let out = render(&rows);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "raw control character");
    let lines: Vec<&str> = out.split_terminator('\n').collect();
    assert_eq!(lines.len(), rows.len());
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..ncol).map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| width(s))).max().unwrap_or(0)).collect();
    for (line, row) in lines.iter().zip(&rows) {
        // the full width of the row's columns, less the blanks trimmed at its end
        let full: usize = widths[..row.len()].iter().sum::<usize>() + 2 * row.len().saturating_sub(1);
        let n = line.chars().count();
        assert!(n <= full, "line of {n} characters, columns make {full}");
        if let Some(last) = row.last() {
            let shown = nines_core::table::shown(last);
            let kept = shown.trim_end();
            if !kept.is_empty() && row.len() > 1 {
                // a right-aligned last cell ends the line at the full width
                assert_eq!(n, full - (shown.chars().count() - kept.chars().count()));
            }
        }
    }
});
