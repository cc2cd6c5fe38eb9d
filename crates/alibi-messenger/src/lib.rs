//! The client every application of alibi's channels uses: a Signal-style messenger on the relay.
//!
//! A [`Messenger`] lives in a directory (its identity sealed under a passphrase, its protocol
//! state in a sealed redb store, its contacts beside them). It registers on a relay, keeps its
//! prekeys topped up, exports its [`ContactCard`] and imports others', and then:
//!
//! * [`Messenger::send`]: one message to a contact's devices, over a PQXDH session opened on first
//!   use (`../shared/specs/signal-stack.md`, sections 2 and 3);
//! * [`Messenger::send_group`]: one sender-key message to a [`Group`], sealed once for every
//!   member (sealed sender v2) in one multi-recipient request; each member's sender key goes to
//!   it over the pairwise session on first use; optional per-member parts go in the same
//!   request, each Double-Ratchet-encrypted to its member and delivered to it alone, the signed
//!   message naming each part's digest;
//! * [`Messenger::receive`]: an [`Inbox`] of [`Received`] messages; an envelope is acknowledged to
//!   the relay only once the application has taken its message, and one that cannot be decrypted
//!   yet (a group message ahead of its sender key) is kept and tried again, not dropped.
//!
//! Nothing the relay says about who a party is counts: each contact's identity key comes from its
//! card and the relay's trust root from the user's own registration (or a card or group file);
//! a bundle, prekey message or sender certificate that disagrees is refused, naming the contact.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod card;
mod content;
mod endpoint;
mod messenger;
mod prekeys;
mod profile;
pub mod relay;

