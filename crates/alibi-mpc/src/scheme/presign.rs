//! Threshold ECDSA in two phases over a [`Net`]: the signers presign ahead of time
//! ([`presign`]), then sign a message in one round ([`sign_presigned`]): each broadcasts its
//! partial signature and every signer combines them, naming the signer of a partial that does
//! not match its presignature.
//!
//! A [`Presignature`] signs once: [`sign_presigned`] consumes it. Keeping a stored one from
//! being used twice (a crash, a restored backup) is its holder's duty: destroy or mark it used
//! before the partial signature leaves (cggmp24's rule: two messages signed with one
//! presignature give the key away).

use std::collections::VecDeque;

use alibi_threshold::Header;
use alibi_threshold_ecdsa as ecdsa;
use round_based::MpcParty;
use zeroize::Zeroizing;

use super::external::{ecdsa_err, read_indices, settled, signer_positions, write_indices, Held};
use super::{Scheme, Share};
use crate::delivery::delivery_from;
use crate::net::Net;
use crate::transport::Transport;
use crate::{Blame, Error, Fault, PartyIndex, Result, SessionId};

/// The header of [`Presignature::to_bytes`].
const HEADER: Header = Header {
    what: "threshold presignature",
    magic: *b"AMPS",
    version: 1,
};

/// The round of the online phase's partial signatures.
const ROUND_PARTIAL: u16 = 0;

/// One signer's presignature for a signature by one set of signers of a threshold ECDSA key:
/// the group indices of those signers and the scheme's presignature (secret; it signs once).
pub struct Presignature {
    /// The signers, as the group numbers them, in the order of the presigning run.
    signers: Vec<PartyIndex>,
    inner: ecdsa::Presignature,
}

impl Presignature {
    /// The parties that must sign with it, all of them, in the order they presigned.
    pub fn signers(&self) -> &[PartyIndex] {
        &self.signers
    }

    /// The key it signs under (SEC1 compressed), which must be the share's.
    pub fn public_key(&self) -> [u8; 33] {
        self.inner.public().public_key()
    }

    /// The encoding: `"AMPS"`, version 1, the number of signers and each group index (u16
    /// big-endian), then the scheme's presignature encoding. Secret: seal it at rest.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        let inner = self
            .inner
            .to_bytes()
            .map_err(|_| Error::Malformed("threshold presignature"))?;
        let mut out = HEADER.write(2 + 2 * self.signers.len() + inner.len());
        write_indices(&mut out, &self.signers);
        out.extend_from_slice(&inner);
        Ok(out)
    }

    /// Decodes [`Presignature::to_bytes`] (never panics).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = || Error::Malformed("threshold presignature");
        let rest = HEADER.open(bytes).map_err(|_| bad())?;
        let (signers, rest) = read_indices(rest).ok_or_else(bad)?;
        crate::check_indices(&signers)?;
        let inner = ecdsa::Presignature::from_bytes(rest).map_err(|_| bad())?;
        if inner.public().signers().len() != signers.len() {
            return Err(bad());
        }
        Ok(Presignature { signers, inner })
    }
}

impl core::fmt::Debug for Presignature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Presignature")
            .field("signers", &self.signers)
            .finish_non_exhaustive()
    }
}

/// Presigns with `share` among the net's participants (the signers: exactly t+1 parties of
/// key generation, checked by the caller).
pub(crate) async fn presign<T: Transport + 'static>(
    net: &Net<T>,
    share: &Held,
) -> Result<Presignature> {
    if share.scheme != Scheme::EcdsaSecp256k1 {
        return Err(Error::Parameters(format!(
            "presignatures are for ecdsa-secp256k1, not {}",
            share.scheme
        )));
    }
    let ours = |e| ecdsa_err(net.participants(), e);
    let inner = ecdsa::KeyShare::from_bytes(share.inner()).map_err(ours)?;
    let positions = signer_positions(net, share);
    let party = MpcParty::connected(delivery_from(net, 0));
    let session = net.session();
    let presig = ecdsa::presign(&mut alibi_frost::OsRng, &session, &inner, &positions, party).await;
    let inner = settled(net, presig.map_err(ours)).await?;
    Ok(Presignature {
        signers: net.participants().to_vec(),
        inner,
    })
}

/// Signs `message` with `presig` among the net's participants, who must be the presignature's
/// signers in the same order: this signer's partial to every other, theirs combined and checked.
/// Returns the 64-byte `r || s` signature, checked under the key by the scheme's combine.
pub(crate) async fn sign_presigned<T: Transport + 'static>(
    net: &Net<T>,
    presig: Presignature,
    message: &[u8],
) -> Result<Vec<u8>> {
    if presig.signers != net.participants() {
        return Err(Error::Parameters(format!(
            "the presignature is for signers {:?}, this run's are {:?}",
            presig.signers,
            net.participants()
        )));
    }
    let (mine, public) = presig.inner.issue(message);
    net.broadcast(ROUND_PARTIAL, mine.to_bytes().to_vec())
        .await?;
    let mut partials = vec![mine];
    while partials.len() < net.participants().len() {
        let m = net.recv_round(ROUND_PARTIAL).await?;
        let from = net.position(m.sender);
        match ecdsa::Partial::from_bytes(&m.bytes) {
            Ok(p) if Some(p.position) == from => partials.push(p),
            _ => {
                let blamed = [Blame {
                    party: m.sender,
                    fault: Fault::Malformed {
                        round: ROUND_PARTIAL,
                    },
                }];
                let reason = "a partial signature that is not the sender's";
                net.accuse(&blamed, reason).await;
                return Err(Error::Aborted {
                    reason: reason.into(),
                    blamed: blamed.to_vec(),
                });
            }
        }
    }
    let combined = public.combine(&partials, message);
    Ok(
        settled(net, combined.map_err(|e| ecdsa_err(net.participants(), e)))
            .await?
            .to_vec(),
    )
}

