//! What libtraceevent makes of the head of an event format (`name:`, `ID:`, `format:`), read
//! token by token the way its tokenizer reads it (`event-parse.c`: `__read_token`,
//! `event_read_name`, `event_read_id`, `event_read_format`; the same code in libtraceevent
//! 1.7.1 and 1.8.4 and in the copies trace-cmd 2.4 and 2.9.5 bundle).
//!
//! The head decides whether a broken format is registered at all: libtraceevent drops a format
//! whose name or id it cannot read, but keeps one that breaks after its id (flagged as failed,
//! with the fields read so far) — and takes the offset of every record's id from the format of
//! the lowest registered id. A line-based reading gets both wrong: `ID: 374` before `name:`
//! is dropped, and `ID: 1` run into the next line is registered under id 1.

use std::ops::Range;

/// libtraceevent's token classes (`get_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// End of input, or a byte that is neither printable nor blank.
    None,
    Space,
    Newline,
    Item,
    Quote,
    Delim,
    Op,
}

fn class(c: u8) -> Class {
    match c {
        b'\n' => Class::Newline,
        b' ' | b'\t' | 0x0b | 0x0c | b'\r' => Class::Space,
        c if c.is_ascii_alphanumeric() || c == b'_' => Class::Item,
        b'\'' | b'"' => Class::Quote,
        c if !(0x20..0x7f).contains(&c) => Class::None,
        b'(' | b')' | b',' => Class::Delim,
        _ => Class::Op,
    }
}

struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Tokens<'a> {
    /// One raw token (`__read_token`): a run of item or blank bytes, or one byte otherwise
    /// (operators of two bytes never match what the head expects, so one is enough to fail).
    fn raw(&mut self) -> (Class, Range<usize>) {
        let start = self.at;
        let Some(&c) = self.text.get(start) else {
            return (Class::None, start..start);
        };
        let cls = class(c);
        self.at = start.saturating_add(1);
        if matches!(cls, Class::Space | Class::Item) {
            while self.text.get(self.at).map(|&b| class(b)) == Some(cls) {
                self.at = self.at.saturating_add(1);
            }
        }
        (cls, start..self.at)
    }

    /// `read_token`: skips blanks but not newlines.
    fn token(&mut self) -> (Class, Range<usize>) {
        loop {
            let t = self.raw();
            if t.0 != Class::Space {
                return t;
            }
        }
    }

    /// `read_token_item`: skips blanks and newlines.
    fn token_item(&mut self) -> (Class, Range<usize>) {
        loop {
            let t = self.raw();
            if !matches!(t.0, Class::Space | Class::Newline) {
                return t;
            }
        }
    }

    fn text_of(&self, r: &Range<usize>) -> &'a [u8] {
        self.text.get(r.clone()).unwrap_or_default()
    }
}

/// The head of a format as libtraceevent reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Head {
    /// The name or the id cannot be read, or the id is negative as an `int`: the format is
    /// dropped (`event_alloc_failed`). The range is where reading stopped, in the text.
    Dropped(String, Range<usize>),
    /// Name and id read, `format:` not: the format is registered under `id`, failed, with no
    /// fields.
    NoFormat(u32, String, Range<usize>),
    /// Name, id and `format:` read; libtraceevent goes on with the fields.
    Read(u32),
}

fn shown(b: &[u8]) -> String {
    if b.is_empty() {
        return "the end of the text".to_string();
    }
    let s: String = String::from_utf8_lossy(b).chars().take(24).collect();
    format!("`{}`", s.escape_debug())
}

