use std::io::Write as _;

use super::points::metrics;
use super::varint::put;
use super::write::stored_zlib;
use super::*;
use crate::codec::Decoder;
use crate::pyramid::series_points;
use crate::pyramid::Pyramid;
use crate::quantile::Level;
use crate::run::test_runs::two_directions as run;
use crate::run::Warning;
use crate::stats::{run_stats, Options};

fn all_nines() -> Vec<u32> {
    (1..=9).collect()
}

/// Every point at every level equals the exact merge of the full run's windows.
fn assert_exact(full: &Run, c: &Compact) {
    for t in &c.traces {
        let p = Pyramid::new(full, &t.dir);
        assert_eq!(t.slots.len(), p.slots().len());
        let levels: Vec<Level> = all_nines().into_iter().map(Level::nines).collect();
        for k in 0..t.level_count() as u32 {
            for i in 0..t.slots.len().div_ceil(1 << k) {
                let span = p.span(full, k, i).unwrap();
                let want = series_points(std::iter::once(&span), &levels).pop().unwrap();
                let (got, before) = t.point(k, i, &all_nines()).unwrap().unwrap();
                assert_eq!(got, want, "{:?} level {k} point {i}", t.dir);
                assert_eq!(before, span.ios_before);
            }
        }
        assert_eq!(t.point(t.level_count() as u32, 0, &[3]), Ok(None));
    }
}

#[test]
fn verdicts_of_a_compact_form_are_those_of_the_recorded_run() {
    let spec = crate::spec::Spec::parse(
        "t.spec",
        "read p99 <= 1ms\nwrite p99.9 <= 2ms\nall max <= 50ms\nall mean <= 200us\nread iops >= 1\nwrite iops >= 10k\nall iops >= 100\n",
    )
    .unwrap();
    let fixture = crate::archive::read("v1-randrw.hlog", include_bytes!("../../../tests/data/v1-randrw.hlog")).unwrap();
    let java = crate::archive::read("java-rw.hlog", include_bytes!("../../../tests/data/java-rw.hlog")).unwrap();
    for r in [run(37), fixture, java] {
        let want = crate::spec::json(&[crate::spec::check_run(&r, &spec, None, None)]);
        assert!(want.contains("\"interval\""), "{want}");
        for g in [1, 2, 7, 60] {
            let c = Compact::of(&r, g);
            let back = Compact::read("x.compact", &c.write().unwrap()).unwrap();
            assert_eq!(crate::spec::json(&[back.check(&spec)]), want, "{} grouping {g}", r.source);
        }
    }
}

#[test]
fn points_and_groups_are_exact_merges_for_any_count_of_windows() {
    // levels merged depth first (odd counts carry a level's last group up as it is), and
    // groups made by one reused accumulator, against the pyramid's own merges
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65] {
        let r = run(n);
        for g in [1, 3, 4, 60] {
            let c = Compact::of(&r, g);
            assert_exact(&r, &c);
            for tg in &c.groups {
                let p = Pyramid::new(&r, &Direction::Tag(tg.tag.clone()));
                for i in 0..tg.spans.len() {
                    assert_eq!(*tg.hist(i).unwrap(), *p.group(&r, i * g, g).unwrap().hist, "{n} windows, groups of {g}, group {i}");
                }
            }
        }
    }
}

