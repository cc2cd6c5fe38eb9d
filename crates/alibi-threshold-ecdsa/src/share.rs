//! What the protocols leave with a party: the core share of [`crate::keygen`], the auxiliary
//! info of [`crate::aux_info_gen`], and the complete [`KeyShare`] that signs.

use std::fmt;

use cggmp24::backend::Integer;
use cggmp24::generic_ec::Point;
use cggmp24::key_share::{DirtyAuxInfo, DirtyIncompleteKeyShare, DirtyKeyShare, Valid};
use zeroize::Zeroizing;

use crate::primes::wipe;
use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey, HdCurve};
use alibi_threshold::Header;

use crate::{Curve, Error, Security, PUBLIC_KEY_LEN};

/// The header of CGGMP24's key share; version 1 was cggmp21's.
const HEADER: Header = Header {
    what: "key share",
    magic: *b"ATEK",
    version: 2,
};

/// A party's output of [`crate::keygen`]: its secret share of the key and every party's public
/// share (cggmp24's incomplete key share). It signs once joined with an [`AuxInfo`] by
/// [`KeyShare::from_parts`]. The secret scalar zeroizes itself on drop (generic-ec's
/// `SecretScalar`); `Debug` shows public fields only.
pub struct CoreShare {
    pub(crate) inner: DirtyIncompleteKeyShare<Curve>,
}

/// A party's output of [`crate::aux_info_gen`]: its Paillier primes (secret, overwritten on
/// drop) and every party's public Paillier key and ring-Pedersen parameters.
pub struct AuxInfo {
    pub(crate) i: u16,
    pub(crate) inner: DirtyAuxInfo<Security>,
}

/// A party's complete key share (cggmp24's `KeyShare`: the core share and the auxiliary info),
/// what [`crate::sign`] takes.
///
/// **Encoding** ([`KeyShare::to_bytes`], version 2): `"ATEK"`, the version byte `2`, then
/// cggmp24's `KeyShare<Secp256k1, SecurityLevel128>` as serde JSON (its own field names: `core`
/// with the secret scalar `x`, the public shares and the VSS setup; `aux` with the secret primes
/// `p`, `q`, every party's Paillier key `N` and ring-Pedersen parameters `hat_N`, `s`, `t`);
/// without precomputed tables (`multiexp`, `crt`), which [`KeyShare::from_bytes`] refuses. The
/// bytes are secret: seal them at rest. Version 1, cggmp21's share (alibi before CGGMP24, whose
/// ring-Pedersen parameters reused `N`), is refused with a message that says so.
///
/// On drop the secret scalar zeroizes itself and the primes are overwritten (best effort: the
/// big-integer code and serde may have left copies); `Debug` shows the public fields only.
pub struct KeyShare {
    inner: DirtyKeyShare<Curve, Security>,
}

/// The SEC1 compressed encoding of a point (33 bytes on secp256k1).
fn compressed(point: &Point<Curve>) -> [u8; PUBLIC_KEY_LEN] {
    let mut out = [0u8; PUBLIC_KEY_LEN];
    let bytes = point.to_bytes(true);
    // A compressed secp256k1 point is always 33 bytes, so the zip covers all of `out`.
    for (o, b) in out.iter_mut().zip(bytes.as_bytes()) {
        *o = *b;
    }
    out
}

impl CoreShare {
    /// This party's index `0..n` at key generation.
    pub fn index(&self) -> u16 {
        self.inner.i
    }

    /// The key's public key, SEC1 compressed (33 bytes); equal at every party.
    pub fn public_key(&self) -> [u8; PUBLIC_KEY_LEN] {
        compressed(&self.inner.shared_public_key)
    }
}

impl AuxInfo {
    /// Wraps cggmp24's output without its precomputed tables: the CRT table it keeps for this
    /// party's own ring-Pedersen modulus holds that modulus's secret factors in one more place
    /// nothing wipes, and only speeds up checks (tables are never written or read, see
    /// [`KeyShare`]).
    pub(crate) fn new(i: u16, mut inner: DirtyAuxInfo<Security>) -> Self {
        for params in &mut inner.pedersen_params {
            params.crt = None;
            params.multiexp = None;
        }
        AuxInfo { i, inner }
    }

    /// This party's index `0..n` at the auxiliary info generation.
    pub fn index(&self) -> u16 {
        self.i
    }
}

impl KeyShare {
    /// Joins a party's [`CoreShare`] and [`AuxInfo`]; they must be of the same party (index)
    /// and the same `n` parties.
    pub fn from_parts(core: CoreShare, mut aux: AuxInfo) -> Result<Self, Error> {
        if core.index() != aux.index() {
            return Err(parameters("core share and aux info of different parties"));
        }
        // AuxInfo overwrites its primes on drop, so its fields are taken rather than moved.
        let aux = DirtyAuxInfo {
            p: std::mem::replace(&mut aux.inner.p, Integer::zero()),
            q: std::mem::replace(&mut aux.inner.q, Integer::zero()),
            N: std::mem::take(&mut aux.inner.N),
            pedersen_params: std::mem::take(&mut aux.inner.pedersen_params),
            security_level: std::marker::PhantomData,
        };
        let share = KeyShare {
            inner: DirtyKeyShare {
                core: core.inner,
                aux,
            },
        };
        share
            .valid()
            .map_err(|_| parameters("core share and aux info do not belong together"))?;
        Ok(share)
    }