/// `strtoul(token, NULL, 0)` stored in an `int`: decimal, `0x` hex or `0` octal, the longest
/// prefix that parses, wrapped to 32 bits; `None` when the `int` is negative.
fn strtoul_int(tok: &[u8]) -> Option<u32> {
    let (digits, radix) = match tok {
        [b'0', b'x' | b'X', rest @ ..] if rest.first().is_some_and(u8::is_ascii_hexdigit) => {
            (rest, 16)
        }
        [b'0', rest @ ..] => (rest, 8),
        _ => (tok, 10),
    };
    let mut v: u64 = 0;
    for &b in digits {
        let Some(d) = char::from(b).to_digit(radix) else {
            break;
        };
        // strtoul saturates at ULONG_MAX (then -1 as an int).
        v = v
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .unwrap_or(u64::MAX);
    }
    let low = u32::try_from(v & 0xffff_ffff).ok()?;
    (low <= 0x7fff_ffff).then_some(low)
}

/// Reads the head of `text` (one format's bytes) as libtraceevent does.
pub fn head(text: &[u8]) -> Head {
    let mut t = Tokens { text, at: 0 };
    let expect = |t: &mut Tokens<'_>, item_skip: bool, cls: Class, want: &str| {
        let (c, r) = if item_skip { t.token_item() } else { t.token() };
        if c == cls && t.text_of(&r) == want.as_bytes() {
            Ok(())
        } else {
            Err((
                format!("`{want}` expected, {} read", shown(t.text_of(&r))),
                r,
            ))
        }
    };
    let item = |t: &mut Tokens<'_>, what: &str| {
        let (c, r) = t.token();
        if c == Class::Item {
            Ok(r)
        } else {
            Err((format!("{what} expected, {} read", shown(t.text_of(&r))), r))
        }
    };
    let id = (|| {
        expect(&mut t, false, Class::Item, "name")?;
        expect(&mut t, false, Class::Op, ":")?;
        item(&mut t, "an event name")?;
        expect(&mut t, true, Class::Item, "ID")?;
        expect(&mut t, false, Class::Op, ":")?;
        let r = item(&mut t, "a number")?;
        strtoul_int(t.text_of(&r)).ok_or_else(|| {
            (
                format!("id {} is negative as an `int`", shown(t.text_of(&r))),
                r,
            )
        })
    })();
    let id = match id {
        Ok(id) => id,
        Err((why, r)) => return Head::Dropped(why, r),
    };
    let format = (|| {
        expect(&mut t, true, Class::Item, "format")?;
        expect(&mut t, false, Class::Op, ":")?;
        let (c, r) = t.token();
        if c == Class::Newline {
            Ok(())
        } else {
            Err((
                format!(
                    "a line end after `format:` expected, {} read",
                    shown(t.text_of(&r))
                ),
                r,
            ))
        }
    })();
    match format {
        Ok(()) => Head::Read(id),
        Err((why, r)) => Head::NoFormat(id, why, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let good = b"name: sched_wakeup\nID: 374\nformat:\n\tfield:x";
        assert_eq!(head(good), Head::Read(374));
        assert!(matches!(
            head(b"ID: 374\nname: sched_wakeup\nformat:\n"),
            Head::Dropped(..)
        ));
        // A newline run over: the id token is `1Vformat`, 1 to strtoul, and `format` is gone.
        assert!(matches!(
            head(b"name: function\nID: 1Vformat:\n\tfield:"),
            Head::NoFormat(1, ..)
        ));
        assert_eq!(head(b"name: a\nID: 0x10\nformat:\n"), Head::Read(16));
        assert_eq!(head(b"name: a\nID: 010\nformat:\n"), Head::Read(8));
        assert_eq!(head(b"name: a\nID: abc\nformat:\n"), Head::Read(0));
        assert!(matches!(
            head(b"name: a\nID: 4294967295\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a\nID: -5\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a b\nID: 5\nformat:\n"),
            Head::Dropped(..)
        ));
        assert!(matches!(
            head(b"name: a\nID: 5 x\nformat:\n"),
            Head::NoFormat(5, ..)
        ));
        assert!(matches!(
            head(b"name: a\nID: 5\nformat: x\n"),
            Head::NoFormat(5, ..)
        ));
        assert!(matches!(
            head(b"\nname: a\nID: 5\nformat:\n"),
            Head::Dropped(..)
        ));
    }
}