#[test]
fn every_point_of_every_level_is_exact_and_survives_the_round_trip() {
    let r = run(37);
    for g in [1, 2, 5, 8, 37, 100] {
        let c = Compact::of(&r, g);
        assert_eq!(c.group, g);
        assert_exact(&r, &c);
        let bytes = c.write().unwrap();
        let back = Compact::read("x.compact", &bytes).unwrap();
        assert_eq!(back, c, "grouping {g}");
        // the whole-run windows alone give the whole run's stats
        let (a, b) = (run_stats(&r, &Options::default()), run_stats(&back.run, &Options::default()));
        assert_eq!(a.duration_s, b.duration_s);
        for ((ta, sa), (tb, sb)) in a.tags.0.iter().zip(b.tags.0.iter()) {
            assert_eq!(
                (ta, sa.count, sa.min_ns, sa.max_ns, &sa.levels, sa.mean_ns),
                (tb, sb.count, sb.min_ns, sb.max_ns, &sb.levels, sb.mean_ns)
            );
        }
        // stats of the whole run, and of ranges on group edges, equal the full run's
        let edge = g.min(37) as f64;
        for (from, to) in [(None, None), (Some(edge), None), (Some(0.0), Some(edge * 2.0))] {
            let o = Options { from, to, ..Options::default() };
            let (a, b) = (run_stats(&r, &o), run_stats(&back.range(None, None).unwrap(), &o));
            assert_eq!(a.tags.0.len(), b.tags.0.len());
            for ((ta, sa), (tb, sb)) in a.tags.0.iter().zip(b.tags.0.iter()) {
                assert_eq!(ta, tb);
                assert_eq!((sa.count, sa.min_ns, sa.max_ns, &sa.levels), (sb.count, sb.min_ns, sb.max_ns, &sb.levels), "{g} {from:?}");
                assert!((sa.iops - sb.iops).abs() <= 1e-9 * sa.iops);
            }
        }
    }
}

#[test]
fn metrics_walking_from_both_ends_equal_the_ranks_of_each_level() {
    use crate::hist::Layout;
    let l = Layout::default_ns();
    // counts from 1 I/O up, with repeated values, one bucket, and a count past 2^32
    let mut hists: Vec<Hist> = (1..300u64).map(|n| Hist::from_values(l, (0..n).map(|i| 1_000 + (i * i * 37) % 50_000))).collect();
    hists.push(Hist::from_values(l, [7; 5]));
    let mut big = Hist::from_values(l, [10_000, 20_000]);
    for _ in 0..33 {
        big = big.merge(&big);
    }
    hists.push(big.merge(&Hist::from_values(l, [1, 99_000_000])));
    for h in &hists {
        let n = h.count();
        let m = metrics(h);
        let mut levels = vec![Level { label: String::new(), num: 1, den: 2 }];
        levels.extend((1..=9).map(Level::nines));
        for (i, level) in levels.iter().enumerate() {
            let r = level.rank(n);
            let mut cum = 0;
            let want = h.buckets().find(|&(_, c)| {
                cum += c;
                cum >= r
            });
            assert_eq!(m[i], l.highest_equivalent(want.unwrap().0), "n {n} level {i}");
        }
        assert_eq!(m[METRICS - 1], h.max());
    }
}

#[test]
fn odd_times_and_gaps_round_trip() {
    let mut r = run(5);
    r.windows[0].start_s = 0.1 + 0.2; // not a whole number of microseconds
    r.windows.retain(|w| w.start_s != 2.0);
    r.start_time = Some(1.7e9);
    r.warnings.push(Warning { line: Some(3), message: "cut".into() });
    let c = Compact::of(&r, 2);
    assert_exact(&r, &c);
    assert_eq!(Compact::read("x", &c.write().unwrap()).unwrap(), c);
}

