//! HTTP-date (RFC 9110 §5.6.7), parsed without allocation into seconds since the Unix epoch.
//!
//! Recipients MUST accept all three formats:
//! ```text
//! IMF-fixdate  = Sun, 06 Nov 1994 08:49:37 GMT
//! rfc850-date  = Sunday, 06-Nov-94 08:49:37 GMT
//! asctime-date = Sun Nov  6 08:49:37 1994
//! ```
//! Anything else, including an impossible date such as 31 Feb or 24:00:00, is `None`: an invalid
//! date in If-Modified-Since, If-Unmodified-Since or If-Range is ignored (§13.1.3, §13.1.4,
//! §13.1.5). The weekday is checked for form but not against the date, as most servers do.
//!
//! Two-digit rfc850 years: §5.6.7 asks to read a year more than 50 years in the future as the
//! past century; the core has no clock, so `70`–`99` are 19xx and `00`–`69` are 20xx (a fixed
//! pivot, as httpdate and Go's net/http use).

use crate::ows::trim;

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Parses an HTTP-date in any of the three formats into seconds since 1970-01-01T00:00:00Z.
///
/// ```
/// use edgesite_core::parse_http_date;
/// assert_eq!(parse_http_date(b"Sun, 06 Nov 1994 08:49:37 GMT"), Some(784111777));
/// assert_eq!(parse_http_date(b"Sunday, 06-Nov-94 08:49:37 GMT"), Some(784111777));
/// assert_eq!(parse_http_date(b"Sun Nov  6 08:49:37 1994"), Some(784111777));
/// assert_eq!(parse_http_date(b"yesterday"), None);
/// ```
pub fn parse_http_date(value: &[u8]) -> Option<u64> {
    let value = trim(value);
    imf_fixdate(value)
        .or_else(|| rfc850_date(value))
        .or_else(|| asctime_date(value))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`
fn imf_fixdate(s: &[u8]) -> Option<u64> {
    if s.len() != 29 || s[3..5] != *b", " || s[7] != b' ' || s[11] != b' ' || s[16] != b' ' {
        return None;
    }
    weekday(&s[..3], &DAYS)?;
    if &s[25..] != b" GMT" {
        return None;
    }
    let day = digits(&s[5..7])?;
    let month = month(&s[8..11])?;
    let year = digits(&s[12..16])?;
    seconds(year, month, day, &s[17..25])
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`
fn rfc850_date(s: &[u8]) -> Option<u64> {
    let comma = s.iter().position(|&b| b == b',')?;
    weekday(&s[..comma], &LONG_DAYS)?;
    let s = &s[comma..];
    if s.len() != 24 || s[..2] != *b", " || s[4] != b'-' || s[8] != b'-' || s[11] != b' ' {
        return None;
    }
    if &s[20..] != b" GMT" {
        return None;
    }
    let day = digits(&s[2..4])?;
    let month = month(&s[5..8])?;
    let yy = digits(&s[9..11])?;
    let year = if yy >= 70 { 1900 + yy } else { 2000 + yy };
    seconds(year, month, day, &s[12..20])
}

/// `Sun Nov  6 08:49:37 1994` (day padded with a space)
fn asctime_date(s: &[u8]) -> Option<u64> {
    if s.len() != 24 || s[3] != b' ' || s[7] != b' ' || s[10] != b' ' || s[19] != b' ' {
        return None;
    }
    weekday(&s[..3], &DAYS)?;
    let month = month(&s[4..7])?;
    let day = match s[8] {
        b' ' => digits(&s[9..10])?,
        _ => digits(&s[8..10])?,
    };
    let year = digits(&s[20..24])?;
    seconds(year, month, day, &s[11..19])
}

fn weekday(s: &[u8], names: &[&str; 7]) -> Option<()> {
    names.iter().any(|n| n.as_bytes() == s).then_some(())
}

fn month(s: &[u8]) -> Option<u64> {
    MONTHS
        .iter()
        .position(|m| m[..] == *s)
        .map(|i| i as u64 + 1)
}

fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
}

/// `HH:MM:SS` on the given civil date, validated.
fn seconds(year: u64, month: u64, day: u64, time: &[u8]) -> Option<u64> {
    if time.len() != 8 || time[2] != b':' || time[5] != b':' {
        return None;
    }
    let (h, m, s) = (
        digits(&time[..2])?,
        digits(&time[3..5])?,
        digits(&time[6..])?,
    );
    // 60 allows a leap second (§5.6.7: second = 2DIGIT, 00-60 per IMF).
    if year < 1970 || day == 0 || day > days_in_month(year, month) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm), for years >= 1970.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_three_formats_of_rfc_9110_5_6_7() {
        let t = Some(784_111_777);
        assert_eq!(parse_http_date(b"Sun, 06 Nov 1994 08:49:37 GMT"), t);
        assert_eq!(parse_http_date(b"Sunday, 06-Nov-94 08:49:37 GMT"), t);
        assert_eq!(parse_http_date(b"Sun Nov  6 08:49:37 1994"), t);
        assert_eq!(parse_http_date(b" Sun, 06 Nov 1994 08:49:37 GMT "), t);
    }

    #[test]
    fn epoch_leap_days_and_two_digit_years() {
        assert_eq!(parse_http_date(b"Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date(b"Tue, 29 Feb 2000 00:00:00 GMT"),
            Some(951_782_400)
        );
        assert_eq!(
            parse_http_date(b"Tuesday, 14-Nov-23 22:13:20 GMT"),
            Some(1_700_000_000)
        );
    }

    #[test]
    fn invalid_dates_are_none() {
        for bad in [
            "",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT",
            "Sun, 29 Feb 1900 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1969 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nop 1994 08:49:37 GMT",
            "1994-11-06T08:49:37Z",
            "Sun, 06 Nov 1994 08:49:37 GMT trailing",
        ] {
            assert_eq!(parse_http_date(bad.as_bytes()), None, "{bad:?}");
        }
    }

    proptest! {
        /// Totality: any bytes give Some or None, never a panic.
        #[test]
        fn parse_is_total(value in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_http_date(&value);
        }

        /// Round trip against httpdate's formatter (IMF-fixdate) for every second in 1970..2200.
        #[test]
        fn imf_fixdate_round_trips(secs in 0u64..7_258_118_400) {
            let formatted = httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
            prop_assert_eq!(parse_http_date(formatted.as_bytes()), Some(secs));
        }
    }
}
