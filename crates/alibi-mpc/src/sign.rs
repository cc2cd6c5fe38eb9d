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

use std::time::Duration;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use rand_core::CryptoRng;

use crate::adversary;
use crate::dkg::KeyShare;
use crate::echo::{envelope_body, Run, BROADCAST};
use crate::poly::interpolate_g2;
use crate::transport::Transport;
use crate::{bls, check_indices, Blame, Error, Fault, Party, PartyIndex, Result, SessionId};

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
    /// Test hook: how this party cheats.
    #[cfg(feature = "adversary")]
    pub misbehaviour: Option<crate::adversary::Misbehaviour>,
}

impl SignConfig {
    /// A signing by `signers`, waiting `timeout` for the partial signatures.
    pub fn new(session: SessionId, signers: Vec<PartyIndex>, timeout: Duration) -> Self {
        SignConfig {
            session,
            signers,
            timeout,
            #[cfg(feature = "adversary")]
            misbehaviour: None,
        }
    }
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
}

fn point(sig: &[u8; 96]) -> Result<G2Projective> {
    Option::<G2Affine>::from(G2Affine::from_compressed(sig))
        .map(G2Projective::from)
        .ok_or(Error::Malformed("partial signature"))
}

/// The checks a received partial signature goes through, on untrusted bytes (the fuzz target
/// `mpc_messages`): a verification key (48 bytes, compressed G1) and a partial (96 bytes), decoded
/// as signing decodes them, then the batch check and the single check.
pub(crate) fn fuzz_decoders<R: CryptoRng + ?Sized>(data: &[u8], rng: &mut R) {
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
    adversary::equivocate_partial(&mut run.hooks, message)?;
    let others: Vec<PartyIndex> = run.active.iter().copied().collect();
    let body = Some(mine.to_vec());
    let got = run
        .round(R_PARTIAL, body, vec![], &others, BROADCAST)
        .await?;
    run.closing_round(R_CLOSE).await?;
    let got: Vec<_> = got
        .into_iter()
        .filter(|(p, _)| !run.is_blamed(*p))
        .collect();
    // Every partial that came, own included, decoded once (in G2); one batch check, and each
    // alone only if it fails.
    let mut partials: Vec<(PartyIndex, [u8; 96], G1Projective, G2Projective)> = vec![];
    let own = (me, mine);
    let received = got.into_iter().map(|(p, g)| {
        (
            p,
            g.body.as_deref().and_then(|b| <[u8; 96]>::try_from(b).ok()),
        )
    });
    for (p, partial) in [(own.0, Some(own.1))].into_iter().chain(received) {
        let decoded = partial.and_then(|s| {
            let vk = share
                .verification_keys
                .get(&p)?
                .as_slice()
                .try_into()
                .ok()?;
            // Our own share's keys (computed by key generation, or checked when the share file
            // was read): no subgroup check needed, and it would cost as much as the rest.
            let vk = Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(vk))?;
            Some((s, vk.into(), point(&s).ok()?))
        });
        match decoded {
            Some((s, vk, sig)) => partials.push((p, s, vk, sig)),
            None if p != me => run.blame(p, Fault::BadPartial),
            None => {}
        }
    }
    let points: Vec<(G1Projective, G2Projective)> =
        partials.iter().map(|(_, _, vk, sig)| (*vk, *sig)).collect();
    let all_good = bls::batch_verify_points(&points, message, &mut *run.rng).is_ok();
    let mut valid: Vec<(PartyIndex, G2Projective)> = vec![];
    for (p, s, _, sig) in &partials {
        if all_good || bls::verify(&share.verification_keys[p], message, s).is_ok() {
            valid.push((*p, *sig));
        } else if *p != me {
            run.blame(*p, Fault::BadPartial);
        }
    }
    if valid.len() <= t {
        return stop_alike(run, share, &config.signers, message, mine).await;
    }
    let Some((signature, combined)) = combine(share, message, valid) else {
        return Err(run.too_few("the combined signature does not verify".into()));
    };
    let mut blamed = run.blamed;
    blamed.sort_by_key(|b| b.party);
    Ok(Signed {
        signature,
        combined,
        blamed,
    })
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
) -> Result<Signed> {
    let me = run.party.index;
    let t = share.threshold;
    let steps = (share.parties.len() - t) as u16;
    let agreed = run.agree(steps, &[R_PARTIAL], signers).await;
    let mut blamed = agreed.blames();
    let mut valid = vec![(me, point(&mine)?)];
    for &s in signers.iter().filter(|&&s| s != me) {
        if agreed.equivocated(s).is_some() {
            continue;
        }
        let Some(signed) = agreed.said(R_PARTIAL, s) else {
            blamed.push(Blame {
                party: s,
                fault: Fault::Silent { round: R_PARTIAL },
            });
            continue;
        };
        let Some(body) = envelope_body(signed) else {
            blamed.push(Blame {
                party: s,
                fault: Fault::Malformed { round: R_PARTIAL },
            });
            continue;
        };
        let checked = <[u8; 96]>::try_from(body).ok().and_then(|p| {
            let vk = share.verification_keys.get(&s)?;
            bls::verify(vk, message, &p).ok()?;
            point(&p).ok()
        });
        match checked {
            Some(sig) => valid.push((s, sig)),
            None => blamed.push(Blame {
                party: s,
                fault: Fault::BadPartial,
            }),
        }
    }
    blamed.sort_by_key(|b| b.party);
    if valid.len() > t {
        if let Some((signature, combined)) = combine(share, message, valid.clone()) {
            return Ok(Signed {
                signature,
                combined,
                blamed,
            });
        }
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
    Err(Error::Aborted {
        reason: format!("{} valid partial signatures, {} needed", valid.len(), t + 1),
        blamed,
    })
}
