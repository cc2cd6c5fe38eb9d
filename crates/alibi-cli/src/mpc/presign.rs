//! Threshold ECDSA's presignatures, as one party: `alibi mpc presign` makes them and stores them
//! sealed in the party's directory; `alibi mpc sign --presigned` takes the next one, counts it
//! used in the sealed share before anything is sent, and signs in one round. A presignature is
//! thrown away when the share counts it used already (a signing stopped after counting it, or
//! the presignatures restored from an older copy): two messages signed with one presignature give
//! the key away.

use std::path::{Path, PathBuf};
use std::time::Instant;

use alibi_mpc::endpoint::{Endpoint, Signing};
use alibi_mpc::group::GroupFile;
use alibi_mpc::scheme::{Presignatures, Scheme, Share, Taken};
use alibi_mpc::{PartyIndex, SessionId};
use serde_json::json;

use super::args::{PresignArgs, SignArgs};
use super::party::{load_share, share_file, sign_start, signers_of, write_signature, Ran};
use super::report::protocol_failure;
use super::setup::{claim_session, exclude, member, passphrase, read_group, relay_party, seal};
use crate::failure::{CmdResult, Failure};
use crate::files::{read_secret, rewrite_outputs, Kind, Output};
use crate::net::runtime;
use crate::report::{file_json, Format};

/// The keyfile purpose the stored presignatures are sealed under.
const PURPOSE: &str = "alibi mpc presignatures v1";

/// Where a party keeps its presignatures for its share of `g`.
fn store_path(dir: &Path, g: &GroupFile) -> PathBuf {
    let (share, _) = share_file(dir, g, Scheme::EcdsaSecp256k1);
    share.with_extension("presignatures")
}

/// Refuses every scheme but threshold ECDSA.
fn ecdsa_only(scheme: Scheme) -> Result<(), Failure> {
    match scheme {
        Scheme::EcdsaSecp256k1 => Ok(()),
        s => Err(Failure::Usage(format!(
            "presignatures are for ecdsa-secp256k1, not {s} (give --scheme ecdsa-secp256k1)"
        ))),
    }
}

/// Opens the party's stored presignatures (none stored: an empty store).
fn load_store(path: &Path, passphrase: &[u8]) -> Result<Presignatures, Failure> {
    if !path.exists() {
        return Ok(Presignatures::default());
    }
    let sealed = read_secret(path, "sealed presignatures")?;
    let bytes = alibi_keyfile::open(PURPOSE, &sealed, passphrase)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    Presignatures::from_bytes(&bytes)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))
}

/// The sealed bytes of a store.
fn seal_store(store: &Presignatures, passphrase: &[u8]) -> Result<Vec<u8>, Failure> {
    let bytes = store
        .to_bytes()
        .map_err(|e| Failure::Usage(format!("cannot encode the presignatures: {e}")))?;
    seal(PURPOSE, &bytes, passphrase)
}

/// The sessions of one presigning run named `name` by `signers`: the whole run's (claimed, so
/// that a name is never run twice) and the k-th presignature's.
fn presign_sessions(
    g: &GroupFile,
    name: &str,
    signers: &[PartyIndex],
    count: u16,
) -> (SessionId, Vec<SessionId>) {
    let listed: Vec<String> = signers.iter().map(u16::to_string).collect();
    let what = format!("presign ecdsa-secp256k1 by {}", listed.join(","));
    let each = (0..count)
        .map(|k| g.session(&format!("{what} #{k}"), name))
        .collect();
    (g.session(&what, name), each)
}

/// `alibi mpc presign`, as one of the signers.
pub(super) fn presign(a: PresignArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    ecdsa_only(scheme)?;
    if a.session.is_empty() {
        return Err(Failure::Usage("--session: give the run a name".into()));
    }
    let (dir, run) = (a.dir.as_path(), &a.run);
    let group = exclude(&a.group, read_group(&a.group)?, &run.exclude, dir)?;
    let passphrase = passphrase(&a.passphrase)?;
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let share = load_share(dir, &m.group, scheme, &passphrase, me)?;
        let signers = signers_of(&m.group, &share, a.signers.as_deref())?;
        let path = store_path(dir, &m.group);
        let mut store = load_store(&path, &passphrase)?;
        let (whole, each) = presign_sessions(&m.group, &a.session, &signers, a.count);
        claim_session(dir, &whole, "presigning", Some(&a.session))?;
        let (group, party) = relay_party(m, run, "presigning", a.format)?;
        let identity = party.party();
        let mut endpoint = Endpoint::new(party, identity);
        let start = Instant::now();
        // All or none: a batch cut short at one signer and not at another would leave their
        // stores out of step (each takes its next). What was made of a failed batch is dropped
        // unused, which is safe.
        for session in each {
            let job = Signing::new(session, signers.clone(), run.timeout());
            let made = endpoint.presign(&share, &job).await;
            let made = made.map_err(|e| protocol_failure(&group, me, dir, "presigning", e))?;
            store
                .push(&share, session, made)
                .map_err(|e| Failure::Usage(e.to_string()))?;
        }
        let took = start.elapsed();
        let sealed = seal_store(&store, &passphrase)?;
        rewrite_outputs(&[store_output(&path, &sealed)])?;
        let ran = Ran::of(&group, &endpoint, run, took);
        let stored = (path.as_path(), sealed.len(), &store);
        presign_report(&group, &ran, &signers, a.count, stored, a.format)
    })
}

