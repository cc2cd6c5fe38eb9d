//! Which AKEM configuration a key's length names, for code that reads keys without being told
//! their suite (the `alibi akem` command line): every suite's keys of one AKEM differ in length,
//! so the secret key's length picks the suite, and a key of the wrong length is named by what it
//! is (the other half of a key pair, a key of another suite) rather than reported as malformed.
//!
//! ```
//! use alibi_akem::detect::{Akem, Half, KeyError, Scheme};
//! use alibi_akem::pq::Suite;
//! assert_eq!(
//!     Scheme::Shadowfax.detect(Half::Secret, 3712),
//!     Ok(Akem::Shadowfax(Suite::MlKem512Falcon512))
//! );
//! // A SHADOWFAX public key given where the secret key belongs.
//! assert!(matches!(
//!     Scheme::Shadowfax.detect(Half::Secret, 1728),
//!     Err(KeyError::OtherHalf { found: Half::Public, .. })
//! ));
//! ```

use crate::pq::Suite;
use crate::{dh, shadowfax};

/// The AKEMs of this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// DH-AKEM over X25519, RFC 9180's form ([`dh::rfc9180`]).
    Dh,
    /// PQ-AKEM[KEM, GANDALF] ([`crate::pq`]).
    Pq,
    /// SHADOWFAX[X25519, KEM, GANDALF] ([`crate::shadowfax`]).
    Shadowfax,
}

/// One half of a key pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// The public key.
    Public,
    /// The secret key.
    Secret,
}

impl Half {
    /// The other half.
    pub fn other(self) -> Half {
        match self {
            Half::Public => Half::Secret,
            Half::Secret => Half::Public,
        }
    }
}

impl core::fmt::Display for Half {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Half::Public => "public",
            Half::Secret => "secret",
        })
    }
}

/// An AKEM at one suite: what fixes the lengths of its keys and ciphertexts. DH-AKEM has no
/// suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Akem {
    /// DH-AKEM over X25519 (RFC 9180).
    Dh,
    /// PQ-AKEM at a suite.
    Pq(Suite),
    /// SHADOWFAX at a suite.
    Shadowfax(Suite),
}

/// A key whose length is not the one its place asks for, named by what it is instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A key of the right half and scheme, but of another suite than the other key's.
    #[error(
        "a {half} key of suite {found}, but the other key is {expected}: both must use one suite"
    )]
    OtherSuite {
        /// The half both keys agree on.
        half: Half,
        /// The suite of this key.
        found: Suite,
        /// The suite of the other key.
        expected: Suite,
    },
    /// The other half of a key pair (a public key where the secret key belongs, or the reverse).
    #[error("a {scheme} {found} key ({suite}) where a {expected} key belongs")]
    OtherHalf {
        /// The AKEM.
        scheme: Scheme,
        /// The half this key is.
        found: Half,
        /// Its suite.
        suite: Suite,
        /// The half its place asks for.
        expected: Half,
    },
    /// No key of this AKEM has this length.
    #[error("{len} bytes is no {scheme} {half} key ({} bytes)", scheme.key_lens_text(*half))]
    Length {
        /// The AKEM.
        scheme: Scheme,
        /// The half its place asks for.
        half: Half,
        /// The key's length.
        len: usize,
    },
}

impl Scheme {
    /// Every AKEM.
    pub const ALL: [Scheme; 3] = [Scheme::Dh, Scheme::Pq, Scheme::Shadowfax];

