//! `alibi_keyfile::open` on untrusted bytes: no panic, and the Argon2id costs a file can name are
//! bounded (a crafted header cannot make one run take more than the documented limits).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = alibi_keyfile::open("alibi fuzz", data, b"pass");
});
