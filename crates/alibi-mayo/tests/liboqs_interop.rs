//! Interoperability with liboqs (through the `oqs` crate, feature `liboqs`): keys, signatures and
//! rejections must agree byte for byte in both directions, at every MAYO level liboqs offers.
//!
//! Without the feature (building liboqs needs cmake and libclang) the file is one test that skips,
//! which fails under `ALIBI_REQUIRE_PEERS=1`.

#[cfg(not(feature = "liboqs"))]
#[test]
fn liboqs_interop() {
    alibi_testkit::skip("liboqs interop needs --features liboqs (cmake, libclang-dev)");
}

#[cfg(feature = "liboqs")]
mod with_liboqs {
    use alibi_mayo::{Params, Signature, SigningKey, VerifyingKey};
    use oqs::sig::{Algorithm, Sig};
    use rand_chacha::rand_core::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// Our parameter sets, liboqs's algorithm for each, and the round-2 sizes (pk, sk, sig) both
    /// must have.
    const LEVELS: [(Params, Algorithm, [usize; 3]); 4] = [
        (Params::Mayo1, Algorithm::Mayo1, [1420, 24, 454]),
        (Params::Mayo2, Algorithm::Mayo2, [4912, 24, 186]),
        (Params::Mayo3, Algorithm::Mayo3, [2986, 32, 681]),
        (Params::Mayo5, Algorithm::Mayo5, [5554, 40, 964]),
    ];

    /// Messages per level and check.
    const MESSAGES: usize = 200;
    /// Key pairs per level; message i uses key i mod KEYS.
    const KEYS: usize = 8;
    /// Longest random message.
    const MAX_MSG_LEN: usize = 1024;
    /// Failures listed in a panic message (all are counted).
    const SHOWN: usize = 8;

    fn liboqs(alg: Algorithm) -> Sig {
        oqs::init();
        Sig::new(alg).unwrap_or_else(|e| panic!("liboqs {alg}: {e}"))
    }

    fn hex(bytes: &[u8]) -> String {
        hex::encode(bytes)
    }

