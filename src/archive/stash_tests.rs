use super::*;
use std::io::Read;

/// A reader of `n` patterned bytes in uneven pieces, failing after `fail_at` bytes if set.
struct Pattern {
    pos: u64,
    n: u64,
    fail_at: Option<u64>,
}

fn byte(i: u64) -> u8 {
    (i.wrapping_mul(2_654_435_761) >> 13) as u8
}

impl Read for Pattern {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.fail_at.is_some_and(|f| self.pos >= f) {
            return Err(io::Error::other("broken stream"));
        }
        let end = self.fail_at.map_or(self.n, |f| f.min(self.n));
        // Uneven piece sizes, as a decoder returns them.
        let k = (buf.len() as u64)
            .min(end - self.pos)
            .min(1 + (self.pos % 70_001));
        for (j, b) in buf.iter_mut().take(k as usize).enumerate() {
            *b = byte(self.pos + j as u64);
        }
        self.pos += k;
        Ok(k as usize)
    }
}

fn contents(s: &Stash) -> Vec<u8> {
    match s {
        Stash::Mem(v) => v.clone(),
        Stash::Spill(f, n) => {
            let mut out = Vec::new();
            ReadAt::new(f, 0, *n).read_to_end(&mut out).unwrap();
            out
        }
        Stash::Counted(_) => panic!("a stash never counts without keeping"),
    }
}

fn expected(n: u64) -> Vec<u8> {
    (0..n).map(byte).collect()
}

#[test]
fn a_long_stream_is_spilled_whole_and_in_order() {
    // Many more blocks than are in flight, so the buffers go round several times.
    let n = (SPILL_BLOCK * (SPILL_BLOCKS * 3 + 1)) as u64 + 12_345;
    let mut left = u64::MAX;
    let mut r = Pattern {
        pos: 0,
        n,
        fail_at: None,
    };
    let s = stash(&mut r, 1000, u64::MAX, &mut left).unwrap();
    assert!(matches!(s.stash, Stash::Spill(..)));
    assert!(s.error.is_none() && s.cut.is_none());
    assert_eq!(s.stash.len(), n);
    assert_eq!(contents(&s.stash), expected(n));
    assert_eq!(left, u64::MAX - n);
}

#[test]
fn a_short_stream_stays_in_memory() {
    let mut left = 10;
    let mut r = Pattern {
        pos: 0,
        n: 999,
        fail_at: None,
    };
    let s = stash(&mut r, 1000, u64::MAX, &mut left).unwrap();
    assert!(matches!(s.stash, Stash::Mem(_)));
    assert_eq!(contents(&s.stash), expected(999));
    assert_eq!(left, 10);
}

#[test]
fn a_read_error_keeps_the_bytes_before_it() {
    let fail = (SPILL_BLOCK * 2) as u64 + 77;
    let mut left = u64::MAX;
    let mut r = Pattern {
        pos: 0,
        n: u64::MAX,
        fail_at: Some(fail),
    };
    let s = stash(&mut r, 1000, u64::MAX, &mut left).unwrap();
    assert!(s.error.is_some());
    assert!(s.cut.is_none());
    assert_eq!(contents(&s.stash), expected(fail));
}

#[test]
fn the_limits_cut_and_name_themselves() {
    // max_file_bytes inside a later block.
    let max = (SPILL_BLOCK * 3) as u64 + 5;
    let mut left = u64::MAX;
    let mut r = Pattern {
        pos: 0,
        n: max * 2,
        fail_at: None,
    };
    let s = stash(&mut r, 1000, max, &mut left).unwrap();
    assert_eq!(s.cut, Some(Cut::Size));
    assert_eq!(contents(&s.stash), expected(max));
    // The spill budget, smaller than what was already held in memory.
    let mut left = 500;
    let mut r = Pattern {
        pos: 0,
        n: 1 << 20,
        fail_at: None,
    };
    let s = stash(&mut r, 1000, u64::MAX, &mut left).unwrap();
    assert_eq!(s.cut, Some(Cut::Spill));
    assert_eq!(contents(&s.stash), expected(500));
    assert_eq!(left, 0);
    // The spill budget inside a later block.
    let budget = SPILL_BLOCK as u64 + 3;
    let mut left = budget;
    let mut r = Pattern {
        pos: 0,
        n: 1 << 23,
        fail_at: None,
    };
    let s = stash(&mut r, 1000, u64::MAX, &mut left).unwrap();
    assert_eq!(s.cut, Some(Cut::Spill));
    assert_eq!(contents(&s.stash), expected(budget));
}