#[test]
fn damaged_or_hostile_bytes_are_errors() {
    let r = run(9);
    let bytes = Compact::of(&r, 2).write().unwrap();
    // cut anywhere
    for n in [0, 5, 14, 15, 20, bytes.len() / 2, bytes.len() - 1] {
        let e = Compact::read("cut.compact", &bytes[..n]).unwrap_err();
        assert!(e.to_string().starts_with("cut.compact: compact form: "), "{e}");
    }
    // a flipped bit in the compressed head (the sections are tried in the next test)
    let mut bad = bytes.clone();
    bad[MAGIC.len() + 5] ^= 0x10;
    assert!(Compact::read("bad", &bad).is_err());
    // a version 2 body that is well compressed but lies (version 3 reads the same fields
    // from its head)
    let lie = |body: &[u8]| {
        let mut out = MAGIC.to_vec();
        put(&mut out, 2);
        put(&mut out, body.len() as u64);
        let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::fast());
        z.write_all(body).unwrap();
        Compact::read("lie", &z.finish().unwrap()).unwrap_err().to_string()
    };
    assert!(lie(&[0xff, 0x7f, 0, 0]).contains("a length of 16383 with 2 bytes left"), "{}", lie(&[0xff, 0x7f, 0, 0]));
    assert!(lie(&[0xff; 20]).contains("longer than 64 bits"));
    // a body of another size than the form states
    let mut short = MAGIC.to_vec();
    put(&mut short, 2);
    put(&mut short, 99);
    let mut z = flate2::write::ZlibEncoder::new(short, flate2::Compression::fast());
    z.write_all(&[1, 2, 3]).unwrap();
    let e = Compact::read("size", &z.finish().unwrap()).unwrap_err().to_string();
    assert!(e.contains("the body inflates to 3 bytes; the form states 99"), "{e}");
    let head = br#"{"name":"a","source":"a","start_time":null,"meta":{},"warnings":[],"group":1,"windows":1}"#;
    let mut b = Vec::new();
    put(&mut b, head.len() as u64);
    b.extend_from_slice(head);
    b.extend_from_slice(&[1, 1, 1, 0, 0, 0, 0, 5, 1, 7]); // one untagged slot of 5 I/Os, one value
    let mut more = b.clone();
    more.extend_from_slice(&[2]); // level count 2 for one slot
    assert!(lie(&more).contains("2 levels for 1 slots"), "{}", lie(&more));
    let mut idx = b.clone();
    idx.extend_from_slice(&[1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // index 2 of 1 value
    assert!(lie(&idx).contains("outside the 1 values"), "{}", lie(&idx));
    let mut groups = b.clone();
    groups.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // no groups
    assert!(lie(&groups).contains("0 groups for 1 slots"), "{}", lie(&groups));
    assert!(Compact::read("v", b"nines-compact\n\x07").unwrap_err().to_string().contains("version 7"));
    // version 3: a head section that states another size, and sections past the end
    let mut v3 = MAGIC.to_vec();
    put(&mut v3, 3);
    put(&mut v3, 99);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&[1, 2, 3]).unwrap();
    let z = z.finish().unwrap();
    put(&mut v3, z.len() as u64);
    v3.extend_from_slice(&z);
    let e = Compact::read("v3", &v3).unwrap_err().to_string();
    assert!(e.contains("head: its section (byte 17 of the form) inflates to 3 bytes; the form states 99"), "{e}");
    let mut long = bytes.clone();
    long.push(0);
    let e = Compact::read("long", &long).unwrap_err().to_string();
    assert!(e.contains("1 bytes follow the last section"), "{e}");
    assert!(Compact::read("v", b"#[StartTime: 1]").unwrap_err().to_string().contains("does not start with"));
}

#[test]
fn stays_small_next_to_the_run() {
    // 3,600 one-second windows x 2 directions: points of every level plus 60 s groups
    let r = run(3600);
    let full = crate::archive::write(Vec::new(), &r).unwrap().len();
    let c = Compact::of(&r, 60).write().unwrap().len();
    assert!(c * 4 < full, "compact {c} B, archive {full} B");
}

#[test]
fn version_1_forms_still_read_with_the_same_numbers() {
    // written by nines before version 2 (`nines site` of the archive beside it)
    let v1 = include_bytes!("../../../tests/data/v1-randrw.compact");
    let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../../tests/data/v1-randrw.hlog")).unwrap();
    let c = Compact::read("v1-randrw.compact", v1).unwrap();
    assert_exact(&full, &c);
    let (a, b) = (run_stats(&full, &Options::default()), run_stats(&c.run, &Options::default()));
    assert_eq!(a.tags, b.tags);
    let again = Compact::read("again", &c.write().unwrap()).unwrap();
    assert_eq!(again, c);
}

