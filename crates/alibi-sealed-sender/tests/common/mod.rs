//! What the tests share: a trust root with a server certificate under it, and parties with
//! identities (the part of alibi-channel's protocol stores these tests need).

use alibi_identity::{IdentityKeyPair, PrivateKey};
use alibi_sealed_sender::{SenderCertificate, ServerCertificate};
use rand_chacha::rand_core::CryptoRng;

/// A party: an identity, reached as alibi-channel's stores reach theirs.
pub struct Party {
    identity: IdentityKeyPair,
}

impl Party {
    /// The party's identity (never fails; the `Result` is the stores' signature).
    pub fn identity_key_pair(&self) -> Result<IdentityKeyPair, core::convert::Infallible> {
        Ok(self.identity.clone())
    }
}

/// A party with a fresh identity (the registration id only mirrors alibi-channel's helper).
pub fn party<R: CryptoRng + ?Sized>(rng: &mut R, _registration_id: u32) -> Party {
    Party {
        identity: IdentityKeyPair::generate(rng),
    }
}

/// A trust root, a server certificate under it, and the server's key.
pub struct Authority {
    pub root: PrivateKey,
    pub server: ServerCertificate,
    pub server_key: PrivateKey,
}

impl Authority {
    pub fn new<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let root = PrivateKey::generate(rng);
        let server_key = PrivateKey::generate(rng);
        let server = ServerCertificate::new(1, server_key.public_key(), &root, rng);
        Self {
            root,
            server,
            server_key,
        }
    }

    /// A sender certificate for (uuid, device) and the party's identity, valid until `expires`.
    pub fn certify<R: CryptoRng + ?Sized>(
        &self,
        party: &Party,
        uuid: &str,
        device: u32,
        expires: u64,
        rng: &mut R,
    ) -> SenderCertificate {
        SenderCertificate::new(
            uuid.to_string(),
            None,
            party.identity.identity.0,
            device,
            expires,
            self.server.clone(),
            &self.server_key,
            rng,
        )
    }
}
