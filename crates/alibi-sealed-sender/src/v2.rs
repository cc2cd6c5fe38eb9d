//! Sealed sender v2, multi-recipient, as libsignal implements it since 0.32 (not the 2021 paper's
//! form): one random 32-byte M per message.
//!
//! * `r = HKDF(M, "Sealed Sender v2: r (2023-08)", 32)` is the ephemeral X25519 secret E (the
//!   receiver re-derives E from M and rejects a mismatch); `K = HKDF(M, "Sealed Sender v2: K", 32)`.
//! * The USMC is encrypted once: AES-256-GCM-SIV under K, zero nonce, no associated data.
//! * Per recipient identity R_i: `C_i = HKDF(DH(E, R_i) || E || R_i, "Sealed Sender v2: DH", 32)
//!   xor M` and `AT_i = HKDF(DH(S, R_i) || E || C_i || S || R_i, "Sealed Sender v2: DH-sender",
//!   16)`, keys in their 33-byte encodings. Two X25519 per recipient identity, however many devices.
//!
//! Wire forms: the sender's request (`SentMessage`, `0x23`) lists every recipient's service id, its
//! devices `(id, registration id)` and `C_i || AT_i`, then excluded recipients (`id || 0x00`), then
//! `E (32 raw bytes) || ciphertext`; the server hands each device a `ReceivedMessage`
//! `0x22 || C_i || AT_i || E || ciphertext` ([`SentMessage::received_message`]).

use core::ops::Range;
use std::collections::HashMap;

use aes_gcm_siv::aead::{Aead, KeyInit};
use aes_gcm_siv::{Aes256GcmSiv, Nonce};
use alibi_identity::{IdentityKey, IdentityKeyPair, KeyPair, PrivateKey, PublicKey};
use hkdf::Hkdf;
use rand_core::CryptoRng;
use rayon::prelude::*;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::{ServiceId, UnidentifiedSenderMessageContent};

/// The static-static agreement of the authentication tag, DH(our identity, their identity):
/// the same for every message between two parties, so it is kept (keyed by both public keys;
/// at most 4,096, wiped when the table is emptied) instead of costing an X25519 per message and
/// recipient. It is as secret as the identity key that already lives in this process.
fn static_agree(ours: &IdentityKeyPair, theirs: &PublicKey) -> Zeroizing<[u8; 32]> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    type Table = HashMap<([u8; 33], [u8; 33]), Zeroizing<[u8; 32]>>;
    static AGREED: Mutex<Option<Table>> = Mutex::new(None);
    let key = (ours.identity.0.serialize(), theirs.serialize());
    if let Some(k) = AGREED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|t| t.get(&key))
    {
        return k.clone();
    }
    let k = ours.private.agree(theirs);
    let mut t = AGREED.lock().unwrap_or_else(|e| e.into_inner());
    let table = t.get_or_insert_with(HashMap::new);
    if table.len() >= 4096 {
        table.clear();
    }
    table.insert(key, k.clone());
    k
}
use crate::{Error, Result};

/// Version byte of the sender's multi-recipient request with 17-byte service ids.
pub const SENT_VERSION: u8 = 0x23;
/// Version byte of a received message (and of the older sent form with 16-byte ACI UUIDs).
pub const RECEIVED_VERSION: u8 = 0x22;
const LABEL_R: &[u8] = b"Sealed Sender v2: r (2023-08)";
const LABEL_K: &[u8] = b"Sealed Sender v2: K";
const LABEL_DH: &[u8] = b"Sealed Sender v2: DH";
const LABEL_DH_S: &[u8] = b"Sealed Sender v2: DH-sender";
const KEY_LEN: usize = 32;
const TAG_LEN: usize = 16;
const REGISTRATION_ID_MASK: u16 = 0x3FFF;
/// Recipients per parallel work item: each costs an X25519 (~30 us here), and a chunk shares one
/// inversion; far above rayon's per-task overhead.
const CHUNK: usize = 16;

fn kdf<const N: usize>(ikm: &[u8], label: &[u8]) -> Zeroizing<[u8; N]> {
    let mut out = Zeroizing::new([0u8; N]);
    Hkdf::<Sha256>::new(None, ikm)
        .expand(label, &mut out[..])
        .expect("valid HKDF length");
    out
}

fn ephemeral(m: &[u8; KEY_LEN]) -> KeyPair {
    KeyPair::from_private(PrivateKey::from_bytes(*kdf::<32>(m, LABEL_R)))
}

/// `C = KDF(DH(E, R) || E || R) xor M`; the same function unwraps.
fn wrap(dh: &[u8], e: &PublicKey, r: &PublicKey, m: &[u8; KEY_LEN]) -> [u8; KEY_LEN] {
    let ikm = Zeroizing::new([dh, &e.serialize(), &r.serialize()].concat());
    let mut c = *kdf::<KEY_LEN>(&ikm, LABEL_DH);
    c.iter_mut().zip(m).for_each(|(a, b)| *a ^= b);
    c
}