    /// The share as cggmp24's validated type (validation is cheap: sizes, gcds, `N_i = p q`).
    pub(crate) fn valid(&self) -> Result<&cggmp24::KeyShare<Curve, Security>, Error> {
        Valid::validate_ref(&self.inner).map_err(|_| Error::Malformed("key share: invalid"))
    }

    /// This party's index `0..n` at key generation (its index in a signer list).
    pub fn index(&self) -> u16 {
        self.inner.core.i
    }

    /// Number of parties holding the key.
    pub fn parties(&self) -> u16 {
        u16::try_from(self.inner.core.public_shares.len()).unwrap_or(u16::MAX)
    }

    /// `t`: how many parties may be corrupted; any `t + 1` sign, exactly that many (all `n`
    /// for a share without a threshold setup).
    pub fn threshold(&self) -> u16 {
        let min_signers = match &self.inner.core.vss_setup {
            Some(vss) => vss.min_signers,
            None => self.parties(),
        };
        min_signers.saturating_sub(1)
    }

    /// The key's public key, SEC1 compressed (33 bytes); what [`crate::verify`] takes.
    pub fn public_key(&self) -> [u8; PUBLIC_KEY_LEN] {
        compressed(&self.inner.core.shared_public_key)
    }

    /// The key's BIP-32 extended public key (the key and its chain code, depth 0): what anyone
    /// derives the children [`crate::sign`] signs under from. `None` for a share whose key
    /// generation gave no chain code (alibi before HD derivation).
    pub fn extended_public_key(&self) -> Option<ExtendedPublicKey> {
        let chain_code = self.inner.core.chain_code?;
        ExtendedPublicKey::master(HdCurve::Secp256k1, &self.public_key(), chain_code).ok()
    }

    /// The public key at `path` below the key (SEC1 compressed): the key itself at `m`, else
    /// its BIP-32 child, which needs [`KeyShare::extended_public_key`].
    pub fn public_key_at(&self, path: &DerivationPath) -> Result<[u8; PUBLIC_KEY_LEN], Error> {
        if path.is_master() {
            return Ok(self.public_key());
        }
        let child = alibi_threshold::hd::chain_coded(self.extended_public_key())?.derive(path)?;
        child
            .public_key()
            .try_into()
            .map_err(|_| Error::Malformed("derived key: not 33 bytes"))
    }

    /// The encoding described on [`KeyShare`].
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let mut out = HEADER.write(8192);
        serde_json::to_writer(&mut *out, &self.inner)
            .map_err(|_| Error::Malformed("key share: cannot be encoded"))?;
        Ok(out)
    }

    /// Decodes [`KeyShare::to_bytes`] and validates the share as cggmp24 does (consistent
    /// public shares and VSS setup, Paillier sizes, `N_i = p q`); never panics on bad bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let body = HEADER.open(bytes).map_err(|e| match e {
            alibi_threshold::Error::Version { found: 1, .. } => Error::Malformed(
                "key share: made with cggmp21 (alibi before CGGMP24); its auxiliary info cannot serve CGGMP24",
            ),
            e => Error::from(e),
        })?;
        let not_a_share = || Error::Malformed("key share: not cggmp24's key share");
        let json: serde_json::Value = serde_json::from_slice(body).map_err(|_| not_a_share())?;
        // fast-paillier reads a big integer's `radix` unchecked, and num-bigint panics on one
        // outside 2..=36 (found by the fuzz target): every radix is checked before decoding.
        if !radixes_in_range(&json) {
            return Err(Error::Malformed(
                "key share: a number's radix is not 2 to 36",
            ));
        }
        let inner: DirtyKeyShare<Curve, Security> =
            serde_json::from_value(json).map_err(|_| not_a_share())?;
        let share = KeyShare { inner };
        // Precomputed tables are never written by to_bytes; a table from untrusted bytes would
        // be used unchecked by the protocol.
        if share
            .inner
            .aux
            .pedersen_params
            .iter()
            .any(|p| p.multiexp.is_some() || p.crt.is_some())
        {
            return Err(Error::Malformed("key share: unexpected precomputed tables"));
        }
        share.valid()?;
        Ok(share)
    }
}

/// Whether every `radix` field in `v` (a big integer's, as fast-paillier writes them) is a number
/// from 2 to 36.
fn radixes_in_range(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().all(|(k, v)| {
            let ok = k != "radix" || v.as_u64().is_some_and(|r| (2..=36).contains(&r));
            ok && radixes_in_range(v)
        }),
        serde_json::Value::Array(a) => a.iter().all(radixes_in_range),
        _ => true,
    }
}

impl Drop for AuxInfo {
    fn drop(&mut self) {
        wipe(&mut self.inner.p);
        wipe(&mut self.inner.q);
    }
}

impl Drop for KeyShare {
    fn drop(&mut self) {
        wipe(&mut self.inner.aux.p);
        wipe(&mut self.inner.aux.q);
    }
}

/// Parameters that cannot make a share, as the threshold contract reports them.
fn parameters(why: &str) -> Error {
    Error::Threshold(alibi_threshold::Error::Parameters(why.to_owned()))
}

/// Lowercase hex, for the public keys `Debug` shows.
struct Hex<'a>(&'a [u8]);

impl fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for CoreShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CoreShare")
            .field("index", &self.index())
            .field("public_key", &Hex(&self.public_key()))
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for AuxInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuxInfo")
            .field("index", &self.i)
            .field("parties", &self.inner.N.len())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyShare")
            .field("index", &self.index())
            .field("parties", &self.parties())
            .field("threshold", &self.threshold())
            .field("public_key", &Hex(&self.public_key()))
            .finish_non_exhaustive()
    }
}
