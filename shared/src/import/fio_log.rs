//! What fio's per-job logs share (`--write_lat_log`, `--write_hist_log`; fio's HOWTO, "Log
//! File Formats"): the direction numbers and the file names.

/// Direction tag of fio's ddir number.
pub fn ddir_tag(ddir: u64) -> String {
    match ddir {
        0 => "read".into(),
        1 => "write".into(),
        2 => "trim".into(),
        3 => "sync".into(),
        4 => "datasync".into(),
        5 => "sync_file_range".into(),
        n => format!("ddir{n}"),
    }
}

/// A run name for a fio log: the `--write_*_log` prefix without the measure and job number
/// (`mix_clat.2.log` and `mix_clat_hist.1.log` are both `mix`).
pub fn log_run_name(source_name: &str) -> String {
    let base = source_name.rsplit(['/', '\\']).next().unwrap_or(source_name);
    for suffix in ["_clat_hist.", "_lat_hist.", "_clat.", "_slat.", "_lat."] {
        if let Some(i) = base.rfind(suffix) {
            if i > 0 {
                return base[..i].to_string();
            }
        }
    }
    crate::archive::stem(source_name)
}
