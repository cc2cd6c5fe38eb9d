//! Threshold BLS on untrusted bytes: every key-generation message, transport frame, signed
//! broadcast, key share file, group file and BLS encoding decoder. No panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    alibi_mpc::fuzzing::decoders(data);
});
