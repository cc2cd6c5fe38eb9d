//! Keccak-f[1600] (FIPS 202 §3.3): 24 rounds of theta, rho, pi, chi and iota on 25 lanes of 64
//! bits, lane (x, y) at index x + 5y.

/// The round constants of iota (FIPS 202 §3.2.5), one per round.
pub const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// rho's rotation of lane x + 5y (FIPS 202 §3.2.2, Table 2).
pub const RHO: [u32; 25] = [
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];

/// The rounds, written over index loops that the compiler unrolls completely, so that the state
/// lives in registers and every index is a constant.
#[inline(always)]
fn rounds(a: &mut [u64; 25]) {
    for rc in RC {
        // theta: each lane takes the parities of the columns either side.
        let mut c = [0u64; 5];
        for (x, cx) in c.iter_mut().enumerate() {
            *cx = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }
        // rho and pi: lane (x, y), rotated, moves to (y, 2x + 3y).
        let mut b = [0u64; 25];
        for y in 0..5 {
            for x in 0..5 {
                b[y + 5 * ((2 * x + 3 * y) % 5)] = a[x + 5 * y].rotate_left(RHO[x + 5 * y]);
            }
        }
        // chi, then iota.
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        a[0] ^= rc;
    }
}

/// Keccak-f[1600] on one state, on the fastest build this CPU runs.
#[inline]
pub fn f1600(a: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi1") {
        #[allow(unsafe_code)]
        // SAFETY: the CPU supports BMI1, checked just above.
        unsafe {
            f1600_bmi1(a)
        };
        return;
    }
    rounds(a);
}

/// Keccak-f[1600] built for the baseline of the target (what [`f1600`] runs on a CPU without
/// BMI1, and what the tests compare the other build with).
pub fn f1600_portable(a: &mut [u64; 25]) {
    rounds(a);
}

/// The same rounds compiled with BMI1, so that chi's `!b & c` is one `andn`: about a fifth
/// faster on the CPUs measured (docs/BENCHMARKS.md).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1")]
fn f1600_bmi1(a: &mut [u64; 25]) {
    rounds(a);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_state_matches_the_keccak_team_value() {
        // Keccak-f[1600] of the all-zero state, first lane (KeccakF-1600 intermediate values).
        let mut a = [0u64; 25];
        f1600(&mut a);
        assert_eq!(a[0], 0xF1258F7940E1DDE7);
        let mut b = [0u64; 25];
        f1600_portable(&mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn both_builds_agree_with_the_keccak_crate() {
        let mut s = 0x0123_4567_89ab_cdefu64;
        for _ in 0..2000 {
            let mut a = [0u64; 25];
            for w in a.iter_mut() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *w = s ^ (s >> 29);
            }
            let mut peer = a;
            keccak::Keccak::new().with_f1600(|f| f(&mut peer));
            let mut dispatched = a;
            f1600(&mut dispatched);
            let mut portable = a;
            f1600_portable(&mut portable);
            assert_eq!(dispatched, peer);
            assert_eq!(portable, peer);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi1") {
                let mut bmi1 = a;
                #[allow(unsafe_code)]
                // SAFETY: the CPU supports BMI1, checked just above.
                unsafe {
                    f1600_bmi1(&mut bmi1)
                };
                assert_eq!(bmi1, peer);
            }
        }
    }
}
