//! One party's result of key generation, and its file (JSON, bytes in hex, the secret
//! included: kept sealed by the CLI).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::{bls, check_indices, Blame, Error, PartyIndex, Result};

/// One party's result of key generation.
#[derive(Clone)]
pub struct KeyShare {
    /// This party's index.
    pub index: PartyIndex,
    /// t.
    pub threshold: usize,
    /// All parties of the run.
    pub parties: Vec<PartyIndex>,
    /// The parties whose dealings make up the key.
    pub qualified: Vec<PartyIndex>,
    /// The group public key, compressed (G1 for BLS; the curve's point when a FROST key was
    /// refreshed).
    pub group_key: Vec<u8>,
    /// Every party's verification key g^x_j, compressed as the group key.
    pub verification_keys: BTreeMap<PartyIndex, Vec<u8>>,
    /// Who was named during key generation (they are not asked to sign).
    pub blamed: Vec<Blame>,
    pub(crate) secret: Zeroizing<[u8; 32]>,
}

impl core::fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.debug_struct("KeyShare")
            .field("index", &self.index)
            .field("threshold", &self.threshold)
            .field("group_key", &self.group_key)
            .field("blamed", &self.blamed)
            .finish_non_exhaustive()
    }
}

impl KeyShare {
    /// This party's secret share x_i (32 bytes, big-endian).
    pub fn secret(&self) -> &[u8; 32] {
        &self.secret
    }

    /// A share with these indices and no real key, for unit tests of what reads indices only.
    #[cfg(test)]
    pub(crate) fn for_tests(index: PartyIndex, threshold: usize, parties: Vec<PartyIndex>) -> Self {
        KeyShare {
            index,
            threshold,
            qualified: parties.clone(),
            parties,
            group_key: vec![],
            verification_keys: BTreeMap::new(),
            blamed: vec![],
            secret: Zeroizing::new([0; 32]),
        }
    }

    /// The parties that may sign: all but the blamed.
    pub fn eligible_signers(&self) -> Vec<PartyIndex> {
        self.parties
            .iter()
            .copied()
            .filter(|p| !self.blamed.iter().any(|b| b.party == *p))
            .collect()
    }
}

/// The public part of a BLS key's sharing, which a party new to the key needs to take part in
/// its resharing ([`super::Resharing`]): the threshold, the group key, every party's
/// verification key and who may deal (the parties key generation did not name). Its file is
/// JSON, bytes in hex: what `alibi mpc keys` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySet {
    /// t.
    pub threshold: usize,
    /// The group key (G1, compressed).
    pub group_key: Vec<u8>,
    /// Every party's verification key g^x_j, compressed as the group key.
    pub verification_keys: BTreeMap<PartyIndex, Vec<u8>>,
    /// The parties whose shares count (all but the named).
    pub eligible: Vec<PartyIndex>,
}

/// A key set as its file holds it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeySetFile {
    threshold: usize,
    group_key: String,
    verification_keys: BTreeMap<PartyIndex, String>,
    eligible: Vec<PartyIndex>,
}

impl KeySet {
    /// Reads a key set, checking that every key is a G1 point, that t+1 parties are eligible
    /// and that every eligible party has a key.
    pub fn from_json(json: &str) -> Result<Self> {
        let f: KeySetFile =
            serde_json::from_str(json).map_err(|_| Error::Malformed("key set file"))?;
        let k = KeySet {
            threshold: f.threshold,
            group_key: from_hex(&f.group_key)?,
            verification_keys: keys_from_hex(&f.verification_keys)?,
            eligible: f.eligible,
        };
        let keys_decode = bls::g1_decodes(&k.group_key)
            && k.verification_keys.values().all(|v| bls::g1_decodes(v));
        let eligible_keyed = check_indices(&k.eligible).is_ok()
            && k.eligible.len() > k.threshold
            && k.eligible
                .iter()
                .all(|p| k.verification_keys.contains_key(p));
        if !keys_decode || !eligible_keyed {
            return Err(Error::Malformed("key set file: keys, threshold or parties"));
        }
        Ok(k)
    }

