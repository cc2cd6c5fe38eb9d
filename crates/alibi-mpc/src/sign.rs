//! Threshold signing in one broadcast round (seed 002, section 2): each signer sends
//! sigma_i = H(m)^x_i; every partial is checked against the signer's verification key
//! (e(g1, sigma_i) = e(vk_i, H(m)), blst's verification) so a bad one names its sender, and any t+1
//! valid partials combine by Lagrange interpolation in G2 into a signature that plain BLS
//! verification accepts under the group key.
//!
//! Partials are signed broadcasts ([`crate::echo`]): one withheld from some signers is asked for
//! and forwarded, and an invalid one is named by everyone on the same signed bytes. A closing
//! round settles the partials' attestations, so a signer that sent a valid partial to some and
//! an invalid one to others is named for equivocating by all. Since a BLS threshold signature is
//! unique, any t+1 valid partials give every signer the same signature. A signer left with t or
//! fewer runs the agreement steps (`src/agreement.rs`) with the others that stop, over the
//! partials themselves, so that all of them sign or all name the same parties.
//!
//! Each partial carries the digests of the message and of the group key it was made for
//! ([`Partial`]): a signer holding another message, or a share of another key generation, is
//! reported as such ([`Disagreement`]) instead of being named for a bad partial. When the run is
//! asked to finish with the first t+1 ([`SignConfig::first_t_plus_1`]), a signer stops waiting as
//! soon as it holds t+1 valid partials, its own included: the signature is the same whichever
//! they are, so the others are neither waited for nor named.

use std::time::Duration;

use std::collections::{BTreeMap, HashMap};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};

use crate::adversary;
use crate::dkg::KeyShare;
use crate::echo::{envelope_body, Run, BROADCAST};
use crate::poly::interpolate_g2;
use crate::transport::{Expect, Incoming, Transport};
use crate::{
    bls, check_indices, decode, digest, encode, Blame, Error, Fault, Party, PartyIndex, Result,
    SessionId, SignedBroadcast,
};

const R_PARTIAL: u16 = 1;
const R_CLOSE: u16 = 2;

/// The parameters of one signing run.
#[derive(Clone, Debug)]
pub struct SignConfig {
    /// The run's identifier, the same for every signer.
    pub session: SessionId,
    /// Who signs (this party among them); at least t+1.
    pub signers: Vec<PartyIndex>,
    /// How long to wait for the partial signatures.
    pub timeout: Duration,
    /// Whether the first t+1 valid partials finish the run: `signers` are then the parties asked,
    /// any t+1 of whom suffice, and those not heard from are not named. Otherwise every one of
    /// `signers` must sign.
    pub first_t_plus_1: bool,
    /// Test hook: how this party cheats.
    #[cfg(feature = "adversary")]
    pub misbehaviour: Option<crate::adversary::Misbehaviour>,
}

impl SignConfig {
    /// A signing by every one of `signers`, waiting `timeout` for the partial signatures.
    pub fn new(session: SessionId, signers: Vec<PartyIndex>, timeout: Duration) -> Self {
        SignConfig {
            session,
            signers,
            timeout,
            first_t_plus_1: false,
            #[cfg(feature = "adversary")]
            misbehaviour: None,
        }
    }

    /// A signing by any t+1 of `asked`: it finishes as soon as t+1 valid partials are in hand,
    /// waiting at most `timeout`.
    pub fn any_t_plus_1(session: SessionId, asked: Vec<PartyIndex>, timeout: Duration) -> Self {
        SignConfig {
            first_t_plus_1: true,
            ..SignConfig::new(session, asked, timeout)
        }
    }
}

/// Why a signer's partial was not combined, though nothing shows that it cheated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disagreement {
    /// Its partial is for another group key: its share is from another key generation (a rerun
    /// it missed, or one the others missed).
    OtherKeyGeneration,
    /// Its partial is for another message.
    OtherMessage,
}

impl core::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            Disagreement::OtherKeyGeneration => "its share is from another key generation",
            Disagreement::OtherMessage => "it signs another message",
        })
    }
}

/// What a signer broadcasts: its partial signature and the SHA-256 digests of the group key and
/// the message it signed for (the binding that lets a disagreement be told from a bad partial).
#[derive(Serialize, Deserialize)]
pub(crate) struct Partial {
    group_key: [u8; 32],
    message: [u8; 32],
    sigma: Vec<u8>,
}

/// This signer's side of the binding: the digests its partial carries and every other must match.
#[derive(Clone, Copy)]
pub(crate) struct Binding {
    group_key: [u8; 32],
    message: [u8; 32],
}

impl Binding {
    fn new(share: &KeyShare, message: &[u8]) -> Self {
        Binding {
            group_key: digest(&share.group_key),
            message: digest(message),
        }
    }

