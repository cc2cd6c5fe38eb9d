//! X3DH and PQXDH, both roles, exactly as libsignal derives the first root and chain keys
//! (Signal's PQXDH specification, section 3.3, with libsignal's choices of info string and length).
//!
//! Secret input: `0xFF x 32 || DH(IK_A, SPK_B) || DH(EK_A, IK_B) || DH(EK_A, SPK_B)
//! [|| DH(EK_A, OPK_B)] [|| SS]`, the 32 `0xFF` bytes keeping it apart from XEdDSA's hash input.
//! HKDF-SHA256 with no salt: PQXDH (session version 4) uses info
//! `"WhisperText_X25519_SHA-256_CRYSTALS-KYBER-1024"` and 96 bytes (root key, chain key, and the
//! key that starts the Sparse Post-Quantum Ratchet, `alibi-spqr`); X3DH (version 3) uses
//! `"WhisperText"` and 64 bytes.

use hkdf::Hkdf;
use rand_core::CryptoRng;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::bundle::PreKeyBundle;
use crate::{Error, Result};
use alibi_identity::curve::{IdentityKey, IdentityKeyPair, KeyPair, PublicKey};
use alibi_identity::kem::KemSecretKey;

/// Session version of an X3DH session (libsignal's "pre-Kyber" message version).
pub const VERSION_X3DH: u8 = 3;
/// Session version of a PQXDH session.
pub const VERSION_PQXDH: u8 = 4;

const INFO_X3DH: &[u8] = b"WhisperText";
const INFO_PQXDH: &[u8] = b"WhisperText_X25519_SHA-256_CRYSTALS-KYBER-1024";

/// The keys a handshake hands to the Double Ratchet.
pub struct SharedKeys {
    /// Session version: [`VERSION_X3DH`] or [`VERSION_PQXDH`].
    pub version: u8,
    /// The first root key.
    pub root_key: Zeroizing<[u8; 32]>,
    /// The first chain key (the responder's sending chain, the initiator's first receiving chain).
    pub chain_key: Zeroizing<[u8; 32]>,
    /// PQXDH's third output, the key that starts the session's Sparse Post-Quantum Ratchet.
    pub pq_ratchet_key: Option<Zeroizing<[u8; 32]>>,
}

fn derive(version: u8, secret: &[u8]) -> SharedKeys {
    let hk = Hkdf::<Sha256>::new(None, secret);
    let mut okm = Zeroizing::new([0u8; 96]);
    let (info, len) = if version == VERSION_PQXDH {
        (INFO_PQXDH, 96)
    } else {
        (INFO_X3DH, 64)
    };
    hk.expand(info, &mut okm[..len]).expect("valid HKDF length");
    let mut root_key = Zeroizing::new([0u8; 32]);
    let mut chain_key = Zeroizing::new([0u8; 32]);
    root_key.copy_from_slice(&okm[..32]);
    chain_key.copy_from_slice(&okm[32..64]);
    let pq_ratchet_key = (version == VERSION_PQXDH).then(|| {
        let mut k = Zeroizing::new([0u8; 32]);
        k.copy_from_slice(&okm[64..]);
        k
    });
    SharedKeys {
        version,
        root_key,
        chain_key,
        pq_ratchet_key,
    }
}

/// What the initiator (Alice) learns and must send from processing a bundle.
pub struct Initiation {
    /// The derived keys.
    pub keys: SharedKeys,
    /// Alice's base (ephemeral) key pair; its public half goes into every PreKey message.
    pub base_key: KeyPair,
    /// The typed KEM ciphertext (PQXDH only).
    pub kem_ciphertext: Option<Vec<u8>>,
}

/// Alice's side: checks the bundle's signatures, draws a base key and derives the keys. A bundle
/// with a KEM prekey gives PQXDH; one without gives X3DH (which libsignal 0.75 and later refuse).
pub fn initiate<R: CryptoRng + ?Sized>(
    ours: &IdentityKeyPair,
    bundle: &PreKeyBundle,
    rng: &mut R,
) -> Result<Initiation> {
    bundle.verify()?;
    let base_key = KeyPair::generate(rng);
    let mut secret = Zeroizing::new(Vec::with_capacity(32 * 6));
    secret.extend_from_slice(&[0xFF; 32]);
    secret.extend_from_slice(&ours.private.agree(&bundle.signed_pre_key)[..]);
    secret.extend_from_slice(&base_key.private.agree(&bundle.identity_key.0)[..]);
    secret.extend_from_slice(&base_key.private.agree(&bundle.signed_pre_key)[..]);
    if let Some((_, opk)) = &bundle.pre_key {
        secret.extend_from_slice(&base_key.private.agree(opk)[..]);
    }
    let (version, kem_ciphertext) = match &bundle.kyber_pre_key {
        Some((_, kem, _)) => {
            let (ss, ct) = kem.encapsulate(rng);
            secret.extend_from_slice(&ss[..]);
            (VERSION_PQXDH, Some(ct))
        }
        None => (VERSION_X3DH, None),
    };
    Ok(Initiation {
        keys: derive(version, &secret),
        base_key,
        kem_ciphertext,
    })
}

