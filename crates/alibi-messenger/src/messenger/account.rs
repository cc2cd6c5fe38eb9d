//! The messenger's account: registering it on the relay, opening it from its directory, the
//! prekeys it publishes and tops up, and the card it hands to others.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use alibi_channel::ringxkem::RingXkemPreKey;
use alibi_channel::store::{InMemoryStore, RedbStore};
use alibi_identity::{IdentityKeyPair, PublicKey};
use alibi_relay_api::access::derive_access_key;
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use uuid::Uuid;
use zeroize::Zeroizing;

use super::{io, write_private, Inner, Messenger, Options, Store};
use super::{CARD_FILE, CONTACTS_FILE, IDENTITY_FILE, STORE_FILE};
use crate::card::{ContactCard, Device, Handshake};
use crate::prekeys::{generate_keys, one_time_keys};
use crate::profile::Profile;
use crate::relay::{Endpoint, RelayClient};
use crate::{Error, Result};

/// A store that did not open: [`Error::Busy`] when another process holds it.
fn store_err(e: alibi_channel::Error) -> Error {
    match e {
        alibi_channel::Error::Busy(p) => Error::Busy(p),
        e => Error::Protocol(e),
    }
}

/// One-time prekeys of each kind published at registration and kept topped up to.
const ONE_TIME_KEYS: u32 = 100;
/// A top-up is due when fewer than this many one-time prekeys are left (more than the relay lets
/// one account fetch of another between two checks: 10, then one per 5 minutes).
const TOP_UP_BELOW: u64 = 30;