    /// The broadcast body for the partial signature `sigma`.
    pub(crate) fn body(&self, sigma: &[u8]) -> Vec<u8> {
        encode(&Partial {
            group_key: self.group_key,
            message: self.message,
            sigma: sigma.to_vec(),
        })
    }

    /// What a received body holds for this signer: a partial to check, a disagreement, or
    /// nothing that decodes.
    fn read(&self, body: &[u8]) -> Heard {
        match decode::<Partial>(body) {
            Err(_) => Heard::Malformed,
            Ok(p) if p.group_key != self.group_key => {
                Heard::Disagrees(Disagreement::OtherKeyGeneration)
            }
            Ok(p) if p.message != self.message => Heard::Disagrees(Disagreement::OtherMessage),
            Ok(p) => match <[u8; 96]>::try_from(p.sigma) {
                Ok(s) => Heard::Partial(s),
                Err(_) => Heard::Malformed,
            },
        }
    }
}

/// A received broadcast body, read against this signer's [`Binding`].
enum Heard {
    Partial([u8; 96]),
    Disagrees(Disagreement),
    Malformed,
}

/// The outcome of signing.
#[derive(Clone, Debug)]
pub struct Signed {
    /// The threshold signature (G2, compressed): a plain BLS signature under the group key.
    pub signature: [u8; 96],
    /// The signers whose partials were combined.
    pub combined: Vec<PartyIndex>,
    /// Who was named.
    pub blamed: Vec<Blame>,
    /// Signers whose partials were for another message or group key (not combined, not named).
    pub disagreeing: Vec<(PartyIndex, Disagreement)>,
}

fn point(sig: &[u8; 96]) -> Result<G2Projective> {
    Option::<G2Affine>::from(G2Affine::from_compressed(sig))
        .map(G2Projective::from)
        .ok_or(Error::Malformed("partial signature"))
}

/// The checks a received partial signature goes through, on untrusted bytes (the fuzz target
/// `mpc_messages`): the broadcast body ([`Partial`]) decoded, a verification key (48 bytes, compressed G1) and a partial (96 bytes), decoded
/// as signing decodes them, then the batch check and the single check.
pub(crate) fn fuzz_decoders<R: CryptoRng + ?Sized>(data: &[u8], rng: &mut R) {
    // A signer's broadcast body, as every other signer reads it.
    let _ = decode::<Partial>(data);
    let (Some(vk), Some(partial)) = (data.get(..48), data.get(48..144)) else {
        return;
    };
    let partial: &[u8; 96] = partial.try_into().expect("96 bytes");
    let _ = bls::verify(vk, b"m", partial);
    let vk_point = Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(
        vk.try_into().expect("48 bytes"),
    ));
    if let (Some(vk_point), Ok(sig)) = (vk_point, point(partial)) {
        let _ = bls::batch_verify_points(&[(vk_point.into(), sig)], b"m", rng);
        let _ = interpolate_g2(&[(1, sig), (2, sig)]);
    }
}

/// Signs `message` with `share` together with the other signers.
pub async fn sign<T: Transport, R: CryptoRng + ?Sized>(
    party: &Party,
    share: &KeyShare,
    config: &SignConfig,
    message: &[u8],
    transport: &mut T,
    rng: &mut R,
) -> Result<Signed> {
    let me = party.index;
    let t = share.threshold;
    check_indices(&config.signers)?;
    if share.index != me || !config.signers.contains(&me) || config.signers.len() <= t {
        return Err(Error::Parameters(format!(
            "need this party among at least t+1 = {} signers",
            t + 1
        )));
    }
    let mut run = Run::new(
        party,
        config.session,
        transport,
        config.timeout,
        rng,
        config.signers.iter().copied(),
    );
    run.hooks = adversary::sign_hooks(config);
    if let Some(e) = adversary::stop_falsely(&mut run).await {
        return Err(e);
    }
    let key = adversary::partial_key(&run.hooks, *share.secret())?;
    let mine = bls::sign(&key, message)?;
    let binding = Binding::new(share, message);
    adversary::equivocate_partial(&mut run.hooks, message, &binding)?;
    let others: Vec<PartyIndex> = run.active.iter().copied().collect();
    let body = Some(binding.body(&mine));
    let got = if config.first_t_plus_1 {
        let mut enough = quorum(share, binding, message);
        let expect = Expect {
            required: false,
            ..BROADCAST
        };
        run.round_until(R_PARTIAL, body, vec![], &others, expect, Some(&mut enough))
            .await?
    } else {
        let got = run
            .round(R_PARTIAL, body, vec![], &others, BROADCAST)
            .await?;
        run.closing_round(R_CLOSE).await?;
        got
    };
    let got = got
        .into_iter()
        .filter(|(p, _)| !run.is_blamed(*p))
        // A party nothing came from (in a first-t+1 signing) is not heard at all.
        .filter_map(|(p, g)| g.body.map(|b| (p, Some(b))))
        .collect::<Vec<_>>();
    let sorted = sort_partials(share, binding, message, (me, mine), got, &mut *run.rng);
    for &(p, fault) in &sorted.faults {
        run.blame(p, fault);
    }
    if sorted.valid.len() <= t {
        if config.first_t_plus_1 {
            return Err(too_few_of_any(run, &others, sorted));
        }
        return stop_alike(run, share, &config.signers, message, mine, binding).await;
    }
    let Some((signature, combined)) = combine(share, message, sorted.valid) else {
        return Err(run.too_few("the combined signature does not verify".into()));
    };
    let mut blamed = run.blamed;
    blamed.sort_by_key(|b| b.party);
    Ok(Signed {
        signature,
        combined,
        blamed,
        disagreeing: sorted.disagreeing,
    })
}

