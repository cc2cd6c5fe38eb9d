//! A party's two safe primes for its Paillier key: generated with progress reports, cached as
//! bytes, consumed by the auxiliary info generation.

use std::fmt;
use std::time::{Duration, Instant};

use cggmp21::key_refresh::PregeneratedPrimes;
use cggmp21::rug::{integer::Order, Integer};
use cggmp21::security_level::KeygenSecurityLevel;
use rand_core_06::{CryptoRng, RngCore};
use zeroize::Zeroizing;

use crate::{codec, Error, Security};

/// Bits of each safe prime: cggmp21 asks for `4 * SECURITY_BITS` (1536 at its 128-bit level).
pub const PRIME_BITS: u32 = 4 * <Security as KeygenSecurityLevel>::SECURITY_BITS;
/// How often [`generate_primes`] reports [`PrimeProgress::Searching`] while it searches.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

const MAGIC: &[u8; 4] = b"ATEP";
const PRIME_BYTES: usize = PRIME_BITS.div_ceil(8) as usize;

/// What [`generate_primes`] tells its callback: the start, a heartbeat every
/// [`PROGRESS_INTERVAL`] during a search, each prime found, the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimeProgress {
    /// The generation starts: two safe primes of `bits` bits each.
    Started {
        /// Size of each prime.
        bits: u32,
    },
    /// Still searching for prime `index` (0 or 1).
    Searching {
        /// Which prime.
        index: u8,
        /// Random candidates drawn so far for this prime (most are sieved out at once).
        candidates: u64,
        /// Time since [`PrimeProgress::Started`].
        elapsed: Duration,
    },
    /// Prime `index` (0 or 1) was found.
    Found {
        /// Which prime.
        index: u8,
        /// Time since [`PrimeProgress::Started`].
        elapsed: Duration,
    },
    /// Both primes are found.
    Finished {
        /// Total time.
        elapsed: Duration,
    },
}

/// A party's two safe primes `p`, `q` for its Paillier key (secret): the input of
/// [`crate::aux_info_gen`], made by [`generate_primes`].
///
/// **Encoding** ([`Primes::to_bytes`], version 1): `"ATEP"`, the version byte `1`, then `p` and
/// `q`, each as [`PRIME_BITS`]` / 8` = 192 bytes big-endian. Overwritten on drop (best effort:
/// GMP may have left copies while computing with them).
pub struct Primes {
    p: Integer,
    q: Integer,
}

/// Generates two safe primes of [`PRIME_BITS`] bits (slow: each one takes seconds to minutes),
/// calling `progress` at the start, every [`PROGRESS_INTERVAL`] of searching, per prime found,
/// and at the end. It runs on the calling thread; a caller that must stay responsive runs it
/// on a blocking thread.
pub fn generate_primes<R: RngCore + CryptoRng>(
    rng: &mut R,
    mut progress: impl FnMut(PrimeProgress),
) -> Primes {
    let start = Instant::now();
    progress(PrimeProgress::Started { bits: PRIME_BITS });
    let mut primes = [Integer::new(), Integer::new()];
    for (index, prime) in (0u8..).zip(primes.iter_mut()) {
        let mut counted = Counting::new(rng, index, start, &mut progress);
        *prime = cggmp21::fast_paillier::utils::generate_safe_prime(&mut counted, PRIME_BITS);
        let elapsed = start.elapsed();
        progress(PrimeProgress::Found { index, elapsed });
    }
    progress(PrimeProgress::Finished {
        elapsed: start.elapsed(),
    });
    let [p, q] = primes;
    Primes { p, q }
}