#[test]
fn a_stored_form_reads_as_the_deflated_one() {
    let r = run(300);
    let c = Compact::of(&r, 16);
    let (z, stored) = (c.write().unwrap(), c.write_stored().unwrap());
    assert!(stored.len() > z.len());
    assert_eq!(Compact::read("stored", &stored).unwrap(), Compact::read("z", &z).unwrap());
    // flate2 inflates the streams too: blocks of 65,535 bytes, an empty stream, a bad sum
    for n in [0, 1, 65_535, 65_536, 200_000] {
        let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let mut back = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&stored_zlib(&data)[..]), &mut back).unwrap();
        assert_eq!(back, data, "{n} bytes");
    }
    let mut bad = stored_zlib(b"abc");
    *bad.last_mut().unwrap() ^= 1;
    assert!(Decoder::new().inflate_to_vec(&bad, 10, Some(3)).is_err());
}

#[test]
fn version_2_forms_still_read_with_the_same_numbers() {
    // written by nines before version 3 (`nines site` of the archive beside it)
    let v2 = include_bytes!("../../../tests/data/v2-randrw.compact");
    assert_eq!(v2[MAGIC.len()], 2);
    let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../../tests/data/v1-randrw.hlog")).unwrap();
    let c = Compact::read("v2-randrw.compact", v2).unwrap();
    assert_exact(&full, &c);
    let (a, b) = (run_stats(&full, &Options::default()), run_stats(&c.run, &Options::default()));
    assert_eq!(a.tags, b.tags);
    let again = c.write().unwrap();
    assert_eq!(again[MAGIC.len()], VERSION as u8);
    assert_eq!(Compact::read("again", &again).unwrap(), c);
}

#[test]
fn version_3_forms_still_read_with_the_same_numbers_and_groups() {
    // written by nines before version 4 (`nines site` of the archive beside it): each
    // tag's groups right after its levels
    let v3 = include_bytes!("../../../tests/data/v3-randrw.compact");
    assert_eq!(v3[MAGIC.len()], 3);
    let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../../tests/data/v1-randrw.hlog")).unwrap();
    let c = Compact::read("v3-randrw.compact", v3).unwrap();
    assert_exact(&full, &c);
    assert_eq!(c.groups_at(), None);
    assert!(c.has_groups());
    let again = Compact::read("again", &c.write().unwrap()).unwrap();
    assert_eq!(again, c);
    assert_eq!(again.range(Some(1.0), Some(2.0)).unwrap(), c.range(Some(1.0), Some(2.0)).unwrap());
    // a version 3 form has no place to cut it at: read whole by read_head too
    assert_eq!(Compact::read_head("v3", v3).unwrap(), c);
}