/// The test that ends a first-t+1 signing's wait: t other valid partials (with this signer's
/// own, t+1) among those that came. Each sender's partial is checked once.
fn quorum<'s>(
    share: &'s KeyShare,
    binding: Binding,
    message: &'s [u8],
) -> impl FnMut(&BTreeMap<PartyIndex, Incoming>) -> bool + Send + 's {
    let mut checked: HashMap<PartyIndex, bool> = HashMap::new();
    move |snap| {
        for (p, incoming) in snap {
            let Some(wire) = incoming.broadcasts.first() else {
                continue;
            };
            checked.entry(*p).or_insert_with(|| {
                let sigma = decode::<SignedBroadcast>(wire)
                    .ok()
                    .and_then(|sb| envelope_body(&sb.body))
                    .and_then(|body| match binding.read(&body) {
                        Heard::Partial(s) => Some(s),
                        _ => None,
                    });
                sigma.is_some_and(|s| {
                    share
                        .verification_keys
                        .get(p)
                        .is_some_and(|vk| bls::verify(vk, message, &s).is_ok())
                })
            });
        }
        checked.values().filter(|&&ok| ok).count() >= share.threshold
    }
}

/// A first-t+1 signing whose wait ended with t or fewer valid partials: the cheaters if any
/// were named, else the disagreeing signers, else the parties never heard from (named for
/// nothing: they may simply not have been started).
fn too_few_of_any<T: Transport, R: CryptoRng + ?Sized>(
    mut run: Run<'_, T, R>,
    asked: &[PartyIndex],
    sorted: Sorted,
) -> Error {
    if !run.blamed.is_empty() {
        let reason = format!(
            "{} valid partial signature{}, {} needed",
            sorted.valid.len(),
            if sorted.valid.len() == 1 { "" } else { "s" },
            sorted.needed
        );
        return run.too_few(reason);
    }
    if !sorted.disagreeing.is_empty() {
        return Error::Disagreed {
            disagreeing: sorted.disagreeing,
        };
    }
    let heard: Vec<PartyIndex> = sorted.valid.iter().map(|(p, _)| *p).collect();
    Error::Unreachable {
        round: R_PARTIAL,
        parties: asked
            .iter()
            .copied()
            .filter(|p| !heard.contains(p))
            .collect(),
    }
}

/// The partials heard, sorted: valid ones (this signer's own first), disagreements, and the
/// faults of those whose partial is malformed or does not verify.
struct Sorted {
    valid: Vec<(PartyIndex, G2Projective)>,
    disagreeing: Vec<(PartyIndex, Disagreement)>,
    faults: Vec<(PartyIndex, Fault)>,
    needed: usize,
}

