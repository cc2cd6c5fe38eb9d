//! RingXKEM: a fully post-quantum, deniable Signal-style handshake (Hashimoto, Katsumata and
//! Wiggers, "Bundled Authenticated Key Exchange", USENIX Security 2025; its deniability is analysed
//! by Katsumata, Niot, Tucker and Wiggers, ePrint 2025/1090, section 6).
//!
//! Every party's identity is a KEM key and a Falcon key (an [`alibi_akem::pq`] key). The responder
//! publishes a bundle with an ephemeral (prekey) ML-KEM key signed with Falcon. The initiator
//! 1. encapsulates to the prekey: `(C_T, K_T)` (forward secrecy: the prekey is deleted after use);
//! 2. runs PQ-AKEM to the responder's long-term key: an ML-KEM encapsulation `(C_B, K_B)` and a
//!    ring signature for the ring {initiator, responder} on it, encrypted under a key from `K_B`
//!    (so only the responder sees it, and it cannot tell who of the two signed it);
//! 3. derives the session keys with HKDF-SHA256 from `K_B || K_T`, the info being the SHA-256 of
//!    the transcript (both identities, the prekey and both ciphertexts): 96 bytes, the root key,
//!    the first chain key and SPQR's key, which start a triple-ratchet session
//!    (`alibi_channel::ringxkem`).
//!
//! The responder decapsulates both and checks the ring signature; because the ring has the
//! responder in it, the responder can make the same transcript alone ([`simulate`]), which is the
//! deniability argument: a transcript proves nothing to a judge that the responder could not have
//! produced.

use alibi_akem::pq::{self, Suite};
use alibi_encoding::LengthChecked;
use hkdf::Hkdf;
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::{Error, Result};

const PREKEY_LABEL: &[u8] = b"alibi RingXKEM prekey";
const TRANSCRIPT_LABEL: &[u8] = b"alibi RingXKEM v1";

/// A party's long-term RingXKEM identity (ML-KEM and Falcon keys).
pub type Identity = pq::SecretKey;
/// The public half of an identity.
pub type IdentityPublic = pq::PublicKey;

/// A responder's ephemeral prekey (secret half kept by the responder).
pub struct PreKey {
    /// The prekey's id.
    pub id: u32,
    dk: Zeroizing<Vec<u8>>,
    ek: Vec<u8>,
    signature: Vec<u8>,
}

impl PreKey {
    /// A fresh prekey signed by `identity`.
    pub fn generate<R: CryptoRng + ?Sized>(identity: &Identity, id: u32, rng: &mut R) -> Self {
        let (dk, ek) = identity.suite().kem().generate(rng);
        let signature = identity.sign(&prekey_message(id, &ek), rng);
        Self {
            id,
            dk,
            ek,
            signature,
        }
    }

    /// The secret prekey's bytes (to keep it sealed): `id (4, big-endian) || dk || ek ||
    /// signature`; lengths are fixed by the suite, the signature takes the rest.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(
            [
                &self.id.to_be_bytes()[..],
                &self.dk[..],
                &self.ek[..],
                &self.signature[..],
            ]
            .concat(),
        )
    }

    /// Restores a prekey of `suite` from [`PreKey::to_bytes`].
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self> {
        let (dk_len, ek_len) = (suite.kem().dk_len(), suite.kem().ek_len());
        if b.len() <= 4 + dk_len + ek_len {
            return Err(Error::RingXKem("malformed prekey"));
        }
        Ok(Self {
            id: u32::from_be_bytes(b[..4].try_into().expect("4 bytes")),
            dk: Zeroizing::new(b[4..4 + dk_len].to_vec()),
            ek: b[4 + dk_len..4 + dk_len + ek_len].to_vec(),
            signature: b[4 + dk_len + ek_len..].to_vec(),
        })
    }

    /// The bundle to publish.
    pub fn bundle(&self, identity: &Identity) -> Bundle {
        Bundle {
            identity: identity.public_key().clone(),
            pre_key_id: self.id,
            pre_key: self.ek.clone(),
            pre_key_signature: self.signature.clone(),
        }
    }
}

fn prekey_message(id: u32, ek: &[u8]) -> Vec<u8> {
    [PREKEY_LABEL, &id.to_be_bytes(), ek].concat()
}

/// A responder's published keys.
#[derive(Clone)]
pub struct Bundle {
    /// The responder's identity.
    pub identity: IdentityPublic,
    /// The prekey's id.
    pub pre_key_id: u32,
    /// The prekey (an ML-KEM encapsulation key).
    pub pre_key: Vec<u8>,
    /// Falcon signature by the identity on the prekey and its id.
    pub pre_key_signature: Vec<u8>,
}

impl Bundle {
    /// Checks the prekey's signature.
    pub fn verify(&self) -> Result<()> {
        self.identity
            .verify(
                &prekey_message(self.pre_key_id, &self.pre_key),
                &self.pre_key_signature,
            )
            .map_err(|_| Error::BadSignature("RingXKEM prekey"))
    }
}

/// The initiator's single message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The prekey it was made for.
    pub pre_key_id: u32,
    /// ML-KEM ciphertext to the prekey.
    pub c_prekey: Vec<u8>,
    /// PQ-AKEM ciphertext to the responder's identity (KEM ciphertext and encrypted ring signature).
    pub c_identity: Vec<u8>,
}

impl Message {
    /// `pre_key_id (4, big-endian) || c_prekey || c_identity`; lengths are fixed by the suite.
    pub fn to_bytes(&self) -> Vec<u8> {
        [
            &self.pre_key_id.to_be_bytes()[..],
            &self.c_prekey,
            &self.c_identity,
        ]
        .concat()
    }