#[test]
fn the_bytes_before_the_groups_draw_everything_and_the_groups_come_later() {
    let r = run(40);
    let c = Compact::of(&r, 4);
    let bytes = c.write().unwrap();
    let whole = Compact::read("w.compact", &bytes).unwrap();
    let at = whole.groups_at().unwrap();
    assert!(at < bytes.len() && whole.has_groups());
    let head = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    assert!(!head.has_groups());
    assert_eq!(head.groups_at(), Some(at));
    // every point and the whole run's numbers, without the groups
    assert_exact(&r, &head);
    assert_eq!(run_stats(&head.run, &Options::default()).tags, run_stats(&whole.run, &Options::default()).tags);
    let e = head.range(Some(0.0), Some(8.0)).unwrap_err().to_string();
    assert!(e.contains(&r.source) && e.contains("not loaded"), "{e}");
    // read() wants the whole form: the same bytes are a form cut short
    let e = Compact::read("w.compact", &bytes[..at]).unwrap_err().to_string();
    assert!(e.contains("the groups of tag read"), "{e}");
    // a cut or padded rest is an error naming the groups and leaves them out
    let e = head.attach_groups(&bytes[at..bytes.len() - 1]).unwrap_err().to_string();
    assert!(e.contains(&r.source) && e.contains("the groups of tag"), "{e}");
    let mut padded = bytes[at..].to_vec();
    padded.push(0);
    assert!(head.attach_groups(&padded).unwrap_err().to_string().contains("1 bytes follow the last section"));
    assert!(!head.has_groups());
    head.attach_groups(&bytes[at..]).unwrap();
    assert!(head.has_groups());
    assert_eq!(head, whole);
    for (a, b) in [(None, None), (Some(4.0), Some(20.0))] {
        assert_eq!(head.range(a, b).unwrap(), whole.range(a, b).unwrap());
    }
    // the whole form, given to read_head, is read whole; given to attach_groups (a server
    // that ignores range requests sends it), its groups are taken
    assert_eq!(Compact::read_head("w.compact", &bytes).unwrap(), whole);
    let again = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    again.attach_groups(&bytes).unwrap();
    assert_eq!(again, whole);
    assert!(Compact::read_head("w.compact", &bytes[..at]).unwrap().attach_groups(&bytes[..at - 1]).is_err());
    // a damaged group inside an attached section is an error naming it when a range asks
    let later = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    let mut rest = bytes[at..].to_vec();
    let n = rest.len();
    rest[n - 3] ^= 0xff;
    let e = later.attach_groups(&rest).and_then(|()| later.range(None, None).map(|_| ())).unwrap_err().to_string();
    assert!(e.contains(&r.source) && e.contains("groups of tag"), "{e}");
}

#[test]
fn a_level_is_inflated_when_first_asked_for_and_a_damaged_one_is_an_error_naming_it() {
    let r = run(40);
    let c = Compact::of(&r, 4);
    let bytes = c.write().unwrap();
    let back = Compact::read("lazy.compact", &bytes).unwrap();
    let t = &back.traces[0];
    assert!(t.levels.iter().all(|l| l.decoded.get().is_none()), "nothing decoded on reading");
    assert!(t.point(3, 0, &[3]).unwrap().is_some());
    assert_eq!(t.levels.iter().filter(|l| l.decoded.get().is_some()).count(), 1, "only the level asked for");
    // every byte of the form flipped in turn: an error on reading, on a level's points or
    // on the groups, never a panic, and a form that reads in full is the same form
    let mut caught = 0;
    for at in (MAGIC.len() + 1..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x04;
        let Ok(b) = Compact::read("bad.compact", &bad) else {
            caught += 1;
            continue;
        };
        let points = b.traces.iter().all(|t| (0..t.level_count()).all(|k| t.point(k as u32, 0, &[3]).is_ok()));
        if !points || b.range(None, None).is_err() {
            caught += 1;
        } else {
            assert_eq!(b, back, "byte {at} flipped reads as another form");
        }
    }
    assert!(caught > 0);
    // a level section swapped for one of another length
    let first = &back.traces[0].levels[0];
    let p = first.packed.as_ref().unwrap();
    let mut bad = bytes.clone();
    bad[p.at + 2] ^= 0xff;
    let b = Compact::read("bad.compact", &bad).unwrap();
    let e = b.traces[0].point(0, 0, &[3]).unwrap_err().to_string();
    assert!(e.starts_with("level 0 of tag read: its compressed section (byte"), "{e}");
    assert!(b.traces[0].point(1, 0, &[3]).is_ok(), "the other levels are sound");
}

#[test]
fn a_damaged_group_is_an_error_when_its_range_is_asked_for() {
    let r = run(8);
    let mut c = Compact::of(&r, 2);
    // group 2 of the first tag swapped for a histogram of another count
    if let Store::Decoded(h) = &mut c.groups[0].store {
        h[1] = Hist::from_values(crate::hist::Layout::default_ns(), [5_000]);
    }
    let back = Compact::read("bad.compact", &c.write().unwrap()).expect("the whole-run histograms are sound");
    assert!(back.range(Some(0.0), Some(2.0)).is_ok(), "group 1 is sound");
    let e = back.range(Some(2.0), None).unwrap_err().to_string();
    // named by the run it holds
    assert!(e.starts_with("r.hlog: compact form: group 2 of tag read holds 1 I/Os"), "{e}");
}