/// Reads and checks each partial heard (own included, which is trusted; `None` for a broadcast
/// whose envelope does not decode): every one decoded once (in G2), one batch check, and each
/// alone only if that fails.
fn sort_partials<R: CryptoRng + ?Sized>(
    share: &KeyShare,
    binding: Binding,
    message: &[u8],
    (me, mine): (PartyIndex, [u8; 96]),
    heard: impl IntoIterator<Item = (PartyIndex, Option<Vec<u8>>)>,
    rng: &mut R,
) -> Sorted {
    let mut sorted = Sorted {
        valid: vec![],
        disagreeing: vec![],
        faults: vec![],
        needed: share.threshold + 1,
    };
    let mut partials: Vec<(PartyIndex, [u8; 96], G1Projective, G2Projective)> = vec![];
    let own = std::iter::once((me, Heard::Partial(mine)));
    let others = heard.into_iter().map(|(p, body)| {
        let heard = body.map_or(Heard::Malformed, |b| binding.read(&b));
        (p, heard)
    });
    for (p, heard) in own.chain(others) {
        let sigma = match heard {
            Heard::Partial(s) => s,
            Heard::Disagrees(how) => {
                sorted.disagreeing.push((p, how));
                continue;
            }
            Heard::Malformed => {
                sorted
                    .faults
                    .push((p, Fault::Malformed { round: R_PARTIAL }));
                continue;
            }
        };
        let decoded = share
            .verification_keys
            .get(&p)
            .and_then(|vk| <[u8; 48]>::try_from(vk.as_slice()).ok())
            // Our own share's keys (computed by key generation, or checked when the share file
            // was read): no subgroup check needed, and it would cost as much as the rest.
            .and_then(|vk| Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(&vk)))
            .and_then(|vk| Some((vk, point(&sigma).ok()?)));
        match decoded {
            Some((vk, sig)) => partials.push((p, sigma, vk.into(), sig)),
            None if p != me => sorted.faults.push((p, Fault::BadPartial)),
            None => {}
        }
    }
    let points: Vec<(G1Projective, G2Projective)> =
        partials.iter().map(|(_, _, vk, sig)| (*vk, *sig)).collect();
    let all_good = bls::batch_verify_points(&points, message, rng).is_ok();
    for (p, s, _, sig) in &partials {
        if all_good || bls::verify(&share.verification_keys[p], message, s).is_ok() {
            sorted.valid.push((*p, *sig));
        } else if *p != me {
            sorted.faults.push((*p, Fault::BadPartial));
        }
    }
    sorted
}

/// The first t+1 of `valid` (by index) combined, and their signers, if the result verifies
/// under the group key.
fn combine(
    share: &KeyShare,
    message: &[u8],
    mut valid: Vec<(PartyIndex, G2Projective)>,
) -> Option<([u8; 96], Vec<PartyIndex>)> {
    valid.sort_by_key(|(p, _)| *p);
    valid.truncate(share.threshold + 1);
    let signature = G2Affine::from(interpolate_g2(&valid)).to_compressed();
    bls::verify(&share.group_key, message, &signature).ok()?;
    Some((signature, valid.iter().map(|(p, _)| *p).collect()))
}

/// Signing that cannot finish on the partials this party holds. Before stopping, the signers
/// that stop agree ([`crate::agreement`]) on every partial any of them holds, so that a partial
/// shown to one of them alone at the last moment counts for all of them or for none; judged on
/// that alone, they all finish with the same signature or all stop naming the same parties.
async fn stop_alike<T: Transport, R: CryptoRng + ?Sized>(
    mut run: Run<'_, T, R>,
    share: &KeyShare,
    signers: &[PartyIndex],
    message: &[u8],
    mine: [u8; 96],
    binding: Binding,
) -> Result<Signed> {
    let me = run.party.index;
    let t = share.threshold;
    let steps = (share.parties.len() - t) as u16;
    let agreed = run.agree(steps, &[R_PARTIAL], signers).await;
    let mut blamed = agreed.blames();
    let mut heard = vec![];
    for &s in signers.iter().filter(|&&s| s != me) {
        if agreed.equivocated(s).is_some() {
            continue;
        }
        match agreed.said(R_PARTIAL, s) {
            None => blamed.push(Blame {
                party: s,
                fault: Fault::Silent { round: R_PARTIAL },
            }),
            Some(signed) => heard.push((s, envelope_body(signed))),
        }
    }
    let sorted = sort_partials(share, binding, message, (me, mine), heard, &mut *run.rng);
    blamed.extend(
        sorted
            .faults
            .iter()
            .map(|&(party, fault)| Blame { party, fault }),
    );
    blamed.sort_by_key(|b| b.party);
    if sorted.valid.len() > t {
        if let Some((signature, combined)) = combine(share, message, sorted.valid.clone()) {
            return Ok(Signed {
                signature,
                combined,
                blamed,
                disagreeing: sorted.disagreeing,
            });
        }
    }
    if blamed.is_empty() && !sorted.disagreeing.is_empty() {
        return Err(Error::Disagreed {
            disagreeing: sorted.disagreeing,
        });
    }
    if !blamed.is_empty()
        && blamed
            .iter()
            .all(|b| matches!(b.fault, Fault::Silent { .. }))
    {
        return Err(Error::Unreachable {
            round: R_PARTIAL,
            parties: blamed.iter().map(|b| b.party).collect(),
        });
    }
    let n = sorted.valid.len();
    Err(Error::Aborted {
        reason: format!(
            "{n} valid partial signature{}, {} needed",
            if n == 1 { "" } else { "s" },
            t + 1
        ),
        blamed,
    })
}
