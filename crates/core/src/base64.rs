//! Base64 digits (RFC 4648) as the core reads them without allocating: the standard alphabet of
//! `Available-Dictionary` (RFC 9842 §2.2, an RFC 8941 byte sequence) and the URL-safe one of
//! the ETags that name stored objects ([`crate::Representation::object_key`]).

/// Each byte's value as a standard base64 digit (RFC 4648 §4); 0xFF for the bytes that are not
/// one.
pub(crate) const STANDARD: [u8; 256] =
    table(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

/// Each byte's value as a URL-safe base64 digit (RFC 4648 §5); 0xFF for the bytes that are not
/// one.
pub(crate) const URL_SAFE: [u8; 256] =
    table(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

const fn table(alphabet: &[u8; 64]) -> [u8; 256] {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 64 {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
}

/// Four digits of `alphabet` as 24 bits; `None` when one is not a digit of it.
pub(crate) fn sextets(alphabet: &[u8; 256], chunk: &[u8]) -> Option<u32> {
    let mut n = 0u32;
    let mut invalid = 0u8;
    for &c in chunk {
        let value = alphabet[usize::from(c)];
        invalid |= value;
        n = (n << 6) | u32::from(value & 63);
    }
    // An invalid digit's entry has its top bit set.
    (invalid & 0x80 == 0).then_some(n)
}
