//! [`Header`]: the framing every share, prime and key encoding of the threshold crates starts
//! with.

use zeroize::Zeroizing;

use crate::Error;

/// `magic || version`: four bytes naming the type, one byte naming its layout. A new layout
/// gets a new version; a reader refuses every version but its own, with a typed error that says
/// which it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What the encoding holds, for error messages ("key share").
    pub what: &'static str,
    /// The four bytes that name the type.
    pub magic: [u8; 4],
    /// The layout this build writes and reads.
    pub version: u8,
}

impl Header {
    /// The header's length: 5 bytes.
    pub const LEN: usize = 5;

    /// A buffer holding the header, with room for `body_len` more bytes (reserved up front so
    /// that a secret body is not left behind by a reallocation); the buffer wipes itself.
    pub fn write(&self, body_len: usize) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(Self::LEN + body_len));
        out.extend_from_slice(&self.magic);
        out.push(self.version);
        out
    }

    /// The body after the header, or why `bytes` are not this type in this version.
    pub fn open<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
        match bytes {
            [m0, m1, m2, m3, version, body @ ..] if [*m0, *m1, *m2, *m3] == self.magic => {
                if *version == self.version {
                    Ok(body)
                } else {
                    Err(Error::Version {
                        what: self.what,
                        found: *version,
                        supported: self.version,
                    })
                }
            }
            _ => Err(Error::Foreign { what: self.what }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const H: Header = Header {
        what: "test",
        magic: *b"TEST",
        version: 3,
    };

    proptest! {
        #[test]
        fn a_written_body_opens(body in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut out = H.write(body.len());
            out.extend_from_slice(&body);
            prop_assert_eq!(H.open(&out), Ok(&body[..]));
        }

        #[test]
        fn any_bytes_open_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..16)) {
            match H.open(&bytes) {
                Ok(body) => {
                    prop_assert_eq!(&bytes[..5], b"TEST\x03".as_slice());
                    prop_assert_eq!(body, &bytes[5..]);
                }
                Err(Error::Foreign { .. }) => prop_assert!(!bytes.starts_with(b"TEST") || bytes.len() < 5),
                Err(Error::Version { found, .. }) => prop_assert!(found != 3),
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }

    #[test]
    fn each_refusal_says_why() {
        assert_eq!(H.open(b"TEST"), Err(Error::Foreign { what: "test" }));
        assert_eq!(H.open(b"TESU\x03"), Err(Error::Foreign { what: "test" }));
        assert_eq!(
            H.open(b"TEST\x01body"),
            Err(Error::Version {
                what: "test",
                found: 1,
                supported: 3
            })
        );
    }
}
