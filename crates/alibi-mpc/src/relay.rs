//! The transports over the relay (seed 002, section 3.3). Every party is a Signal account with a
//! protocol store; sessions start with PQXDH from the relay's prekey directory the first time two
//! parties talk.
//!
//! * [`Mode::Pairwise`]: a broadcast is n-1 Double Ratchet messages, one request each, sent one
//!   after another, as the paper's baseline client (mpc-over-signal) does.
//! * [`Mode::Group`]: a round is one sender-key message sealed once for all its recipients
//!   (sealed sender v2) in one multi-recipient request; the round's point-to-point parts ride
//!   inside it, each still Double-Ratchet-encrypted to its recipient. Before its first group
//!   message a party hands each peer its sender key over the pairwise session (the paper's
//!   one-time steps).
//!
//! Receiving is the same in both modes: a task reads the relay's WebSocket, decrypts, checks that
//! the protocol frame names the sender the channel authenticated, files it in the [`Mailbox`] and
//! acknowledges the envelope.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::sealed_sender::v2::{self, Recipient};
use alibi_channel::sealed_sender::{
    self, ContentType, SenderCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use alibi_channel::sender_keys::{
    create_distribution_message, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage,
};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::{IdentityKey, IdentityKeyPair, PublicKey};
use alibi_relay::access::{combine, derive_access_key, AccessKey};
use alibi_relay::client::RelayClient;
use alibi_relay::keys::generate_keys;
use alibi_relay::proto::Envelope;
use alibi_relay::server::OutgoingMessage;
use async_trait::async_trait;
use getrandom::SysRng;
use rand_core::{CryptoRng, UnwrapErr};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::engine::{Broadcast, Expect, Incoming, Mailbox, Outgoing, Transport};
use crate::{decode, encode, Error, Party, PartyIndex, Result, SessionId};

/// How broadcasts travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// n-1 pairwise Double Ratchet messages per broadcast.
    Pairwise,
    /// One sender-key message in one multi-recipient sealed-sender request per round.
    Group,
}

impl core::fmt::Display for Mode {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            Mode::Pairwise => "pairwise",
            Mode::Group => "group",
        })
    }
}

/// What the others need to know about a party, exchanged out of band before a run (the paper's
/// "JSON file of parties information").
#[derive(Clone, Debug)]
pub struct Contact {
    /// Its index.
    pub index: PartyIndex,
    /// Its relay account.
    pub account: Uuid,
    /// Its identity key.
    pub identity: IdentityKey,
    /// Its device's registration id.
    pub registration_id: u16,
    /// Its unidentified-access key.
    pub access_key: AccessKey,
}

impl Contact {
    fn address(&self) -> Address {
        Address::new(self.account.to_string(), 1)
    }
}

#[derive(Serialize, Deserialize)]
struct Frame {
    session: SessionId,
    round: u16,
    from: PartyIndex,
    broadcast: Option<Vec<u8>>,
    p2p: Option<Vec<u8>>,
}

/// A round in group mode: the broadcast once, and each point-to-point part as a Double Ratchet
/// message (type, bytes) to its recipient.
#[derive(Serialize, Deserialize)]
struct GroupFrame {
    session: SessionId,
    round: u16,
    from: PartyIndex,
    broadcast: Option<Vec<u8>>,
    p2p: Vec<(PartyIndex, u8, Vec<u8>)>,
}

/// What goes inside a pairwise message.
#[derive(Serialize, Deserialize)]
enum Pairwise {
    Frame(Frame),
    SenderKey(Vec<u8>),
}

/// What the receiving task shares with the sending side.
struct Shared {
    me: PartyIndex,
    address: Address,
    store: Mutex<InMemoryStore>,
    contacts: Mutex<BTreeMap<PartyIndex, Contact>>,
    trust_root: PublicKey,
    mailbox: Mailbox,
}