#[test]
fn context_records_travel_in_the_head_within_a_quarter_percent() {
    use crate::context::{DiskRates, PressureShares, WindowContext};
    let mut r = run(40);
    r.meta.context_devices = vec!["vda".into()];
    r.context = (0..40u64)
        .map(|i| WindowContext {
            start_ns: i * 500_000_000,
            end_ns: (i + 1) * 500_000_000,
            devices: vec!["vda".into()],
            disk: Some(DiskRates { r_s: 100.0 + i as f64, aqu_sz: 0.5 * i as f64, util: 50.0, ..Default::default() }),
            io_pressure: Some(PressureShares { some: i as f64, full: None }),
            span_ns: Some(500_000_000),
            ..Default::default()
        })
        .collect();
    let c = Compact::of(&r, 4);
    assert_eq!(c.run.context, r.context);
    for bytes in [c.write().unwrap(), c.write_stored().unwrap()] {
        let whole = Compact::read("c.compact", &bytes).unwrap();
        // drawn before the groups come: the records are in the head's part of the form
        let head = Compact::read_head("c.compact", &bytes[..whole.groups_at().unwrap()]).unwrap();
        for back in [&whole, &head] {
            assert_eq!(back.context_group, 1);
            assert_eq!(back.run.context.len(), 40);
            for (a, b) in r.context.iter().zip(&back.run.context) {
                assert_eq!((a.start_ns, a.end_ns, &a.devices), (b.start_ns, b.end_ns, &b.devices));
                for (x, y) in a.values().iter().zip(b.values()) {
                    assert_eq!(x.is_some(), y.is_some());
                    if let (Some(x), Some(y)) = (x, y) {
                        assert!((x - y).abs() <= 0.0026 * x.max(0.001), "{x} against {y}");
                    }
                }
            }
        }
        // written again, a form read back keeps its records and their grouping
        let again = Compact::read("again", &whole.write().unwrap()).unwrap();
        assert_eq!((again.context_group, again.run.context.len()), (1, 40));
    }
    // a damaged context section is an error naming it
    let bytes = c.write_stored().unwrap();
    let at = Compact::read("c", &bytes).unwrap().groups_at().unwrap();
    let mut bad = bytes.clone();
    // the stored section ends with its four check bytes just before the groups
    bad[at - 5] ^= 0x40;
    let e = Compact::read("c.compact", &bad).unwrap_err().to_string();
    assert!(e.contains("context records"), "{e}");
    // a run without context writes no section and no "context" in its header
    let plain = Compact::of(&run(40), 4);
    let back = Compact::read("p", &plain.write().unwrap()).unwrap();
    assert!(back.run.context.is_empty());
}

#[test]
fn version_5_forms_still_read_with_the_same_numbers_and_groups() {
    // written by `nines site` before forms could carry their recorded windows
    let v5 = include_bytes!("../../../tests/data/v5-randrw.compact");
    assert_eq!(v5[MAGIC.len()], 5);
    let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../../tests/data/v1-randrw.hlog")).unwrap();
    let c = Compact::read("v5-randrw.compact", v5).unwrap();
    assert_exact(&full, &c);
    assert!(!c.carries_windows() && c.windows_missing(Some(1.5), Some(2.5)).is_empty());
    let again = Compact::read("again", &c.write().unwrap()).unwrap();
    assert_eq!(again, c);
}

/// The statistics of `[from, to)` of a form and of the recorded run.
fn same_range(full: &Run, c: &Compact, from: Option<f64>, to: Option<f64>) {
    let opts = Options { from, to, ..Options::default() };
    let got = run_stats(&c.range(from, to).unwrap(), &opts);
    let want = run_stats(full, &opts);
    assert_eq!(got.tags, want.tags, "range {from:?} to {to:?}");
}

