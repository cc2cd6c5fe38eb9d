//! Ring-signature decoder and verifier for a fixed two-member ring: no panic; what decodes
//! re-encodes to the same bytes.
#![no_main]
use alibi_falcon::{Level, VerifyingKey};
use alibi_ringsig::{Ring, RingSignature};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn ring() -> &'static Ring {
    static R: OnceLock<Ring> = OnceLock::new();
    R.get_or_init(|| {
        let a = VerifyingKey::from_polynomial(Level::Falcon512, &[1; 512]).unwrap();
        let b = VerifyingKey::from_polynomial(Level::Falcon512, &[2; 512]).unwrap();
        Ring::new(vec![a, b]).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(sig) = RingSignature::from_bytes(ring(), data) {
        assert_eq!(sig.to_bytes(), data);
        let _ = ring().verify(b"fuzz", &sig);
    }
});