/// A party on the relay, and its transport.
pub struct RelayParty {
    shared: Arc<Shared>,
    client: RelayClient,
    identity: IdentityKeyPair,
    registration_id: u16,
    access_key: AccessKey,
    certificate: Option<SenderCertificate>,
    distribution_id: Uuid,
    distributed: BTreeSet<PartyIndex>,
    receiver: Option<tokio::task::JoinHandle<()>>,
    requests: Arc<AtomicU64>,
    /// How broadcasts travel.
    pub mode: Mode,
}

impl Drop for RelayParty {
    fn drop(&mut self) {
        if let Some(r) = self.receiver.take() {
            r.abort();
        }
    }
}

fn relay_err(e: impl core::fmt::Display) -> Error {
    Error::Transport(e.to_string())
}

/// One-time prekeys each party publishes: enough for every peer of a 64-party run to open a
/// session, and a last-resort key beyond.
const ONE_TIME_KEYS: u32 = 70;

impl RelayParty {
    /// Registers a new account for party `index` on the relay at `url`, publishes its prekeys
    /// and access key, and fetches the trust root.
    pub async fn register(
        url: &str,
        index: PartyIndex,
        mode: Mode,
        rng: &mut impl CryptoRng,
    ) -> Result<Self> {
        let identity = IdentityKeyPair::generate(rng);
        let registration_id = (rng.next_u32() % 0x3FFF + 1) as u16;
        let mut secret = [0u8; 24];
        rng.fill_bytes(&mut secret);
        let password: String = secret.iter().map(|b| format!("{b:02x}")).collect();
        let client = RelayClient::register(
            url,
            &identity.identity.serialize(),
            registration_id,
            &password,
        )
        .await
        .map_err(relay_err)?;
        let mut store = InMemoryStore::new(identity.clone(), registration_id.into());
        let keys =
            generate_keys(&mut store, ONE_TIME_KEYS, ONE_TIME_KEYS, rng).map_err(relay_err)?;
        client.upload_keys(&keys).await.map_err(relay_err)?;
        let mut profile_key = [0u8; 32];
        rng.fill_bytes(&mut profile_key);
        let access_key = derive_access_key(&profile_key);
        client
            .set_access_key(&access_key)
            .await
            .map_err(relay_err)?;
        let trust_root = PublicKey::deserialize(&client.trust_root().await.map_err(relay_err)?)
            .map_err(|_| Error::Transport("trust root".into()))?;
        let address = Address::new(client.account.to_string(), 1);
        Ok(Self {
            shared: Arc::new(Shared {
                me: index,
                address,
                store: Mutex::new(store),
                contacts: Mutex::new(BTreeMap::new()),
                trust_root,
                mailbox: Mailbox::default(),
            }),
            client,
            identity,
            registration_id,
            access_key,
            certificate: None,
            distribution_id: Uuid::from_bytes({
                let mut b = [0u8; 16];
                rng.fill_bytes(&mut b);
                b
            }),
            distributed: BTreeSet::new(),
            receiver: None,
            requests: Arc::new(AtomicU64::new(0)),
            mode,
        })
    }

    /// What the others need to know about this party.
    pub fn contact(&self) -> Contact {
        Contact {
            index: self.shared.me,
            account: self.client.account,
            identity: self.identity.identity,
            registration_id: self.registration_id,
            access_key: self.access_key,
        }
    }

    /// Learns the other parties and starts receiving.
    pub fn connect(&mut self, contacts: &[Contact]) {
        {
            let mut c = self.shared.contacts.lock().expect("contacts");
            for k in contacts.iter().filter(|k| k.index != self.shared.me) {
                c.insert(k.index, k.clone());
            }
        }
        if self.receiver.is_none() {
            let mut rx = self.client.receive();
            let shared = self.shared.clone();
            self.receiver = Some(tokio::spawn(async move {
                while let Some(env) = rx.next().await {
                    shared.on_envelope(&env);
                    rx.ack(&env);
                }
            }));
        }
    }

