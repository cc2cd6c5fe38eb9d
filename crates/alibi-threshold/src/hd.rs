//! Non-hardened HD derivation of threshold keys: the [`DerivationPath`] a signing run signs
//! under, and the [`ExtendedPublicKey`] anyone derives child keys from without a share.
//!
//! Secp256k1 keys derive as BIP-32's `CKDpub` (SLIP-10, which is BIP-32 on this curve) and
//! their extended public keys are BIP-32's serialization, Base58Check `xpub…` text that BIP-32
//! wallets read. Ed25519 keys derive with the `hd-wallet` crate's Edwards scheme, the one givre
//! signs under: it is no standard (SLIP-10 defines hardened Ed25519 children only), and so is
//! its extended key, BIP-32's layout with the key field `0x00 || A` (SLIP-10's way of writing an
//! Ed25519 key in 33 bytes), which BIP-32 wallets refuse, as they should. The arithmetic is
//! `hd-wallet`'s, the crate cggmp24 and givre shift their signing keys with, so a key derived
//! here is the key a run signs under.

use core::fmt;
use core::str::FromStr;

use generic_ec::curves::{Ed25519, Secp256k1};
use generic_ec::{Curve, Point};
use hd_wallet::{Edwards, HdWallet, NonHardenedIndex, Slip10};
use ripemd::Ripemd160;
use sha2_010::{Digest, Sha256};

use crate::Error;

/// BIP-32's bound on a path's length: the depth is one byte.
pub const MAX_DEPTH: usize = 255;

/// BIP-32's version bytes of a mainnet extended public key (`xpub…`).
const XPUB_VERSION: [u8; 4] = [0x04, 0x88, 0xb2, 0x1e];

/// The length of BIP-32's serialization of an extended key.
pub const EXTENDED_KEY_LEN: usize = 78;

/// A path of non-hardened child indices from the master key: `m/0/7` on the command line.
/// Hardened steps (`0'`, `0h`) need the secret key and cannot be taken by a threshold key's
/// holders, so they are refused; so are indices of 2^31 and above, and more than
/// [`MAX_DEPTH`] steps.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DerivationPath(Vec<u32>);

impl DerivationPath {
    /// The empty path, `m`: the master key itself.
    pub fn master() -> Self {
        DerivationPath(vec![])
    }

    /// A path from its indices, each below 2^31, at most [`MAX_DEPTH`] of them.
    pub fn new(indices: Vec<u32>) -> Result<Self, Error> {
        if indices.len() > MAX_DEPTH {
            return Err(derivation(format!(
                "a path of {} steps; BIP-32 allows {MAX_DEPTH}",
                indices.len()
            )));
        }
        if let Some(i) = indices
            .iter()
            .find(|&&i| NonHardenedIndex::try_from(i).is_err())
        {
            return Err(derivation(format!(
                "index {i} is a hardened one (2^31 or more), which needs the secret key"
            )));
        }
        Ok(DerivationPath(indices))
    }

    /// The child indices, from the master key down.
    pub fn indices(&self) -> &[u32] {
        &self.0
    }

    /// Whether this is the master key's path `m`.
    pub fn is_master(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for DerivationPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("m")?;
        self.0.iter().try_for_each(|i| write!(f, "/{i}"))
    }
}

impl FromStr for DerivationPath {
    type Err = Error;

    /// Reads `m`, `m/0/7`: `m`, then decimal indices below 2^31 separated by `/`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let mut steps = s.split('/');
        if steps.next() != Some("m") {
            return Err(derivation("a path starts with m, as in m/0/7".into()));
        }
        let indices = steps
            .map(|step| {
                if step.ends_with(['\'', 'h', 'H']) {
                    return Err(derivation(format!(
                        "step {step} is hardened, which needs the secret key; threshold keys \
                         derive non-hardened children only"
                    )));
                }
                let digits = !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit());
                step.parse::<u32>()
                    .ok()
                    .filter(|_| digits)
                    .ok_or_else(|| derivation(format!("step {step:?} is not a child index")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        DerivationPath::new(indices)
    }
}

/// The curve of an extended key, which says how its children derive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HdCurve {
    /// secp256k1: BIP-32 (SLIP-10).
    Secp256k1,
    /// Ed25519: hd-wallet's Edwards derivation (non-standard).
    Ed25519,
}

/// An extended public key: a public key, its chain code and where it sits in the tree (BIP-32's
/// depth, parent fingerprint and child number). Encoded as BIP-32 serializes a mainnet `xpub`
/// ([`ExtendedPublicKey::to_bytes`], [`ExtendedPublicKey::to_base58`]); see the module for
/// Ed25519's non-standard key field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtendedPublicKey {
    curve: HdCurve,
    depth: u8,
    parent_fingerprint: [u8; 4],
    child_number: u32,
    chain_code: [u8; 32],
    /// SEC1 compressed for secp256k1; `0x00 || A` for Ed25519.
    key: [u8; 33],
}

