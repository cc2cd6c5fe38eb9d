//! `alibi group ...`: DGSP on files. The manager's directory holds its keys (`manager.sk`,
//! `manager.pk`) and its redb database (`members.redb`: members, counters, revocations), all but
//! the public key readable by the owner only.
//!
//! Member files (their layouts are `alibi_dgsp::member`'s): a credential (`join`), a secret key,
//! pending WOTS+ seeds and certificates; `sign` uses and removes the first pending key, so a
//! one-time key is never used twice through the CLI. The credential and the pending file number
//! the one-time keys, so that `sign --cred` refuses a key of a restored backup (docs/dgsp.md).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alibi_dgsp::storage::{MemoryRevokedList, RedbStore};
use alibi_dgsp::{
    request_keys, CertificateList, CertificateRequest, Credential, Error, GroupSignature, Manager,
    ManagerPublicKey, ManagerSecretKey, OneTimeKey, Params, PendingKeys, UserKey,
};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Subcommand;
use serde_json::json;

use crate::failure::{busy, malformed, CmdResult, Failure};
use crate::files::{
    check_json, check_outputs, owner_only, place_outputs, read, read_input, read_secret,
    rewrite_outputs, write, write_outputs, Kind, NewDir, Output, Own,
};
use crate::report::{file_json, file_len, Format};
use crate::rng::os_rng;

/// `alibi group <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Create a group manager in a new directory (manager.sk, manager.pk, members.redb); a
    /// directory that already holds a manager is refused
    ManagerKeygen(ManagerKeygenArgs),
    /// Register a member (manager side): prints the member id and writes its credential
    Join(JoinArgs),
    /// Make a certificate request for COUNT one-time keys (member side); creates the member's
    /// secret key on first use
    Csr(CsrArgs),
    /// Certify a member's request (manager side)
    Cert(CertArgs),
    /// Sign a file with the next pending one-time key, which is removed from the files first
    Sign(SignArgs),
    /// Verify a group signature: exit 0 if valid, 1 if not (or revoked), 2 if malformed.
    /// Revocation is checked only against a manager directory given with --dir
    Verify(VerifyArgs),
    /// Open a signature (manager side): prints the signer's id, name and the proof for `judge`
    Open(OpenArgs),
    /// Check an opening (anyone): exit 0 if member ID signed, 1 if the proof does not show it
    Judge(JudgeArgs),
    /// Revoke a member (manager side)
    Revoke(RevokeArgs),
}

