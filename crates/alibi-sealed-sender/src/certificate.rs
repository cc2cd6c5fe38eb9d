//! Sender certificates (libsignal `sealed_sender.rs`): a trust root signs a server certificate
//! (key id, server key); the server key signs short-lived sender certificates (sender UUID, device,
//! identity key, expiry in milliseconds). Signatures are XEdDSA over the inner protobuf bytes.

use alibi_identity::{xeddsa, PrivateKey, PublicKey};
use prost::Message as _;
use rand_core::CryptoRng;
use subtle::{Choice, ConstantTimeEq};

use crate::proto;
use crate::{Error, Result};

/// Server-certificate key ids that must never validate (libsignal's revocation list: a test id).
pub const REVOKED_SERVER_KEY_IDS: &[u32] = &[0xDEADC357];

/// A server certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCertificate {
    /// The server key's id.
    pub key_id: u32,
    /// The server's signing key.
    pub key: PublicKey,
    certificate: Vec<u8>,
    signature: Vec<u8>,
    serialized: Vec<u8>,
}

impl ServerCertificate {
    /// Signs a certificate for `key` with the trust root.
    pub fn new<R: CryptoRng + ?Sized>(
        key_id: u32,
        key: PublicKey,
        trust_root: &PrivateKey,
        rng: &mut R,
    ) -> Self {
        let certificate = proto::ServerCertificateBody {
            id: Some(key_id),
            key: Some(key.serialize().to_vec()),
        }
        .encode_to_vec();
        let signature = xeddsa::sign(trust_root, &[&certificate], rng).to_vec();
        let serialized = proto::ServerCertificate {
            certificate: Some(certificate.clone()),
            signature: Some(signature.clone()),
        }
        .encode_to_vec();
        Self {
            key_id,
            key,
            certificate,
            signature,
            serialized,
        }
    }

    /// Parses a server certificate.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        const BAD: Error = Error::Certificate("malformed server certificate");
        let pb: proto::ServerCertificate = proto::decode(b, "server certificate")?;
        let (certificate, signature) = pb.certificate.zip(pb.signature).ok_or(BAD)?;
        let body: proto::ServerCertificateBody = proto::decode(&certificate, "server certificate")?;
        Ok(Self {
            key_id: body.id.ok_or(BAD)?,
            key: PublicKey::deserialize(&body.key.ok_or(BAD)?)?,
            certificate,
            signature,
            serialized: b.to_vec(),
        })
    }

    /// Whether the trust root signed it (and its id is not revoked).
    pub fn validate(&self, trust_root: &PublicKey) -> bool {
        !REVOKED_SERVER_KEY_IDS.contains(&self.key_id)
            && xeddsa::verify(trust_root, &[&self.certificate], &self.signature).is_ok()
    }

    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}

/// A sender certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SenderCertificate {
    /// The sender's account UUID, as a string.
    pub sender_uuid: String,
    /// The sender's phone number, if the certificate carries one.
    pub sender_e164: Option<String>,
    /// The sender's device.
    pub device_id: u32,
    /// Expiry, in milliseconds since the Unix epoch.
    pub expiration: u64,
    /// The sender's identity key.
    pub key: PublicKey,
    /// The server certificate that signed it.
    pub signer: ServerCertificate,
    certificate: Vec<u8>,
    signature: Vec<u8>,
    serialized: Vec<u8>,
}

impl SenderCertificate {
    /// Issues a certificate (what the relay's `GET /v1/certificate/delivery` does).
    #[allow(clippy::too_many_arguments)]
    pub fn new<R: CryptoRng + ?Sized>(
        sender_uuid: String,
        sender_e164: Option<String>,
        key: PublicKey,
        device_id: u32,
        expiration: u64,
        signer: ServerCertificate,
        signer_key: &PrivateKey,
        rng: &mut R,
    ) -> Self {
        let certificate = proto::SenderCertificateBody {
            sender_e164: sender_e164.clone(),
            sender_uuid: Some(proto::SenderUuid::UuidString(sender_uuid.clone())),
            sender_device: Some(device_id),
            expires: Some(expiration),
            identity_key: Some(key.serialize().to_vec()),
            signer: Some(proto::Signer::Certificate(signer.serialized().to_vec())),
        }
        .encode_to_vec();
        let signature = xeddsa::sign(signer_key, &[&certificate], rng).to_vec();
        let serialized = proto::SenderCertificate {
            certificate: Some(certificate.clone()),
            signature: Some(signature.clone()),
        }
        .encode_to_vec();
        Self {
            sender_uuid,
            sender_e164,
            device_id,
            expiration,
            key,
            signer,
            certificate,
            signature,
            serialized,
        }
    }