    /// The lower-case name: "dh", "pq" or "shadowfax".
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Dh => "dh",
            Scheme::Pq => "pq",
            Scheme::Shadowfax => "shadowfax",
        }
    }

    /// This AKEM at `suite` (which DH-AKEM ignores).
    pub fn at(self, suite: Suite) -> Akem {
        match self {
            Scheme::Dh => Akem::Dh,
            Scheme::Pq => Akem::Pq(suite),
            Scheme::Shadowfax => Akem::Shadowfax(suite),
        }
    }

    /// Every configuration of this AKEM: DH-AKEM once, the others at every suite.
    pub fn configurations(self) -> Vec<Akem> {
        match self {
            Scheme::Dh => vec![Akem::Dh],
            _ => Suite::ALL.into_iter().map(|s| self.at(s)).collect(),
        }
    }

    /// The lengths of this AKEM's `half` keys, in the order of [`Suite::ALL`], a length repeated
    /// by the next suite listed once.
    pub fn key_lens(self, half: Half) -> Vec<usize> {
        let mut lens: Vec<usize> = self
            .configurations()
            .into_iter()
            .map(|a| a.key_len(half))
            .collect();
        lens.dedup();
        lens
    }

    /// "a or b or c" of [`Self::key_lens`], for messages.
    pub fn key_lens_text(self, half: Half) -> String {
        let lens: Vec<String> = self.key_lens(half).iter().map(usize::to_string).collect();
        lens.join(" or ")
    }

    /// The configuration whose `half` key is `len` bytes long; the error says what such a key is
    /// otherwise.
    pub fn detect(self, half: Half, len: usize) -> Result<Akem, KeyError> {
        self.configurations()
            .into_iter()
            .find(|a| a.key_len(half) == len)
            .ok_or_else(|| self.mismatch(half, len, None))
    }

    /// What a key of `len` bytes is when a `half` key belongs (at `expected`, if the other key
    /// fixed a suite): a `half` key of another suite, a key of the other half, or neither. DH-AKEM's
    /// halves have one length, so they are never told apart.
    fn mismatch(self, half: Half, len: usize, expected: Option<Suite>) -> KeyError {
        let found = [half, half.other()]
            .into_iter()
            .flat_map(|h| Suite::ALL.into_iter().map(move |s| (h, s)))
            .find(|&(h, s)| self != Scheme::Dh && self.at(s).key_len(h) == len);
        match (found, expected) {
            (Some((h, s)), Some(want)) if h == half => KeyError::OtherSuite {
                half,
                found: s,
                expected: want,
            },
            (Some((h, s)), _) => KeyError::OtherHalf {
                scheme: self,
                found: h,
                suite: s,
                expected: half,
            },
            (None, _) => KeyError::Length {
                scheme: self,
                half,
                len,
            },
        }
    }
}

impl core::fmt::Display for Scheme {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl Akem {
    /// The AKEM.
    pub fn scheme(self) -> Scheme {
        match self {
            Akem::Dh => Scheme::Dh,
            Akem::Pq(_) => Scheme::Pq,
            Akem::Shadowfax(_) => Scheme::Shadowfax,
        }
    }

    /// The suite, which DH-AKEM has not.
    pub fn suite(self) -> Option<Suite> {
        match self {
            Akem::Dh => None,
            Akem::Pq(s) | Akem::Shadowfax(s) => Some(s),
        }
    }

    /// Bytes of its `half` key.
    pub fn key_len(self, half: Half) -> usize {
        match (self, half) {
            (Akem::Dh, _) => dh::LEN,
            (Akem::Pq(s), Half::Public) => s.pq_public_len(),
            (Akem::Pq(s), Half::Secret) => s.pq_secret_len(),
            (Akem::Shadowfax(s), Half::Public) => shadowfax::public_len(s),
            (Akem::Shadowfax(s), Half::Secret) => shadowfax::secret_len(s),
        }
    }

    /// Bytes of its ciphertext.
    pub fn ciphertext_len(self) -> usize {
        match self {
            Akem::Dh => dh::LEN,
            Akem::Pq(s) => s.pq_ciphertext_len(),
            Akem::Shadowfax(s) => shadowfax::ciphertext_len(s),
        }
    }

    /// `Ok` if a `half` key of this configuration is `len` bytes long; the error says what such a
    /// key is otherwise (a key of another suite, the other half).
    pub fn check_key_len(self, half: Half, len: usize) -> Result<(), KeyError> {
        if self.key_len(half) == len {
            Ok(())
        } else {
            Err(self.scheme().mismatch(half, len, self.suite()))
        }
    }
}
