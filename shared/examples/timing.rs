fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let run = nines_core::archive::read(&path, &bytes).unwrap();
    let t1 = t.elapsed();
    let s = nines_core::stats::run_stats(&run, &Default::default());
    let t2 = t.elapsed();
    let j = nines_core::export::json::stats(&[s]);
    eprintln!("read {:?} stats {:?} json {:?} {}", t1, t2 - t1, t.elapsed() - t2, j.len());
}