    /// The key set as JSON.
    pub fn to_json(&self) -> String {
        let f = KeySetFile {
            threshold: self.threshold,
            group_key: hex::encode(&self.group_key),
            verification_keys: to_hex(&self.verification_keys),
            eligible: self.eligible.clone(),
        };
        serde_json::to_string_pretty(&f).expect("in-memory JSON")
    }
}

impl KeyShare {
    /// The public part of this share's key ([`KeySet`]).
    pub fn key_set(&self) -> KeySet {
        KeySet {
            threshold: self.threshold,
            group_key: self.group_key.clone(),
            verification_keys: self.verification_keys.clone(),
            eligible: self.eligible_signers(),
        }
    }
}

/// A key share as a file holds it: JSON, bytes in hex.
#[derive(Serialize, Deserialize)]
struct KeyShareFile {
    index: PartyIndex,
    threshold: usize,
    parties: Vec<PartyIndex>,
    qualified: Vec<PartyIndex>,
    group_key: String,
    verification_keys: BTreeMap<PartyIndex, String>,
    blamed: Vec<Blame>,
    secret: String,
}

fn from_hex(s: &str) -> Result<Vec<u8>> {
    hex::decode(s).map_err(|_| Error::Malformed("hex"))
}

/// Keys by party, in hex (the files' form).
fn to_hex(keys: &BTreeMap<PartyIndex, Vec<u8>>) -> BTreeMap<PartyIndex, String> {
    keys.iter().map(|(p, k)| (*p, hex::encode(k))).collect()
}

/// Keys by party from their hex.
fn keys_from_hex(keys: &BTreeMap<PartyIndex, String>) -> Result<BTreeMap<PartyIndex, Vec<u8>>> {
    keys.iter().map(|(p, k)| Ok((*p, from_hex(k)?))).collect()
}

impl KeyShare {
    /// The share as JSON (the secret included: keep the file private).
    pub fn to_json(&self) -> Zeroizing<String> {
        let file = KeyShareFile {
            index: self.index,
            threshold: self.threshold,
            parties: self.parties.clone(),
            qualified: self.qualified.clone(),
            group_key: hex::encode(&self.group_key),
            verification_keys: to_hex(&self.verification_keys),
            blamed: self.blamed.clone(),
            secret: hex::encode(self.secret.as_ref()),
        };
        let json = serde_json::to_string_pretty(&file).expect("in-memory JSON");
        let mut file = file;
        file.secret.zeroize();
        Zeroizing::new(json)
    }

    /// Reads a share written by [`KeyShare::to_json`], checking that every key decodes and that
    /// the secret matches this party's verification key.
    pub fn from_json(json: &str) -> Result<Self> {
        let f: KeyShareFile =
            serde_json::from_str(json).map_err(|_| Error::Malformed("key share file"))?;
        let secret: [u8; 32] = from_hex(&f.secret)?
            .try_into()
            .map_err(|_| Error::Malformed("secret: 32 bytes"))?;
        let secret = Zeroizing::new(secret);
        let group_key = from_hex(&f.group_key)?;
        let verification_keys = keys_from_hex(&f.verification_keys)?;
        if !bls::g1_decodes(&group_key) || !verification_keys.values().all(|k| bls::g1_decodes(k)) {
            return Err(Error::Malformed("key share file: a key is not a G1 point"));
        }
        let mine = verification_keys
            .get(&f.index)
            .ok_or(Error::Malformed("key share file: no own key"))?;
        if bls::public_key(&secret)?.as_slice() != mine.as_slice() {
            return Err(Error::Malformed(
                "key share file: the secret does not match its key",
            ));
        }
        if f.threshold == 0 || f.threshold >= f.parties.len() {
            return Err(Error::Malformed("key share file: threshold"));
        }
        if check_indices(&f.parties).is_err() || !f.parties.contains(&f.index) {
            return Err(Error::Malformed("key share file: party indices"));
        }
        Ok(KeyShare {
            index: f.index,
            threshold: f.threshold,
            parties: f.parties,
            qualified: f.qualified,
            group_key,
            verification_keys,
            blamed: f.blamed,
            secret,
        })
    }
}
