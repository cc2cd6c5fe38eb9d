//! Threshold ECDSA decoders: `KeyShare::from_bytes` (serde JSON of cggmp24's key share, then its
//! validation), `Primes::from_bytes`, `Presignature::from_bytes` and `Partial::from_bytes` (a
//! partial signature, from the network). No panic; accepted primes and partials re-encode to the
//! same bytes, an accepted share or presignature re-encodes to bytes that decode again. Inputs
//! edit the test fixtures' primes, key share and presignature from the crate's tests (corpus
//! `threshold_ecdsa_decoders/`), or are raw (`alibi_fuzz::input`).
#![no_main]
use alibi_threshold_ecdsa::{KeyShare, Partial, Presignature, Primes};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let primes = include_str!("../../crates/alibi-threshold-ecdsa/tests/vectors/primes.hex");
        let share = include_str!("../../crates/alibi-threshold-ecdsa/tests/vectors/key_share.hex");
        let presig =
            include_str!("../../crates/alibi-threshold-ecdsa/tests/vectors/presignature.hex");
        // A partial signature: position 1, then a scalar below the order.
        let partial = "0001000000000000000000000000000000000000000000000000000000000000002a";
        [primes.lines().next(), share.lines().next(), presig.lines().next(), Some(partial)]
            .into_iter()
            .flatten()
            .filter_map(|line| hex::decode(line.trim()).ok())
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let data = &alibi_fuzz::input(data, samples())[..];
    if let Ok(share) = KeyShare::from_bytes(data) {
        let again = share.to_bytes().expect("an accepted share encodes");
        assert!(KeyShare::from_bytes(&again).is_ok());
    }
    if let Ok(primes) = Primes::from_bytes(data) {
        assert_eq!(&primes.to_bytes()[..], data);
    }
    if let Ok(presig) = Presignature::from_bytes(data) {
        let again = presig.to_bytes().expect("an accepted presignature encodes");
        assert!(Presignature::from_bytes(&again).is_ok());
    }
    if let Ok(partial) = Partial::from_bytes(data) {
        assert_eq!(&partial.to_bytes()[..], data);
    }
});