    /// This party as the protocols see it: its index, identity and everyone's identity keys.
    pub fn party(&self) -> Party {
        let mut roster: BTreeMap<PartyIndex, IdentityKey> = self
            .shared
            .contacts
            .lock()
            .expect("contacts")
            .iter()
            .map(|(i, c)| (*i, c.identity))
            .collect();
        roster.insert(self.shared.me, self.identity.identity);
        Party {
            index: self.shared.me,
            identity: self.identity.clone(),
            roster,
        }
    }

    /// Opens a PQXDH session to every other party now rather than on first use, and in group
    /// mode hands each its sender key (the paper's one-time steps, done ahead of a run).
    pub async fn prepare(&mut self) -> Result<()> {
        let peers: Vec<Contact> = self
            .shared
            .contacts
            .lock()
            .expect("contacts")
            .values()
            .cloned()
            .collect();
        for c in &peers {
            self.ensure_session(c).await?;
        }
        if self.mode == Mode::Group {
            let to: Vec<PartyIndex> = peers.iter().map(|c| c.index).collect();
            self.ensure_distributed(&to).await?;
        }
        Ok(())
    }

    /// HTTP requests this party has sent to the relay for protocol traffic so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn contact_of(&self, p: PartyIndex) -> Result<Contact> {
        self.shared
            .contacts
            .lock()
            .expect("contacts")
            .get(&p)
            .cloned()
            .ok_or_else(|| Error::Transport(format!("party {p} unknown")))
    }

    /// Opens a PQXDH session to `c` from its bundle unless one exists.
    async fn ensure_session(&mut self, c: &Contact) -> Result<()> {
        let addr = c.address();
        let has = self
            .shared
            .store
            .lock()
            .expect("store")
            .load_session(&addr)
            .map_err(relay_err)?
            .is_some();
        if has {
            return Ok(());
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let (ik, bundles) = self
            .client
            .fetch_bundles(c.account, Some(1))
            .await
            .map_err(relay_err)?;
        let bundle = bundles
            .first()
            .ok_or_else(|| Error::Transport("no bundle".into()))?
            .to_prekey_bundle(&ik)
            .map_err(relay_err)?;
        let mut store = self.shared.store.lock().expect("store");
        process_prekey_bundle(
            &addr,
            &mut *store,
            &bundle,
            SystemTime::now(),
            &mut UnwrapErr(SysRng),
        )
        .map_err(relay_err)
    }

    fn seal_pairwise(&self, c: &Contact, plaintext: &[u8]) -> Result<CiphertextMessage> {
        let mut store = self.shared.store.lock().expect("store");
        encrypt(&c.address(), &mut *store, plaintext, SystemTime::now()).map_err(relay_err)
    }

    async fn send_pairwise(&mut self, to: PartyIndex, plaintext: &[u8]) -> Result<()> {
        let c = self.contact_of(to)?;
        self.ensure_session(&c).await?;
        let m = self.seal_pairwise(&c, plaintext)?;
        let out = OutgoingMessage {
            kind: if m.message_type() == 3 { 3 } else { 1 },
            destination_device_id: 1,
            destination_registration_id: c.registration_id,
            content: m.serialize().to_vec(),
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.client
            .send(c.account, vec![out])
            .await
            .map_err(relay_err)?
            .map_err(|e| Error::Transport(format!("send to party {to}: {e:?}")))
    }

    /// Hands our sender key to those who do not have it yet, over the pairwise sessions.
    async fn ensure_distributed(&mut self, to: &[PartyIndex]) -> Result<()> {
        if self.certificate.is_none() {
            self.requests.fetch_add(1, Ordering::Relaxed);
            let cert = self.client.sender_certificate().await.map_err(relay_err)?;
            self.certificate = Some(SenderCertificate::deserialize(&cert).map_err(relay_err)?);
        }
        for &p in to {
            if self.distributed.contains(&p) {
                continue;
            }
            let skdm = {
                let mut store = self.shared.store.lock().expect("store");
                create_distribution_message(
                    &self.shared.address,
                    self.distribution_id,
                    &mut *store,
                    &mut UnwrapErr(SysRng),
                )
                .map_err(relay_err)?
            };
            self.send_pairwise(p, &encode(&Pairwise::SenderKey(skdm.serialized().to_vec())))
                .await?;
            self.distributed.insert(p);
        }
        Ok(())
    }

    async fn send_group(
        &mut self,
        to: &[PartyIndex],
        mut frame: GroupFrame,
        p2p: &[(PartyIndex, Vec<u8>)],
    ) -> Result<()> {
        if to.is_empty() {
            return Ok(());
        }
        self.ensure_distributed(to).await?;
        for (p, bytes) in p2p.iter().filter(|(p, _)| to.contains(p)) {
            let c = self.contact_of(*p)?;
            self.ensure_session(&c).await?;
            let m = self.seal_pairwise(&c, bytes)?;
            frame
                .p2p
                .push((*p, m.message_type(), m.serialize().to_vec()));
        }
        let contacts: Vec<Contact> = to
            .iter()
            .map(|p| self.contact_of(*p))
            .collect::<Result<_>>()?;
        let skm = {
            let mut store = self.shared.store.lock().expect("store");
            group_encrypt(
                &mut *store,
                &self.shared.address,
                self.distribution_id,
                &encode(&frame),
                &mut UnwrapErr(SysRng),
            )
            .map_err(relay_err)?
        };
        let usmc = UnidentifiedSenderMessageContent::new(
            ContentType::SenderKey,
            self.certificate.clone().expect("fetched above"),
            skm.serialized().to_vec(),
            0,
            None,
        );
        let recipients: Vec<Recipient> = contacts
            .iter()
            .map(|c| Recipient {
                service_id: ServiceId::aci(c.account),
                identity: c.identity,
                devices: vec![(1, c.registration_id)],
            })
            .collect();
        let sent = v2::encrypt(
            &usmc,
            &self.identity,
            &recipients,
            &[],
            &mut UnwrapErr(SysRng),
        )
        .map_err(relay_err)?;
        let keys: Vec<AccessKey> = contacts.iter().map(|c| c.access_key).collect();
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.client
            .multi_send(sent, &combine(&keys))
            .await
            .map_err(relay_err)?
            .map_err(|e| Error::Transport(format!("multi-recipient send: {e:?}")))
    }
}

impl Shared {
    fn sender_of(&self, account: &str) -> Option<(PartyIndex, Address)> {
        let account = Uuid::parse_str(account).ok()?;
        let contacts = self.contacts.lock().expect("contacts");
        let c = contacts.values().find(|c| c.account == account)?;
        Some((c.index, c.address()))
    }

    /// Decrypts one envelope and files its frame; anything that fails to decrypt, or whose frame
    /// names another sender than the channel authenticated, is dropped.
    fn on_envelope(&self, env: &Envelope) {
        let _ = match env.r#type {
            1 | 3 => self.on_pairwise(env),
            6 => self.on_sealed(env),
            _ => None,
        };
    }

    fn on_pairwise(&self, env: &Envelope) -> Option<()> {
        let (from, addr) = self.sender_of(env.source_service_id.as_deref()?)?;
        let kind = if env.r#type == 3 { 3 } else { 2 };
        let m = CiphertextMessage::deserialize(kind, &env.content).ok()?;
        let plaintext = {
            let mut store = self.store.lock().ok()?;
            decrypt(&addr, &mut *store, &m, &mut UnwrapErr(SysRng)).ok()?
        };
        match decode::<Pairwise>(&plaintext).ok()? {
            Pairwise::SenderKey(b) => {
                let skdm = SenderKeyDistributionMessage::deserialize(&b).ok()?;
                let mut store = self.store.lock().ok()?;
                process_distribution_message(&addr, &skdm, &mut *store).ok()
            }
            Pairwise::Frame(f) => (f.from == from).then(|| {
                self.mailbox
                    .deliver(f.session, f.round, from, f.broadcast, f.p2p)
            }),
        }
    }

    fn on_sealed(&self, env: &Envelope) -> Option<()> {
        let opened = {
            let mut store = self.store.lock().ok()?;
            sealed_sender::decrypt(
                &env.content,
                &[self.trust_root],
                alibi_relay::now_ms(),
                &self.address,
                &mut *store,
                &mut UnwrapErr(SysRng),
            )
            .ok()?
        };
        let (from, addr) = self.sender_of(&opened.sender_uuid)?;
        if opened.msg_type != ContentType::SenderKey {
            return None;
        }
        let f: GroupFrame = decode(&opened.plaintext).ok()?;
        if f.from != from {
            return None;
        }
        let p2p = match f.p2p.iter().find(|(to, _, _)| *to == self.me) {
            None => None,
            Some((_, kind, bytes)) => {
                let m = CiphertextMessage::deserialize(*kind, bytes).ok()?;
                let mut store = self.store.lock().ok()?;
                Some(decrypt(&addr, &mut *store, &m, &mut UnwrapErr(SysRng)).ok()?)
            }
        };
        self.mailbox
            .deliver(f.session, f.round, from, f.broadcast, p2p);
        Some(())
    }
}

