//! A party's four safe primes (its Paillier key and its ring-Pedersen modulus): generated with
//! progress reports, cached as bytes, consumed by the auxiliary info generation.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::time::{Duration, Instant};

use cggmp24::backend::Integer;
use cggmp24::key_refresh::PregeneratedPrimes;
use cggmp24::security_level::SecurityLevel;
use crypto_bigint::U1536;
use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
use crypto_primes::{is_prime, sieve_and_find, Flavor};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use alibi_threshold::Header;

use crate::{Error, Security};

/// Bits of each safe prime: CGGMP24's RSA prime length at its 128-bit level (1536).
pub const PRIME_BITS: u32 = <Security as SecurityLevel>::RSA_PRIME_BITLEN;
/// Safe primes per party: `p`, `q` of its Paillier key `N = p q` and two more for its
/// ring-Pedersen modulus `N^ = p^ q^`, which CGGMP24 keeps apart from `N`.
pub const PRIME_COUNT: u8 = 4;
/// How often [`generate_primes`] reports [`PrimeProgress::Searching`] while it searches.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

const PRIME_BYTES: usize = PRIME_BITS.div_ceil(8) as usize;
/// The header of the four-prime encoding; version 1 held cggmp21's two primes.
const HEADER: Header = Header {
    what: "primes",
    magic: *b"ATEP",
    version: 2,
};

// The search runs on 1536-bit integers; a change of security level must change this type.
const _: () = assert!(PRIME_BITS == U1536::BITS);

/// What [`generate_primes`] tells its callback: the start, a heartbeat every
/// [`PROGRESS_INTERVAL`] during a search, each prime found, the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimeProgress {
    /// The generation starts: `count` safe primes of `bits` bits each.
    Started {
        /// Size of each prime.
        bits: u32,
        /// How many primes ([`PRIME_COUNT`]).
        count: u8,
    },
    /// Still searching for prime `index` (`0..count`).
    Searching {
        /// Which prime.
        index: u8,
        /// Candidates that passed the sieve and were tested so far for this prime.
        candidates: u64,
        /// Time since [`PrimeProgress::Started`].
        elapsed: Duration,
    },
    /// Prime `index` (`0..count`) was found.
    Found {
        /// Which prime.
        index: u8,
        /// Time since [`PrimeProgress::Started`].
        elapsed: Duration,
    },
    /// All primes are found.
    Finished {
        /// Total time.
        elapsed: Duration,
    },
}

/// A party's [`PRIME_COUNT`] safe primes (secret): the input of [`crate::aux_info_gen`], made by
/// [`generate_primes`].
///
/// **Encoding** ([`Primes::to_bytes`], version 2): `"ATEP"`, the version byte `2`, then the four
/// primes, each as [`PRIME_BITS`]` / 8` = 192 bytes big-endian. Version 1 (cggmp21's two
/// primes, written by alibi before CGGMP24) is refused with a message that says so. Overwritten
/// on drop (best effort: the big-integer code may have left copies while computing with them).
pub struct Primes {
    primes: [Integer; PRIME_COUNT as usize],
}

/// Generates [`PRIME_COUNT`] safe primes of [`PRIME_BITS`] bits (slow: each takes about five
/// seconds on average on one core, with a long tail), calling `progress` at the start, every
/// [`PROGRESS_INTERVAL`] of searching, per prime found, and at the end. The search is
/// crypto-primes' sieve with its safe-prime test (Miller-Rabin base 2 and the strong Lucas test
/// on both `p` and `(p - 1) / 2`). It runs on the calling thread; a caller that must stay
/// responsive runs it on a blocking thread.
pub fn generate_primes<R: CryptoRng + ?Sized>(
    rng: &mut R,
    mut progress: impl FnMut(PrimeProgress),
) -> Primes {
    let start = Instant::now();
    progress(PrimeProgress::Started {
        bits: PRIME_BITS,
        count: PRIME_COUNT,
    });
    let primes = std::array::from_fn(|index| {
        // `index` < PRIME_COUNT, a u8.
        let index = index as u8;
        let prime = search(rng, index, start, &mut progress);
        progress(PrimeProgress::Found {
            index,
            elapsed: start.elapsed(),
        });
        prime
    });
    progress(PrimeProgress::Finished {
        elapsed: start.elapsed(),
    });
    Primes { primes }
}

