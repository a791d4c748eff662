//! Compact-form reader: any bytes give a compact run or an error, never a panic; what it
//! reads draws (every point of every level) and writes back to the same form. The bytes are
//! tried as they are and, to get past the checksum, as the body inside a valid zlib stream.
#![no_main]
use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use nines_core::compact::{Compact, MAGIC};

fn check(bytes: &[u8]) {
    // read without its groups (version 4 cut where they begin), any bytes as its groups: a
    // form, or an error, then a range or an error
    if let Ok(h) = Compact::read_head("fuzz.compact", bytes) {
        if !h.has_groups() {
            let _ = h.attach_groups(bytes);
            let _ = h.range(None, None);
        }
    }
    if let Ok(c) = Compact::read("fuzz.compact", bytes) {
        // the points of every level, decoded on demand (version 3): points or an error
        let mut sound = true;
        for t in &c.traces {
            for k in 0..t.level_count() as u32 {
                for i in 0..t.slots().len().div_ceil(1 << k) {
                    sound &= t.point(k, i, &[1, 3, 9]).is_ok();
                }
            }
        }
        let _ = nines_core::stats::run_stats(&c.run, &nines_core::stats::Options::default());
        // the carried groups, decoded on demand: a run or an error
        match c.range(None, None) {
            Ok(r) => {
                let _ = nines_core::stats::run_stats(&r, &nines_core::stats::Options::default());
            }
            Err(_) => sound = false,
        }
        // a form whose every part decodes writes back to the same form
        if sound {
            let again = c.write().expect("a sound form writes back");
            assert_eq!(Compact::read("again", &again).expect("and reads again"), c);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // as the body of versions 1 and 2, and as the head of versions 3 and 4
    for version in [1, 2, 3, 4] {
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
        if version >= 3 {
            // the head's inflated size and compressed length, then the head; no sections
            // follow, so only a head of no directions reads
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(data).unwrap();
            let z = z.finish().unwrap();
            for mut n in [data.len(), z.len()] {
                while n >= 0x80 {
                    out.push((n as u8) | 0x80);
                    n >>= 7;
                }
                out.push(n as u8);
            }
            out.extend_from_slice(&z);
            check(&out);
            continue;
        }
        let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::fast());
        z.write_all(data).unwrap();
        check(&z.finish().unwrap());
    }
});
