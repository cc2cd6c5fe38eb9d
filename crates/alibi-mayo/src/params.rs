//! The MAYO parameter sets of the round-2 specification (Table 2.1 there; MAYO-C's `mayo.h`).

/// A MAYO parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Params {
    /// MAYO_1: n = 86, m = 78, o = 8, k = 10 (NIST level 1).
    Mayo1,
    /// MAYO_2: n = 81, m = 64, o = 17, k = 4 (NIST level 1, short signatures).
    Mayo2,
    /// MAYO_3: n = 118, m = 108, o = 10, k = 11 (NIST level 3).
    Mayo3,
    /// MAYO_5: n = 154, m = 142, o = 12, k = 12 (NIST level 5).
    Mayo5,
}

impl Params {
    /// All four, in order.
    pub const ALL: [Params; 4] = [Params::Mayo1, Params::Mayo2, Params::Mayo3, Params::Mayo5];

    /// The name, e.g. "MAYO_1".
    pub const fn name(self) -> &'static str {
        match self {
            Params::Mayo1 => "MAYO_1",
            Params::Mayo2 => "MAYO_2",
            Params::Mayo3 => "MAYO_3",
            Params::Mayo5 => "MAYO_5",
        }
    }

    /// The set with this name ("MAYO_1", or the CLI's "mayo1").
    pub fn from_name(s: &str) -> Option<Params> {
        Params::ALL
            .into_iter()
            .find(|p| p.name() == s || p.name().replace('_', "").eq_ignore_ascii_case(s))
    }

    /// Variables n.
    pub const fn n(self) -> usize {
        match self {
            Params::Mayo1 => 86,
            Params::Mayo2 => 81,
            Params::Mayo3 => 118,
            Params::Mayo5 => 154,
        }
    }

    /// Equations m.
    pub const fn m(self) -> usize {
        match self {
            Params::Mayo1 => 78,
            Params::Mayo2 => 64,
            Params::Mayo3 => 108,
            Params::Mayo5 => 142,
        }
    }

    /// Oil dimension o.
    pub const fn o(self) -> usize {
        match self {
            Params::Mayo1 => 8,
            Params::Mayo2 => 17,
            Params::Mayo3 => 10,
            Params::Mayo5 => 12,
        }
    }

    /// Whipping parameter k.
    pub const fn k(self) -> usize {
        match self {
            Params::Mayo1 => 10,
            Params::Mayo2 => 4,
            Params::Mayo3 => 11,
            Params::Mayo5 => 12,
        }
    }

    /// Vinegar variables v = n - o.
    pub const fn v(self) -> usize {
        self.n() - self.o()
    }

    /// The tail of the irreducible f(z) = z^m + f_3 z^3 + f_2 z^2 + f_1 z + f_0 (MAYO-C's
    /// F_TAIL, lowest coefficient first): z^m reduces to this tail.
    pub const fn f_tail(self) -> [u8; 4] {
        match self {
            Params::Mayo1 => [8, 1, 1, 0],
            Params::Mayo2 => [8, 0, 2, 8],
            Params::Mayo3 => [8, 0, 1, 7],
            Params::Mayo5 => [4, 0, 8, 1],
        }
    }

    /// Salt bytes.
    pub const fn salt_bytes(self) -> usize {
        match self {
            Params::Mayo1 | Params::Mayo2 => 24,
            Params::Mayo3 => 32,
            Params::Mayo5 => 40,
        }
    }

    /// Message digest bytes.
    pub const fn digest_bytes(self) -> usize {
        match self {
            Params::Mayo1 | Params::Mayo2 => 32,
            Params::Mayo3 => 48,
            Params::Mayo5 => 64,
        }
    }

    /// Secret seed bytes: the compact secret key.
    pub const fn sk_seed_bytes(self) -> usize {
        self.salt_bytes()
    }

    /// Public seed bytes.
    pub const fn pk_seed_bytes(self) -> usize {
        16
    }

    /// 64-bit limbs of an m-vector (16 elements of F16 per limb).
    pub const fn limbs(self) -> usize {
        self.m().div_ceil(16)
    }

    /// Bytes of m packed elements.
    pub const fn m_bytes(self) -> usize {
        self.m().div_ceil(2)
    }

    /// Bytes of the packed oil matrix O (v x o elements).
    pub const fn o_bytes(self) -> usize {
        (self.v() * self.o()).div_ceil(2)
    }

    /// Bytes of one packed vinegar vector.
    pub const fn v_bytes(self) -> usize {
        self.v().div_ceil(2)
    }

    /// Bytes of the packed randomizer r (k o elements).
    pub const fn r_bytes(self) -> usize {
        (self.k() * self.o()).div_ceil(2)
    }

    /// m-vectors in P1 (upper triangular v x v).
    pub const fn p1_vecs(self) -> usize {
        self.v() * (self.v() + 1) / 2
    }

    /// m-vectors in P2 (v x o).
    pub const fn p2_vecs(self) -> usize {
        self.v() * self.o()
    }

    /// m-vectors in P3 (upper triangular o x o).
    pub const fn p3_vecs(self) -> usize {
        self.o() * (self.o() + 1) / 2
    }

    /// Compact public key bytes: seed_pk || packed upper(P3).
    pub const fn public_key_bytes(self) -> usize {
        self.pk_seed_bytes() + self.p3_vecs() * self.m() / 2
    }

    /// Compact secret key bytes (the seed).
    pub const fn secret_key_bytes(self) -> usize {
        self.sk_seed_bytes()
    }

    /// Bytes of the packed solution s (k n elements).
    pub const fn s_bytes(self) -> usize {
        (self.k() * self.n()).div_ceil(2)
    }

    /// Signature bytes: packed s || salt.
    pub const fn signature_bytes(self) -> usize {
        self.s_bytes() + self.salt_bytes()
    }
}

impl core::fmt::Display for Params {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_specification() {
        // (pk, sig) from the round-2 specification's Table 2.1 / MAYO-C's mayo.h.
        let want = [(1420, 454), (4912, 186), (2986, 681), (5554, 964)];
        for (p, (pk, sig)) in Params::ALL.into_iter().zip(want) {
            assert_eq!(
                (p.public_key_bytes(), p.signature_bytes()),
                (pk, sig),
                "{p}"
            );
        }
        assert_eq!(Params::Mayo1.p1_vecs() * Params::Mayo1.m() / 2, 120159);
        assert_eq!(Params::from_name("mayo2"), Some(Params::Mayo2));
        assert_eq!(Params::from_name("MAYO_5"), Some(Params::Mayo5));
    }
}
