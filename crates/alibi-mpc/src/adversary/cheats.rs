//! The hooks of a cheating party, each acting as its [`Misbehaviour`] says.

use ff::Field;
use rand_core::CryptoRng;

use crate::curve::DkgCurve;
use crate::dkg::KeygenConfig;
use crate::echo::{Attestation, Run};
use crate::sign::{Binding, SignConfig};
use crate::transport::{Broadcast, Packet, Transport};
use crate::{bls, decode, digest, encode, Error, PartyIndex, SignedBroadcast};

/// Deliberate misbehaviour, for the tests that check a cheater is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misbehaviour {
    /// Deal a wrong (but signed) share to this party.
    BadShareTo(PartyIndex),
    /// Deal this party a share off by this much (signed): two colluders with opposite offsets
    /// to one victim cancel out in an unweighted sum.
    OffsetShareTo(PartyIndex, i64),
    /// As [`Misbehaviour::OffsetShareTo`], then fall silent after round 2 (so that the colluder's
    /// offset would be left alone in the victim's share).
    OffsetShareThenSilent(PartyIndex, i64),
    /// Send no broadcast to this party, and answer no wants (signing too).
    WithholdBroadcastFrom(PartyIndex),
    /// Send this party an invalid partial signature and the others a valid one (signing).
    EquivocatePartial,
    /// Send no share to this party in round 2 (then answer its complaint with a public reveal).
    WithholdShareFrom(PartyIndex),
    /// Send a different round-1 commitment to the lowest-numbered other party.
    EquivocateCommit,
    /// Sign partial signatures with a wrong key (see [`crate::sign`]).
    BadPartial,
    /// Commit to points outside the prime-order subgroup (G1, or Ed25519's) that still pass
    /// every share check (needs t >= 3).
    TorsionCommitment,
    /// Prove knowledge of a share one more than its own: a valid Schnorr proof for a
    /// verification key that is not the joint commitment's value at its index.
    WrongShareProof,
    /// Sign a second round-2 broadcast and hand it to this colluder alone, before round 6 (long
    /// after round 2: no honest party could echo it).
    SecretVersionTo(PartyIndex),
    /// A colluder of [`Misbehaviour::SecretVersionTo`]: confirm a wrong outcome (so that the
    /// honest parties stop), then in the closing round send this party alone the proof of the
    /// other's equivocation (the last moment: nobody echoes the closing round).
    ReleaseLateTo(PartyIndex),
    /// A colluder of [`Misbehaviour::SecretVersionTo`]: in the confirm round, send this party
    /// alone the proof of the other's equivocation, so that it alone confirms again.
    ShowInConfirmTo(PartyIndex),
    /// Broadcast random bytes (validly signed) instead of the round's message.
    Garbage {
        /// The round.
        round: u16,
    },
    /// Send this party alone random bytes (validly signed) as the round's message, the others
    /// the real one: two versions of one round, the garbled one seen by its victim only.
    GarbageTo {
        /// The round.
        round: u16,
        /// The party that gets the garbage.
        to: PartyIndex,
    },
    /// Send a signed stop notice at the start, as a party whose transport failed would, though
    /// nothing failed (signing too).
    Stop,
    /// Resharing: deal another secret than its old share (or than zero, for a party new to the
    /// key), consistently to everyone: only the constant term of its commitment shows it.
    DealOtherSecret,
    /// FROST and ECDSA (runs over a [`crate::net::Net`]): deal this party, in each round, the
    /// pairwise message sent to another ([`crate::net::Net::misdeal_to`]).
    MisdealTo(PartyIndex),
}

/// Round numbers the hooks act in (key generation's, docs/mpc.md).
const R_DECOMMIT: u16 = 2;
const R_CONFIRM: u16 = 6;
const R_CLOSE: u16 = 10;

/// What a cheating party does besides the protocol.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hooks {
    cheat: Option<Misbehaviour>,
    /// Send no broadcast to this party (and answer no wants).
    withhold_from: Option<PartyIndex>,
    /// The party that gets the other version when this party equivocates (the lowest-numbered
    /// other party when unset), or the late release.
    equivocate_to: Option<PartyIndex>,
    /// In this round, send `equivocate_to` alone a broadcast that carries every second version
    /// of another party's broadcast this party holds unread.
    release_late: Option<u16>,
    /// A second body for this round, for `equivocate_to`.
    other_body: Option<(u16, Vec<u8>)>,
}

