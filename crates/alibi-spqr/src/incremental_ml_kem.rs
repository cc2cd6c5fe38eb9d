//! ML-KEM-768 split the way the ML-KEM Braid sends it (ML-KEM Braid specification, "Incremental
//! ML-KEM"): the encapsulation key as a 64-byte header (`rho || H(ek)`) and the 1,152-byte
//! vector `t`; the ciphertext as `ct1` (the `u` part, computable from the header alone) and `ct2`
//! (the `v` part, which needs `t`). The arithmetic is libcrux's incremental ML-KEM; the keys
//! and ciphertexts are plain FIPS 203 ones, cut in two (`tests` checks that against RustCrypto).

use libcrux_ml_kem::mlkem768::incremental as inc;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// Bytes of the header: `rho` and `SHA3-256(ek)`.
pub const HEADER_SIZE: usize = inc::pk1_len();
/// Bytes of the encapsulation key's vector part.
pub const EK_SIZE: usize = inc::pk2_len();
/// Bytes of `ct1`.
pub const CT1_SIZE: usize = inc::Ciphertext1::len();
/// Bytes of `ct2`.
pub const CT2_SIZE: usize = inc::Ciphertext2::len();
/// Bytes of the decapsulation key (the FIPS 203 one).
pub const DK_SIZE: usize = libcrux_ml_kem::mlkem768::MlKem768PrivateKey::len();
/// Bytes of what the encapsulating side keeps between `ct1` and `ct2`.
pub const ENCAPS_STATE_SIZE: usize = inc::encaps_state_len();

/// A fresh key pair, cut for sending.
pub struct Keys {
    /// The header.
    pub header: Vec<u8>,
    /// The vector part.
    pub ek: Vec<u8>,
    /// The decapsulation key.
    pub dk: Zeroizing<Vec<u8>>,
}

/// Key generation from 64 random bytes (`d || z`).
pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Keys {
    let mut seed = Zeroizing::new([0u8; libcrux_ml_kem::KEY_GENERATION_SEED_SIZE]);
    rng.fill_bytes(&mut seed[..]);
    let kp = inc::KeyPairCompressedBytes::from_seed(*seed);
    Keys {
        header: kp.pk1().to_vec(),
        ek: kp.pk2().to_vec(),
        dk: Zeroizing::new(kp.sk().to_vec()),
    }
}

/// Whether `ek` is the vector the header's hash commits to (and decodes as FIPS 203 requires).
pub fn ek_matches_header(ek: &[u8], header: &[u8]) -> bool {
    header.len() == HEADER_SIZE && ek.len() == EK_SIZE && inc::validate_pk_bytes(header, ek).is_ok()
}

/// The first half of encapsulation: `ct1`, the state kept for `ct2`, and the shared secret.
pub fn encaps1<R: CryptoRng + ?Sized>(
    header: &[u8],
    rng: &mut R,
) -> (Vec<u8>, Zeroizing<Vec<u8>>, Zeroizing<Vec<u8>>) {
    let mut m = Zeroizing::new([0u8; libcrux_ml_kem::SHARED_SECRET_SIZE]);
    rng.fill_bytes(&mut m[..]);
    let mut state = Zeroizing::new(vec![0u8; ENCAPS_STATE_SIZE]);
    let mut ss = Zeroizing::new(vec![0u8; libcrux_ml_kem::SHARED_SECRET_SIZE]);
    let ct1 = inc::encapsulate1(header, *m, &mut state, &mut ss)
        .expect("the header's length is checked where it is received");
    (ct1.value.to_vec(), state, ss)
}

/// The second half: `ct2` from the kept state and the vector part.
pub fn encaps2(state: &[u8], ek: &[u8]) -> Vec<u8> {
    let state: &[u8; ENCAPS_STATE_SIZE] = state.try_into().expect("state size checked on load");
    let ek: &[u8; EK_SIZE] = ek.try_into().expect("ek size checked on receipt");
    inc::encapsulate2(state, ek).value.to_vec()
}

/// Decapsulation of `ct1 || ct2` (FIPS 203, with implicit rejection).
pub fn decaps(dk: &[u8], ct1: &[u8], ct2: &[u8]) -> Zeroizing<Vec<u8>> {
    let dk: &[u8; DK_SIZE] = dk.try_into().expect("dk size checked on load");
    let ct1 = inc::Ciphertext1 {
        value: ct1.try_into().expect("ct1 size fixed by its decoder"),
    };
    let ct2 = inc::Ciphertext2 {
        value: ct2.try_into().expect("ct2 size fixed by its decoder"),
    };
    Zeroizing::new(inc::decapsulate_compressed_key(dk, &ct1, &ct2).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn sizes() {
        assert_eq!(
            (HEADER_SIZE, EK_SIZE, CT1_SIZE, CT2_SIZE, DK_SIZE),
            (64, 1152, 960, 128, 2400)
        );
        assert_eq!(ENCAPS_STATE_SIZE, 2080);
    }

    /// The cut keys and ciphertexts are FIPS 203 ones: RustCrypto's ml-kem decapsulates
    /// `ct1 || ct2` under the whole key to the same secret, and encapsulates to a ciphertext
    /// that our halves decapsulate.
    #[test]
    #[allow(deprecated)] // ml-kem 0.3 keeps the expanded FIPS 203 key encoding as a legacy form.
    fn halves_are_fips_203() {
        use ml_kem::{
            Decapsulate, DecapsulationKey, Encapsulate, EncapsulationKey, MlKem768, TryKeyInit,
        };
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let keys = generate(&mut rng);
        // The FIPS 203 encapsulation key is t || rho.
        let mut ek_full = keys.ek.clone();
        ek_full.extend_from_slice(&keys.header[..32]);
        let (ct1, st, ss) = encaps1(&keys.header, &mut rng);
        let ct2 = encaps2(&st, &keys.ek);
        assert_eq!(decaps(&keys.dk, &ct1, &ct2)[..], ss[..]);
        let dk: DecapsulationKey<MlKem768> = ml_kem::ExpandedKeyEncoding::from_expanded_bytes(
            keys.dk.as_slice().try_into().unwrap(),
        )
        .unwrap();
        let ct: Vec<u8> = [ct1, ct2].concat();
        assert_eq!(dk.decapsulate_slice(&ct).unwrap()[..], ss[..]);
        let ek = EncapsulationKey::<MlKem768>::new_from_slice(&ek_full).unwrap();
        let (ct, k) = ek.encapsulate_with_rng(&mut rng);
        assert_eq!(
            decaps(&keys.dk, &ct[..CT1_SIZE], &ct[CT1_SIZE..])[..],
            k[..]
        );
        assert!(ek_matches_header(&keys.ek, &keys.header));
        let mut bad = keys.ek.clone();
        bad[0] ^= 1;
        assert!(!ek_matches_header(&bad, &keys.header));
    }
}
