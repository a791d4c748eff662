use nines_core::compact::{Builder, Compact};
use std::time::Instant;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let run = nines_core::import::read_any(&p, &bytes).unwrap();
        let t1 = t.elapsed();
        let b = Builder::new(&run);
        let t2 = t.elapsed();
        let g = b.group_within(60.0);
        let c = b.build(g);
        let t3 = t.elapsed();
        let w = c.write().unwrap();
        let t4 = t.elapsed();
        let r = Compact::read(&p, &w).unwrap();
        let t5 = t.elapsed();
        eprintln!(
            "read {:?} builder {:?} build {:?} write {:?} ({} B) readback {:?} group {}",
            t1,
            t2 - t1,
            t3 - t2,
            t4 - t3,
            w.len(),
            t5 - t4,
            g
        );
        drop(r);
    }
}