    /// Decodes a message of the given suite.
    pub fn from_bytes(suite: Suite, b: &[u8]) -> Result<Self> {
        let ct = suite.kem().ct_len();
        let expected = 4 + ct + suite.pq_ciphertext_len();
        Error::check_len("RingXKEM message", expected, b.len())?;
        Ok(Self {
            pre_key_id: u32::from_be_bytes(b[..4].try_into().expect("4 bytes")),
            c_prekey: b[4..4 + ct].to_vec(),
            c_identity: b[4 + ct..].to_vec(),
        })
    }
}

/// The keys both sides derive: a root key and a first chain key for a Double Ratchet, and the
/// key that starts its Sparse Post-Quantum Ratchet (the same three outputs, in the same order, as
/// PQXDH hands libsignal's triple ratchet).
pub struct SessionKeys {
    /// The first root key.
    pub root_key: Zeroizing<[u8; 32]>,
    /// The first chain key.
    pub chain_key: Zeroizing<[u8; 32]>,
    /// SPQR's authentication key.
    pub pq_ratchet_key: Zeroizing<[u8; 32]>,
}

fn derive(
    initiator: &IdentityPublic,
    bundle: &Bundle,
    msg: &Message,
    k_identity: &[u8; 32],
    k_prekey: &[u8; 32],
) -> SessionKeys {
    let transcript = Sha256::new()
        .chain_update(TRANSCRIPT_LABEL)
        .chain_update(initiator.to_bytes())
        .chain_update(bundle.identity.to_bytes())
        .chain_update(msg.pre_key_id.to_be_bytes())
        .chain_update(&bundle.pre_key)
        .chain_update(&msg.c_prekey)
        .chain_update(&msg.c_identity)
        .finalize();
    let ikm = Zeroizing::new([&k_identity[..], &k_prekey[..]].concat());
    let mut okm = Zeroizing::new([0u8; 96]);
    Hkdf::<Sha256>::new(None, &ikm)
        .expand(&transcript, &mut okm[..])
        .expect("valid HKDF length");
    let mut root_key = Zeroizing::new([0u8; 32]);
    let mut chain_key = Zeroizing::new([0u8; 32]);
    let mut pq_ratchet_key = Zeroizing::new([0u8; 32]);
    root_key.copy_from_slice(&okm[..32]);
    chain_key.copy_from_slice(&okm[32..64]);
    pq_ratchet_key.copy_from_slice(&okm[64..]);
    SessionKeys {
        root_key,
        chain_key,
        pq_ratchet_key,
    }
}

fn map_akem(e: alibi_akem::Error) -> Error {
    match e {
        alibi_akem::Error::InvalidCiphertext => Error::RingXKem("ring signature does not verify"),
        _ => Error::RingXKem("malformed PQ-AKEM part"),
    }
}

/// The initiator's side: checks the bundle and makes the message and the session keys.
pub fn initiate<R: CryptoRng + ?Sized>(
    ours: &Identity,
    bundle: &Bundle,
    rng: &mut R,
) -> Result<(Message, SessionKeys)> {
    if ours.suite() != bundle.identity.suite() {
        return Err(Error::RingXKem("suite mismatch"));
    }
    bundle.verify()?;
    let (c_prekey, k_prekey) = ours
        .suite()
        .kem()
        .encapsulate(&bundle.pre_key, rng)
        .map_err(map_akem)?;
    let (c_identity, k_identity) = pq::encap(ours, &bundle.identity, rng).map_err(map_akem)?;
    let msg = Message {
        pre_key_id: bundle.pre_key_id,
        c_prekey,
        c_identity,
    };
    let keys = derive(ours.public_key(), bundle, &msg, &k_identity, &k_prekey);
    Ok((msg, keys))
}

/// The responder's side: the session keys, if the message is authenticated by `initiator` (or,
/// indistinguishably, by the responder itself).
pub fn respond(
    ours: &Identity,
    pre_key: &PreKey,
    initiator: &IdentityPublic,
    msg: &Message,
) -> Result<SessionKeys> {
    if msg.pre_key_id != pre_key.id {
        return Err(Error::RingXKem("message names another prekey"));
    }
    let k_prekey = ours
        .suite()
        .kem()
        .decapsulate(&pre_key.dk, &msg.c_prekey)
        .map_err(map_akem)?;
    let k_identity = pq::decap(ours, initiator, &msg.c_identity).map_err(map_akem)?;
    Ok(derive(
        initiator,
        &pre_key.bundle(ours),
        msg,
        &k_identity,
        &k_prekey,
    ))
}

/// Deniability: the responder alone (its own keys and the initiator's public key) makes a message
/// and session keys that [`respond`] accepts as the initiator's.
pub fn simulate<R: CryptoRng + ?Sized>(
    responder: &Identity,
    pre_key: &PreKey,
    initiator: &IdentityPublic,
    rng: &mut R,
) -> Result<(Message, SessionKeys)> {
    let bundle = pre_key.bundle(responder);
    let (c_prekey, k_prekey) = responder
        .suite()
        .kem()
        .encapsulate(&bundle.pre_key, rng)
        .map_err(map_akem)?;
    let (c_identity, k_identity) = pq::fake_encap(responder, initiator, rng).map_err(map_akem)?;
    let msg = Message {
        pre_key_id: pre_key.id,
        c_prekey,
        c_identity,
    };
    let keys = derive(initiator, &bundle, &msg, &k_identity, &k_prekey);
    Ok((msg, keys))
}
