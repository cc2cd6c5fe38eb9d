//! Public-key decoder: never panics; whatever it accepts re-encodes to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(vk) = alibi_falcon::VerifyingKey::from_bytes(data) {
        assert_eq!(vk.to_bytes(), data);
    }
});
