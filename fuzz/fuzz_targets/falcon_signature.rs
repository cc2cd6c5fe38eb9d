//! Signature decoder: never panics; whatever it accepts re-encodes to the same bytes, and
//! verification of an accepted signature against a fixed key never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(sig) = alibi_falcon::Signature::from_bytes(data) {
        assert_eq!(sig.to_bytes(), data);
        let h = vec![1u16; sig.level().n()];
        let vk = alibi_falcon::VerifyingKey::from_polynomial(sig.level(), &h).unwrap();
        let _ = vk.verify(b"fuzz", &sig);
    }
});
