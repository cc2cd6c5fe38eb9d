//! [`sign_seeded`]: the one body of `signature::RandomizedSigner` in the scheme crates.

use rand_chacha::ChaCha20Rng;
use rand_core::{SeedableRng, TryCryptoRng};
use zeroize::Zeroizing;

/// Runs `sign` with a ChaCha20 stream keyed by one 32-byte seed from the caller's RNG.
///
/// The signing loops of Falcon, Mitaka, MAYO, TACHYON and the ring signatures (rejection
/// sampling) draw without bound and need an infallible RNG; `RandomizedSigner` hands them a
/// fallible one. So the caller's RNG is asked once, for the seed (wiped after use), and a
/// failure there is the opaque `signature::Error` the trait returns. `sign`'s own result is
/// passed on as it is.
///
/// ```
/// use rand_core::Rng;
/// let mut caller = rand_chacha::ChaCha20Rng::from_seed([7; 32]);
/// # use rand_core::SeedableRng;
/// let word = alibi_encoding::sign_seeded(&mut caller, |stream| stream.next_u32()).unwrap();
/// # let _ = word;
/// ```
pub fn sign_seeded<R, T>(
    rng: &mut R,
    sign: impl FnOnce(&mut ChaCha20Rng) -> T,
) -> Result<T, signature::Error>
where
    R: TryCryptoRng + ?Sized,
{
    let mut seed = Zeroizing::new([0u8; 32]);
    rng.try_fill_bytes(&mut seed[..])
        .map_err(|_| signature::Error::new())?;
    Ok(sign(&mut ChaCha20Rng::from_seed(*seed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, TryRng};

    /// An RNG that always fails.
    struct Broken;

    impl TryRng for Broken {
        type Error = core::fmt::Error;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Err(core::fmt::Error)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Err(core::fmt::Error)
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            Err(core::fmt::Error)
        }
    }

    impl TryCryptoRng for Broken {}

    #[test]
    fn the_stream_is_keyed_by_the_callers_rng() {
        let draw = |seed| {
            let mut caller = ChaCha20Rng::from_seed(seed);
            sign_seeded(&mut caller, |s| s.next_u64()).expect("seeded")
        };
        assert_eq!(draw([1; 32]), draw([1; 32]));
        assert_ne!(draw([1; 32]), draw([2; 32]));
    }

    #[test]
    fn a_failing_rng_is_an_error_not_a_panic() {
        assert!(sign_seeded(&mut Broken, |s| s.next_u32()).is_err());
    }
}