fn auth_tag(
    dh: &[u8],
    e: &PublicKey,
    c: &[u8],
    sender: &PublicKey,
    recipient: &PublicKey,
) -> [u8; TAG_LEN] {
    let ikm = Zeroizing::new(
        [
            dh,
            &e.serialize(),
            c,
            &sender.serialize(),
            &recipient.serialize(),
        ]
        .concat(),
    );
    *kdf::<TAG_LEN>(&ikm, LABEL_DH_S)
}

/// One recipient account: its service id, identity key and devices `(device id, registration id)`.
#[derive(Clone, Debug)]
pub struct Recipient {
    /// The account.
    pub service_id: ServiceId,
    /// Its identity key (one per account: all its devices share the wrapped key).
    pub identity: IdentityKey,
    /// Its devices: (device id 1..=127, registration id below 2^14).
    pub devices: Vec<(u8, u16)>,
}

/// Encrypts `usmc` once for all `recipients`; `excluded` accounts are listed without keys (the
/// server then knows not to expect them). Returns the `SentMessage` (`0x23`).
pub fn encrypt<R: CryptoRng + ?Sized>(
    usmc: &UnidentifiedSenderMessageContent,
    ours: &IdentityKeyPair,
    recipients: &[Recipient],
    excluded: &[ServiceId],
    rng: &mut R,
) -> Result<Vec<u8>> {
    for r in recipients {
        if r.devices.is_empty() {
            return Err(Error::SealedSender("a recipient without devices"));
        }
        for &(d, reg) in &r.devices {
            if !(1..=127).contains(&d) || reg & REGISTRATION_ID_MASK != reg {
                return Err(Error::SealedSender("bad device id or registration id"));
            }
        }
    }
    let mut m = Zeroizing::new([0u8; KEY_LEN]);
    rng.fill_bytes(&mut m[..]);
    let e = ephemeral(&m);
    let k = kdf::<32>(&m[..], LABEL_K);
    let ciphertext = Aes256GcmSiv::new((&*k).into())
        .encrypt(&Nonce::default(), usmc.serialized())
        .map_err(|_| Error::SealedSender("AES-GCM-SIV refused the content"))?;

    // DH(E, R) for a chunk of recipients at once (alibi_x25519::x25519_raw_many); the chunks
    // spread over the cores for large groups. DH(sender, R) is kept per pair (static_agree).
    let per_chunk = |rs: &[Recipient]| {
        let ids: Vec<&PublicKey> = rs.iter().map(|r| &r.identity.0).collect();
        let dhs = e.private.agree_many(&ids);
        rs.iter()
            .zip(dhs)
            .map(|(r, dh)| {
                let c = wrap(&dh[..], &e.public, &r.identity.0, &m);
                let at = auth_tag(
                    &static_agree(ours, &r.identity.0)[..],
                    &e.public,
                    &c,
                    &ours.identity.0,
                    &r.identity.0,
                );
                (c, at)
            })
            .collect::<Vec<_>>()
    };
    let keys: Vec<([u8; KEY_LEN], [u8; TAG_LEN])> = if recipients.len() > CHUNK {
        recipients
            .par_chunks(CHUNK)
            .flat_map_iter(per_chunk)
            .collect()
    } else {
        per_chunk(recipients)
    };

    let mut out = Vec::with_capacity(
        8 + recipients.len() * (17 + 3 + KEY_LEN + TAG_LEN)
            + excluded.len() * 18
            + 32
            + ciphertext.len(),
    );
    out.push(SENT_VERSION);
    prost::encode_length_delimiter(recipients.len() + excluded.len(), &mut out).expect("Vec grows");
    for (r, (c, at)) in recipients.iter().zip(&keys) {
        out.extend_from_slice(&r.service_id.fixed_width());
        for (i, &(d, reg)) in r.devices.iter().enumerate() {
            let more = if i + 1 < r.devices.len() { 0x8000 } else { 0 };
            out.push(d);
            out.extend_from_slice(&(reg | more).to_be_bytes());
        }
        out.extend_from_slice(c);
        out.extend_from_slice(at);
    }
    for x in excluded {
        out.extend_from_slice(&x.fixed_width());
        out.push(0);
    }
    out.extend_from_slice(e.public.u());
    out.extend_from_slice(&ciphertext);
    Ok(out)
}

/// One account of a parsed `SentMessage`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentRecipient {
    /// The account.
    pub service_id: ServiceId,
    /// Its devices `(device id, registration id)`; empty for an excluded account.
    pub devices: Vec<(u8, u16)>,
    c_and_at: Range<usize>,
}

