//! What a user installing nines gets besides the commands: `--version` naming the commit,
//! shell completions and manual pages generated from the one command definition.

use std::process::Command;

use nines_tests::{nines, nines_ok};

#[test]
fn version_names_the_package_version_and_in_a_clone_the_commit() {
    let v = nines_ok(&["--version"]);
    assert!(v.starts_with(&format!("nines {}", env!("CARGO_PKG_VERSION"))), "{v}");
    let head = Command::new("git").args(["rev-parse", "--short=10", "HEAD"]).current_dir(env!("CARGO_MANIFEST_DIR")).output();
    if let Some(h) = head.ok().filter(|h| h.status.success()) {
        let commit = String::from_utf8(h.stdout).unwrap();
        assert!(v.contains(&format!("commit {}", commit.trim())), "{v} does not name HEAD {commit}");
    }
}

#[test]
fn bash_completions_parse_and_complete_every_subcommand() {
    let script = nines_ok(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("nines.bash");
    std::fs::write(&f, &script).unwrap();
    // the script is valid bash, and completing `nines ` offers every subcommand
    let probe = format!(
        "source {}; COMP_WORDS=(nines ''); COMP_CWORD=1; COMP_LINE='nines '; COMP_POINT=6; _nines nines '' nines; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        f.display()
    );
    let o = Command::new("bash").arg("-c").arg(&probe).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let offered = String::from_utf8(o.stdout).unwrap();
    for sub in ["stats", "run", "report", "site", "view", "merge", "export", "completions", "man"] {
        assert!(offered.lines().any(|l| l == sub), "`nines <TAB>` does not offer {sub}: {offered}");
    }
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let s = nines_ok(&["completions", shell]);
        assert!(s.contains("nines") && s.contains("--target"), "{shell}: {s}");
    }
    let o = nines(&["completions", "tcsh"]);
    assert!(!o.status.success());
}

#[test]
fn manual_pages_list_every_subcommand_and_every_flag() {
    let page = nines_ok(&["man"]);
    assert!(page.contains(".TH nines 1"), "{page}");
    for sub in ["stats", "run", "report", "site", "view", "merge", "export", "check"] {
        assert!(page.contains(&format!("nines\\-{sub}(1)")) || page.contains(&format!("\\fB{sub}\\fR")), "nines(1) lacks {sub}");
    }
    let run = nines_ok(&["man", "run"]);
    assert!(run.contains(".TH nines-run 1"), "{run}");
    for flag in ["target", "destroy\\-data", "rate\\-iops", "window\\-ios"] {
        assert!(run.contains(&format!("\\-\\-{flag}")), "nines-run(1) lacks --{flag}");
    }
    let o = nines(&["man", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no subcommand \"nope\""));
}