/// The sealed store as an output.
fn store_output<'a>(path: &'a Path, sealed: &'a [u8]) -> Output<'a> {
    Output {
        flag: "--dir",
        path,
        kind: Kind::Secret,
        data: sealed,
    }
}

/// The report of a finished presigning.
fn presign_report(
    group: &GroupFile,
    run: &Ran,
    signers: &[PartyIndex],
    count: u16,
    (path, sealed_len, store): (&Path, usize, &Presignatures),
    format: Format,
) -> CmdResult {
    let names: Vec<String> = signers.iter().map(|&p| group.name_of(p)).collect();
    let ms = run.took.as_secs_f64() * 1e3;
    format.report(
        format!(
            "presigned {count} (ecdsa-secp256k1) with {} over {} channels in {ms:.0} ms; {} \
             unused presignatures sealed in {}",
            names.join(", "),
            run.mode,
            store.len(),
            path.display()
        ),
        json!({"scheme": "ecdsa-secp256k1", "party": group.name_of(run.me), "signers": names,
               "made": count, "stored": store.len(), "next_number": store.next_number(),
               "transport": run.mode.to_string(), "ms": ms,
               "presignatures": file_json(path, sealed_len)}),
    )
}

/// `alibi mpc sign --presigned`, as one of the presignature's signers.
pub(super) fn sign(a: SignArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    ecdsa_only(scheme)?;
    let (group, msg, passphrase) = sign_start(&a)?;
    let (dir, run) = (a.dir.as_path(), &a.run);
    runtime()?.block_on(async {
        let m = member(dir, group, &passphrase, run.timeout()).await?;
        let me = m.me;
        let mut share = load_share(dir, &m.group, scheme, &passphrase, me)?;
        let (taken, left) = take(dir, &m.group, &mut share, &passphrase)?;
        let signers = taken.presignature.signers().to_vec();
        if let Some(names) = &a.signers {
            if signers_of(&m.group, &share, Some(names))? != signers {
                return Err(Failure::Usage(format!(
                    "--signers: the next presignature (#{}) is for {}",
                    taken.number,
                    names_of(&m.group, &signers)
                )));
            }
        }
        let session = m.group.session(
            &format!("sign presigned {}", hex::encode(taken.made_by)),
            &a.session,
        );
        claim_session(dir, &session, "signing", Some(&a.session))?;
        let (group, party) = relay_party(m, run, "signing", a.format)?;
        let identity = party.party();
        let mut endpoint = Endpoint::new(party, identity);
        let job = Signing::new(session, signers, run.timeout());
        let start = Instant::now();
        let signed = endpoint
            .sign_presigned(&share, taken.presignature, &job, &msg)
            .await
            .map_err(|e| protocol_failure(&group, me, dir, "signing", e))?;
        let ran = Ran::of(&group, &endpoint, run, start.elapsed());
        write_signature(
            &group,
            (scheme, share.public_key()),
            &ran,
            &signed,
            &a,
            Some((taken.number, left)),
        )
    })
}

/// Takes the next stored presignature and counts it used: the share, then the store, written
/// back (sealed) before it is returned, so that nothing is sent with a presignature that is
/// not counted. One the share counts used already is thrown away, and the command stops.
fn take(
    dir: &Path,
    g: &GroupFile,
    share: &mut Share,
    passphrase: &[u8],
) -> Result<(Taken, usize), Failure> {
    let path = store_path(dir, g);
    if !path.exists() {
        return Err(Failure::Usage(format!(
            "no presignatures in {}: run mpc presign first",
            path.display()
        )));
    }
    let mut store = load_store(&path, passphrase)?;
    let taken = store.take(share);
    let store_sealed = seal_store(&store, passphrase)?;
    let taken = match taken {
        Ok(taken) => taken,
        Err(e) => {
            if matches!(e, alibi_mpc::Error::PresignatureUsed { .. }) {
                rewrite_outputs(&[store_output(&path, &store_sealed)])?;
            }
            return Err(Failure::Usage(format!("{}: {e}", path.display())));
        }
    };
    let (share_path, purpose) = share_file(dir, g, Scheme::EcdsaSecp256k1);
    let share_sealed = seal(purpose, &share.to_bytes(), passphrase)?;
    // The share first: a crash between the two leaves the store's copy counted, never usable.
    rewrite_outputs(&[
        store_output(&share_path, &share_sealed),
        store_output(&path, &store_sealed),
    ])?;
    Ok((taken, store.len()))
}

/// Parties by name, comma-separated.
fn names_of(g: &GroupFile, parties: &[PartyIndex]) -> String {
    let names: Vec<String> = parties.iter().map(|&p| g.name_of(p)).collect();
    names.join(", ")
}
