//! Signature decoder: never panics; whatever it accepts re-encodes to the same bytes, and
//! verification of an accepted signature against the fixed key of its level never panics. Inputs
//! edit valid signatures of both levels (`alibi_fuzz::input`).
#![no_main]
use alibi_falcon::Level;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = alibi_fuzz::falcon::fixture();
    let bytes = alibi_fuzz::input(data, &f.signatures);
    if let Ok(sig) = alibi_falcon::Signature::from_bytes(&bytes) {
        assert_eq!(sig.to_bytes(), &bytes[..]);
        let vk = &f.verifying_keys[usize::from(sig.level() == Level::Falcon1024)];
        let _ = vk.verify(b"fuzz", &sig);
    }
});