/// The arguments of `alibi group manager-keygen`.
#[derive(clap::Args, Debug)]
pub struct ManagerKeygenArgs {
    /// The SPHINCS+ parameter set
    #[arg(long, value_parser = params_parser())]
    pub params: Params,
    /// The manager's directory (created if missing)
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group join`.
#[derive(clap::Args, Debug)]
pub struct JoinArgs {
    /// The manager's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The member's unique name
    #[arg(long)]
    pub username: String,
    /// Where to write the member's credential (mode 0600; never stdout)
    #[arg(long, value_name = "FILE")]
    pub cred: PathBuf,
    /// Replace a credential file that already exists (only an earlier credential: never a
    /// secret key, a keyfile, a store or a manager's or party's state)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group csr`.
#[derive(clap::Args, Debug)]
pub struct CsrArgs {
    /// The member's credential, which counts the one-time keys requested (updated)
    #[arg(long, value_name = "FILE")]
    pub cred: PathBuf,
    /// The member's secret key: read if it exists, else created (mode 0600)
    #[arg(long, value_name = "FILE")]
    pub user_sk: PathBuf,
    /// How many one-time keys to request (1 to 1024)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub count: u16,
    /// Where to write the request for the manager (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub req: PathBuf,
    /// Where to write the pending one-time seeds (mode 0600; never stdout)
    #[arg(long, value_name = "FILE")]
    pub pending: PathBuf,
    /// Replace a request or pending file that already exists (a pending file's unused keys
    /// are lost; only an earlier pending file is replaced, never a secret key, a keyfile, a
    /// store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group cert`.
#[derive(clap::Args, Debug)]
pub struct CertArgs {
    /// The manager's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The member's certificate request (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub req: PathBuf,
    /// Where to write the certificates (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub certs: PathBuf,
    /// Replace a file that already exists at --certs (never one that holds a secret key, a
    /// keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The member's secret key
    #[arg(long, value_name = "FILE")]
    pub user_sk: PathBuf,
    /// The member's credential, which counts the one-time keys used: a restored backup of
    /// the pending file (whose next key was used since) is refused instead of signing with
    /// a WOTS+ one-time key a second time (so it is required)
    #[arg(long, value_name = "FILE")]
    pub cred: PathBuf,
    /// The pending one-time seeds
    #[arg(long, value_name = "FILE")]
    pub pending: PathBuf,
    /// The certificates, in the order of the pending seeds
    #[arg(long, value_name = "FILE")]
    pub certs: PathBuf,
    /// The manager's public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// Where to write the group signature (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace a file that already exists at --out (never one that holds a secret key, a
    /// keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The manager's public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The group signature
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
    /// The directory of --pk's manager, whose revocation list to check (another group's
    /// directory is refused)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group open`.
#[derive(clap::Args, Debug)]
pub struct OpenArgs {
    /// The manager's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The group signature
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group judge`.
#[derive(clap::Args, Debug)]
pub struct JudgeArgs {
    /// The manager's public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The group signature
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
    /// The member id the opening names
    #[arg(long)]
    pub id: u64,
    /// The opening's proof, in hex
    #[arg(long, value_name = "HEX")]
    pub pi: String,
    #[command(flatten)]
    pub format: Format,
}

/// The arguments of `alibi group revoke`.
#[derive(clap::Args, Debug)]
pub struct RevokeArgs {
    /// The manager's directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The member id
    #[arg(long)]
    pub id: u64,
    #[command(flatten)]
    pub format: Format,
}

/// `--params`: one of the twelve SPHINCS+ set names.
fn params_parser() -> impl TypedValueParser<Value = Params> {
    PossibleValuesParser::new(Params::ALL.map(Params::name)).map(|s| {
        Params::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .unwrap_or(Params::ALL[0])
    })
}

/// Runs `alibi group <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::ManagerKeygen(a) => manager_keygen(a),
        Cmd::Join(a) => join(a),
        Cmd::Csr(a) => csr(a),
        Cmd::Cert(a) => cert(a),
        Cmd::Sign(a) => sign(a),
        Cmd::Verify(a) => verify(a),
        Cmd::Open(a) => open(a),
        Cmd::Judge(a) => judge(a),
        Cmd::Revoke(a) => revoke(a),
    }
}

/// `alibi group join`.
fn join(
    JoinArgs {
        dir,
        username,
        cred,
        force,
        format,
    }: JoinArgs,
) -> CmdResult {
    let state = manager_files(&dir);
    check_outputs(&[("--cred", &cred, CREDENTIAL)], &dir_inputs(&state), force)?;
    let m = manager(&dir)?;
    let (id, cid_star) = m.join(&username).map_err(|e| match e {
        Error::UsernameTaken => {
            Failure::Usage(format!("username '{username}' is already a member"))
        }
        Error::BadUsername => Failure::Usage(format!("--username {username:?}: {e}")),
        e => malformed("manager state", e),
    })?;
    let c = Credential::new(m.public_key().params(), id, &cid_star)
        .map_err(|e| malformed("credential", e))?;
    let bytes = c.to_file_bytes();
    let written = place_outputs(
        &[Output {
            flag: "--cred",
            path: &cred,
            kind: CREDENTIAL,
            data: &bytes,
        }],
        force,
    )?;
    let credential = file_json(&cred, bytes.len());
    format.report(
        id,
        json!({"id": id, "username": username, "credential": credential}),
    )?;
    written.keep();
    Ok(())
}

/// `alibi group csr`.
fn csr(
    CsrArgs {
        cred,
        user_sk,
        count,
        req,
        pending,
        force,
        format,
    }: CsrArgs,
) -> CmdResult {
    csr_verb(cred, user_sk, count, req, pending, force, format)
}

/// `alibi group cert`.
fn cert(
    CertArgs {
        dir,
        req,
        certs,
        force,
        format,
    }: CertArgs,
) -> CmdResult {
    cert_verb(dir, req, certs, force, format)
}

/// `alibi group sign`.
fn sign(
    SignArgs {
        user_sk,
        cred,
        pending,
        certs,
        pk,
        msg,
        out,
        force,
        format,
    }: SignArgs,
) -> CmdResult {
    sign_verb(
        &SignFiles {
            user_sk,
            cred: Some(cred),
            pending,
            certs,
        },
        (&pk, &msg, &out),
        force,
        format,
    )
}

/// `alibi group verify`.
fn verify(
    VerifyArgs {
        pk,
        msg,
        sig,
        dir,
        format,
    }: VerifyArgs,
) -> CmdResult {
    let pkm = manager_pk(&pk)?;
    let s = load_sig(pkm.params(), &sig)?;
    let msg = read(&msg)?;
    let (res, note) = match &dir {
        Some(d) => {
            same_group(&pkm, &pk, d)?;
            let store = RedbStore::open(&d.join("members.redb")).map_err(members_db)?;
            (alibi_dgsp::verify(&pkm, &msg, &s, &store), None)
        }
        None => (
            alibi_dgsp::verify(&pkm, &msg, &s, &MemoryRevokedList::default()),
            Some("revocation not checked: no --dir".to_string()),
        ),
    };
    let fields = json!({"params": pkm.params().name(), "revocation_checked": dir.is_some()});
    match res {
        Ok(()) => format.verdict(Ok(note), fields),
        Err(Error::Revoked) => format.verdict(Err("the signer is revoked".into()), fields),
        Err(Error::InvalidSignature) => {
            format.verdict(Err("invalid group signature".into()), fields)
        }
        Err(e) => Err(malformed("input", e)),
    }
}

/// `alibi group open`.
fn open(
    OpenArgs {
        dir,
        msg,
        sig,
        format,
    }: OpenArgs,
) -> CmdResult {
    let m = manager(&dir)?;
    let s = load_sig(m.public_key().params(), &sig)?;
    let opened = m.open(&read(&msg)?, &s).map_err(|e| match e {
        Error::InvalidSignature => Failure::Invalid("invalid group signature".into()),
        e => malformed("input", e),
    })?;
    let pi = hex::encode(&opened.pi);
    format.report(
        format!("{} {} {pi}", opened.id, opened.username),
        json!({"id": opened.id, "username": opened.username, "pi": pi}),
    )
}

/// `alibi group judge`.
fn judge(
    JudgeArgs {
        pk,
        msg,
        sig,
        id,
        pi,
        format,
    }: JudgeArgs,
) -> CmdResult {
    let pkm = manager_pk(&pk)?;
    let s = load_sig(pkm.params(), &sig)?;
    let pi = hex::decode(pi.trim()).map_err(|e| Failure::Usage(format!("--pi: not hex ({e})")))?;
    let n = pkm.params().n();
    if pi.len() != n {
        return Err(Failure::Usage(format!(
            "--pi: {} bytes, but an opening's proof is {n} bytes ({} hex digits, as `group open` prints it)",
            pi.len(),
            2 * n
        )));
    }
    let fields = json!({"id": id});
    match alibi_dgsp::judge(&pkm, &read(&msg)?, &s, id, &pi) {
        Ok(()) => format.verdict(Ok(None), fields),
        Err(Error::WrongOpening | Error::InvalidSignature) => format.verdict(
            Err(format!("the proof does not show that member {id} signed")),
            fields,
        ),
        Err(e) => Err(malformed("input", e)),
    }
}

/// `alibi group revoke`.
fn revoke(RevokeArgs { dir, id, format }: RevokeArgs) -> CmdResult {
    let m = manager(&dir)?;
    m.revoke(&[id]).map_err(|e| match e {
        Error::UnknownId(_) => Failure::Usage(format!("no member {id}")),
        e => malformed("manager state", e),
    })?;
    format.wrote(json!({
        "revoked": id,
        "database": file_json(&dir.join(MANAGER_FILES[2]), file_len(&dir.join(MANAGER_FILES[2]))),
    }))
}

/// `group csr`: a certificate request and the pending seeds of its keys (and the member key on
/// first use).
fn csr_verb(
    cred: PathBuf,
    user_sk: PathBuf,
    count: u16,
    req: PathBuf,
    pending: PathBuf,
    force: bool,
    format: Format,
) -> CmdResult {
    check_json(format.json, &[("--req", &req)])?;
    // The member key is an input if it exists, else an output: either way no other
    // output may be it.
    check_outputs(
        &[("--req", &req, REQUEST), ("--pending", &pending, PENDING)],
        &[("--cred", &cred), ("--user-sk", &user_sk)],
        force,
    )?;
    let mut credential = credential(&cred)?;
    let (p, id) = (credential.params(), credential.id());
    let (user, new_key) = match user_sk.symlink_metadata() {
        Ok(_) => (user_key(&user_sk)?, None),
        Err(_) => {
            let u = UserKey::generate(p, id, &mut os_rng());
            let b = u.to_bytes();
            (u, Some(b))
        }
    };
    let (request, pending_keys) =
        request_keys(&mut credential, &user, u32::from(count), &mut os_rng()).map_err(
            |e| match e {
                Error::OtherMember { .. } => Failure::Usage(format!(
                    "{} belongs to member {} ({}), the credential to member {id} ({})",
                    user_sk.display(),
                    user.id(),
                    user.params().name(),
                    p.name()
                )),
                e => malformed("credential", e),
            },
        )?;
    // The credential counts the keys before any key file is written: a failure after this only
    // skips numbers.
    rewrite_outputs(&[Output {
        flag: "--cred",
        path: &cred,
        kind: CREDENTIAL,
        data: &credential.to_file_bytes(),
    }])?;
    let r = request.to_bytes();
    let pend = pending_keys.to_file_bytes();
    let mut outs = vec![];
    if let Some(b) = &new_key {
        outs.push(Output {
            flag: "--user-sk",
            path: &user_sk,
            kind: Kind::Secret,
            data: b,
        });
    }
    outs.push(Output {
        flag: "--pending",
        path: &pending,
        kind: PENDING,
        data: &pend,
    });
    outs.push(Output {
        flag: "--req",
        path: &req,
        kind: REQUEST,
        data: &r,
    });
    let written = place_outputs(&outs, force)?;
    format.wrote(json!({
        "id": id,
        "count": count,
        "request": file_json(&req, r.len()),
        "pending": file_json(&pending, pend.len()),
        "user_sk": new_key.as_ref().map(|k| file_json(&user_sk, k.len())),
    }))?;
    written.keep();
    Ok(())
}

/// `group cert`: the manager certifies a member's request.
fn cert_verb(dir: PathBuf, req: PathBuf, certs: PathBuf, force: bool, format: Format) -> CmdResult {
    check_json(format.json, &[("--certs", &certs)])?;
    let state = manager_files(&dir);
    let mut inputs = dir_inputs(&state);
    inputs.push(("--req", &req));
    check_outputs(&[("--certs", &certs, CERTIFICATES)], &inputs, force)?;
    let m = manager(&dir)?;
    let r = read_input(&req, "a certificate request")?;
    let p = m.public_key().params();
    let bad = |why: &str| {
        Failure::Usage(format!(
            "{} is no certificate request: {why}",
            req.display()
        ))
    };
    // The parameter set first: a request of another group is named as such, whatever its
    // length.
    if Params::of_encoding(&r).ok() != Some(p) {
        return Err(bad(&format!(
            "not for this group's {} parameters",
            p.name()
        )));
    }
    let r = CertificateRequest::from_bytes(&r).map_err(|e| match e {
        // A credential is the request's head without any key: it certifies nothing.
        Error::NoOneTimeKey => bad("it holds no one-time key (is it a credential?)"),
        Error::ListLength { .. } if Credential::from_file_bytes(&r).is_ok() => {
            bad("it holds no one-time key (is it a credential?)")
        }
        Error::ListLength { got, .. } => bad(&format!("{got} bytes")),
        e => malformed("certificate request", e),
    })?;
    let id = r.id();
    let issued = m
        .gen_cert(id, r.credential().cid_star(), r.public_keys())
        .map_err(|e| match e {
            Error::Revoked => Failure::Usage(format!("member {id} is revoked")),
            Error::UnknownId(_) | Error::BadCid | Error::CounterExhausted => {
                Failure::Usage(format!("{e} (request for member {id})"))
            }
            e => malformed("certificate request", e),
        })?;
    let count = issued.len();
    let out = CertificateList::new(p, issued)
        .map_err(|e| malformed("certificates", e))?
        .to_bytes();
    let written = place_outputs(
        &[Output {
            flag: "--certs",
            path: &certs,
            kind: CERTIFICATES,
            data: &out,
        }],
        force,
    )?;
    format.wrote(json!({
        "id": id,
        "count": count,
        "certificates": file_json(&certs, out.len()),
    }))?;
    written.keep();
    Ok(())
}

/// The member's files `sign` reads and rewrites.
struct SignFiles {
    user_sk: PathBuf,
    cred: Option<PathBuf>,
    pending: PathBuf,
    certs: PathBuf,
}

/// `group sign`: takes the next one-time key and its certificate out of the files (and, with
/// `--cred`, counts it used there, refusing a key counted already), then signs.
fn sign_verb(
    f: &SignFiles,
    (pk, msg, out): (&Path, &Path, &Path),
    force: bool,
    format: Format,
) -> CmdResult {
    check_json(format.json, &[("--out", out)])?;
    let mut inputs = vec![
        ("--user-sk", f.user_sk.as_path()),
        ("--pending", &f.pending),
        ("--certs", &f.certs),
        ("--pk", pk),
        ("--msg", msg),
    ];
    if let Some(c) = &f.cred {
        inputs.push(("--cred", c));
    }
    // Checked before the one-time key leaves the files: a refused --out costs no key.
    check_outputs(&[("--out", out, SIGNATURE)], &inputs, force)?;
    let user = user_key(&f.user_sk)?;
    let p = user.params();
    let pkm = manager_pk(pk)?;
    let (key, pend, cs, counter) = take_one_time_key(f, &user, &pkm)?;
    // The key leaves the files (and is counted in the credential) before it signs anything, so
    // a crash cannot reuse it; the files change together or none does, so keys and
    // certificates stay paired.
    let (pend_bytes, cs_bytes) = (pend.to_file_bytes(), cs.to_bytes());
    let cred_bytes = counter.as_ref().map(|(c, _)| c.to_file_bytes());
    let mut files = vec![
        Output {
            flag: "--pending",
            path: &f.pending,
            kind: PENDING,
            data: &pend_bytes,
        },
        Output {
            flag: "--certs",
            path: &f.certs,
            kind: CERTIFICATES,
            data: &cs_bytes,
        },
    ];
    if let (Some((_, path)), Some(b)) = (&counter, &cred_bytes) {
        files.push(Output {
            flag: "--cred",
            path,
            kind: CREDENTIAL,
            data: b,
        });
    }
    rewrite_outputs(&files)?;
    let sig = user.sign(key, &read(msg)?).to_bytes();
    write("--out", out, SIGNATURE, &sig, force)?;
    format.wrote(json!({
        "params": p.name(),
        "signature": file_json(out, sig.len()),
        "pending_left": pend.len(),
    }))
}

/// The next one-time key (accepted with its certificate under the manager's key), the pending
/// keys and certificates left, and the credential (with `--cred`) that now counts it used
/// ([`alibi_dgsp::take_one_time_key`]); each refusal names the file at fault.
#[allow(clippy::type_complexity)]
fn take_one_time_key<'f>(
    f: &'f SignFiles,
    user: &UserKey,
    pkm: &ManagerPublicKey,
) -> Result<
    (
        OneTimeKey,
        PendingKeys,
        CertificateList,
        Option<(Credential, &'f PathBuf)>,
    ),
    Failure,
> {
    let p = user.params();
    let mut counter = match &f.cred {
        Some(c) => Some((credential(c)?, c)),
        None => None,
    };
    let mut pend = PendingKeys::from_file_bytes(p, &read_secret_or_empty(&f.pending)?)
        .map_err(|e| malformed(&format!("pending keys in {}", f.pending.display()), e))?;
    let mut cs = CertificateList::from_bytes(p, &read(&f.certs)?)
        .map_err(|e| malformed(&format!("certificates in {}", f.certs.display()), e))?;
    let cred = counter.as_mut().map(|(c, _)| c);
    let key = alibi_dgsp::take_one_time_key(user, &mut pend, &mut cs, cred, pkm).map_err(|e| {
        let cred_path = || f.cred.as_ref().map_or(String::new(), |c| c.display().to_string());
        match e {
            Error::OtherMember { credential, key } => Failure::Usage(format!(
                "{} is member {credential}'s credential, {} member {key}'s secret key",
                cred_path(),
                f.user_sk.display()
            )),
            Error::NoPendingKey => Failure::Usage(format!(
                "no pending one-time key left in {}: run csr and cert for new ones",
                f.pending.display()
            )),
            Error::NoCertificate => Failure::Usage(format!(
                "{} holds no certificate for the next pending key: have the manager run cert on the request",
                f.certs.display()
            )),
            Error::OneTimeKeyUsed { index, next } => Failure::Usage(format!(
                "{} was restored from an older copy: its next one-time key (#{index}) was used already ({} counts #{next} as the next unused); signing would reuse a WOTS+ one-time key, so run csr and cert for new keys",
                f.pending.display(),
                cred_path()
            )),
            Error::InvalidCertificate => Failure::Usage(format!(
                "the next certificate in {} is not the manager's for this key",
                f.certs.display()
            )),
            e => malformed("credential", e),
        }
    })?;
    Ok((key, pend, cs, counter))
}

/// A secret file that may be empty (a pending file whose keys are all used).
fn read_secret_or_empty(path: &Path) -> Result<zeroize::Zeroizing<Vec<u8>>, Failure> {
    read(path).map(zeroize::Zeroizing::new)
}

type Mgr = Manager<Arc<RedbStore>, Arc<RedbStore>>;

use alibi_dgsp::storage::MANAGER_DIR as MANAGER_FILES;

/// The files of a manager's directory, which a command reading it must not write over.
fn manager_files(dir: &Path) -> [PathBuf; 3] {
    MANAGER_FILES.map(|f| dir.join(f))
}

/// A manager's files as the inputs of `--dir`.
fn dir_inputs(files: &[PathBuf; 3]) -> Vec<(&'static str, &Path)> {
    files.iter().map(|p| ("--dir", p.as_path())).collect()
}

/// What `cert` and `sign` write.
const CERTIFICATES: Kind = Kind::Data("certificates");
/// What `csr` writes for the manager.
const REQUEST: Kind = Kind::Data("a certificate request");
/// What `sign` writes.
const SIGNATURE: Kind = Kind::Data("a group signature");

/// A member's credential: secret; `--force` replaces only an earlier one (a credential's
/// layout, which a member key shares: a file named like a key is refused by its name).
const CREDENTIAL: Kind = Kind::Private(Own {
    what: "a credential",
    same: |b| Credential::from_file_bytes(b).is_ok(),
});

/// A member's pending one-time seeds: secret; `--force` replaces only an earlier pending file
/// (whole seeds of one parameter set, and not a credential's or member key's length).
const PENDING: Kind = Kind::Private(Own {
    what: "pending one-time keys",
    same: |b| {
        Credential::from_file_bytes(b).is_err()
            && Params::ALL
                .into_iter()
                .any(|p| PendingKeys::from_file_bytes(p, b).is_ok_and(|k| !k.is_empty()))
    },
});

/// `alibi group manager-keygen`.
fn manager_keygen(
    ManagerKeygenArgs {
        params: p,
        dir,
        format,
    }: ManagerKeygenArgs,
) -> CmdResult {
    let dir = dir.as_path();
    if let Some(f) = MANAGER_FILES.iter().find(|f| dir.join(f).exists()) {
        return Err(Failure::Usage(format!(
            "{} already holds a group manager ({f}); replacing it would break every member, so choose a new directory",
            dir.display()
        )));
    }
    let new_dir = NewDir::create(dir)?;
    let sk = ManagerSecretKey::generate(p, &mut os_rng());
    let (skp, pkp, db) = (
        dir.join(MANAGER_FILES[0]),
        dir.join(MANAGER_FILES[1]),
        dir.join(MANAGER_FILES[2]),
    );
    write_outputs(
        &[
            Output {
                flag: "--dir",
                path: &skp,
                kind: Kind::Secret,
                data: &sk.to_bytes(),
            },
            Output {
                flag: "--dir",
                path: &pkp,
                kind: Kind::PublicKey,
                data: &sk.public_key().to_bytes(),
            },
        ],
        false,
    )?;
    let opened = RedbStore::open(&db)
        .map_err(members_db)
        .and_then(|_| owner_only(&db));
    if let Err(e) = opened {
        for f in [&skp, &pkp, &db] {
            let _ = std::fs::remove_file(f);
        }
        return Err(e);
    }
    new_dir.keep();
    format.report(
        format!(
            "group manager ({}) in {}: manager.sk (mode 0600), manager.pk, members.redb",
            p.name(),
            dir.display()
        ),
        json!({"params": p.name(), "dir": dir.to_string_lossy(),
               "public_key": file_json(&pkp, file_len(&pkp))}),
    )
}

fn manager(dir: &Path) -> Result<Mgr, Failure> {
    let skp = dir.join(MANAGER_FILES[0]);
    let b = read_secret(&skp, "a DGSP manager secret key")?;
    let sk = ManagerSecretKey::from_bytes(&b)
        .map_err(|e| malformed(&format!("manager key {}", skp.display()), e))?;
    let store = Arc::new(RedbStore::open(&dir.join(MANAGER_FILES[2])).map_err(members_db)?);
    Ok(Manager::new(sk, store.clone(), store))
}

/// The members database did not open: busy (another process holds it) or malformed.
fn members_db(e: Error) -> Failure {
    match e {
        Error::Busy(p) => busy(&p),
        e => malformed("members database", e),
    }
}

/// Refuses a `--dir` whose manager is not the one of `--pk`: another group's revocation list
/// would say nothing about this group's members (a revoked member would verify as valid).
fn same_group(pkm: &ManagerPublicKey, pk: &Path, dir: &Path) -> Result<(), Failure> {
    let theirs = dir.join(MANAGER_FILES[1]);
    if !theirs.exists() {
        return Err(Failure::Usage(format!(
            "{} holds no group manager ({} is missing)",
            dir.display(),
            theirs.display()
        )));
    }
    if manager_pk(&theirs)?.to_bytes() != pkm.to_bytes() {
        return Err(Failure::Usage(format!(
            "{} belongs to another group: its manager public key {} is not --pk {}",
            dir.display(),
            theirs.display(),
            pk.display()
        )));
    }
    Ok(())
}

fn manager_pk(path: &Path) -> Result<ManagerPublicKey, Failure> {
    let b = read_input(path, "a DGSP manager public key")?;
    ManagerPublicKey::from_bytes(&b)
        .map_err(|e| malformed(&format!("manager public key {}", path.display()), e))
}

/// A member file (a credential or a member secret key) decoded by `decode`, its bytes read into
/// memory that is wiped; a wrong file is named by what is wrong with it.
fn member_file<T>(
    path: &Path,
    what: &str,
    decode: impl FnOnce(&[u8]) -> Result<T, Error>,
) -> Result<T, Failure> {
    let b = read_secret(path, &format!("a DGSP {what}"))?;
    decode(&b).map_err(|e| match e {
        Error::UnknownParams => Failure::Usage(format!(
            "{} is no {what}: its first byte names no DGSP parameter set",
            path.display()
        )),
        Error::Length(l) => Failure::Usage(format!(
            "{} is no {what}: {} bytes, expected {}",
            path.display(),
            l.got,
            l.expected
        )),
        e => malformed(what, e),
    })
}

fn credential(path: &Path) -> Result<Credential, Failure> {
    member_file(path, "credential", Credential::from_file_bytes)
}

fn user_key(path: &Path) -> Result<UserKey, Failure> {
    member_file(path, "member secret key", UserKey::from_bytes)
}

fn load_sig(p: Params, path: &Path) -> Result<GroupSignature, Failure> {
    GroupSignature::from_bytes(p, &read_input(path, "a DGSP group signature")?).map_err(|e| {
        malformed(
            &format!("{} group signature in {}", p.name(), path.display()),
            e,
        )
    })
}