impl Messenger {
    /// Registers a new account on the relay at `relay_url` and sets up `dir` (created, mode
    /// 0700): the identity sealed under `passphrase`, the sealed protocol store, and `card.json`.
    /// Refuses a directory that already holds an identity.
    pub async fn register(
        dir: &Path,
        relay_url: &str,
        name: &str,
        passphrase: &[u8],
        options: &Options,
    ) -> Result<Self> {
        let identity_path = dir.join(IDENTITY_FILE);
        if identity_path.exists() {
            return Err(Error::Io {
                path: identity_path,
                error: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "a messenger is already registered here",
                ),
            });
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(io(dir))?;
        }
        let (client, profile) = new_account(relay_url, name, options).await?;
        let store_path = dir.join(STORE_FILE);
        let _ = std::fs::remove_file(&store_path);
        let store = RedbStore::open_sealed(
            &store_path,
            profile.identity_key_pair()?,
            profile.registration_id.into(),
            &*profile.store_key()?,
        )
        .map_err(store_err)?;
        restrict(&store_path)?;
        let m = Self::assemble(client, &profile, Box::new(store), Some(dir.to_path_buf()))?;
        m.publish_keys(&profile.profile_key()?).await?;
        let sealed = profile.seal(passphrase, options.kdf, &mut UnwrapErr(SysRng))?;
        write_private(&identity_path, &sealed)?;
        m.save_contacts()?;
        let card = dir.join(CARD_FILE);
        std::fs::write(&card, m.card().to_json()).map_err(io(&card))?;
        Ok(m)
    }

    /// Opens the messenger in `dir` with its passphrase, and tops its prekeys up.
    pub async fn open(dir: &Path, passphrase: &[u8]) -> Result<Self> {
        Self::open_patient(dir, passphrase, std::time::Duration::ZERO, None).await
    }

    /// [`Messenger::open`], with requests that reach no relay node tried again for up to
    /// `patience` from then on, this first one included ([`Messenger::set_patience`]), and
    /// `report` told meanwhile ([`Messenger::on_unreachable`]).
    pub async fn open_patient(
        dir: &Path,
        passphrase: &[u8],
        patience: std::time::Duration,
        report: Option<crate::endpoint::OnUnreachable>,
    ) -> Result<Self> {
        let identity_path = dir.join(IDENTITY_FILE);
        let sealed = std::fs::read(&identity_path).map_err(io(&identity_path))?;
        let profile = Profile::open(&sealed, passphrase)?;
        let store = RedbStore::open_sealed(
            dir.join(STORE_FILE),
            profile.identity_key_pair()?,
            profile.registration_id.into(),
            &*profile.store_key()?,
        )
        .map_err(store_err)?;
        let client = RelayClient::existing(
            profile.endpoint()?,
            profile.account,
            profile.device,
            &profile.password,
        );
        let m = Self::assemble(client, &profile, Box::new(store), Some(dir.to_path_buf()))?;
        let path = dir.join(CONTACTS_FILE);
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            let cards: Vec<ContactCard> =
                serde_json::from_str(&text).map_err(|_| Error::Corrupt(path.clone()))?;
            let mut c = m.contacts();
            for card in cards {
                card.check()?;
                c.insert(card.name.clone(), card);
            }
        }
        m.set_patience(patience);
        if let Some(report) = report {
            m.on_unreachable(report);
        }
        m.top_up_prekeys().await?;
        Ok(m)
    }

    /// A messenger that keeps everything in memory (benches, demos, tests): registered now,
    /// gone when dropped.
    pub async fn ephemeral(relay_url: &str, name: &str, options: &Options) -> Result<Self> {
        let (client, profile) = new_account(relay_url, name, options).await?;
        let store =
            InMemoryStore::new(profile.identity_key_pair()?, profile.registration_id.into());
        let m = Self::assemble(client, &profile, Box::new(store), None)?;
        m.publish_keys(&profile.profile_key()?).await?;
        Ok(m)
    }

    fn assemble(
        client: RelayClient,
        profile: &Profile,
        store: Box<dyn Store>,
        dir: Option<PathBuf>,
    ) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                name: profile.name.clone(),
                relay_url: profile.relay.clone(),
                identity: profile.identity_key_pair()?,
                registration_id: profile.registration_id,
                access_key: derive_access_key(&profile.profile_key()?),
                trust_root: profile.trust_root()?,
                store: Mutex::new(store),
                contacts: Mutex::new(BTreeMap::new()),
                dir,
                setup: Mutex::new(HashMap::new()),
                certificate: tokio::sync::Mutex::new(None),
                distributed: Mutex::new(HashSet::new()),
                requests: AtomicU64::new(0),
                prekey_messages: AtomicU64::new(0),
                ringxkem: profile.ringxkem()?,
                #[cfg(test)]
                counts: Default::default(),
            }),
        })
    }

    /// Publishes the first prekeys and the access key.
    async fn publish_keys(&self, profile_key: &[u8; 32]) -> Result<()> {
        let keys = {
            let mut store = self.store();
            generate_keys(
                &mut **store,
                ONE_TIME_KEYS,
                ONE_TIME_KEYS,
                &mut UnwrapErr(SysRng),
            )?
        };
        let mut keys = keys;
        if let Some((pq, pk)) = &self.inner.ringxkem {
            keys.ringxkem_pre_key = Some(alibi_relay_api::keys::RingXkemKey {
                id: pk.handshake.id,
                bundle: pk.bundle(pq, self.inner.registration_id.into()).to_bytes(),
            });
        }
        self.inner.client.upload_keys(&keys).await?;
        self.inner
            .client
            .set_access_key(&derive_access_key(profile_key))
            .await
    }

    /// Uploads fresh one-time prekeys if fewer than 30 of either kind are left on the relay;
    /// returns how many of each were added.
    pub async fn top_up_prekeys(&self) -> Result<(u32, u32)> {
        let counts = self.inner.client.key_counts().await?;
        let want = |have: u64| {
            if have < TOP_UP_BELOW {
                ONE_TIME_KEYS - have as u32
            } else {
                0
            }
        };
        let (ec, pq) = (want(counts.count), want(counts.pq_count));
        if ec + pq > 0 {
            let keys = {
                let mut store = self.store();
                one_time_keys(&mut **store, ec, pq, &mut UnwrapErr(SysRng))?
            };
            self.inner.client.upload_keys(&keys).await?;
        }
        Ok((ec, pq))
    }

    /// This messenger's contact card.
    pub fn card(&self) -> ContactCard {
        ContactCard {
            name: self.inner.name.clone(),
            account: self.inner.client.account,
            devices: vec![Device {
                id: self.inner.client.device,
                registration_id: self.inner.registration_id,
            }],
            identity_key: self.inner.identity.identity.serialize().to_vec(),
            relay: self.inner.relay_url.clone(),
            trust_root: self.inner.trust_root.serialize().to_vec(),
            access_key: self.inner.access_key.to_vec(),
            legacy: false,
            pq_identity: self
                .inner
                .ringxkem
                .as_ref()
                .map(|(pq, _)| pq.public_key().to_bytes())
                .unwrap_or_default(),
            handshake: Handshake::Pqxdh,
            fixed_devices: false,
        }
    }
}