/// A parsed multi-recipient request (what the relay stores once and fans out).
#[derive(Clone, Debug)]
pub struct SentMessage<'a> {
    bytes: &'a [u8],
    /// The accounts, in order, duplicates merged as libsignal does.
    pub recipients: Vec<SentRecipient>,
    shared: Range<usize>,
}

/// The number of recipient entries a `SentMessage` announces, read from its first bytes without
/// parsing the rest: a relay refuses an oversized request before any work proportional to it.
pub fn announced_recipients(bytes: &[u8]) -> Result<u64> {
    let version = *bytes.first().ok_or(Error::TooShort(0))?;
    if version != SENT_VERSION && version != RECEIVED_VERSION {
        return Err(Error::SealedSender("unknown sealed sender v2 version"));
    }
    prost::decode_length_delimiter(&bytes[1..])
        .map(|n| n as u64)
        .map_err(|_| Error::Malformed("sealed sender v2 sent message"))
}

impl<'a> SentMessage<'a> {
    /// Parses a `SentMessage` (`0x23`, or the older `0x22` form with 16-byte ACI UUIDs).
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        const BAD: Error = Error::Malformed("sealed sender v2 sent message");
        let version = *bytes.first().ok_or(Error::TooShort(0))?;
        if version != SENT_VERSION && version != RECEIVED_VERSION {
            return Err(Error::SealedSender("unknown sealed sender v2 version"));
        }
        let mut pos = 1;
        let take = |pos: &mut usize, n: usize| -> Result<Range<usize>> {
            let end = pos
                .checked_add(n)
                .filter(|&e| e <= bytes.len())
                .ok_or(BAD)?;
            let r = *pos..end;
            *pos = end;
            Ok(r)
        };
        let count = prost::decode_length_delimiter(&bytes[pos..]).map_err(|_| BAD)?;
        pos += prost::length_delimiter_len(count);
        let mut recipients: Vec<SentRecipient> = Vec::with_capacity(count.min(6000));
        // Where each account already is: merging duplicates stays linear in the count.
        let mut index: HashMap<ServiceId, usize> = HashMap::with_capacity(count.min(6000));
        for _ in 0..count {
            let service_id = if version == SENT_VERSION {
                let r = take(&mut pos, 17)?;
                ServiceId::from_fixed_width(bytes[r].try_into().expect("17 bytes"))?
            } else {
                let r = take(&mut pos, 16)?;
                ServiceId::aci(uuid::Uuid::from_slice(&bytes[r]).expect("16 bytes"))
            };
            let mut devices = Vec::new();
            loop {
                let d = bytes[take(&mut pos, 1)?][0];
                if d == 0 {
                    if !devices.is_empty() {
                        return Err(BAD);
                    }
                    break;
                }
                if d > 127 {
                    return Err(BAD);
                }
                let r = take(&mut pos, 2)?;
                let v = u16::from_be_bytes([bytes[r.start], bytes[r.start + 1]]);
                devices.push((d, v & REGISTRATION_ID_MASK));
                if v & 0x8000 == 0 {
                    break;
                }
            }
            let c_and_at = if devices.is_empty() {
                0..0
            } else {
                take(&mut pos, KEY_LEN + TAG_LEN)?
            };
            match index.get(&service_id).map(|&i| &mut recipients[i]) {
                Some(existing) => {
                    if existing.devices.is_empty() || devices.is_empty() {
                        return Err(Error::SealedSender(
                            "recipient redundantly encoded as excluded",
                        ));
                    }
                    existing.devices.extend(devices);
                }
                None => {
                    index.insert(service_id, recipients.len());
                    recipients.push(SentRecipient {
                        service_id,
                        devices,
                        c_and_at,
                    });
                }
            }
        }
        if bytes.len() - pos < KEY_LEN {
            return Err(BAD);
        }
        Ok(Self {
            bytes,
            recipients,
            shared: pos..bytes.len(),
        })
    }

    /// The `ReceivedMessage` for one listed account: `0x22 || C || AT || E || ciphertext`.
    /// `None` for an excluded account.
    pub fn received_message(&self, recipient: &SentRecipient) -> Option<Vec<u8>> {
        let km = self.key_material(recipient)?;
        Some(received_message(km, self.shared_bytes()))
    }

    /// One account's `C || AT` (48 bytes): what a relay stores per device. `None` for an excluded
    /// account.
    pub fn key_material(&self, recipient: &SentRecipient) -> Option<&'a [u8]> {
        (!recipient.c_and_at.is_empty()).then(|| &self.bytes[recipient.c_and_at.clone()])
    }

    /// The part every recipient shares (`E || ciphertext`): what a relay stores once.
    pub fn shared_bytes(&self) -> &'a [u8] {
        &self.bytes[self.shared.clone()]
    }
}