impl ExtendedPublicKey {
    /// A master extended key (depth 0) from a public key in its curve's standard encoding (33
    /// bytes SEC1 compressed on secp256k1, 32 bytes on Ed25519) and the key's chain code.
    pub fn master(curve: HdCurve, public_key: &[u8], chain_code: [u8; 32]) -> Result<Self, Error> {
        let key = match (curve, public_key.len()) {
            (HdCurve::Secp256k1, 33) => public_key.try_into().ok(),
            (HdCurve::Ed25519, 32) => {
                let mut key = [0u8; 33];
                key[1..].copy_from_slice(public_key);
                Some(key)
            }
            _ => None,
        };
        let key = key.ok_or_else(|| extended("a public key of the wrong length"))?;
        let xpub = ExtendedPublicKey {
            curve,
            depth: 0,
            parent_fingerprint: [0; 4],
            child_number: 0,
            chain_code,
            key,
        };
        xpub.check_point()?;
        Ok(xpub)
    }

    /// The curve, which says how children derive.
    pub fn curve(&self) -> HdCurve {
        self.curve
    }

    /// The public key in its curve's standard encoding: 33 bytes SEC1 compressed on
    /// secp256k1, the 32-byte point on Ed25519.
    pub fn public_key(&self) -> &[u8] {
        match self.curve {
            HdCurve::Secp256k1 => &self.key,
            HdCurve::Ed25519 => &self.key[1..],
        }
    }

    /// The chain code.
    pub fn chain_code(&self) -> &[u8; 32] {
        &self.chain_code
    }

    /// How many steps below the master key this key is.
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The child extended key at `path` below this one.
    pub fn derive(&self, path: &DerivationPath) -> Result<Self, Error> {
        if usize::from(self.depth) + path.0.len() > MAX_DEPTH {
            return Err(derivation(format!(
                "{} steps below depth {} pass BIP-32's depth {MAX_DEPTH}",
                path.0.len(),
                self.depth
            )));
        }
        path.0
            .iter()
            .try_fold(self.clone(), |parent, &i| parent.child(i))
    }

    /// One step down, to child `i` (non-hardened).
    fn child(&self, i: u32) -> Result<Self, Error> {
        let index = NonHardenedIndex::try_from(i)
            .map_err(|_| derivation(format!("index {i} is a hardened one")))?;
        let (key, chain_code) = match self.curve {
            HdCurve::Secp256k1 => {
                let (k, c) = step::<Secp256k1, Slip10>(&self.key, &self.chain_code, index)?;
                (k.try_into().ok(), c)
            }
            HdCurve::Ed25519 => {
                let (k, c) = step::<Ed25519, Edwards>(&self.key[1..], &self.chain_code, index)?;
                let mut key = [0u8; 33];
                key[1..].copy_from_slice(&k);
                (Some(key).filter(|_| k.len() == 32), c)
            }
        };
        Ok(ExtendedPublicKey {
            curve: self.curve,
            depth: self.depth + 1,
            parent_fingerprint: self.fingerprint(),
            child_number: i,
            chain_code,
            key: key.ok_or_else(|| derivation("a child key of the wrong length".into()))?,
        })
    }

    /// BIP-32's fingerprint: the first four bytes of HASH160 of the key field.
    pub fn fingerprint(&self) -> [u8; 4] {
        let hash = Ripemd160::digest(Sha256::digest(self.key));
        [hash[0], hash[1], hash[2], hash[3]]
    }

