//! The framing every encoding of this crate starts with: a 4-byte magic naming the type, then a
//! version byte; the body follows.

use crate::Error;
use zeroize::Zeroizing;

/// The version byte every encoding carries today.
pub(crate) const VERSION: u8 = 1;

/// A buffer holding `magic || VERSION`, ready for the body.
pub(crate) fn header(magic: &[u8; 4], body_len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(5 + body_len));
    out.extend_from_slice(magic);
    out.push(VERSION);
    out
}

/// The body after `magic || VERSION`, or why the bytes are not of this type and version.
pub(crate) fn body<'a>(magic: &[u8; 4], bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    match bytes {
        [m0, m1, m2, m3, version, body @ ..] if [*m0, *m1, *m2, *m3] == *magic => {
            if *version == VERSION {
                Ok(body)
            } else {
                Err(Error::Malformed("unknown version"))
            }
        }
        _ => Err(Error::Malformed("not this type (magic)")),
    }
}
