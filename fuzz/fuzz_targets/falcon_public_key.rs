//! Public-key decoder: never panics; whatever it accepts re-encodes to the same bytes. Inputs edit
//! valid Falcon-512 and Falcon-1024 keys (`alibi_fuzz::input`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = alibi_fuzz::input(data, &alibi_fuzz::falcon::fixture().public_keys);
    if let Ok(vk) = alibi_falcon::VerifyingKey::from_bytes(&bytes) {
        assert_eq!(vk.to_bytes(), &bytes[..]);
    }
});