/// A new identity, device password, profile key and store key, the trust root pinned, and the
/// account registered on the relay.
async fn new_account(
    relay_url: &str,
    name: &str,
    options: &Options,
) -> Result<(RelayClient, Profile)> {
    let mut rng = UnwrapErr(SysRng);
    let identity = IdentityKeyPair::generate(&mut rng);
    let registration_id = (rng.next_u32() % 0x3FFF + 1) as u16;
    let password: String = random_bytes::<24>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut endpoint = Endpoint::new(relay_url).allow_insecure_http(options.insecure_http);
    endpoint.check()?;
    if let Some(ca) = &options.relay_ca {
        endpoint = endpoint.with_ca(ca)?;
    }
    let trust_root = pin_trust_root(&endpoint, options).await?;
    // The post-quantum identity and its RingXKEM prekey (medium-term, like a signed prekey).
    let pq = alibi_handshake::ringxkem::Identity::generate(crate::card::PQ_SUITE, &mut rng);
    let ringxkem_pre_key = RingXkemPreKey::generate(&pq, 1, &mut rng);
    let client = RelayClient::register(
        &endpoint,
        &identity.identity.serialize(),
        registration_id,
        &password,
    )
    .await?;
    let profile = Profile {
        name: name.to_string(),
        relay: endpoint.nodes(),
        relay_ca: options.relay_ca.clone().unwrap_or_default(),
        insecure_http: options.insecure_http,
        account: client.account,
        device: client.device,
        registration_id,
        password,
        identity: identity.private.to_bytes().to_vec(),
        profile_key: random_bytes::<32>().to_vec(),
        trust_root: trust_root.serialize().to_vec(),
        store_key: random_bytes::<32>().to_vec(),
        pq_identity: pq.to_bytes().to_vec(),
        ringxkem_pre_key: ringxkem_pre_key.to_bytes().to_vec(),
    };
    Ok((client, profile))
}

/// Pins the relay's trust root: the one given, or the one the relay announces. A root given that
/// the relay does not announce is refused now: it is the wrong root or the wrong relay, and
/// every certificate the relay issues would be refused later, far from the cause.
async fn pin_trust_root(endpoint: &Endpoint, options: &Options) -> Result<PublicKey> {
    let announced = RelayClient::existing(endpoint, Uuid::nil(), 1, "")
        .trust_root()
        .await?;
    let bytes = match &options.trust_root {
        Some(b) if *b != announced => {
            return Err(Error::TrustRoot(format!(
                "the relay {} announces the trust root {}, not the one given ({}): a wrong \
                 --trust-root, or not the relay meant",
                endpoint.nodes(),
                alibi_relay_api::b64::encode(&announced),
                alibi_relay_api::b64::encode(b)
            )))
        }
        Some(b) => b.clone(),
        None => announced,
    };
    PublicKey::deserialize(&bytes).map_err(|_| Error::TrustRoot("not a 33-byte key".into()))
}

#[cfg(unix)]
fn restrict(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io(path))
}

#[cfg(not(unix))]
fn restrict(_: &Path) -> Result<()> {
    Ok(())
}

fn random_bytes<const N: usize>() -> Zeroizing<[u8; N]> {
    let mut b = Zeroizing::new([0u8; N]);
    UnwrapErr(SysRng).fill_bytes(&mut b[..]);
    b
}