fn hooks(cheat: Option<Misbehaviour>) -> Hooks {
    let mut h = Hooks {
        cheat,
        ..Hooks::default()
    };
    match cheat {
        Some(Misbehaviour::WithholdBroadcastFrom(v)) => h.withhold_from = Some(v),
        Some(Misbehaviour::ReleaseLateTo(v)) => {
            h.equivocate_to = Some(v);
            h.release_late = Some(R_CLOSE);
        }
        Some(Misbehaviour::ShowInConfirmTo(v)) => {
            h.equivocate_to = Some(v);
            h.release_late = Some(R_CONFIRM);
        }
        Some(Misbehaviour::GarbageTo { round, to }) => {
            h.equivocate_to = Some(to);
            h.other_body = Some((round, garble(&h, round, vec![0; 64])));
        }
        _ => {}
    }
    h
}

pub(crate) fn keygen_hooks<C: DkgCurve>(config: &KeygenConfig<C>) -> Hooks {
    hooks(config.misbehaviour)
}

pub(crate) fn sign_hooks(config: &SignConfig) -> Hooks {
    hooks(config.misbehaviour)
}

/// [`Misbehaviour::Stop`]: stops the run with a signed notice though nothing failed.
pub(crate) async fn stop_falsely<T: Transport, R: CryptoRng + ?Sized>(
    run: &mut Run<'_, T, R>,
) -> Option<Error> {
    if run.hooks.cheat != Some(Misbehaviour::Stop) {
        return None;
    }
    let reason = "transport: test: no fault at all";
    run.stop(reason).await;
    Some(Error::Transport(reason.into()))
}

/// Who gets which version of this round's broadcast `wire` (of `body`): an equivocator's
/// second body or a late release to its victim, or nothing to a party it withholds from.
pub(crate) fn shape<T: Transport, R: CryptoRng + ?Sized>(
    run: &mut Run<'_, T, R>,
    round: u16,
    body: &[u8],
    recipients: &[PartyIndex],
    wire: Vec<u8>,
) -> Broadcast {
    let attest = run.attestations();
    let late = (run.hooks.release_late == Some(round)).then(|| {
        let mut all = attest.clone();
        all.extend(unread_versions(run));
        run.sign_envelope(round, body.to_vec(), all)
    });
    let other = match &run.hooks.other_body {
        Some((r, other)) if *r == round => Some(run.sign_envelope(round, other.clone(), attest)),
        _ => None,
    };
    let victim = run.hooks.equivocate_to.or(recipients.first().copied());
    if let (Some(alt), Some(victim)) = (other.or(late), victim) {
        let to = |r: PartyIndex| {
            if r == victim {
                alt.clone()
            } else {
                wire.clone()
            }
        };
        return Broadcast::PerRecipient(recipients.iter().map(|&r| (r, to(r))).collect());
    }
    match run.hooks.withhold_from {
        Some(victim) => {
            run.transport.mailbox().set_answers(false);
            Broadcast::PerRecipient(
                recipients
                    .iter()
                    .filter(|&&r| r != victim)
                    .map(|&r| (r, wire.clone()))
                    .collect(),
            )
        }
        None => Broadcast::All(wire),
    }
}

/// Attestations of every second version of another party's broadcast that reached this
/// party's mailbox after it read the round (so it never passed them on).
fn unread_versions<T: Transport, R: CryptoRng + ?Sized>(run: &Run<'_, T, R>) -> Vec<Attestation> {
    let mailbox = run.transport.mailbox();
    let parties: Vec<PartyIndex> = run.party.roster.keys().copied().collect();
    let mut out = vec![];
    for round in 1..=run.last().unwrap_or(0) {
        for (sender, i) in mailbox.snapshot(run.session, round, &parties) {
            if i.broadcasts.len() < 2 {
                continue;
            }
            for sb in i
                .broadcasts
                .iter()
                .filter_map(|w| decode::<SignedBroadcast>(w).ok())
            {
                out.push(Attestation {
                    round,
                    sender,
                    digest: digest(&sb.body),
                    sig: sb.sig,
                });
            }
        }
    }
    out
}

