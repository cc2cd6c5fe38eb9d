//! The messenger on untrusted bytes: the relay's envelopes, WebSocket frames and JSON answers, the
//! content of a decrypted message, contact cards. No panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    alibi_messenger::fuzzing::decoders(data);
});
