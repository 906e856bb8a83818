//! What the encoder and the decoder share: the file's magic and version, the marker of an absent
//! value, and the error.

/// The first bytes of every tables file.
pub const MAGIC: &[u8; 4] = b"EDGT";
/// The format's version: a file of another is refused. 2: numbers as LEB128 varints, no store
/// keys (a stored object is named by its ETag). 3: alternates (a page's Markdown twin), written
/// before the assets that name them. 4: a stored object's length as two numbers, its low and
/// high 32 bits (R2 keeps objects past 4 GiB). 5: an asset's number counts the alternates, then
/// the other assets, so that a twin's route names its alternate, written once.
pub const VERSION: u32 = 5;

/// An absent index or position (`Option::None`).
pub(crate) const NONE: u32 = u32::MAX;

/// Why tables could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

pub(crate) fn error(message: impl Into<String>) -> Error {
    Error(message.into())
}