#[test]
fn a_form_with_its_windows_is_exact_at_any_window_edge() {
    let r = run(40);
    let b = Builder::new(&r);
    let c = b.build_exact(8);
    let bytes = c.write().unwrap();
    let whole = Compact::read("w.compact", &bytes).unwrap();
    assert!(whole.carries_windows() && whole == c);
    let starts: Vec<f64> = r.windows.iter().map(|w| w.start_s).collect();
    let (lo, hi) = (starts[0], *starts.last().unwrap());
    // edges inside groups, on group edges, outside the run, and open ends
    for (a, b) in [
        (Some(lo + 3.0), Some(lo + 21.0)),
        (Some(lo + 8.0), Some(lo + 16.0)),
        (Some(lo + 1.0), Some(lo + 2.0)),
        (None, Some(lo + 5.0)),
        (Some(hi - 2.0), None),
        (Some(lo - 9.0), Some(hi + 9.0)),
    ] {
        same_range(&r, &c, a, b);
        same_range(&r, &whole, a, b);
    }
    // without the windows, a range counts the groups that start in it: not the same
    let coarse = b.build(8);
    assert!(!coarse.carries_windows());
    let opts = Options { from: Some(lo + 3.0), to: Some(lo + 21.0), ..Options::default() };
    assert_ne!(run_stats(&coarse.range(opts.from, opts.to).unwrap(), &opts).tags, run_stats(&r, &opts).tags);
    assert_eq!(c.clone().without_windows(), coarse);
}

#[test]
fn a_page_fetches_the_groups_then_only_the_windows_a_range_cuts() {
    let r = run(40);
    let c = Builder::new(&r).build_exact(8);
    let bytes = c.write().unwrap();
    let whole = Compact::read("w.compact", &bytes).unwrap();
    let (at, wat) = (whole.groups_at().unwrap(), whole.windows_at().unwrap());
    assert!(at < wat && wat < bytes.len());
    let head = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    assert_eq!(head.windows_at(), None);
    head.attach_groups(&bytes[at..wat]).unwrap();
    assert_eq!(head.windows_at(), Some(wat));
    let lo = r.windows[0].start_s;
    let (from, to) = (Some(lo + 3.0), Some(lo + 21.0));
    // on group edges nothing more is needed
    assert!(head.windows_missing(Some(lo + 8.0), Some(lo + 16.0)).is_empty());
    let need = head.windows_missing(from, to);
    // two tags, two cut groups each
    assert_eq!(need.len(), 4, "{need:?}");
    assert!(need.iter().all(|f| f.bytes.start >= wat && f.bytes.end <= bytes.len()));
    // a damaged section is an error naming its group when the range asks for it
    let mut bad = bytes[need[0].bytes.clone()].to_vec();
    let n = bad.len();
    bad[n - 2] ^= 0xff;
    let damaged = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    damaged.attach_groups(&bytes[at..wat]).unwrap();
    damaged.attach_windows(&need[0], &bad).unwrap();
    for f in &need[1..] {
        damaged.attach_windows(f, &bytes[f.bytes.clone()]).unwrap();
    }
    let e = damaged.range(from, to).unwrap_err().to_string();
    assert!(e.contains(&r.source) && e.contains("the windows of group"), "{e}");
    // a section cut short is refused when attached
    assert!(head.attach_windows(&need[0], &bytes[need[0].bytes.start..need[0].bytes.end - 1]).is_err());
    for f in &need {
        head.attach_windows(f, &bytes[f.bytes.clone()]).unwrap();
    }
    assert!(head.windows_missing(from, to).is_empty());
    same_range(&r, &head, from, to);
    // a server that ignores range requests sends the whole form: every section comes with it
    let all = Compact::read_head("w.compact", &bytes[..at]).unwrap();
    all.attach_groups(&bytes).unwrap();
    assert!(all.windows_missing(from, to).is_empty());
    same_range(&r, &all, from, to);
}
