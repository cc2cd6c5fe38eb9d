//! Our SPHINCS+-SHAKE verification on arbitrary public keys and signatures: never a panic, and
//! inputs of the wrong length are rejected. Short inputs are stretched to full length so that
//! every part of the signature parser and the hypertree walk is reached.
#![no_main]
use alibi_dgsp::sphincs;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let sets = [
        sphincs::SHAKE_128F,
        sphincs::SHAKE_128S,
        sphincs::SHAKE_192F,
        sphincs::SHAKE_192S,
        sphincs::SHAKE_256F,
        sphincs::SHAKE_256S,
    ];
    let p = sets[which as usize % sets.len()];
    assert!(sphincs::verify(&p, b"fuzz", rest, rest).is_err());
    if rest.is_empty() {
        return;
    }
    let stretch = |len: usize| -> Vec<u8> { rest.iter().copied().cycle().take(len).collect() };
    let pk = stretch(p.public_key_len());
    let sig = stretch(p.signature_len());
    let _ = sphincs::verify(&p, b"fuzz", &sig, &pk);
});