    /// Deterministic per test and level, so that a failing message can be found again.
    fn rng_for(test: u64, params: Params) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(test << 8 | params.secret_key_bytes() as u64)
    }

    /// MESSAGES messages of random lengths in 0..=MAX_MSG_LEN; the first is empty.
    fn messages(rng: &mut ChaCha20Rng) -> Vec<Vec<u8>> {
        (0..MESSAGES)
            .map(|i| {
                let len = if i == 0 {
                    0
                } else {
                    rng.next_u32() as usize % (MAX_MSG_LEN + 1)
                };
                let mut m = vec![0u8; len];
                rng.fill_bytes(&mut m);
                m
            })
            .collect()
    }

    /// A liboqs key pair (pk, sk) and our signing key from liboqs's secret key.
    fn liboqs_keys(sig: &Sig, params: Params) -> Vec<(Vec<u8>, Vec<u8>, SigningKey)> {
        (0..KEYS)
            .map(|_| {
                let (pk, sk) = sig.keypair().expect("liboqs keypair");
                let ours = SigningKey::from_bytes(params, sk.as_ref()).unwrap_or_else(|e| {
                    panic!(
                        "{}: liboqs sk {} rejected: {e}",
                        params.name(),
                        hex(sk.as_ref())
                    )
                });
                (pk.into_vec(), sk.into_vec(), ours)
            })
            .collect()
    }

    fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .or((a.len() != b.len()).then_some(a.len().min(b.len())))
    }

    /// Panics listing the first failures of a check, if there are any.
    fn report(check: &str, failures: &[String]) {
        if !failures.is_empty() {
            let shown: Vec<&str> = failures.iter().take(SHOWN).map(String::as_str).collect();
            panic!(
                "{check}: {} failure(s); first {}:\n  {}",
                failures.len(),
                shown.len(),
                shown.join("\n  ")
            );
        }
    }

    #[test]
    fn liboqs_sizes_are_round_2() {
        for (params, alg, [pk, sk, sig]) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            assert_eq!(
                [
                    oqs.length_public_key(),
                    oqs.length_secret_key(),
                    oqs.length_signature()
                ],
                [pk, sk, sig],
                "liboqs {alg} sizes (pk, sk, sig) are not MAYO round 2"
            );
            assert_eq!(
                [
                    params.public_key_bytes(),
                    params.secret_key_bytes(),
                    params.signature_bytes()
                ],
                [pk, sk, sig],
                "our {name} sizes (pk, sk, sig)"
            );
        }
    }

    /// (a) liboqs key pairs: our key from liboqs's secret key has liboqs's public key.
    #[test]
    fn liboqs_secret_keys_give_liboqs_public_keys() {
        let mut failures = Vec::new();
        for (params, alg, _) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            for _ in 0..3 * KEYS {
                let (pk, sk) = oqs.keypair().expect("liboqs keypair");
                let sk_hex = hex(sk.as_ref());
                let ours = match SigningKey::from_bytes(params, sk.as_ref()) {
                    Ok(k) => k,
                    Err(e) => {
                        failures.push(format!("{name} sk {sk_hex}: from_bytes: {e}"));
                        continue;
                    }
                };
                assert_eq!(
                    ours.to_bytes().as_slice(),
                    sk.as_ref(),
                    "{name} sk round trip"
                );
                let our_pk = ours.verifying_key().to_bytes();
                if let Some(at) = first_difference(&our_pk, pk.as_ref()) {
                    failures.push(format!(
                        "{name} sk {sk_hex}: public key differs from liboqs's first at byte {at} \
                         of {} (ours {} bytes)",
                        pk.len(),
                        our_pk.len()
                    ));
                }
                match VerifyingKey::from_bytes(params, pk.as_ref()) {
                    Ok(vk) if vk.to_bytes() == pk.as_ref() => {}
                    Ok(_) => failures.push(format!("{name} sk {sk_hex}: pk decode/encode differs")),
                    Err(e) => failures.push(format!("{name} sk {sk_hex}: liboqs pk rejected: {e}")),
                }
            }
        }
        report("our public key from a liboqs secret key", &failures);
    }

    /// (b) Our signatures under liboqs's secret keys verify in liboqs under liboqs's public keys.
    #[test]
    fn our_signatures_verify_in_liboqs() {
        let mut failures = Vec::new();
        for (params, alg, _) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            let mut rng = rng_for(1, params);
            let keys = liboqs_keys(&oqs, params);
            for (i, msg) in messages(&mut rng).iter().enumerate() {
                let (pk, sk, ours) = &keys[i % KEYS];
                let sig = ours.sign(msg, &mut rng).to_bytes();
                assert_eq!(
                    sig.len(),
                    params.signature_bytes(),
                    "{name} signature length"
                );
                let pk = oqs.public_key_from_bytes(pk).expect("pk length");
                let s = oqs.signature_from_bytes(&sig).expect("signature length");
                if let Err(e) = oqs.verify(msg, s, pk) {
                    failures.push(format!(
                        "{name} message {i} ({} bytes), sk {}: liboqs rejects our signature: {e}",
                        msg.len(),
                        hex(sk)
                    ));
                }
            }
        }
        report("our signature verified by liboqs", &failures);
    }

    /// (c) liboqs's signatures verify under our key decoded from liboqs's public key.
    #[test]
    fn liboqs_signatures_verify_in_ours() {
        let mut failures = Vec::new();
        for (params, alg, _) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            let mut rng = rng_for(2, params);
            let keys: Vec<(Vec<u8>, VerifyingKey)> = (0..KEYS)
                .map(|_| {
                    let (pk, sk) = oqs.keypair().expect("liboqs keypair");
                    let vk = VerifyingKey::from_bytes(params, pk.as_ref()).expect("liboqs pk");
                    (sk.into_vec(), vk)
                })
                .collect();
            for (i, msg) in messages(&mut rng).iter().enumerate() {
                let (sk, vk) = &keys[i % KEYS];
                let sk_ref = oqs.secret_key_from_bytes(sk).expect("sk length");
                let sig = oqs.sign(msg, sk_ref).expect("liboqs sign");
                let verdict = Signature::from_bytes(params, sig.as_ref())
                    .map_err(|e| format!("decode: {e}"))
                    .and_then(|s| vk.verify(msg, &s).map_err(|e| e.to_string()));
                if let Err(e) = verdict {
                    failures.push(format!(
                        "{name} message {i} ({} bytes), sk {}: we reject liboqs's signature {}: {e}",
                        msg.len(),
                        hex(sk),
                        hex(sig.as_ref())
                    ));
                }
            }
        }
        report("liboqs signature verified by us", &failures);
    }

    /// (d) Keys from our `generate`: liboqs signs with our secret key and we verify; liboqs
    /// verifies our signatures under our public key.
    #[test]
    fn our_keys_work_in_liboqs() {
        let mut failures = Vec::new();
        for (params, alg, _) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            let mut rng = rng_for(3, params);
            let keys: Vec<(SigningKey, VerifyingKey, Vec<u8>)> = (0..KEYS)
                .map(|_| {
                    let sk = SigningKey::generate(params, &mut rng);
                    let vk = sk.verifying_key().clone();
                    let pk = vk.to_bytes();
                    (sk, vk, pk)
                })
                .collect();
            for (i, msg) in messages(&mut rng).iter().enumerate() {
                let (sk, vk, pk) = &keys[i % KEYS];
                let sk_bytes = sk.to_bytes();
                let what = format!(
                    "{name} message {i} ({} bytes), sk {}",
                    msg.len(),
                    hex(&sk_bytes)
                );
                let pk_ref = oqs.public_key_from_bytes(pk).expect("pk length");
                // liboqs signs with our secret key; we verify.
                let sk_ref = oqs.secret_key_from_bytes(&sk_bytes).expect("sk length");
                let theirs = oqs.sign(msg, sk_ref).expect("liboqs sign");
                let verdict = Signature::from_bytes(params, theirs.as_ref())
                    .map_err(|e| format!("decode: {e}"))
                    .and_then(|s| vk.verify(msg, &s).map_err(|e| e.to_string()));
                if let Err(e) = verdict {
                    failures.push(format!("{what}: we reject liboqs's signature: {e}"));
                }
                // We sign; liboqs verifies under our public key.
                let ours = sk.sign(msg, &mut rng).to_bytes();
                let s = oqs.signature_from_bytes(&ours).expect("signature length");
                if let Err(e) = oqs.verify(msg, s, pk_ref) {
                    failures.push(format!("{what}: liboqs rejects our signature: {e}"));
                }
            }
        }
        report("our generated keys with liboqs", &failures);
    }

    /// (e) One flipped bit (in the signature, or in the message) is rejected by both verifiers,
    /// for signatures made by either side.
    #[test]
    fn flipped_bits_are_rejected_by_both() {
        let mut failures = Vec::new();
        for (params, alg, _) in LEVELS {
            let oqs = liboqs(alg);
            let name = params.name();
            let mut rng = rng_for(4, params);
            let keys = liboqs_keys(&oqs, params);
            let vks: Vec<VerifyingKey> = keys
                .iter()
                .map(|(pk, _, _)| VerifyingKey::from_bytes(params, pk).expect("liboqs pk"))
                .collect();
            for (i, msg) in messages(&mut rng).iter().enumerate() {
                let (pk, sk, ours) = &keys[i % KEYS];
                let vk = &vks[i % KEYS];
                let pk_ref = oqs.public_key_from_bytes(pk).expect("pk length");
                let sk_ref = oqs.secret_key_from_bytes(sk).expect("sk length");
                // Alternate the signer: even messages ours, odd liboqs's.
                let (signer, sig) = if i % 2 == 0 {
                    ("our", ours.sign(msg, &mut rng).to_bytes())
                } else {
                    (
                        "liboqs's",
                        oqs.sign(msg, sk_ref).expect("liboqs sign").into_vec(),
                    )
                };
                let bit = rng.next_u32() as usize % (8 * sig.len());
                let mut bad = sig.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                let what = format!(
                    "{name} message {i} ({} bytes), sk {}, {signer} signature",
                    msg.len(),
                    hex(sk)
                );
                // Ours: a malformed encoding is a rejection too.
                if Signature::from_bytes(params, &bad).is_ok_and(|s| vk.verify(msg, &s).is_ok()) {
                    failures.push(format!("{what} with bit {bit} flipped: we accept it"));
                }
                let s = oqs.signature_from_bytes(&bad).expect("signature length");
                if oqs.verify(msg, s, pk_ref).is_ok() {
                    failures.push(format!("{what} with bit {bit} flipped: liboqs accepts it"));
                }
                if msg.is_empty() {
                    continue;
                }
                let bit = rng.next_u32() as usize % (8 * msg.len());
                let mut other = msg.clone();
                other[bit / 8] ^= 1 << (bit % 8);
                let good = Signature::from_bytes(params, &sig).expect("right length");
                if vk.verify(&other, &good).is_ok() {
                    failures.push(format!("{what}, message bit {bit} flipped: we accept it"));
                }
                let s = oqs.signature_from_bytes(&sig).expect("signature length");
                if oqs.verify(&other, s, pk_ref).is_ok() {
                    failures.push(format!(
                        "{what}, message bit {bit} flipped: liboqs accepts it"
                    ));
                }
            }
        }
        report("flipped bits rejected", &failures);
    }
}
