//! Size of a run's compact form at every grouping: `cargo run --release -p nines-core
//! --example compact_size -- RUN.hlog`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: compact_size RUN.hlog");
    let bytes = std::fs::read(&path).expect("readable file");
    let run = nines_core::archive::read(&path, &bytes).expect("an archive");
    let t = std::time::Instant::now();
    let b = nines_core::compact::Builder::new(&run);
    println!("builder: {:.2} s", t.elapsed().as_secs_f64());
    for g in b.group_sizes() {
        let t = std::time::Instant::now();
        let c = b.build(g);
        let built = t.elapsed().as_secs_f64();
        let w = c.write().unwrap();
        println!(
            "group {g:5}: {:9} bytes (build {built:.2} s, write {:.2} s) {}",
            w.len(),
            t.elapsed().as_secs_f64() - built,
            c.group_text()
        );
    }
}