/// [`Misbehaviour::Garbage`]: the round's body replaced by random bytes (and the victim's version of
/// [`Misbehaviour::GarbageTo`], drawn once).
pub(crate) fn garble(h: &Hooks, round: u16, body: Vec<u8>) -> Vec<u8> {
    match h.cheat {
        Some(Misbehaviour::Garbage { round: r } | Misbehaviour::GarbageTo { round: r, .. })
            if r == round && h.other_body.is_none() =>
        {
            let mut junk = vec![0u8; body.len().max(8)];
            rand_core::Rng::fill_bytes(&mut rand_core::UnwrapErr(getrandom::SysRng), &mut junk);
            junk
        }
        _ => body,
    }
}

/// [`Misbehaviour::TorsionCommitment`]: points 1 and 3 moved off the prime-order subgroup by
/// a point of small order (of order 3 in G1, 2 on Ed25519; secp256k1 has none).
pub(crate) fn commitment<C: DkgCurve>(h: &Hooks, points: &mut [Vec<u8>]) {
    if h.cheat != Some(Misbehaviour::TorsionCommitment) || points.len() <= 3 {
        return;
    }
    let Some(tor) = C::small_order_point() else {
        return;
    };
    for (k, sign) in [(1, -tor), (3, tor)] {
        if let Some(a) = C::decode_point(&points[k]) {
            points[k] = C::encode_points(&[a + sign]).remove(0);
        }
    }
}

/// [`Misbehaviour::EquivocateCommit`]: a second round-1 digest.
pub(crate) fn equivocate_commit(h: &mut Hooks, commit: &[u8; 32]) {
    if h.cheat == Some(Misbehaviour::EquivocateCommit) {
        let mut other = *commit;
        other[0] ^= 1;
        h.other_body = Some((1, encode(&other)));
    }
}

/// [`Misbehaviour::WithholdShareFrom`]: whether party `j` gets its share.
pub(crate) fn deals_to(h: &Hooks, j: PartyIndex) -> bool {
    h.cheat != Some(Misbehaviour::WithholdShareFrom(j))
}

/// [`Misbehaviour::BadShareTo`] and the offsets: the share dealt to `j`.
pub(crate) fn share_for<S: ff::PrimeField>(h: &Hooks, j: PartyIndex, value: S) -> S {
    match h.cheat {
        Some(Misbehaviour::BadShareTo(v)) if v == j => value + S::ONE,
        Some(Misbehaviour::OffsetShareTo(v, by) | Misbehaviour::OffsetShareThenSilent(v, by))
            if v == j =>
        {
            let off = S::from(by.unsigned_abs());
            if by < 0 {
                value - off
            } else {
                value + off
            }
        }
        _ => value,
    }
}

/// [`Misbehaviour::DealOtherSecret`]: the constant term a resharing dealer uses.
pub(crate) fn constant<S: Field>(h: &Hooks, a0: S) -> S {
    match h.cheat {
        Some(Misbehaviour::DealOtherSecret) => a0 + S::ONE,
        _ => a0,
    }
}

/// [`Misbehaviour::OffsetShareThenSilent`]: the party leaves after dealing.
pub(crate) fn silent_after_dealing(h: &Hooks) -> Option<Error> {
    matches!(h.cheat, Some(Misbehaviour::OffsetShareThenSilent(..))).then(|| Error::Aborted {
        reason: "test: fell silent after dealing".into(),
        blamed: vec![],
    })
}

/// [`Misbehaviour::SecretVersionTo`]: the second version of round 2 reaches the colluder only
/// now, long after it.
pub(crate) async fn send_secret_version<T: Transport, R: CryptoRng + ?Sized>(
    run: &mut Run<'_, T, R>,
) {
    if let Some(Misbehaviour::SecretVersionTo(c)) = run.hooks.cheat {
        let session = run.session;
        let secret = run
            .party
            .sign_broadcast(&session, R_DECOMMIT, b"secret".to_vec());
        let packet = Packet::Round {
            broadcast: Some(secret),
            p2p: None,
        };
        let _ = run
            .transport
            .send_packet(session, R_DECOMMIT, c, packet)
            .await;
    }
}

/// [`Misbehaviour::WrongShareProof`]: the share the proof is made for.
pub(crate) fn proven_share<S: Field>(h: &Hooks, x: S) -> S {
    if h.cheat == Some(Misbehaviour::WrongShareProof) {
        x + S::ONE
    } else {
        x
    }
}

