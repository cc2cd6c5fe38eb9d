//! The bytes SPQR puts in a `SignalMessage`'s `pq_ratchet` field (version 1):
//!
//! ```text
//! 0x01 || varint(epoch) || varint(counter) || type || [varint(chunk index) || 32 bytes]
//! ```
//!
//! `type` is 0 none, 1 header chunk, 2 encapsulation-key chunk, 3 encapsulation-key chunk with
//! the `ct1` acknowledgement, 4 the acknowledgement alone, 5 `ct1` chunk, 6 `ct2` chunk; the
//! chunk follows types 1, 2, 3, 5 and 6. Varints are LEB128 (protobuf's). An empty field is
//! version 0: no SPQR.

use crate::erasure_code::{Chunk, CHUNK_SIZE};
use crate::{Epoch, Error};

/// The version byte of SPQR version 1 messages.
pub const V1: u8 = 1;

/// What one message carries of the ML-KEM Braid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Nothing (type 0).
    None,
    /// A chunk of the encapsulation-key header and its MAC (type 1).
    Header(Chunk),
    /// A chunk of the encapsulation key's vector (type 2).
    Ek(Chunk),
    /// A chunk of the encapsulation key, acknowledging all of `ct1` (type 3).
    EkCt1Ack(Chunk),
    /// The acknowledgement of `ct1` alone (type 4).
    Ct1Ack,
    /// A chunk of `ct1` (type 5).
    Ct1(Chunk),
    /// A chunk of `ct2` and its MAC (type 6).
    Ct2(Chunk),
}

impl Payload {
    fn kind_and_chunk(&self) -> (u8, Option<&Chunk>) {
        match self {
            Payload::None => (0, None),
            Payload::Header(c) => (1, Some(c)),
            Payload::Ek(c) => (2, Some(c)),
            Payload::EkCt1Ack(c) => (3, Some(c)),
            Payload::Ct1Ack => (4, None),
            Payload::Ct1(c) => (5, Some(c)),
            Payload::Ct2(c) => (6, Some(c)),
        }
    }
}

/// A version 1 SPQR message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// The sender's epoch (at least 1).
    pub epoch: Epoch,
    /// The counter of the message key on the sender's chain (0: no key).
    pub counter: u32,
    /// The Braid's payload.
    pub payload: Payload,
}

fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], at: &mut usize) -> Result<u64, Error> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let byte = *b.get(*at).ok_or(Error::Malformed("truncated varint"))?;
        *at += 1;
        if i == 9 && byte > 1 {
            return Err(Error::Malformed("varint over 64 bits"));
        }
        // A last byte of zero after others adds nothing: one value, one encoding (found by
        // fuzzing: such a field parsed and re-encoded to other bytes).
        if i > 0 && byte == 0 {
            return Err(Error::Malformed("varint not in its shortest form"));
        }
        v |= ((byte & 0x7f) as u64) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(Error::Malformed("varint over 10 bytes"))
}

impl Message {
    /// The wire bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(40);
        out.push(V1);
        put_varint(self.epoch, &mut out);
        put_varint(self.counter as u64, &mut out);
        let (kind, chunk) = self.payload.kind_and_chunk();
        out.push(kind);
        if let Some(c) = chunk {
            put_varint(c.index as u64, &mut out);
            out.extend_from_slice(&c.data);
        }
        out
    }

    /// Parses a version 1 message; anything else, including trailing bytes, is refused.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        if b.first() != Some(&V1) {
            return Err(Error::Malformed("not a version 1 SPQR message"));
        }
        let mut at = 1;
        let epoch = get_varint(b, &mut at)?;
        if epoch == 0 {
            return Err(Error::Malformed("epoch 0"));
        }
        let counter = u32::try_from(get_varint(b, &mut at)?)
            .map_err(|_| Error::Malformed("counter over 32 bits"))?;
        let kind = *b.get(at).ok_or(Error::Malformed("no payload type"))?;
        at += 1;
        let mut chunk = || -> Result<Chunk, Error> {
            let index = u16::try_from(get_varint(b, &mut at)?)
                .map_err(|_| Error::Malformed("chunk index over 16 bits"))?;
            let data: [u8; CHUNK_SIZE] = b
                .get(at..at + CHUNK_SIZE)
                .ok_or(Error::Malformed("truncated chunk"))?
                .try_into()
                .expect("slice of CHUNK_SIZE");
            at += CHUNK_SIZE;
            Ok(Chunk { index, data })
        };
        let payload = match kind {
            0 => Payload::None,
            1 => Payload::Header(chunk()?),
            2 => Payload::Ek(chunk()?),
            3 => Payload::EkCt1Ack(chunk()?),
            4 => Payload::Ct1Ack,
            5 => Payload::Ct1(chunk()?),
            6 => Payload::Ct2(chunk()?),
            _ => return Err(Error::Malformed("unknown payload type")),
        };
        if at != b.len() {
            return Err(Error::Malformed("trailing bytes"));
        }
        Ok(Self {
            epoch,
            counter,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_varint_with_a_redundant_zero_byte_is_refused() {
        // fuzz/artifacts/spqr_messages/crash-f9839dbb77e5d19cf072d9b73d64583184e1d761
        let crash = [0x01, 0xfb, 0xfa, 0xf9, 0xb3, 0xff, 0x00, 0xff, 0x00, 0x00];
        assert_eq!(
            Message::from_bytes(&crash),
            Err(Error::Malformed("varint not in its shortest form"))
        );
        let mut at = 0;
        assert!(get_varint(&[0x80, 0x00], &mut at).is_err());
        at = 0;
        assert_eq!(get_varint(&[0x00], &mut at), Ok(0));
        at = 0;
        assert_eq!(get_varint(&[0x80, 0x01], &mut at), Ok(128));
    }

    #[test]
    fn varint_is_leb128() {
        let mut v = vec![];
        put_varint(300, &mut v);
        assert_eq!(v, [0xAC, 0x02]);
        let mut at = 0;
        assert_eq!(
            get_varint(&[0xFF; 11], &mut at),
            Err(Error::Malformed("varint over 64 bits"))
        );
    }

    #[test]
    fn a_header_chunk_is_37_bytes() {
        let m = Message {
            epoch: 1,
            counter: 1,
            payload: Payload::Header(Chunk {
                index: 0,
                data: [9; 32],
            }),
        };
        let b = m.to_bytes();
        assert_eq!(b.len(), 37);
        assert_eq!(&b[..5], &[1, 1, 1, 1, 0]);
        assert_eq!(Message::from_bytes(&b).unwrap(), m);
        assert!(Message::from_bytes(&b[..36]).is_err());
        assert!(Message::from_bytes(&[b.clone(), vec![0]].concat()).is_err());
    }

    proptest! {
        #[test]
        fn roundtrip(epoch in 1u64.., counter: u32, kind in 0u8..7, index: u16, data: [u8; 32]) {
            let c = Chunk { index, data };
            let payload = match kind {
                0 => Payload::None,
                1 => Payload::Header(c),
                2 => Payload::Ek(c),
                3 => Payload::EkCt1Ack(c),
                4 => Payload::Ct1Ack,
                5 => Payload::Ct1(c),
                _ => Payload::Ct2(c),
            };
            let m = Message { epoch, counter, payload };
            prop_assert_eq!(Message::from_bytes(&m.to_bytes()).unwrap(), m);
        }

        #[test]
        fn never_panics(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = Message::from_bytes(&b);
        }
    }
}
