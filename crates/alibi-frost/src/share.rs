//! [`KeyShare`]: one party's share of a FROST key, and its versioned byte encoding.

use std::fmt;

use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey, HdCurve};
use alibi_threshold::Header;
use givre::generic_ec::{NonZero, Point};
use zeroize::Zeroizing;

use crate::suite::sealed::AnyShare;
use crate::suite::{Ed25519, FrostSuite, Secp256k1Tr};
use crate::{Error, Scheme};

/// The header of every encoded key share; a new layout gets a new version.
const HEADER: Header = Header {
    what: "FROST key share",
    magic: *b"AFKS",
    version: 1,
};

/// One party's share of a FROST key: its secret share, the group's public key and every party's
/// public share, from [`crate::keygen`].
///
/// The secret share lives in generic-ec's `SecretScalar`, which wipes its memory when the last
/// reference to it is dropped; [`KeyShare::to_bytes`] returns a buffer that wipes itself too.
/// `Debug` prints the public parts only. Not `Clone`, so that a share is not copied by accident.
///
/// # Encoding (version 1)
///
/// `"AFKS" || 0x01 || tag || json` (alibi-threshold's `Header`), where `tag` is [`Scheme::tag`] (1 = `frost-ed25519`,
/// 2 = `frost-secp256k1-tr`) and `json` is the serde JSON of givre's (key-share 0.7's)
/// `CoreKeyShare`, the format its authors keep stable across versions and recommend JSON for.
/// Decoding validates the share (its secret matches its public share, the public shares
/// interpolate to the group key) and accepts threshold shares only.
pub struct KeyShare {
    pub(crate) inner: AnyShare,
    /// The signature-verifying key in its standard encoding, computed once.
    pub(crate) public_key: Vec<u8>,
}

impl KeyShare {
    /// Wraps a share that givre produced or decoded for suite `C`.
    pub(crate) fn from_givre<C: FrostSuite>(
        share: givre::KeyShare<C::Curve>,
    ) -> Result<Self, Error> {
        if share.vss_setup.is_none() {
            return Err(Error::Malformed("key share: not a threshold share"));
        }
        let public_key = standard_public_key::<C>(share.shared_public_key())?;
        Ok(KeyShare {
            inner: C::wrap(share),
            public_key,
        })
    }

    /// givre's share, if this share is of suite `C`.
    pub(crate) fn givre<C: FrostSuite>(&self) -> Result<&givre::KeyShare<C::Curve>, Error> {
        C::unwrap(&self.inner).ok_or(Error::SchemeMismatch {
            expected: C::SCHEME,
            got: self.scheme(),
        })
    }

    /// The scheme this share was generated for.
    pub fn scheme(&self) -> Scheme {
        match self.inner {
            AnyShare::Ed25519(_) => Scheme::Ed25519,
            AnyShare::Secp256k1Tr(_) => Scheme::Secp256k1Tr,
        }
    }

    /// The group's public key, the one signatures verify under: 32 bytes for both schemes (the
    /// compressed Ed25519 point; the x-only BIP-340 key of the taproot output, already tweaked).
    pub fn public_key(&self) -> Vec<u8> {
        self.public_key.clone()
    }

    /// The group's extended public key: its untweaked key (the internal key, for
    /// `frost-secp256k1-tr`) and chain code, depth 0, a BIP-32 `xpub` on secp256k1 and the
    /// non-standard Edwards one on Ed25519 ([`alibi_threshold::hd`]). `None` for a share whose
    /// key generation gave no chain code (alibi before HD derivation).
    pub fn extended_public_key(&self) -> Option<ExtendedPublicKey> {
        let (curve, key, chain_code) = match &self.inner {
            AnyShare::Ed25519(s) => (
                HdCurve::Ed25519,
                s.shared_public_key.to_bytes(true).to_vec(),
                s.chain_code?,
            ),
            AnyShare::Secp256k1Tr(s) => (
                HdCurve::Secp256k1,
                s.shared_public_key.to_bytes(true).to_vec(),
                s.chain_code?,
            ),
        };
        ExtendedPublicKey::master(curve, &key, chain_code).ok()
    }

