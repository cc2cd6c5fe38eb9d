//! The files a user hands the command line that hold credentials or certificates: the relay's
//! TLS certificate chain and private key (`alibi relay serve --tls-cert/--tls-key`, PEM), the CA
//! file a client trusts (`--relay-ca`, `--ca`), the node list, and the messenger's profile (the
//! JSON inside `identity.sealed`: relay credentials and keys; the sealing itself is
//! `keyfile_open`'s). No panic. Inputs edit a valid chain and key (joined by a zero byte, which
//! splits them), a CA certificate and a profile (`alibi_fuzz::input`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let pki = alibi_testkit::pki::test_pki();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        vec![
            [pki.cert.as_bytes(), &[0], pki.key.as_bytes()].concat(),
            pki.ca.into_bytes(),
            alibi_messenger::fuzzing::credential_sample(&mut rng),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let data = alibi_fuzz::input(data, samples());
    let (chain, key) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..], &data[..]),
    };
    let _ = alibi_relay::server::Tls::from_pem(chain, key);
    alibi_messenger::fuzzing::credentials(&data);
});