    /// Parses a sender certificate. Certificates that name their signer by id (libsignal's
    /// well-known production server certificates) are refused: this crate has no such list.
    pub fn deserialize(b: &[u8]) -> Result<Self> {
        const BAD: Error = Error::Certificate("malformed sender certificate");
        let pb: proto::SenderCertificate = proto::decode(b, "sender certificate")?;
        let (certificate, signature) = pb.certificate.zip(pb.signature).ok_or(BAD)?;
        let body: proto::SenderCertificateBody = proto::decode(&certificate, "sender certificate")?;
        let sender_uuid = match body.sender_uuid.ok_or(BAD)? {
            proto::SenderUuid::UuidString(s) => s,
            proto::SenderUuid::UuidBytes(b) => {
                uuid::Uuid::from_slice(&b).map_err(|_| BAD)?.to_string()
            }
        };
        let signer = match body.signer.ok_or(BAD)? {
            proto::Signer::Certificate(c) => ServerCertificate::deserialize(&c)?,
            proto::Signer::Id(_) => {
                return Err(Error::Certificate("signer given by id is unknown here"))
            }
        };
        let device_id = body
            .sender_device
            .filter(|d| (1..=127).contains(d))
            .ok_or(BAD)?;
        Ok(Self {
            sender_uuid,
            sender_e164: body.sender_e164,
            device_id,
            expiration: body.expires.ok_or(BAD)?,
            key: PublicKey::deserialize(&body.identity_key.ok_or(BAD)?)?,
            signer,
            certificate,
            signature,
            serialized: b.to_vec(),
        })
    }

    /// Whether the chain holds at `now_ms`: the server certificate is signed by one of the trust
    /// roots (checked in constant time over the roots), the sender certificate by the server key,
    /// and it has not expired.
    pub fn validate(&self, trust_roots: &[PublicKey], now_ms: u64) -> bool {
        now_ms <= self.expiration && self.chain_verified(trust_roots)
    }

    /// The two signatures of the chain. A sender sends many messages under one certificate, so
    /// a chain that verified is remembered (by a digest of the roots and the certificate's
    /// bytes, at most 4,096, the table emptied when full); the expiry is checked every time.
    fn chain_verified(&self, trust_roots: &[PublicKey]) -> bool {
        use sha2::{Digest, Sha256};
        use std::collections::HashSet;
        use std::sync::Mutex;
        static VERIFIED: Mutex<Option<HashSet<[u8; 32]>>> = Mutex::new(None);
        let mut h = Sha256::new();
        for root in trust_roots {
            h.update(root.serialize());
        }
        h.update(&self.serialized);
        let digest: [u8; 32] = h.finalize().into();
        let seen = |d: &[u8; 32]| {
            VERIFIED
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_some_and(|v| v.contains(d))
        };
        if seen(&digest) {
            return true;
        }
        let mut any = Choice::from(0);
        for root in trust_roots {
            any |= Choice::from(u8::from(self.signer.validate(root)));
        }
        let ok = bool::from(any)
            && xeddsa::verify(&self.signer.key, &[&self.certificate], &self.signature).is_ok();
        if ok {
            let mut v = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
            let set = v.get_or_insert_with(HashSet::new);
            if set.len() >= 4096 {
                set.clear();
            }
            set.insert(digest);
        }
        ok
    }

    /// Whether `key` is the certified identity key (constant time).
    pub(crate) fn key_is(&self, key: &PublicKey) -> bool {
        self.key.u().ct_eq(key.u()).into()
    }

    /// The bytes on the wire.
    pub fn serialized(&self) -> &[u8] {
        &self.serialized
    }
}
