//! Presignatures: CGGMP24's signing split into an offline part, run by the `t + 1` signers ahead
//! of time ([`presign`]), and an online part of one round: each signer issues its partial
//! signature on the message alone ([`Presignature::issue`]) and anyone holding the presignature's
//! public part combines the `t + 1` partials ([`Presigned::combine`]).
//!
//! Two rules keep the key safe, as cggmp24's authors state them:
//!
//! * **A presignature signs once.** Two messages signed with one presignature give the key away.
//!   [`Presignature::issue`] consumes it; what is stored (its encoding) must be destroyed or
//!   marked used before the partial signature leaves the party.
//! * **A presignature signs a message, never a digest the caller hands in.** Whoever picks a
//!   digest without knowing a preimage can make a presignature sign something else; so
//!   [`Presignature::issue`] takes the message and hashes it itself (SHA-256, as [`crate::sign`]).

use cggmp24::generic_ec::coords::AlwaysHasAffineX;
use cggmp24::generic_ec::{Point, Scalar};
use cggmp24::signing::{PartialSignature, PresignatureCommitment, PresignaturePublicData};
use cggmp24::{DataToSign, ExecutionId};
use rand_core_06::{CryptoRng, RngCore};
use round_based::Mpc;
use serde::{Deserialize, Serialize};
use sha2_010::Sha256;
use zeroize::Zeroizing;

use alibi_threshold::{watched, Header};

use crate::protocol::{failed, signing_start};
use crate::{Curve, Error, KeyShare, SigningMsg, PUBLIC_KEY_LEN, SIGNATURE_LEN};

/// The header of a presignature's encoding.
const PRESIGNATURE: Header = Header {
    what: "presignature",
    magic: *b"ATPS",
    version: 1,
};

/// The length of a [`Partial`]'s encoding: the signer's position (u16, big-endian) and its
/// share of `s` (32 bytes, big-endian).
pub const PARTIAL_LEN: usize = 2 + 32;

/// The public part of a presignature, the same at every signer: what [`Presigned::combine`]
/// checks each partial signature against, and the signer list and key it was made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presigned {
    /// The keygen indices of the signers, in the order of their positions.
    signers: Vec<u16>,
    public_key: [u8; PUBLIC_KEY_LEN],
    data: PresignaturePublicData<Curve>,
}

/// One signer's presignature: its secret part (wiped on drop) and the public part.
/// Not `Clone`: a presignature must not be copied, since it signs once.
pub struct Presignature {
    me: u16,
    secret: cggmp24::signing::Presignature<Curve>,
    public: Presigned,
}

/// A signer's partial signature on one message: its position among the signers and its share
/// of `s`. Public (it reveals nothing once combined, and nothing alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partial {
    /// The signer's position in the presignature's signer list.
    pub position: u16,
    sigma: Scalar<Curve>,
}

/// The serde form of a presignature's encoding (JSON after the header).
#[derive(Serialize, Deserialize)]
struct Stored {
    signers: Vec<u16>,
    me: u16,
    public_key: Vec<u8>,
    secret: cggmp24::signing::Presignature<Curve>,
    /// `(Delta_j, S_j)` of every signer, in position order.
    commitments: Vec<(Point<Curve>, Point<Curve>)>,
}

/// One signer's side of the offline phase: `signers` (exactly `t + 1` distinct keygen indices,
/// this share's among them, in the same order at every signer) run CGGMP24's presigning; the
/// party's indices in the run are the positions in `signers`. `session` must differ for every
/// presignature of a key (it is the run's execution id, as [`crate::sign`]'s).
pub async fn presign<R, P>(
    rng: &mut R,
    session: &[u8],
    share: &KeyShare,
    signers: &[u16],
    party: P,
) -> Result<Presignature, Error>
where
    R: RngCore + CryptoRng,
    P: Mpc<ProtocolMessage = SigningMsg>,
{
    let (me, valid, eid) = signing_start(share, signers, b"presign", session)?;
    let (party, watch) = watched(party);
    let (secret, data) = cggmp24::signing(ExecutionId::new(&eid), me, signers, valid)
        .generate_presignature(rng, party)
        .await
        .map_err(|e| failed(&watch, &e))?;
    Ok(Presignature {
        me,
        secret,
        public: Presigned {
            signers: signers.to_vec(),
            public_key: share.public_key(),
            data,
        },
    })
}

impl Presignature {
    /// This signer's partial signature on `message` (hashed here with SHA-256), and the public
    /// part that combines it with the others'. Consumes the presignature: it signs once.
    pub fn issue(self, message: &[u8]) -> (Partial, Presigned) {
        let position = self.me;
        let Presignature { secret, public, .. } = self;
        let sigma = secret
            .issue_partial_signature(DataToSign::digest::<Sha256>(message))
            .sigma;
        (Partial { position, sigma }, public)
    }

    /// The public part, for a look before signing (the signers and the key).
    pub fn public(&self) -> &Presigned {
        &self.public
    }

