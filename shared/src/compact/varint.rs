//! LEB128 varints, ZigZag deltas and columns of times: written into a buffer, read back by
//! [`Reader`], whose every check is an error, never a panic.

use super::FormError;

pub(super) fn put(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push((v as u8) | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn micros(v: f64) -> Option<i64> {
    let m = (v * 1e6).round();
    (m.abs() < (1u64 << 53) as f64 && m / 1e6 == v).then_some(m as i64)
}

pub(super) fn column(b: &mut Vec<u8>, values: impl Iterator<Item = f64> + Clone) {
    if values.clone().all(|v| micros(v).is_some()) {
        b.push(0);
        let mut prev = 0i64;
        for v in values {
            let m = micros(v).expect("checked");
            put(b, zigzag(m.wrapping_sub(prev)));
            prev = m;
        }
    } else {
        b.push(1);
        for v in values {
            b.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    }
}

pub(super) struct Reader<'a> {
    pub(super) b: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn varint(&mut self) -> Result<u64, FormError> {
        let mut v = 0u64;
        for i in 0..10 {
            let byte = *self.b.get(self.at).ok_or("the body ends inside a number")?;
            self.at += 1;
            if i == 9 && byte > 1 {
                return Err("a number is longer than 64 bits".into());
            }
            v |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number is longer than 64 bits".into())
    }

    /// A length or count: at most the bytes left (every listed item takes at least a byte),
    /// so a damaged number cannot ask for more memory than the body has.
    pub(super) fn len(&mut self) -> Result<usize, FormError> {
        let v = self.varint()?;
        let left = self.b.len() - self.at;
        if v > left as u64 {
            return Err(format!("a length of {v} with {left} bytes left").into());
        }
        Ok(v as usize)
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], FormError> {
        let s = self.b.get(self.at..self.at + n).ok_or("the body ends inside a field")?;
        self.at += n;
        Ok(s)
    }

    pub(super) fn column(&mut self, n: usize) -> Result<Vec<f64>, FormError> {
        match self.varint()? {
            0 => {
                // a plain loop into a list of its size (`n` is at most the bytes left)
                let mut out = Vec::with_capacity(n);
                let mut prev = 0i64;
                for _ in 0..n {
                    prev = prev.wrapping_add(unzigzag(self.varint()?));
                    if prev.unsigned_abs() >= 1 << 53 {
                        return Err("a time is out of range".into());
                    }
                    out.push(prev as f64 / 1e6);
                }
                Ok(out)
            }
            1 => (0..n).map(|_| Ok(f64::from_bits(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"))))).collect(),
            k => Err(format!("column kind {k}; expected 0 or 1").into()),
        }
    }
}
