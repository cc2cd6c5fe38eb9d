//! Parameter sets of Falcon round 3 (specification v1.2, Table 3.3).

/// The modulus q = 12289 = 12 * 1024 + 1 (spec §3.2).
pub const Q: u32 = 12289;

/// Length of the random salt r prepended to every message (spec §3.7, "40 bytes").
pub const SALT_LEN: usize = 40;

/// The two security levels of the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Level {
    /// Falcon-512: n = 512, NIST level I.
    Falcon512,
    /// Falcon-1024: n = 1024, NIST level V.
    Falcon1024,
}

impl Level {
    /// Both levels, in increasing order.
    pub const ALL: [Level; 2] = [Level::Falcon512, Level::Falcon1024];

    /// log2 of the ring degree n.
    pub const fn logn(self) -> u32 {
        match self {
            Level::Falcon512 => 9,
            Level::Falcon1024 => 10,
        }
    }

    /// The ring degree n (polynomials live in Z[x]/(x^n + 1)).
    pub const fn n(self) -> usize {
        1 << self.logn()
    }

    /// The level whose log2(n) is `logn`, if there is one.
    pub const fn from_logn(logn: u32) -> Option<Level> {
        match logn {
            9 => Some(Level::Falcon512),
            10 => Some(Level::Falcon1024),
            _ => None,
        }
    }

    /// The level with ring degree `n` (512 or 1024).
    pub const fn from_n(n: usize) -> Option<Level> {
        match n {
            512 => Some(Level::Falcon512),
            1024 => Some(Level::Falcon1024),
            _ => None,
        }
    }

    /// Standard deviation sigma of the signature distribution (Table 3.3).
    pub const fn sigma(self) -> f64 {
        match self {
            Level::Falcon512 => 165.736_617_182_977_6,
            Level::Falcon1024 => 168.388_571_446_543_95,
        }
    }

    /// sigma_min, the smallest leaf standard deviation SamplerZ accepts (Table 3.3).
    pub const fn sigma_min(self) -> f64 {
        match self {
            Level::Falcon512 => 1.277_833_696_912_833_7,
            Level::Falcon1024 => 1.298_280_334_344_292,
        }
    }

    /// floor(beta^2): the acceptance bound on ||(s1, s2)||^2 (Table 3.3).
    pub const fn beta_sq(self) -> u64 {
        match self {
            Level::Falcon512 => 34_034_726,
            Level::Falcon1024 => 70_265_242,
        }
    }

    /// Bits per coefficient of f and g in the secret-key encoding (spec §3.11.5).
    pub const fn fg_bits(self) -> u32 {
        match self {
            Level::Falcon512 => 6,
            Level::Falcon1024 => 5,
        }
    }

    /// Bits per coefficient of F (and G) in the secret-key encoding.
    pub const fn big_fg_bits(self) -> u32 {
        8
    }

    /// Public key size in bytes: header + 14 bits per coefficient (897 / 1,793).
    pub const fn public_key_len(self) -> usize {
        1 + self.n() * 14 / 8
    }

    /// Secret key size in bytes: header + f, g, F (1,281 / 2,305).
    pub const fn secret_key_len(self) -> usize {
        1 + 2 * self.n() * self.fg_bits() as usize / 8 + self.n()
    }

    /// Specification signature size in bytes, sbytelen (666 / 1,280, Table 3.3).
    ///
    /// Our signatures are emitted in the variable-length "compressed" format (no padding), like
    /// PQClean's detached signatures, and are never longer than this.
    pub const fn sig_max_len(self) -> usize {
        match self {
            Level::Falcon512 => 666,
            Level::Falcon1024 => 1280,
        }
    }

    /// Human name, as the specification writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Falcon512 => "Falcon-512",
            Level::Falcon1024 => "Falcon-1024",
        }
    }
}

impl core::fmt::Display for Level {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// sigma_max of the base sampler (spec §3.9.3): 1.8205.
pub(crate) const SIGMA_MAX: f64 = 1.8205;
