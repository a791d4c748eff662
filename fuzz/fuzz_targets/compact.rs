//! Compact-form reader: any bytes give a compact run or an error, never a panic; what it
//! reads draws (every point of every level) and writes back to the same form. The bytes are
//! tried as they are and, to get past the checksum, as the body inside a valid zlib stream.
#![no_main]
use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use nines_core::compact::{Compact, MAGIC};

fn check(bytes: &[u8]) {
    if let Ok(c) = Compact::read("fuzz.compact", bytes) {
        for t in &c.traces {
            for k in 0..t.level_count() as u32 {
                for i in 0..t.slots().len().div_ceil(1 << k) {
                    let _ = t.point(k, i, &[1, 3, 9]);
                }
            }
        }
        let _ = nines_core::stats::run_stats(&c.run, &nines_core::stats::Options::default());
        // the carried groups, decoded on demand: a run or an error
        if let Ok(r) = c.range(None, None) {
            let _ = nines_core::stats::run_stats(&r, &nines_core::stats::Options::default());
        }
        let again = c.write().expect("a form read writes back");
        assert_eq!(Compact::read("again", &again).expect("and reads again"), c);
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // as the body of either version
    for version in [1, 2] {
        let mut out = MAGIC.to_vec();
        out.push(version);
        if version == 2 {
            // the inflated size, a LEB128 varint
            let mut n = data.len();
            while n >= 0x80 {
                out.push((n as u8) | 0x80);
                n >>= 7;
            }
            out.push(n as u8);
        }
        let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::fast());
        z.write_all(data).unwrap();
        check(&z.finish().unwrap());
    }
});
