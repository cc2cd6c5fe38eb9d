//! Threshold ECDSA in two phases over a [`Net`]: the signers presign ahead of time
//! ([`presign`]), then sign a message in one round ([`sign_presigned`]): each broadcasts its
//! partial signature and every signer combines them, naming the signer of a partial that does
//! not match its presignature.
//!
//! A [`Presignature`] signs once: [`sign_presigned`] consumes it. Keeping a stored one from
//! being used twice (a crash, a restored backup) is its holder's duty: destroy or mark it used
//! before the partial signature leaves (cggmp24's rule: two messages signed with one
//! presignature give the key away).

use alibi_threshold::Header;
use alibi_threshold_ecdsa as ecdsa;
use round_based::MpcParty;
use zeroize::Zeroizing;

use super::external::{ecdsa_err, read_indices, settled, signer_positions, write_indices, Held};
use super::Scheme;
use crate::delivery::delivery_from;
use crate::net::Net;
use crate::transport::Transport;
use crate::{Blame, Error, Fault, PartyIndex, Result};

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