/// Before a confirmation goes out: [`Misbehaviour::ReleaseLateTo`] confirms a wrong outcome,
/// [`Misbehaviour::ShowInConfirmTo`] waits until the colluder's second version is here.
pub(crate) async fn before_confirm<T: Transport, R: CryptoRng + ?Sized>(
    run: &mut Run<'_, T, R>,
    outcome: &mut [u8; 32],
) {
    match run.hooks.cheat {
        Some(Misbehaviour::ReleaseLateTo(_)) => outcome[0] ^= 1,
        Some(Misbehaviour::ShowInConfirmTo(_)) => {
            let mailbox = run.transport.mailbox().clone();
            let deadline = tokio::time::Instant::now() + run.timeout;
            while unread_versions(run).is_empty() && tokio::time::Instant::now() < deadline {
                let _ = tokio::time::timeout_at(deadline, mailbox.notify().notified()).await;
            }
        }
        _ => {}
    }
}

/// Whether the party confirms in round 4 already (an early confirmation). The cheaters whose
/// misbehaviour lies in the rounds after it (5, the confirm rounds, the closing round) do not,
/// which takes every party the long way, through round 6, where those cheats act.
pub(crate) fn confirms_early(h: &Hooks) -> bool {
    !matches!(
        h.cheat,
        Some(
            Misbehaviour::SecretVersionTo(_)
                | Misbehaviour::ReleaseLateTo(_)
                | Misbehaviour::ShowInConfirmTo(_)
                | Misbehaviour::Garbage { round: 5.. }
        )
    )
}

/// [`Misbehaviour::WrongShareProof`]: whether the party's own proven key is its real one.
pub(crate) fn proves_own_key(h: &Hooks) -> bool {
    h.cheat != Some(Misbehaviour::WrongShareProof)
}

/// [`Misbehaviour::BadPartial`]: the key partial signatures are made with.
pub(crate) fn partial_key(h: &Hooks, key: [u8; 32]) -> crate::Result<[u8; 32]> {
    if h.cheat == Some(Misbehaviour::BadPartial) {
        return Ok(*bls::keygen(&[7u8; 32])?);
    }
    Ok(key)
}

/// [`Misbehaviour::EquivocatePartial`]: a second, invalid partial of `message`.
pub(crate) fn equivocate_partial(
    h: &mut Hooks,
    message: &[u8],
    binding: &Binding,
) -> crate::Result<()> {
    if h.cheat == Some(Misbehaviour::EquivocatePartial) {
        let wrong = bls::keygen(&[9u8; 32])?;
        h.other_body = Some((1, binding.body(&bls::sign(&wrong, message)?)));
    }
    Ok(())
}

/// A strategy from its spec, as `alibi mpc keygen --misbehave` takes it: `bad-share:J`,
/// `offset-share:J:D`, `offset-share-then-silent:J:D`, `withhold-share:J`,
/// `withhold-broadcast:J`, `equivocate-commit`, `wrong-share-proof` or `stop`.
impl std::str::FromStr for Misbehaviour {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        let bad = || format!("{spec}: unknown misbehaviour");
        let mut parts = spec.split(':');
        let kind = parts.next().unwrap_or_default();
        let mut num =
            || -> Result<i64, String> { parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad) };
        let mut party =
            || -> Result<PartyIndex, String> { PartyIndex::try_from(num()?).map_err(|_| bad()) };
        Ok(match kind {
            "bad-share" => Misbehaviour::BadShareTo(party()?),
            "withhold-share" => Misbehaviour::WithholdShareFrom(party()?),
            "withhold-broadcast" => Misbehaviour::WithholdBroadcastFrom(party()?),
            "equivocate-commit" => Misbehaviour::EquivocateCommit,
            "wrong-share-proof" => Misbehaviour::WrongShareProof,
            "stop" => Misbehaviour::Stop,
            "misdeal" => Misbehaviour::MisdealTo(party()?),
            "offset-share" => Misbehaviour::OffsetShareTo(party()?, num()?),
            "offset-share-then-silent" => Misbehaviour::OffsetShareThenSilent(party()?, num()?),
            _ => return Err(bad()),
        })
    }
}
