//! Parameter sets (paper §5.2 and the authors' code; ../shared/specs/tachyon.md).

/// Ring degree N of R_q = Z_q[x]/(x^N + 1).
pub const N: usize = 256;
/// Number of ring elements mu in one GCK input.
pub const MU: usize = 8;
/// Coefficients of one GCK input (x_i, r', s): mu N.
pub const INPUT: usize = MU * N;
/// Bytes of H1's output h carried in a signature (BLAKE2b-512).
pub const H_LEN: usize = 64;
/// Bytes of the public seed of A.
pub const SEED_LEN: usize = 32;

/// A TACHYON parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// kappa = 128: (t, k) = (1024, 18).
    T128,
    /// kappa = 192: (t, k) = (2048, 25).
    T192,
    /// kappa = 256: (t, k) = (3072, 32).
    T256,
    /// kappa = 128 with the paper's alternative (t, k) = (256, 26): a 4x smaller public key,
    /// slower signing (acceptance about 20%).
    T128Small,
}

impl Level {
    /// Every parameter set.
    pub const ALL: [Level; 4] = [Level::T128, Level::T192, Level::T256, Level::T128Small];

    /// The modulus q (prime, q = 1 mod 2N so that the NTT exists).
    pub const fn q(self) -> u32 {
        match self {
            Level::T128 | Level::T128Small => 134_215_681,
            Level::T192 => 1_073_479_681,
            Level::T256 => 2_147_483_137,
        }
    }

    /// Bits of q (the packing width of public-key coefficients).
    pub const fn q_bits(self) -> u32 {
        32 - self.q().leading_zeros()
    }

    /// Number t of secret binary vectors x_i (and public y_i).
    pub const fn t(self) -> usize {
        match self {
            Level::T128 => 1024,
            Level::T192 => 2048,
            Level::T256 => 3072,
            Level::T128Small => 256,
        }
    }

    /// Number k of x_i a signature adds.
    pub const fn k(self) -> usize {
        match self {
            Level::T128 => 18,
            Level::T192 => 25,
            Level::T256 => 32,
            Level::T128Small => 26,
        }
    }

    /// xi: r' has coefficients uniform in [0, xi); a signature keeps s only when every coefficient
    /// lies in [k, xi - k).
    pub const fn xi(self) -> u32 {
        match self {
            Level::T128 | Level::T128Small => 65_535,
            Level::T192 | Level::T256 => 131_071,
        }
    }

    /// Bits per coefficient of s in a signature.
    pub const fn xi_bits(self) -> u32 {
        32 - self.xi().leading_zeros()
    }

    /// Security level kappa, which is also the PRF key size in bits.
    pub const fn kappa(self) -> usize {
        match self {
            Level::T128 | Level::T128Small => 128,
            Level::T192 => 192,
            Level::T256 => 256,
        }
    }

    /// Bytes of the PRF key.
    pub const fn prf_key_len(self) -> usize {
        self.kappa() / 8
    }

    /// Public key bytes: the seed of A, then the t values y_i at q_bits per coefficient.
    pub const fn public_key_len(self) -> usize {
        1 + SEED_LEN + self.t() * N * self.q_bits() as usize / 8
    }

    /// Secret key bytes: header, PRF key, seed of A.
    pub const fn secret_key_len(self) -> usize {
        1 + self.prf_key_len() + SEED_LEN
    }

    /// Signature bytes: s at xi_bits per coefficient, then h.
    pub const fn signature_len(self) -> usize {
        INPUT * self.xi_bits() as usize / 8 + H_LEN
    }

    /// The header byte of keys of this level.
    pub const fn header(self) -> u8 {
        match self {
            Level::T128 => 0x71,
            Level::T192 => 0x72,
            Level::T256 => 0x73,
            Level::T128Small => 0x74,
        }
    }

    /// The level a header byte names.
    pub fn from_header(b: u8) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.header() == b)
    }

    /// A short name.
    pub const fn name(self) -> &'static str {
        match self {
            Level::T128 => "TACHYON-128",
            Level::T192 => "TACHYON-192",
            Level::T256 => "TACHYON-256",
            Level::T128Small => "TACHYON-128s (t=256, k=26)",
        }
    }
}

impl core::fmt::Display for Level {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