/// The header of [`Presignatures::to_bytes`].
const STORE: Header = Header {
    what: "stored presignatures",
    magic: *b"AMPB",
    version: 1,
};

/// At most this many presignatures in one store (a bound for decoding untrusted bytes).
pub const MAX_STORED: usize = 1 << 16;

/// One party's stock of presignatures for one share, numbered in the order they are used: the
/// share counts the numbers used ([`Share::presignatures_used`]), and [`Presignatures::take`]
/// refuses a number it counts, so that a store restored from an older copy, or kept after a
/// crash, never signs twice. Each presignature keeps the session of its presigning run, which
/// names it to the other signers.
#[derive(Debug, Default)]
pub struct Presignatures {
    /// The number of the first presignature held.
    first: u64,
    held: VecDeque<(SessionId, Presignature)>,
}

/// A presignature taken from a store: its number, the session that made it, and itself.
#[derive(Debug)]
pub struct Taken {
    /// Its number in this party's store.
    pub number: u64,
    /// The session of the run that made it, the same at every signer.
    pub made_by: SessionId,
    /// The presignature (it signs once).
    pub presignature: Presignature,
}

impl Presignatures {
    /// How many are held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The number of the next one to be taken.
    pub fn next_number(&self) -> u64 {
        self.first
    }

    /// Adds a presignature made by the run `made_by` with `share`, numbered after every held
    /// one and every one the share counts used; gives its number.
    pub fn push(&mut self, share: &Share, made_by: SessionId, presig: Presignature) -> Result<u64> {
        same_key(share, &presig)?;
        if self.held.len() >= MAX_STORED {
            return Err(Error::Parameters(format!(
                "a store holds at most {MAX_STORED} presignatures"
            )));
        }
        if self.held.is_empty() {
            self.first = self.first.max(share.presignatures_used());
        }
        self.held.push_back((made_by, presig));
        Ok(self.first + self.held.len() as u64 - 1)
    }

    /// Takes the next presignature and counts it used in `share`, which the caller must store
    /// (durably) before the partial signature leaves. Those the share counts used already are
    /// thrown away with [`Error::PresignatureUsed`]: store both and stop.
    pub fn take(&mut self, share: &mut Share) -> Result<Taken> {
        let next = share.presignatures_used();
        if self.first < next && !self.held.is_empty() {
            let number = self.first;
            let stale = usize::try_from(next - self.first).unwrap_or(usize::MAX);
            self.held.drain(..stale.min(self.held.len()));
            self.first = next;
            return Err(Error::PresignatureUsed { number, next });
        }
        let (made_by, presignature) = self
            .held
            .pop_front()
            .ok_or_else(|| Error::Parameters("no presignature left: presign more first".into()))?;
        same_key(share, &presignature)?;
        let number = self.first;
        self.first += 1;
        share.count_presignatures(self.first);
        Ok(Taken {
            number,
            made_by,
            presignature,
        })
    }

    /// The encoding: `"AMPB"`, version 1, the first number (u64 big-endian), the count (u32),
    /// then each presignature's session (16 bytes), length (u32) and [`Presignature::to_bytes`].
    /// Secret: seal it at rest.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>> {
        let mut out = STORE.write(12);
        out.extend_from_slice(&self.first.to_be_bytes());
        out.extend_from_slice(&(self.held.len() as u32).to_be_bytes());
        for (made_by, presig) in &self.held {
            let bytes = presig.to_bytes()?;
            out.extend_from_slice(made_by);
            out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            out.extend_from_slice(&bytes);
        }
        Ok(out)
    }

    /// Decodes [`Presignatures::to_bytes`] (never panics).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = || Error::Malformed("stored presignatures");
        let rest = STORE.open(bytes).map_err(|_| bad())?;
        let (first, rest) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
        let (count, mut rest) = rest.split_first_chunk::<4>().ok_or_else(bad)?;
        let count = u32::from_be_bytes(*count) as usize;
        if count > MAX_STORED {
            return Err(bad());
        }
        let mut held = VecDeque::with_capacity(count.min(rest.len() / 16));
        for _ in 0..count {
            let (made_by, more) = rest.split_first_chunk::<16>().ok_or_else(bad)?;
            let (len, more) = more.split_first_chunk::<4>().ok_or_else(bad)?;
            let len = u32::from_be_bytes(*len) as usize;
            let (item, more) = more.split_at_checked(len).ok_or_else(bad)?;
            held.push_back((*made_by, Presignature::from_bytes(item)?));
            rest = more;
        }
        if !rest.is_empty() {
            return Err(bad());
        }
        Ok(Presignatures {
            first: u64::from_be_bytes(*first),
            held,
        })
    }
}

/// Refuses a presignature for another key than the share's.
pub(crate) fn same_key(share: &Share, presig: &Presignature) -> Result<()> {
    if presig.public_key()[..] != *share.public_key() {
        return Err(Error::Parameters(
            "the presignature is for another key".into(),
        ));
    }
    Ok(())
}