/// The responder's (Bob's) private keys that a PreKey message names.
pub struct ResponderKeys<'a> {
    /// Bob's identity.
    pub identity: &'a IdentityKeyPair,
    /// The signed prekey the message names.
    pub signed_pre_key: &'a KeyPair,
    /// The one-time prekey it names, if any.
    pub one_time_pre_key: Option<&'a KeyPair>,
    /// The KEM prekey it names (PQXDH).
    pub kem_pre_key: Option<&'a KemSecretKey>,
}

/// Bob's side, from the fields of Alice's PreKey message. `version` is the message's session
/// version; PQXDH needs both the KEM key and the ciphertext.
pub fn respond(
    ours: &ResponderKeys<'_>,
    their_identity: &IdentityKey,
    their_base_key: &PublicKey,
    kem_ciphertext: Option<&[u8]>,
    version: u8,
) -> Result<SharedKeys> {
    if !their_base_key.is_canonical() {
        return Err(Error::NonCanonicalBaseKey);
    }
    let mut secret = Zeroizing::new(Vec::with_capacity(32 * 6));
    secret.extend_from_slice(&[0xFF; 32]);
    secret.extend_from_slice(&ours.signed_pre_key.private.agree(&their_identity.0)[..]);
    secret.extend_from_slice(&ours.identity.private.agree(their_base_key)[..]);
    secret.extend_from_slice(&ours.signed_pre_key.private.agree(their_base_key)[..]);
    if let Some(opk) = ours.one_time_pre_key {
        secret.extend_from_slice(&opk.private.agree(their_base_key)[..]);
    }
    if version == VERSION_PQXDH {
        let (Some(sk), Some(ct)) = (ours.kem_pre_key, kem_ciphertext) else {
            return Err(Error::MissingKem);
        };
        secret.extend_from_slice(&sk.decapsulate(ct)?[..]);
    }
    Ok(derive(version, &secret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alibi_identity::kem::{KemKeyPair, KemKeyType};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn bundle(
        rng: &mut ChaCha20Rng,
        bob: &IdentityKeyPair,
        spk: &KeyPair,
        opk: Option<&KeyPair>,
        kem: Option<&KemKeyPair>,
    ) -> PreKeyBundle {
        PreKeyBundle {
            registration_id: 7,
            device_id: 1,
            pre_key: opk.map(|k| (3, k.public)),
            signed_pre_key_id: 5,
            signed_pre_key: spk.public,
            signed_pre_key_signature: bob.sign(&spk.public.serialize(), rng).to_vec(),
            identity_key: bob.identity,
            kyber_pre_key: kem.map(|k| {
                let s = bob.sign(&k.public.serialize(), rng).to_vec();
                (9, k.public.clone(), s)
            }),
        }
    }

    #[test]
    fn both_sides_agree_in_every_shape() {
        let mut rng = ChaCha20Rng::from_seed([2; 32]);
        let alice = IdentityKeyPair::generate(&mut rng);
        let bob = IdentityKeyPair::generate(&mut rng);
        let spk = KeyPair::generate(&mut rng);
        let opk = KeyPair::generate(&mut rng);
        for ty in [KemKeyType::Kyber1024, KemKeyType::MlKem1024] {
            let kem = KemKeyPair::generate(ty, &mut rng);
            for (use_opk, use_kem) in [(true, true), (false, true), (true, false), (false, false)] {
                let b = bundle(
                    &mut rng,
                    &bob,
                    &spk,
                    use_opk.then_some(&opk),
                    use_kem.then_some(&kem),
                );
                let init = initiate(&alice, &b, &mut rng).unwrap();
                let keys = respond(
                    &ResponderKeys {
                        identity: &bob,
                        signed_pre_key: &spk,
                        one_time_pre_key: use_opk.then_some(&opk),
                        kem_pre_key: use_kem.then_some(&kem.secret),
                    },
                    &alice.identity,
                    &init.base_key.public,
                    init.kem_ciphertext.as_deref(),
                    init.keys.version,
                )
                .unwrap();
                assert_eq!(*keys.root_key, *init.keys.root_key);
                assert_eq!(*keys.chain_key, *init.keys.chain_key);
                assert_eq!(keys.version, if use_kem { 4 } else { 3 });
            }
        }
    }

    #[test]
    fn bad_bundle_signatures_are_refused() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        let alice = IdentityKeyPair::generate(&mut rng);
        let bob = IdentityKeyPair::generate(&mut rng);
        let spk = KeyPair::generate(&mut rng);
        let kem = KemKeyPair::generate(KemKeyType::Kyber1024, &mut rng);
        let mut b = bundle(&mut rng, &bob, &spk, None, Some(&kem));
        b.signed_pre_key_signature[5] ^= 1;
        assert_eq!(
            initiate(&alice, &b, &mut rng).err(),
            Some(Error::BadSignature("signed prekey"))
        );
        let mut b = bundle(&mut rng, &bob, &spk, None, Some(&kem));
        b.kyber_pre_key.as_mut().unwrap().2[0] ^= 1;
        assert_eq!(
            initiate(&alice, &b, &mut rng).err(),
            Some(Error::BadSignature("KEM prekey"))
        );
    }
}