pub use card::{printable, ContactCard, Device, Handshake, PQ_SUITE};
pub use messenger::{
    Group, Inbox, Kind, Messenger, Options, Received, CARD_FILE, CONTACTS_FILE, IDENTITY_FILE,
    STORE_FILE,
};
pub use prekeys::{generate_keys, to_prekey_bundle};
pub use relay::{
    Endpoint, OnUnreachable, RelayClient, SendError, CONNECT_TIMEOUT, REQUEST_TIMEOUT,
};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The relay could not be reached, or answered something that does not parse.
    #[error("relay: {0}")]
    Relay(String),
    /// A relay node reached over plain http on a host that is not loopback, not allowed
    /// explicitly: the device's password would cross the network in clear.
    #[error("relay {0}: plain http to a host that is not loopback would send the device password in clear; use https (or opt in with --insecure-http)")]
    InsecureRelay(String),
    /// The relay refused a request.
    #[error("relay refused ({status}): {reason}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// The relay's reason.
        reason: String,
    },
    /// The relay will not deliver to these contacts, for their accounts: it does not know them,
    /// a device's mailbox is full, or a device a contact's authoritative card lists does not
    /// exist. Its answer. Nobody is proven at fault: the contact, a flood of others' mail or the
    /// relay itself may be the cause.
    #[error("cannot deliver to {}: {reason}", contacts.join(", "))]
    Undeliverable {
        /// The contacts, by name.
        contacts: Vec<String>,
        /// What the relay answered.
        reason: String,
    },
    /// A send the relay refused after the device list was brought up to date.
    #[error("send to {contact}: {error}")]
    Send {
        /// The contact.
        contact: String,
        /// What the relay answered.
        error: SendError,
    },
    /// What the relay handed out for a contact disagrees with the identity key pinned from its
    /// card: a bundle, a prekey message or a sender certificate. Nothing is sent to or accepted
    /// from it; importing the contact's card again is the only way to accept a new identity.
    #[error("identity of contact {contact} does not match its card ({what}); refusing")]
    IdentityMismatch {
        /// The contact, by name.
        contact: String,
        /// What disagreed.
        what: &'static str,
    },
    /// A bundle without a post-quantum prekey for a contact not marked legacy.
    #[error("contact {0} offered a bundle without a post-quantum prekey (downgrade refused)")]
    Downgrade(String),
    /// The relay's trust root or a certificate it issued does not chain to the pinned root.
    #[error("trust root: {0}")]
    TrustRoot(String),
    /// No contact of that name.
    #[error("no contact named {0}")]
    UnknownContact(String),
    /// A contact card that cannot be used (the message says why).
    #[error("contact card: {0}")]
    Card(String),
    /// The Signal protocol refused.
    #[error("protocol: {0}")]
    Protocol(#[from] alibi_channel::Error),
    /// The identity file could not be opened (wrong passphrase, modified, ...).
    #[error("identity file: {0}")]
    Keyfile(#[from] alibi_keyfile::Error),
    /// The messenger's directory.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// What happened.
        error: std::io::Error,
    },
    /// A file of the messenger's directory that does not parse.
    #[error("{0}: corrupt")]
    Corrupt(std::path::PathBuf),
    /// The messenger's store is held by another process (another command of this party).
    #[error("{} is in use by another process", .0.display())]
    Busy(std::path::PathBuf),
    /// The messenger stopped (its receiving task ended).
    #[error("the messenger stopped")]
    Closed,
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// Entry points for the fuzz targets.
#[doc(hidden)]
pub mod fuzzing {
    /// Runs every decoder of bytes a relay or a peer controls on `data`: the relay's protobufs
    /// and every JSON answer the relay client parses, the content inside a decrypted message,
    /// contact cards.
    pub fn decoders(data: &[u8]) {
        use prost::Message;
        let _ = alibi_relay_api::proto::Envelope::decode(data);
        let _ = alibi_relay_api::proto::WebSocketMessage::decode(data);
        let _ = crate::content::Content::decode(data);
        // Every answer the relay client parses (`relay::ok_json` and `relay::failure`).
        let _ = serde_json::from_slice::<alibi_relay_api::keys::PreKeyResponse>(data);
        let _ = serde_json::from_slice::<alibi_relay_api::keys::KeyCounts>(data);
        let _ = serde_json::from_slice::<alibi_relay_api::accounts::AccountCreated>(data);
        let _ = serde_json::from_slice::<alibi_relay_api::certificates::DeliveryCertificate>(data);
        let _ = serde_json::from_slice::<alibi_relay_api::certificates::TrustRoot>(data);
        let _ = serde_json::from_slice::<alibi_relay_api::ErrorBody>(data);
        if let Ok(text) = core::str::from_utf8(data) {
            let _ = crate::ContactCard::from_json(text);
        }
    }

    /// Runs the decoders of the files a user's command line hands the messenger: the profile
    /// (`identity.sealed`'s JSON: relay nodes, CA, credentials, keys) with every accessor, and a
    /// CA file as `alibi mpc init --relay-ca` reads it.
    pub fn credentials(data: &[u8]) {
        if let Ok(p) = serde_json::from_slice::<crate::profile::Profile>(data) {
            let _ = p.endpoint();
            let _ = p.identity_key_pair();
            let _ = p.trust_root();
            let _ = p.store_key();
            let _ = p.profile_key();
            let _ = p.ringxkem();
        }
        let _ = crate::Endpoint::new("https://relay.invalid").with_ca(data);
        if let Ok(nodes) = core::str::from_utf8(data) {
            let _ = crate::Endpoint::new(nodes);
        }
    }

    /// A valid profile's JSON (fresh keys, a RingXKEM identity), to edit.
    pub fn credential_sample<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Vec<u8> {
        crate::profile::Profile::sample(rng)
    }

    /// Up to `n` envelopes waiting for `m` at the relay, as its delivery socket hands them over,
    /// none acknowledged; waits at most `within` (samples for the inbound target).
    pub async fn waiting(
        m: &crate::Messenger,
        n: usize,
        within: std::time::Duration,
    ) -> Vec<alibi_relay_api::proto::Envelope> {
        let mut r = m.relay_client().receive();
        let mut out = vec![];
        let _ = tokio::time::timeout(within, async {
            while out.len() < n {
                match r.next().await {
                    Some(e) => out.push(e),
                    None => break,
                }
            }
        })
        .await;
        out
    }

    /// What `m`'s store holds: (a session with `(account, device)`, the identity pinned for it,
    /// one-time prekey `one_time` unused, KEM prekey `kem` unused). For the tests that check a
    /// refused message left the store as it was.
    pub fn stored(
        m: &crate::Messenger,
        account: uuid::Uuid,
        device: u8,
        one_time: u32,
        kem: u32,
    ) -> (bool, Option<alibi_identity::IdentityKey>, bool, bool) {
        m.stored(account, device, one_time, kem)
    }

    /// The inbound path on one envelope, as the receiving task runs it: decryption, the checks
    /// against the pinned contacts, the content. True if it would be delivered.
    pub fn inbound(m: &crate::Messenger, env: &alibi_relay_api::proto::Envelope) -> bool {
        m.process_for_fuzzing(env)
    }
}