/// A `ReceivedMessage` from one account's key material (`C || AT`) and the shared part
/// (`E || ciphertext`): how a relay rebuilds what it stored split.
pub fn received_message(key_material: &[u8], shared: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + key_material.len() + shared.len());
    out.push(RECEIVED_VERSION);
    out.extend_from_slice(key_material);
    out.extend_from_slice(shared);
    out
}

/// Opens a `ReceivedMessage` addressed to `ours`: unwraps M, re-derives E and checks it, decrypts,
/// and checks the authentication tag against the identity key the sender certificate names.
pub fn decrypt_to_usmc(
    b: &[u8],
    ours: &IdentityKeyPair,
) -> Result<UnidentifiedSenderMessageContent> {
    let r = Received::parse(b)?;
    let m = Zeroizing::new(wrap(
        &ours.private.agree(&r.e)[..],
        &r.e,
        &ours.identity.0,
        r.c,
    ));
    let e = ephemeral(&m).public;
    r.open(&m, e.u(), ours)
}

/// [`decrypt_to_usmc`] of several received messages at once, each with its own verdict, the
/// same as alone: the products DH(E, R) and the re-derived ephemeral keys return to Montgomery
/// form through one batched inversion each instead of two inversions per message.
pub fn decrypt_to_usmc_many(
    bs: &[&[u8]],
    ours: &IdentityKeyPair,
) -> Vec<Result<UnidentifiedSenderMessageContent>> {
    let parsed: Vec<Result<Received<'_>>> = bs.iter().map(|b| Received::parse(b)).collect();
    let ok: Vec<&Received<'_>> = parsed.iter().filter_map(|r| r.as_ref().ok()).collect();
    let es: Vec<&PublicKey> = ok.iter().map(|r| &r.e).collect();
    let ms: Vec<Zeroizing<[u8; KEY_LEN]>> = ok
        .iter()
        .zip(ours.private.agree_each(&es))
        .map(|(r, dh)| Zeroizing::new(wrap(&dh[..], &r.e, &ours.identity.0, r.c)))
        .collect();
    let secrets: Vec<Zeroizing<[u8; 32]>> = ms.iter().map(|m| kdf::<32>(&m[..], LABEL_R)).collect();
    let refs: Vec<&[u8; 32]> = secrets.iter().map(|s| &**s).collect();
    let publics = alibi_x25519::x25519_public_many(&refs);
    let mut opened = ok
        .iter()
        .zip(&ms)
        .zip(&publics)
        .map(|((r, m), e)| r.open(m, e, ours));
    parsed
        .iter()
        .map(|p| match p {
            Ok(_) => opened.next().expect("one opening per parsed message"),
            Err(e) => Err(e.clone()),
        })
        .collect()
}

/// A received message's parts (`0x22 || C || AT || E || ciphertext`).
struct Received<'a> {
    c: &'a [u8; KEY_LEN],
    at: &'a [u8],
    e: PublicKey,
    ciphertext: &'a [u8],
}

impl<'a> Received<'a> {
    fn parse(b: &'a [u8]) -> Result<Self> {
        if b.len() < 1 + KEY_LEN + TAG_LEN + 32 {
            return Err(Error::TooShort(b.len()));
        }
        if b[0] != RECEIVED_VERSION {
            return Err(Error::SealedSender("unknown sealed sender v2 version"));
        }
        Ok(Self {
            c: b[1..33].try_into().expect("32 bytes"),
            at: &b[33..49],
            e: PublicKey::from_u(b[49..81].try_into().expect("32 bytes")),
            ciphertext: &b[81..],
        })
    }

    /// The content under M, once the ephemeral key re-derived from M (`e`, its u) matches E;
    /// then the authentication tag under the sender certificate's key.
    fn open(
        &self,
        m: &[u8; KEY_LEN],
        e: &[u8; 32],
        ours: &IdentityKeyPair,
    ) -> Result<UnidentifiedSenderMessageContent> {
        if !bool::from(e.ct_eq(self.e.u())) {
            return Err(Error::SealedSender(
                "ephemeral key does not match the message key",
            ));
        }
        let k = kdf::<32>(&m[..], LABEL_K);
        let plaintext = Aes256GcmSiv::new((&*k).into())
            .decrypt(&Nonce::default(), self.ciphertext)
            .map_err(|_| Error::SealedSender("content does not authenticate"))?;
        let usmc = UnidentifiedSenderMessageContent::deserialize(&plaintext)?;
        let expected = auth_tag(
            &static_agree(ours, &usmc.sender.key)[..],
            &self.e,
            self.c,
            &usmc.sender.key,
            &ours.identity.0,
        );
        if !bool::from(expected.ct_eq(self.at)) {
            return Err(Error::SealedSender(
                "sender certificate key does not match the authentication tag",
            ));
        }
        Ok(usmc)
    }
}
