//! `alibi_frost::KeyShare::from_bytes` and `alibi_frost::verify` on untrusted bytes: no panic; a
//! share that decodes encodes back to the same bytes' meaning, and only the unedited signature
//! verifies.
//!
//! Samples (see `alibi_fuzz::input`): a 2-of-3 key share of each scheme, and for each scheme a
//! `public key (32) || signature (64)` of "fuzz", all made once from a fixed seed. The first
//! input byte's sample decides which decoder runs: even samples are shares, odd ones signatures.
#![no_main]
use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::{FrostSuite, KeyShare, Scheme};
use libfuzzer_sys::fuzz_target;
use rand_chacha_03::rand_core::SeedableRng;
use std::sync::OnceLock;

/// A 2-of-3 key of suite `C` from a fixed seed: one share's encoding, and `pk || sig` on "fuzz".
fn make<C: FrostSuite>() -> [Vec<u8>; 2] {
    let shares = round_based::sim::run(3, |i, party| async move {
        let mut rng = rand_chacha_03::ChaCha20Rng::seed_from_u64(u64::from(i));
        alibi_frost::keygen::<C, _, _>(&mut rng, b"fuzz", i, 3, 1, party).await
    })
    .expect("simulation")
    .expect_ok()
    .into_vec();
    let sig = round_based::sim::run(2, |j, party| {
        let share = &shares[usize::from(j)];
        async move {
            let mut rng = rand_chacha_03::ChaCha20Rng::seed_from_u64(10 + u64::from(j));
            alibi_frost::sign::<C, _, _>(&mut rng, share, &Default::default(), &[0, 1], b"fuzz", party).await
        }
    })
    .expect("simulation")
    .expect_ok()
    .expect_eq();
    let mut signed = shares[0].public_key();
    signed.extend_from_slice(sig.as_bytes());
    [shares[0].to_bytes().to_vec(), signed]
}

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        make::<Ed25519>()
            .into_iter()
            .chain(make::<Secp256k1Tr>())
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let samples = samples();
    let bytes = alibi_fuzz::input(data, samples);
    let which = data
        .first()
        .map_or(0, |m| usize::from(m.wrapping_sub(1)) % samples.len());
    if which % 2 == 0 {
        if let Ok(share) = KeyShare::from_bytes(&bytes) {
            let again =
                KeyShare::from_bytes(&share.to_bytes()).expect("a decoded share re-encodes");
            assert_eq!(again.public_key(), share.public_key());
            assert_eq!(
                (again.index(), again.threshold()),
                (share.index(), share.threshold())
            );
        }
        return;
    }
    let scheme = if which < 2 {
        Scheme::Ed25519
    } else {
        Scheme::Secp256k1Tr
    };
    let (pk, sig) = bytes.split_at(bytes.len().min(32));
    if alibi_frost::verify(scheme, pk, b"fuzz", sig).is_ok() {
        assert_eq!(
            &bytes[..],
            &samples[which][..],
            "only the sample's signature verifies"
        );
    }
});
