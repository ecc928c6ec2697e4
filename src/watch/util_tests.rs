//! Unit tests of `util`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn durations() {
    assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
    assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
    assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
    assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
    assert!(parse_duration("-1").is_err());
    assert!(parse_duration("soon").is_err());
}

#[test]
fn timestamps() {
    let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    assert_eq!(rfc3339(t), "2023-11-14T22:13:20.123Z");
    assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
    assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
}

#[test]
fn repeated_failures_are_warned_about_at_a_bounded_rate() {
    // An interval no run reaches: the first failure is warned about, the next ones are not.
    let mut r = Repeated::new(Duration::from_secs(86_400));
    assert_eq!(r.recovered(), None);
    assert_eq!(r.failed(), Some(0));
    for _ in 0..5 {
        assert_eq!(r.failed(), None);
    }
    // The end of the run is reported with every failure counted; a new run warns again.
    assert_eq!(r.recovered(), Some(6));
    assert_eq!(r.recovered(), None);
    assert_eq!(r.failed(), Some(0));
    // An interval of zero: every failure is due, none counted as unwarned.
    let mut every = Repeated::new(Duration::ZERO);
    assert_eq!(every.failed(), Some(0));
    assert_eq!(every.failed(), Some(0));
}
