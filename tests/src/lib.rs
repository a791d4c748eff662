//! Helpers for nines' end-to-end tests: the `nines` binary, peers, temporary files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Path of the `nines` binary the running test was built with.
///
/// The end-to-end tests are integration tests of the `nines` package (`collector/tests/`), so
/// cargo builds the binary with the same profile before it runs them. It names the binary in
/// `CARGO_BIN_EXE_nines` at run time (newer cargo does); otherwise cargo leaves it next to the
/// test's `deps/` folder, which is where this looks then. No test builds anything itself.
pub fn nines_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = std::env::var_os("CARGO_BIN_EXE_nines").map(PathBuf::from).unwrap_or_else(|| {
            let exe = std::env::current_exe().expect("the test knows its own path");
            let deps = exe.parent().expect("a test binary lives in a folder");
            let profile = if deps.ends_with("deps") { deps.parent().expect("deps/ has a parent") } else { deps };
            profile.join(format!("nines{}", std::env::consts::EXE_SUFFIX))
        });
        assert!(bin.exists(), "{} is missing: these are tests of the nines package (cargo test -p nines-qos)", bin.display());
        bin
    })
    .clone()
}

/// Run `nines` with arguments (through `assert_cmd`, which reports the command line, status,
/// stdout and stderr of a failed assertion).
pub fn nines(args: &[&str]) -> Output {
    assert_cmd::Command::new(nines_bin()).args(args).output().expect("nines runs")
}

/// Run `nines`, require success, return stdout.
pub fn nines_ok(args: &[&str]) -> String {
    let out = assert_cmd::Command::new(nines_bin()).args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).expect("utf-8 output")
}

/// Java HdrHistogram's jar from Debian's libhdrhistogram-java (installed by scripts/setup.sh).
pub fn hdr_jar() -> PathBuf {
    let p = PathBuf::from("/usr/share/java/hdrhistogram.jar");
    assert!(p.exists(), "{} is missing: run scripts/setup.sh (installs libhdrhistogram-java)", p.display());
    p
}

/// Run a command, require success, return stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?} could not start: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Run a Java single-file program from tests/interop with HdrHistogram on the class path.
pub fn java(program: &str, args: &[&str]) -> String {
    let src = root().join("tests/interop").join(program);
    run_ok(Command::new("java").arg("-cp").arg(hdr_jar()).arg(src).args(args))
}

/// Run a Python script from tests/interop (needs the `hdrh` module, from scripts/setup.sh).
pub fn python(script: &str, args: &[&str]) -> String {
    let src = root().join("tests/interop").join(script);
    run_ok(Command::new("python3").arg(src).args(args))
}

/// The runs a `nines report` page embeds: (file name, bytes). Archives travel gzip'd and
/// base64'd, compact forms (one zlib stream already) in base64 alone.
pub fn report_payloads(page: &str) -> Vec<(String, Vec<u8>)> {
    use base64::Engine as _;
    let open = "<script type=\"application/json\" id=\"nines-report-runs\">";
    let at = page.find(open).expect("a report's runs") + open.len();
    let v: serde_json::Value = serde_json::from_str(&page[at..at + page[at..].find("</script>").expect("closed")]).expect("JSON");
    let b64 = |s: &serde_json::Value| base64::engine::general_purpose::STANDARD.decode(s.as_str().expect("base64 text")).expect("base64");
    v["runs"]
        .as_array()
        .expect("a list of runs")
        .iter()
        .map(|r| {
            let bytes = if r["gzip"].is_string() {
                let mut out = Vec::new();
                std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&b64(&r["gzip"])[..]), &mut out).expect("gzip");
                out
            } else {
                b64(&r["base64"])
            };
            (r["name"].as_str().expect("a name").to_string(), bytes)
        })
        .collect()
}
