//! The framing every encoding of this crate starts with: a 4-byte magic naming the type, then a
//! version byte; the body follows.

use crate::Error;
use zeroize::Zeroizing;

/// A buffer holding `magic || version`, ready for the body.
pub(crate) fn header_v(magic: &[u8; 4], version: u8, body_len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(5 + body_len));
    out.extend_from_slice(magic);
    out.push(version);
    out
}

/// The body after `magic || version`, or why the bytes are not of this type and version.
pub(crate) fn body_v<'a>(magic: &[u8; 4], version: u8, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    match bytes {
        [m0, m1, m2, m3, v, body @ ..] if [*m0, *m1, *m2, *m3] == *magic => {
            if *v == version {
                Ok(body)
            } else {
                Err(Error::Malformed("unknown version"))
            }
        }
        _ => Err(Error::Malformed("not this type (magic)")),
    }
}