/// The sieve every search starts from: candidates of exactly [`PRIME_BITS`] bits (top bit set)
/// with no small factor in `p` or `(p - 1) / 2`. Its only error, a bit length too small for safe
/// primes, would stop the build here.
const SIEVE: SmallFactorsSieveFactory<U1536> =
    match SmallFactorsSieveFactory::new(Flavor::Safe, PRIME_BITS, SetBits::Msb) {
        Ok(factory) => factory,
        Err(_) => panic!("no sieve for safe primes of PRIME_BITS"),
    };

/// One safe prime of [`PRIME_BITS`] bits, reporting every [`PROGRESS_INTERVAL`].
fn search<R: CryptoRng + ?Sized>(
    rng: &mut R,
    index: u8,
    start: Instant,
    progress: &mut impl FnMut(PrimeProgress),
) -> Integer {
    let last = Cell::new(Instant::now());
    let candidates = Cell::new(0u64);
    let progress = RefCell::new(progress);
    let test = |_: &mut R, candidate: &U1536| {
        candidates.set(candidates.get() + 1);
        if last.get().elapsed() >= PROGRESS_INTERVAL {
            last.set(Instant::now());
            (progress.borrow_mut())(PrimeProgress::Searching {
                index,
                candidates: candidates.get(),
                elapsed: start.elapsed(),
            });
        }
        is_prime(Flavor::Safe, candidate)
    };
    loop {
        // This sieve never runs dry (each new one draws a new random start) and draws its
        // starts without error at this size; a search that still ends empty is started again.
        if let Ok(Some(p)) = sieve_and_find(rng, SIEVE, test) {
            let bytes = Zeroizing::new(p.to_be_bytes());
            return Integer::from_bytes_msf(bytes.as_ref());
        }
    }
}

impl Primes {
    /// The encoding described on [`Primes`] (secret: keep it like a key share).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = HEADER.write(self.primes.len() * PRIME_BYTES);
        for x in &self.primes {
            let digits = Zeroizing::new(x.to_bytes_msf());
            // A prime of PRIME_BITS bits fills the width exactly; pad defensively anyway.
            let padded = out.len() + PRIME_BYTES.saturating_sub(digits.len());
            out.resize(padded, 0);
            out.extend_from_slice(&digits);
        }
        out
    }

    /// Decodes [`Primes::to_bytes`]: checks the framing, the length and that the numbers are
    /// odd, distinct and exactly [`PRIME_BITS`] long (not primality: the protocol's proofs fail
    /// on a non-prime).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let body = HEADER.open(bytes).map_err(|e| match e {
            alibi_threshold::Error::Version { found: 1, .. } => Error::Malformed(
                "primes: two primes for cggmp21 (alibi before CGGMP24), which needs four: make new ones",
            ),
            e => Error::from(e),
        })?;
        if body.len() != usize::from(PRIME_COUNT) * PRIME_BYTES {
            return Err(Error::Malformed("primes: wrong length"));
        }
        let mut chunks = body.chunks_exact(PRIME_BYTES);
        let primes = Primes {
            primes: std::array::from_fn(|_| {
                Integer::from_bytes_msf(chunks.next().unwrap_or_default())
            }),
        };
        let ok = |x: &Integer| x.significant_bits() == u64::from(PRIME_BITS) && !x.is_even();
        let p = &primes.primes;
        let distinct = (0..p.len()).all(|i| (i + 1..p.len()).all(|j| p[i] != p[j]));
        if !p.iter().all(ok) || !distinct {
            return Err(Error::Malformed(
                "primes: not four distinct odd numbers of PRIME_BITS",
            ));
        }
        Ok(primes)
    }

    /// Moves the primes into cggmp24's type, leaving zeros behind.
    pub(crate) fn take(mut self) -> Result<PregeneratedPrimes<Security>, Error> {
        let primes = self
            .primes
            .each_mut()
            .map(|x| std::mem::replace(x, Integer::zero()));
        PregeneratedPrimes::try_from(primes).map_err(|mut rejected| {
            rejected.iter_mut().for_each(wipe);
            Error::Malformed("primes: too small")
        })
    }
}

impl Drop for Primes {
    fn drop(&mut self) {
        self.primes.iter_mut().for_each(wipe);
    }
}

impl fmt::Debug for Primes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Primes").finish_non_exhaustive()
    }
}

/// Overwrites a non-negative integer's digits in place before it is freed: setting a bit that
/// lies inside the number changes its digit where it is, so after every bit is set no bit of
/// the old value remains (the big-integer type offers no zeroize, and this crate has no unsafe
/// code).
pub(crate) fn wipe(x: &mut Integer) {
    let bits = u32::try_from(x.significant_bits()).unwrap_or(u32::MAX);
    for bit in 0..bits {
        x.set_bit(bit, true);
    }
}
