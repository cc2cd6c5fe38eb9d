//! The twelve SPHINCS+ parameter sets DGSP can run on ("simple" variants, as the paper and the
//! seed use), and their sizes.

/// The hash family of a parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// SHAKE256 everywhere.
    Shake,
    /// SHA-256 (and SHA-512 for the multi-block hashes at n = 24, 32), as SPHINCS+-SHA2.
    Sha2,
}

/// A DGSP parameter set: SPHINCS+-{family}-{128,192,256}{f,s}-simple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Params {
    Sha2_128f,
    Sha2_128s,
    Sha2_192f,
    Sha2_192s,
    Sha2_256f,
    Sha2_256s,
    Shake128f,
    Shake128s,
    Shake192f,
    Shake192s,
    Shake256f,
    Shake256s,
}

impl Params {
    /// All twelve, SHA-2 first.
    pub const ALL: [Params; 12] = [
        Params::Sha2_128f,
        Params::Sha2_128s,
        Params::Sha2_192f,
        Params::Sha2_192s,
        Params::Sha2_256f,
        Params::Sha2_256s,
        Params::Shake128f,
        Params::Shake128s,
        Params::Shake192f,
        Params::Shake192s,
        Params::Shake256f,
        Params::Shake256s,
    ];

    /// The hash family.
    pub const fn family(self) -> Family {
        match self {
            Params::Sha2_128f
            | Params::Sha2_128s
            | Params::Sha2_192f
            | Params::Sha2_192s
            | Params::Sha2_256f
            | Params::Sha2_256s => Family::Sha2,
            _ => Family::Shake,
        }
    }

    /// The security parameter n in bytes (16, 24 or 32).
    pub const fn n(self) -> usize {
        match self {
            Params::Sha2_128f | Params::Sha2_128s | Params::Shake128f | Params::Shake128s => 16,
            Params::Sha2_192f | Params::Sha2_192s | Params::Shake192f | Params::Shake192s => 24,
            _ => 32,
        }
    }

    /// WOTS+ chains: len1 = 2n digits of the message (w = 16) and len2 = 3 checksum digits.
    pub const fn wots_len(self) -> usize {
        2 * self.n() + 3
    }

    /// The lower-case name, e.g. "shake-256f".
    pub const fn name(self) -> &'static str {
        match self {
            Params::Sha2_128f => "sha2-128f",
            Params::Sha2_128s => "sha2-128s",
            Params::Sha2_192f => "sha2-192f",
            Params::Sha2_192s => "sha2-192s",
            Params::Sha2_256f => "sha2-256f",
            Params::Sha2_256s => "sha2-256s",
            Params::Shake128f => "shake-128f",
            Params::Shake128s => "shake-128s",
            Params::Shake192f => "shake-192f",
            Params::Shake192s => "shake-192s",
            Params::Shake256f => "shake-256f",
            Params::Shake256s => "shake-256s",
        }
    }

    /// The set with this name.
    pub fn from_name(s: &str) -> Option<Params> {
        Params::ALL.into_iter().find(|p| p.name() == s)
    }

    /// A one-byte tag for encodings.
    pub fn tag(self) -> u8 {
        Params::ALL.iter().position(|&p| p == self).expect("listed") as u8 + 1
    }

    /// The set a tag names.
    pub fn from_tag(t: u8) -> Option<Params> {
        Params::ALL.get((t as usize).checked_sub(1)?).copied()
    }
}

impl core::fmt::Display for Params {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DGSP-{}", self.name())
    }
}