    /// BIP-32's 78-byte serialization: version (mainnet public), depth, parent fingerprint,
    /// child number, chain code, key.
    pub fn to_bytes(&self) -> [u8; EXTENDED_KEY_LEN] {
        let mut out = [0u8; EXTENDED_KEY_LEN];
        out[..4].copy_from_slice(&XPUB_VERSION);
        out[4] = self.depth;
        out[5..9].copy_from_slice(&self.parent_fingerprint);
        out[9..13].copy_from_slice(&self.child_number.to_be_bytes());
        out[13..45].copy_from_slice(&self.chain_code);
        out[45..].copy_from_slice(&self.key);
        out
    }

    /// Decodes [`ExtendedPublicKey::to_bytes`]: a mainnet `xpub` whose key is a point of its
    /// curve (key byte `0x00` for Ed25519, `0x02`/`0x03` for secp256k1). Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bytes: &[u8; EXTENDED_KEY_LEN] = bytes
            .try_into()
            .map_err(|_| extended("not 78 bytes long"))?;
        if bytes[..4] != XPUB_VERSION {
            return Err(extended("not a mainnet extended public key (xpub)"));
        }
        let curve = match bytes[45] {
            0x00 => HdCurve::Ed25519,
            _ => HdCurve::Secp256k1,
        };
        let take = |from: usize| -> [u8; 4] {
            [
                bytes[from],
                bytes[from + 1],
                bytes[from + 2],
                bytes[from + 3],
            ]
        };
        let mut chain_code = [0u8; 32];
        chain_code.copy_from_slice(&bytes[13..45]);
        let mut key = [0u8; 33];
        key.copy_from_slice(&bytes[45..]);
        let xpub = ExtendedPublicKey {
            curve,
            depth: bytes[4],
            parent_fingerprint: take(5),
            child_number: u32::from_be_bytes(take(9)),
            chain_code,
            key,
        };
        if xpub.depth == 0 && (xpub.parent_fingerprint != [0; 4] || xpub.child_number != 0) {
            return Err(extended("a master key (depth 0) with a parent"));
        }
        xpub.check_point()?;
        Ok(xpub)
    }

    /// Base58Check text of [`ExtendedPublicKey::to_bytes`], as wallets show an `xpub`.
    pub fn to_base58(&self) -> String {
        bs58::encode(self.to_bytes()).with_check().into_string()
    }

    /// Decodes [`ExtendedPublicKey::to_base58`] (surrounding whitespace ignored).
    pub fn from_base58(text: &str) -> Result<Self, Error> {
        let text = text.trim();
        if text.len() > 2 * EXTENDED_KEY_LEN {
            return Err(extended("longer than an xpub"));
        }
        let bytes = bs58::decode(text)
            .with_check(None)
            .into_vec()
            .map_err(|_| extended("not Base58Check text (a wrong character or checksum)"))?;
        Self::from_bytes(&bytes)
    }

    /// The key field decodes to a point of the curve, other than the identity.
    fn check_point(&self) -> Result<(), Error> {
        let ok = match self.curve {
            HdCurve::Secp256k1 => point::<Secp256k1>(&self.key).is_ok(),
            HdCurve::Ed25519 => self.key[0] == 0 && point::<Ed25519>(&self.key[1..]).is_ok(),
        };
        if ok {
            Ok(())
        } else {
            Err(extended("its key is not a point of the curve"))
        }
    }
}

impl fmt::Display for ExtendedPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_base58())
    }
}

/// The extended public key a share gave, or the error of a share whose key generation gave no
/// chain code (alibi before derived keys), which has no children.
pub fn chain_coded(xpub: Option<ExtendedPublicKey>) -> Result<ExtendedPublicKey, Error> {
    xpub.ok_or_else(|| {
        derivation(
            "this key was generated without a chain code (before alibi derived keys): it has no \
             children"
                .into(),
        )
    })
}

/// A point other than the identity, from its encoding.
fn point<E: Curve>(bytes: &[u8]) -> Result<Point<E>, Error> {
    Point::<E>::from_bytes(bytes)
        .ok()
        .filter(|p| !p.is_zero())
        .ok_or_else(|| extended("its key is not a point of the curve"))
}