#[async_trait]
impl Transport for RelayParty {
    fn me(&self) -> PartyIndex {
        self.shared.me
    }

    async fn send(&mut self, out: Outgoing) -> Result<()> {
        let me = self.shared.me;
        match self.mode {
            Mode::Pairwise => {
                for &to in out.recipients.iter().filter(|&&to| to != me) {
                    let (broadcast, p2p) = out.part_for(to);
                    if broadcast.is_none() && p2p.is_none() {
                        continue;
                    }
                    let frame = Pairwise::Frame(Frame {
                        session: out.session,
                        round: out.round,
                        from: me,
                        broadcast,
                        p2p,
                    });
                    self.send_pairwise(to, &encode(&frame)).await?;
                }
                Ok(())
            }
            Mode::Group => {
                let frame = |broadcast| GroupFrame {
                    session: out.session,
                    round: out.round,
                    from: me,
                    broadcast,
                    p2p: vec![],
                };
                match &out.broadcast {
                    Broadcast::PerRecipient(v) => {
                        // Only a cheater sends different broadcasts: one request per recipient.
                        for (to, b) in v.clone() {
                            self.send_group(&[to], frame(Some(b)), &out.p2p).await?;
                        }
                        Ok(())
                    }
                    b => {
                        let broadcast = match b {
                            Broadcast::All(b) => Some(b.clone()),
                            _ => None,
                        };
                        let to: Vec<PartyIndex> = out
                            .recipients
                            .iter()
                            .copied()
                            .filter(|&to| to != me)
                            .filter(|&to| {
                                broadcast.is_some() || out.p2p.iter().any(|(r, _)| *r == to)
                            })
                            .collect();
                        self.send_group(&to, frame(broadcast), &out.p2p).await
                    }
                }
            }
        }
    }

    async fn receive(
        &mut self,
        session: SessionId,
        round: u16,
        from: &[PartyIndex],
        expect: Expect,
        timeout: Duration,
    ) -> Result<BTreeMap<PartyIndex, Incoming>> {
        Ok(self
            .shared
            .mailbox
            .collect(session, round, from, expect, timeout)
            .await)
    }
}

/// Decodes `data` as each transport frame (for the fuzz target).
#[doc(hidden)]
pub fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Pairwise>(data);
    let _ = decode::<GroupFrame>(data);
}