    /// The key signatures verify under at `path`: [`KeyShare::public_key`] at `m`, else the
    /// child [`crate::public_key_at`] derives from [`KeyShare::extended_public_key`].
    pub fn public_key_at(&self, path: &DerivationPath) -> Result<Vec<u8>, Error> {
        if path.is_master() {
            return Ok(self.public_key());
        }
        let xpub = alibi_threshold::hd::chain_coded(self.extended_public_key())?;
        Ok(crate::public_key_at(self.scheme(), &xpub, path)?.to_vec())
    }

    /// This party's index at key generation, `0 <= index < n`.
    pub fn index(&self) -> u16 {
        match &self.inner {
            AnyShare::Ed25519(s) => s.i,
            AnyShare::Secp256k1Tr(s) => s.i,
        }
    }

    /// The number of parties that share the key, `n`.
    pub fn parties(&self) -> u16 {
        match &self.inner {
            AnyShare::Ed25519(s) => s.n(),
            AnyShare::Secp256k1Tr(s) => s.n(),
        }
    }

    /// `t`: how many parties may be corrupted; any `t + 1` sign, exactly that many.
    pub fn threshold(&self) -> u16 {
        let min_signers = match &self.inner {
            AnyShare::Ed25519(s) => s.min_signers(),
            AnyShare::Secp256k1Tr(s) => s.min_signers(),
        };
        // A decoded threshold share has min_signers >= 2 (key-share's validation).
        min_signers.saturating_sub(1)
    }

    /// The version-1 encoding (see the type's docs). It holds the secret share: seal it before
    /// it leaves memory; the buffer is wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        // Room for the whole JSON up front, so that no reallocation leaves a copy of the secret
        // behind (the public shares and their preimages take under 200 bytes per party).
        let capacity = 1024 + 256 * usize::from(self.parties());
        let mut out = HEADER.write(capacity);
        out.push(self.scheme().tag());
        let written = match &self.inner {
            AnyShare::Ed25519(s) => serde_json::to_writer(&mut *out, s),
            AnyShare::Secp256k1Tr(s) => serde_json::to_writer(&mut *out, s),
        };
        // Serializing a validated share into memory cannot fail; should it, the empty output
        // is refused by `from_bytes` rather than a panic here.
        if written.is_err() {
            out.clear();
        }
        out
    }

    /// Decodes and validates a [`KeyShare::to_bytes`] encoding. Any bytes give `Ok` or `Err`,
    /// never a panic; the error never quotes the input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (&tag, body) = HEADER
            .open(bytes)?
            .split_first()
            .ok_or(Error::Malformed("key share: no scheme tag"))?;
        match Scheme::from_tag(tag) {
            Some(Scheme::Ed25519) => decode::<Ed25519>(body),
            Some(Scheme::Secp256k1Tr) => decode::<Secp256k1Tr>(body),
            None => Err(Error::Malformed("key share: unknown scheme tag")),
        }
    }
}

/// The JSON body of suite `C`; key-share's `Deserialize` validates the share.
fn decode<C: FrostSuite>(body: &[u8]) -> Result<KeyShare, Error> {
    // serde_json's error would quote the input, which holds the secret: it is dropped.
    let share: givre::KeyShare<C::Curve> =
        serde_json::from_slice(body).map_err(|_| Error::Malformed("key share: invalid body"))?;
    KeyShare::from_givre::<C>(share)
}

/// The key signatures verify under, encoded as the scheme's standard verifiers take it.
fn standard_public_key<C: FrostSuite>(pk: NonZero<Point<C::Curve>>) -> Result<Vec<u8>, Error> {
    let mut key = C::normalize_point(pk);
    if C::IS_TAPROOT {
        // BIP-341 with no script tree: the output key is the internal key plus its tweak,
        // which is also what givre signs under when told the merkle root is empty.
        let tweaked = givre::signing::taproot::tweak_public_key::<C>(key, None)
            .ok_or(Error::Malformed("key share: taproot tweak undefined"))?;
        key = C::normalize_point(tweaked);
    }
    Ok(C::serialize_normalized_point(&key).as_ref().to_vec())
}

impl fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: String = self.public_key.iter().map(|b| format!("{b:02x}")).collect();
        f.debug_struct("KeyShare")
            .field("scheme", &self.scheme())
            .field("index", &self.index())
            .field("parties", &self.parties())
            .field("threshold", &self.threshold())
            .field("public_key", &hex)
            .finish_non_exhaustive()
    }
}