/// One derivation step with `H` on curve `E`: the child's compressed key and chain code.
fn step<E: Curve, H: HdWallet<E>>(
    key: &[u8],
    chain_code: &[u8; 32],
    index: NonHardenedIndex,
) -> Result<(Vec<u8>, [u8; 32]), Error> {
    let parent = hd_wallet::ExtendedPublicKey {
        public_key: point::<E>(key)?,
        chain_code: *chain_code,
    };
    let child = H::derive_child_public_key(&parent, index);
    if child.public_key.is_zero() {
        return Err(derivation(
            "the child key is the identity (probability 2^-127)".into(),
        ));
    }
    Ok((child.public_key.to_bytes(true).to_vec(), child.chain_code))
}

fn derivation(why: String) -> Error {
    Error::Derivation(why)
}

fn extended(why: &str) -> Error {
    Error::Derivation(format!("extended public key: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BIP-32's test vector 2 (bitcoin/bips, bip-0032.mediawiki): the master `xpub` and its
    /// non-hardened child m/0, derived from the public key alone.
    const V2_M: &str = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB";
    const V2_M_0: &str = "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH";
    /// BIP-32's test vector 1: m/0H (a hardened parent, given) and its child m/0H/1, and
    /// m/0H/1/2H/2 from m/0H/1/2H.
    const V1_M_0H: &str = "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw";
    const V1_M_0H_1: &str = "xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ";

    #[test]
    fn bip32_vectors_derive_from_the_public_key() {
        let m = ExtendedPublicKey::from_base58(V2_M).unwrap();
        assert_eq!(m.to_base58(), V2_M);
        let child = m.derive(&"m/0".parse().unwrap()).unwrap();
        assert_eq!(child.to_base58(), V2_M_0);
        let parent = ExtendedPublicKey::from_base58(V1_M_0H).unwrap();
        let child = parent.derive(&"m/1".parse().unwrap()).unwrap();
        assert_eq!(child.to_base58(), V1_M_0H_1);
    }

    #[test]
    fn paths_are_non_hardened_and_written_as_read() {
        for p in ["m", "m/0", "m/0/7", "m/2147483647"] {
            assert_eq!(p.parse::<DerivationPath>().unwrap().to_string(), p);
        }
        for bad in [
            "",
            "0/7",
            "m/",
            "m//1",
            "m/0'",
            "m/1h",
            "m/2147483648",
            "m/-1",
            "m/+1",
            "M/1",
            "m/1 ",
        ] {
            assert!(bad.parse::<DerivationPath>().is_err(), "{bad}");
        }
        let long = format!("m{}", "/1".repeat(MAX_DEPTH + 1));
        assert!(long.parse::<DerivationPath>().is_err());
    }

    #[test]
    fn extended_keys_refuse_what_is_not_one() {
        let good = ExtendedPublicKey::from_base58(V2_M).unwrap().to_bytes();
        let mut bad_point = good;
        bad_point[45] = 0x04;
        assert!(ExtendedPublicKey::from_bytes(&bad_point).is_err());
        let mut private = good;
        private[..4].copy_from_slice(&[0x04, 0x88, 0xad, 0xe4]);
        assert!(ExtendedPublicKey::from_bytes(&private).is_err());
        assert!(ExtendedPublicKey::from_bytes(&good[..77]).is_err());
        let mut orphan = good;
        orphan[12] = 1;
        assert!(ExtendedPublicKey::from_bytes(&orphan).is_err());
        assert!(ExtendedPublicKey::from_base58(&V2_M.replace('F', "G")).is_err());
    }

    /// Ed25519 keys derive and round-trip through the xpub layout, which a secp256k1 reader
    /// never takes for one of its own (the key byte 0x00).
    #[test]
    fn ed25519_keys_derive_and_round_trip() {
        let base = Point::<Ed25519>::generator().to_point();
        let m = ExtendedPublicKey::master(HdCurve::Ed25519, &base.to_bytes(true), [7; 32]).unwrap();
        let child = m.derive(&"m/0/7".parse().unwrap()).unwrap();
        assert_eq!(child.depth(), 2);
        assert_ne!(child.public_key(), m.public_key());
        let back = ExtendedPublicKey::from_base58(&child.to_base58()).unwrap();
        assert_eq!(back, child);
        assert_eq!(back.curve(), HdCurve::Ed25519);
    }
}