    /// The encoding: `"ATPS"`, version 1, then JSON (the signer list, this signer's position,
    /// the public key, cggmp24's secret presignature and every signer's commitments). Secret:
    /// seal it at rest, and destroy it when it has signed.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let stored = Stored {
            signers: self.public.signers.clone(),
            me: self.me,
            public_key: self.public.public_key.to_vec(),
            secret: self.secret.clone(),
            commitments: self
                .public
                .data
                .commitments
                .iter()
                .map(|c| (c.tilde_Delta, c.tilde_S))
                .collect(),
        };
        // Room for the whole JSON up front, so that no reallocation leaves a copy behind.
        let mut out = PRESIGNATURE.write(1024 + 300 * self.public.signers.len());
        serde_json::to_writer(&mut *out, &stored)
            .map_err(|_| Error::Malformed("presignature: cannot be encoded"))?;
        Ok(out)
    }

    /// Decodes [`Presignature::to_bytes`], checking that its parts belong together (never
    /// panics; the error never quotes the input).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let body = PRESIGNATURE.open(bytes)?;
        let stored: Stored = serde_json::from_slice(body)
            .map_err(|_| Error::Malformed("presignature: invalid body"))?;
        let public_key: [u8; PUBLIC_KEY_LEN] = stored
            .public_key
            .as_slice()
            .try_into()
            .map_err(|_| Error::Malformed("presignature: public key not 33 bytes"))?;
        let n = stored.signers.len();
        if n < 2 || stored.commitments.len() != n || usize::from(stored.me) >= n {
            return Err(Error::Malformed(
                "presignature: signers, commitments and position disagree",
            ));
        }
        let commitments = stored
            .commitments
            .into_iter()
            .map(|(delta, s)| PresignatureCommitment {
                tilde_Delta: delta,
                tilde_S: s,
            })
            .collect();
        Ok(Presignature {
            me: stored.me,
            public: Presigned {
                signers: stored.signers,
                public_key,
                data: PresignaturePublicData {
                    Gamma: stored.secret.Gamma,
                    commitments,
                },
            },
            secret: stored.secret,
        })
    }
}

impl Presigned {
    /// The keygen indices of the signers, in position order.
    pub fn signers(&self) -> &[u16] {
        &self.signers
    }

    /// The key the presignature signs under, SEC1 compressed.
    pub fn public_key(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.public_key
    }

    /// Combines one partial signature from every signer into the signature on `message`
    /// (`r || s`, `s` low), checked with k256 before it is returned. Each partial is checked
    /// against its signer's commitments first: one that fails is an abort naming that signer's
    /// position ([`alibi_threshold::Error::Aborted`]); a missing or repeated position is refused
    /// as parameters.
    pub fn combine(
        &self,
        partials: &[Partial],
        message: &[u8],
    ) -> Result<[u8; SIGNATURE_LEN], Error> {
        let ordered = self.in_position_order(partials)?;
        let m = DataToSign::<Curve>::digest::<Sha256>(message).to_scalar();
        let gamma = self.data.Gamma;
        let r = gamma.x().to_scalar();
        let blamed: Vec<u16> = (0u16..)
            .zip(ordered.iter().zip(&self.data.commitments))
            .filter(|(_, (p, c))| p.sigma * gamma != m * c.tilde_Delta + r * c.tilde_S)
            .map(|(j, _)| j)
            .collect();
        if !blamed.is_empty() {
            return Err(Error::Threshold(alibi_threshold::Error::Aborted {
                reason: "a partial signature does not match its signer's presignature".into(),
                blamed,
            }));
        }
        let cggmp: Vec<PartialSignature<Curve>> = ordered
            .iter()
            .map(|p| PartialSignature { sigma: p.sigma })
            .collect();
        let sig =
            PartialSignature::combine(&cggmp, &self.data, DataToSign::digest::<Sha256>(message))
                .ok_or(Error::Malformed(
                    "partial signatures: they combine to no signature",
                ))?;
        let mut out = [0u8; SIGNATURE_LEN];
        sig.write_to_slice(&mut out);
        crate::verify(&self.public_key, message, &out)?;
        Ok(out)
    }

    /// `partials` sorted by position, exactly one for each signer.
    fn in_position_order<'a>(&self, partials: &'a [Partial]) -> Result<Vec<&'a Partial>, Error> {
        let n = self.signers.len();
        let mut ordered: Vec<Option<&Partial>> = vec![None; n];
        for p in partials {
            let slot = ordered.get_mut(usize::from(p.position)).ok_or_else(|| {
                parameters(format!(
                    "partial signature from position {} of {n}",
                    p.position
                ))
            })?;
            if slot.replace(p).is_some() {
                return Err(parameters(format!(
                    "two partial signatures from position {}",
                    p.position
                )));
            }
        }
        ordered
            .into_iter()
            .enumerate()
            .map(|(j, p)| {
                p.ok_or_else(|| parameters(format!("no partial signature from position {j}")))
            })
            .collect()
    }
}

/// Parameters refused before anything is combined.
fn parameters(why: String) -> Error {
    Error::Threshold(alibi_threshold::Error::Parameters(why))
}

impl Partial {
    /// The encoding: the position (u16, big-endian), then the share of `s` (32 bytes,
    /// big-endian).
    pub fn to_bytes(&self) -> [u8; PARTIAL_LEN] {
        let mut out = [0u8; PARTIAL_LEN];
        out[..2].copy_from_slice(&self.position.to_be_bytes());
        out[2..].copy_from_slice(self.sigma.to_be_bytes().as_bytes());
        out
    }

    /// Decodes [`Partial::to_bytes`]: 34 bytes, a scalar below the group order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bytes: &[u8; PARTIAL_LEN] = bytes
            .try_into()
            .map_err(|_| Error::Malformed("partial signature: not 34 bytes"))?;
        let position = u16::from_be_bytes([bytes[0], bytes[1]]);
        let sigma = Scalar::<Curve>::from_be_bytes(&bytes[2..])
            .map_err(|_| Error::Malformed("partial signature: not a scalar below the order"))?;
        Ok(Partial { position, sigma })
    }
}

impl std::fmt::Debug for Presignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Presignature")
            .field("position", &self.me)
            .field("signers", &self.public.signers)
            .finish_non_exhaustive()
    }
}