impl Primes {
    /// The encoding described on [`Primes`] (secret: keep it like a key share).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = codec::header(MAGIC, 2 * PRIME_BYTES);
        for x in [&self.p, &self.q] {
            let digits = Zeroizing::new(x.to_digits::<u8>(Order::Msf));
            // A prime of PRIME_BITS bits fills the width exactly; pad defensively anyway.
            let padded = out.len() + PRIME_BYTES.saturating_sub(digits.len());
            out.resize(padded, 0);
            out.extend_from_slice(&digits);
        }
        out
    }

    /// Decodes [`Primes::to_bytes`]: checks the framing, the length and that both numbers are
    /// odd, distinct and exactly [`PRIME_BITS`] long (not primality: the protocol's proofs fail
    /// on a non-prime).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let body = codec::body(MAGIC, bytes)?;
        if body.len() != 2 * PRIME_BYTES {
            return Err(Error::Malformed("primes: wrong length"));
        }
        let (p, q) = body.split_at(PRIME_BYTES);
        let primes = Primes {
            p: Integer::from_digits(p, Order::Msf),
            q: Integer::from_digits(q, Order::Msf),
        };
        let ok = |x: &Integer| x.significant_bits() == PRIME_BITS && x.is_odd();
        if !ok(&primes.p) || !ok(&primes.q) || primes.p == primes.q {
            return Err(Error::Malformed(
                "primes: not two distinct odd numbers of PRIME_BITS",
            ));
        }
        Ok(primes)
    }

    /// Moves the primes into cggmp21's type, leaving zeros behind.
    pub(crate) fn take(mut self) -> Result<PregeneratedPrimes<Security>, Error> {
        let p = std::mem::take(&mut self.p);
        let q = std::mem::take(&mut self.q);
        PregeneratedPrimes::new(p, q).ok_or(Error::Malformed("primes: too small"))
    }
}

impl Drop for Primes {
    fn drop(&mut self) {
        wipe(&mut self.p);
        wipe(&mut self.q);
    }
}

impl fmt::Debug for Primes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Primes").finish_non_exhaustive()
    }
}

/// Overwrites a non-negative integer's limbs in place before it is freed: setting a bit that
/// lies inside the number changes its limb where it is, so after every bit is set no bit of
/// the old value remains (rug offers no zeroize, and this crate has no unsafe code).
pub(crate) fn wipe(x: &mut Integer) {
    for bit in 0..x.significant_bits() {
        x.set_bit(bit, true);
    }
}

/// An RNG that passes everything through and, every [`PROGRESS_INTERVAL`], reports how many
/// candidates the prime search has drawn: the search asks it for fresh bits per candidate.
struct Counting<'a, R, F> {
    rng: &'a mut R,
    index: u8,
    start: Instant,
    last: Instant,
    words: u64,
    unchecked: u64,
    progress: &'a mut F,
}

impl<'a, R: RngCore, F: FnMut(PrimeProgress)> Counting<'a, R, F> {
    fn new(rng: &'a mut R, index: u8, start: Instant, progress: &'a mut F) -> Self {
        let last = Instant::now();
        Counting {
            rng,
            index,
            start,
            last,
            words: 0,
            unchecked: 0,
            progress,
        }
    }

    fn tick(&mut self, words: u64) {
        self.words += words;
        // Reading the clock per word would slow the sieve down; every 1024 words is plenty.
        self.unchecked += words;
        if self.unchecked < 1024 {
            return;
        }
        self.unchecked = 0;
        if self.last.elapsed() >= PROGRESS_INTERVAL {
            self.last = Instant::now();
            (self.progress)(PrimeProgress::Searching {
                index: self.index,
                // A candidate of PRIME_BITS - 1 bits takes that many bits in 32-bit words.
                candidates: self.words / u64::from((PRIME_BITS - 1).div_ceil(32)),
                elapsed: self.start.elapsed(),
            });
        }
    }
}

impl<R: RngCore, F: FnMut(PrimeProgress)> RngCore for Counting<'_, R, F> {
    fn next_u32(&mut self) -> u32 {
        self.tick(1);
        self.rng.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.tick(2);
        self.rng.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.tick(dest.len().div_ceil(4) as u64);
        self.rng.fill_bytes(dest)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core_06::Error> {
        self.tick(dest.len().div_ceil(4) as u64);
        self.rng.try_fill_bytes(dest)
    }
}

// The wrapper is as cryptographically strong as the RNG it wraps.
impl<R: RngCore + CryptoRng, F: FnMut(PrimeProgress)> CryptoRng for Counting<'_, R, F> {}
