//! fio latency log streaming parser: any bytes, fed in any chunking, give the same run or
//! error as fed whole, and never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nines_core::import::fio_lat::{read, LatLogReader};

fuzz_target!(|data: &[u8]| {
    // the first byte picks a chunk size, the rest is the file
    let Some((&k, file)) = data.split_first() else { return };
    let whole = read("fuzz_clat.1.log", file, 0.25);
    let mut r = LatLogReader::new("fuzz_clat.1.log", 0.25);
    let mut chunked = Ok(());
    for c in file.chunks(usize::from(k).max(1)) {
        chunked = r.feed(c);
        if chunked.is_err() {
            break;
        }
    }
    let chunked = chunked.and_then(|()| r.finish());
    match (&whole, &chunked) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("whole {whole:?} vs chunked {chunked:?}"),
    }
});
