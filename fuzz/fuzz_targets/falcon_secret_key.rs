//! Secret-key decoder: never panics; whatever it accepts re-encodes to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(sk) = alibi_falcon::SigningKey::from_bytes(data) {
        assert_eq!(&sk.to_bytes()[..], data);
    }
});
