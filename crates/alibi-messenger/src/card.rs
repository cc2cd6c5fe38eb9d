//! Contact cards: what one party hands another out of band (a file, a QR code, a group file), and
//! the only source of a contact's identity key the messenger believes.

use alibi_identity::{IdentityKey, PublicKey};
use alibi_relay_api::access::AccessKey;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{Error, Result};

/// A device of a contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    /// Device id (1 is the primary).
    pub id: u8,
    /// Its registration id.
    pub registration_id: u16,
}

/// Which handshake opens the pairwise sessions with a contact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Handshake {
    /// PQXDH (libsignal's, with SPQR): the default.
    #[default]
    Pqxdh,
    /// RingXKEM: fully post-quantum and deniable, SPQR required; needs the contact's PQ identity.
    Ringxkem,
}

impl Handshake {
    fn is_default(&self) -> bool {
        *self == Handshake::Pqxdh
    }
}

/// The PQ identity suite of messengers (RingXKEM): ML-KEM-768 with GANDALF[Falcon-1024].
pub const PQ_SUITE: alibi_akem::pq::Suite = alibi_akem::pq::Suite::MlKem768Falcon1024;

/// A contact card (JSON): name, relay account, devices, identity key, relay URL and trust root,
/// and the access key that lets others send to it without naming themselves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactCard {
    /// A name for people and logs (unique within one's contacts).
    pub name: String,
    /// The relay account (ACI).
    pub account: Uuid,
    /// Its devices.
    pub devices: Vec<Device>,
    /// Its identity key (33 bytes, base64): what every session with it is checked against.
    #[serde(with = "alibi_relay_api::b64")]
    pub identity_key: Vec<u8>,
    /// The relay it is registered on.
    pub relay: String,
    /// The relay's trust root as its owner pinned it (33 bytes, base64).
    #[serde(with = "alibi_relay_api::b64")]
    pub trust_root: Vec<u8>,
    /// Its unidentified-access key (16 bytes, base64).
    #[serde(with = "alibi_relay_api::b64")]
    pub access_key: Vec<u8>,
    /// A contact whose devices predate PQXDH: X3DH bundles accepted (interop with old clients
    /// only; never set for alibi parties).
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub legacy: bool,
    /// Its post-quantum identity (ML-KEM + Falcon public keys, base64), for RingXKEM sessions.
    #[serde(
        default,
        with = "alibi_relay_api::b64",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub pq_identity: Vec<u8>,
    /// The handshake sessions with it use (set by whoever imports the card; both sides must
    /// choose the same).
    #[serde(default, skip_serializing_if = "Handshake::is_default")]
    pub handshake: Handshake,
    /// The card's device list is authoritative (set by whoever imports the card; an MPC
    /// party's contacts): sends go to exactly these devices (the relay's
    /// `alibi-listed-devices`), and nothing the relay answers adds or drops one. A device the
    /// contact links to its account later then cannot stop delivery to these; one the relay
    /// says does not exist makes the contact undeliverable, named.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub fixed_devices: bool,
}

/// Whether a character of another party's words (a name on its card, a reason it gives) may be
/// shown: not a control character, and not an invisible formatting one (bidirectional overrides
/// and isolates, zero-width characters, tags), with which such words could hide or reorder what
/// a terminal shows.
pub fn printable(c: char) -> bool {
    !c.is_control()
        && !matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

impl ContactCard {
    /// Parses and checks a card.
    pub fn from_json(text: &str) -> Result<Self> {
        let card: Self = serde_json::from_str(text).map_err(|e| Error::Card(e.to_string()))?;
        card.check()?;
        Ok(card)
    }

    /// The card as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks the keys decode and the fields make sense.
    pub fn check(&self) -> Result<()> {
        let bad = |m: &str| Error::Card(format!("{}: {m}", self.name));
        if self.name.is_empty()
            || self.name.len() > 64
            || self.name.chars().any(|c| !printable(c) || c == ',')
        {
            return Err(Error::Card(format!(
                "name {:?}: 1 to 64 characters, no commas, control or invisible formatting characters",
                self.name
            )));
        }
        self.identity()?;
        self.root()?;
        self.access()?;
        if self.devices.is_empty() || self.devices.iter().any(|d| d.id == 0 || d.id > 127) {
            return Err(bad("devices: one or more, ids 1..=127"));
        }
        if !self.pq_identity.is_empty() || self.handshake == Handshake::Ringxkem {
            self.pq()?;
        }
        Ok(())
    }

    /// The post-quantum identity (RingXKEM).
    pub fn pq(&self) -> Result<alibi_akem::pq::PublicKey> {
        alibi_akem::pq::PublicKey::from_bytes(PQ_SUITE, &self.pq_identity).map_err(|_| {
            Error::Card(format!(
                "{}: pqIdentity: an ML-KEM-768 + Falcon-1024 public key (RingXKEM needs it)",
                self.name
            ))
        })
    }

    /// What the identity store pins for this contact's sessions: the identity key, or for
    /// RingXKEM the PQ identity's fingerprint.
    pub fn session_identity(&self) -> Result<IdentityKey> {
        match self.handshake {
            Handshake::Pqxdh => self.identity(),
            Handshake::Ringxkem => Ok(alibi_channel::ringxkem::fingerprint(&self.pq()?)),
        }
    }

    /// The identity key.
    pub fn identity(&self) -> Result<IdentityKey> {
        IdentityKey::deserialize(&self.identity_key)
            .map_err(|_| Error::Card(format!("{}: identity key: 33 bytes", self.name)))
    }

    /// The trust root.
    pub fn root(&self) -> Result<PublicKey> {
        PublicKey::deserialize(&self.trust_root)
            .map_err(|_| Error::Card(format!("{}: trust root: 33 bytes", self.name)))
    }

    /// The access key.
    pub fn access(&self) -> Result<AccessKey> {
        self.access_key
            .as_slice()
            .try_into()
            .map_err(|_| Error::Card(format!("{}: access key: 16 bytes", self.name)))
    }
}
