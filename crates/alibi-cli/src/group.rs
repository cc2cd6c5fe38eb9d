//! `alibi group ...`: DGSP on files. The manager's directory holds its keys (`manager.sk`,
//! `manager.pk`) and its redb database (`members.redb`: members, counters, revocations).
//!
//! Member files: a credential (`join`: params tag, id, cid*), a secret key (params tag, id, seed),
//! pending WOTS+ seeds and certificates; `sign` uses and removes the first pending key, so a
//! one-time key is never used twice through the CLI.

use crate::args::{read, write, Opts};
use crate::falcon::malformed;
use crate::{CmdResult, Failure};
use alibi_dgsp::storage::RedbStore;
use alibi_dgsp::{
    csr, judge, verify, Certificate, Error, GroupSignature, Manager, ManagerPublicKey,
    ManagerSecretKey, OneTimeKey, Params, UserKey,
};
use getrandom::SysRng;
use rand_core::UnwrapErr;
use std::path::Path;
use std::sync::Arc;

/// Dispatches `alibi group <verb> ...`.
pub fn run(args: &[String]) -> CmdResult {
    let (verb, rest) = args.split_first().ok_or_else(|| {
        Failure::Usage("group: missing verb (manager-keygen, join, csr, cert, sign, verify, open, judge, revoke)".into())
    })?;
    let o = |flags: &[&str]| Opts::parse(&format!("group {verb}"), rest, flags);
    match verb.as_str() {
        "manager-keygen" => manager_keygen(&o(&["params", "dir"])?),
        "join" => join(&o(&["dir", "username", "cred"])?),
        "csr" => csr_cmd(&o(&["cred", "user-sk", "count", "req", "pending"])?),
        "cert" => cert(&o(&["dir", "req", "certs"])?),
        "sign" => sign(&o(&["user-sk", "pending", "certs", "pk", "msg", "out"])?),
        "verify" => verify_cmd(&o(&["pk", "msg", "sig", "dir"])?),
        "open" => open(&o(&["dir", "msg", "sig"])?),
        "judge" => judge_cmd(&o(&["pk", "msg", "sig", "id", "pi"])?),
        "revoke" => revoke(&o(&["dir", "id"])?),
        v => Err(Failure::Usage(format!("group: unknown verb '{v}'"))),
    }
}

fn dgsp_err(e: Error) -> Failure {
    match e {
        Error::InvalidSignature
        | Error::Revoked
        | Error::WrongOpening
        | Error::InvalidCertificate => Failure::Invalid(e.to_string()),
        e => malformed("input", e),
    }
}

fn params_of(tag: Option<&u8>) -> Result<Params, Failure> {
    tag.and_then(|&t| Params::from_tag(t))
        .ok_or_else(|| Failure::Usage("unknown DGSP parameter set".into()))
}

type Mgr = Manager<Arc<RedbStore>, Arc<RedbStore>>;

fn manager(dir: &str) -> Result<Mgr, Failure> {
    let d = Path::new(dir);
    let sk = ManagerSecretKey::from_bytes(&read(d.join("manager.sk").to_str().unwrap_or(""))?)
        .map_err(|e| malformed("manager key", e))?;
    let store =
        Arc::new(RedbStore::open(&d.join("members.redb")).map_err(|e| malformed("database", e))?);
    Ok(Manager::new(sk, store.clone(), store))
}

fn manager_keygen(o: &Opts) -> CmdResult {
    let p = Params::from_name(o.req("params")?).ok_or_else(|| {
        Failure::Usage("--params must be one of sha2-128f .. shake-256s (e.g. shake-128f)".into())
    })?;
    let d = Path::new(o.req("dir")?);
    std::fs::create_dir_all(d)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", d.display())))?;
    let sk = ManagerSecretKey::generate(p, &mut UnwrapErr(SysRng));
    let path = |f: &str| d.join(f).to_str().unwrap_or("").to_string();
    write(&path("manager.sk"), &sk.to_bytes())?;
    write(&path("manager.pk"), &sk.public_key().to_bytes())?;
    RedbStore::open(&d.join("members.redb")).map_err(|e| malformed("database", e))?;
    Ok(())
}

fn join(o: &Opts) -> CmdResult {
    let m = manager(o.req("dir")?)?;
    let (id, cid_star) = m.join(o.req("username")?).map_err(dgsp_err)?;
    let p = m.public_key().params();
    write(
        o.req("cred")?,
        &[&[p.tag()][..], &id.to_be_bytes(), &cid_star].concat(),
    )?;
    println!("{id}");
    Ok(())
}

/// A credential: (params, id, cid*).
fn credential(b: &[u8]) -> Result<(Params, u64, Vec<u8>), Failure> {
    let p = params_of(b.first())?;
    if b.len() != 9 + p.n() {
        return Err(Failure::Usage("malformed credential".into()));
    }
    Ok((
        p,
        u64::from_be_bytes(b[1..9].try_into().expect("8 bytes")),
        b[9..].to_vec(),
    ))
}

fn user_key(b: &[u8]) -> Result<UserKey, Failure> {
    let p = params_of(b.first())?;
    if b.len() != 9 + p.n() {
        return Err(Failure::Usage("malformed user key".into()));
    }
    let id = u64::from_be_bytes(b[1..9].try_into().expect("8 bytes"));
    UserKey::from_parts(p, id, &b[9..]).map_err(|e| malformed("user key", e))
}

fn csr_cmd(o: &Opts) -> CmdResult {
    let (p, id, cid_star) = credential(&read(o.req("cred")?)?)?;
    let usk_path = o.req("user-sk")?;
    let user = match std::fs::read(usk_path) {
        Ok(b) => user_key(&b)?,
        Err(_) => {
            let u = UserKey::generate(p, id, &mut UnwrapErr(SysRng));
            write(
                usk_path,
                &[&[p.tag()][..], &id.to_be_bytes(), u.seed()].concat(),
            )?;
            u
        }
    };
    let count: usize = o
        .req("count")?
        .parse()
        .ok()
        .filter(|&c| (1..=1024).contains(&c))
        .ok_or_else(|| Failure::Usage("--count must be 1..1024".into()))?;
    let (seeds, pks) = csr(&user, count, &mut UnwrapErr(SysRng));
    let mut req = [&[p.tag()][..], &id.to_be_bytes(), &cid_star].concat();
    for pk in &pks {
        req.extend_from_slice(pk);
    }
    write(o.req("req")?, &req)?;
    let pending: Vec<u8> = seeds.iter().flat_map(|s| s.as_bytes().to_vec()).collect();
    write(o.req("pending")?, &pending)
}

fn cert(o: &Opts) -> CmdResult {
    let m = manager(o.req("dir")?)?;
    let req = read(o.req("req")?)?;
    let p = params_of(req.first())?;
    let n = p.n();
    if p != m.public_key().params() || req.len() < 9 + n || (req.len() - 9 - n) % n != 0 {
        return Err(Failure::Usage("malformed certificate request".into()));
    }
    let id = u64::from_be_bytes(req[1..9].try_into().expect("8 bytes"));
    let pks: Vec<Vec<u8>> = req[9 + n..].chunks(n).map(|c| c.to_vec()).collect();
    let certs = m.gen_cert(id, &req[9..9 + n], &pks).map_err(dgsp_err)?;
    let out: Vec<u8> = certs.iter().flat_map(|c| c.to_bytes()).collect();
    write(o.req("certs")?, &out)
}

fn sign(o: &Opts) -> CmdResult {
    let user = user_key(&read(o.req("user-sk")?)?)?;
    let p = user.params();
    let pkm = ManagerPublicKey::from_bytes(&read(o.req("pk")?)?)
        .map_err(|e| malformed("manager key", e))?;
    let (pending_path, certs_path) = (o.req("pending")?, o.req("certs")?);
    let pending = read(pending_path)?;
    let certs = read(certs_path)?;
    let cl = Certificate::encoded_len(p);
    if pending.len() < p.n() || certs.len() < cl {
        return Err(Failure::Usage(
            "no pending one-time key left: run csr and cert".into(),
        ));
    }
    let seed = alibi_dgsp::WotsSeed::from_bytes(p, &pending[..p.n()])
        .map_err(|e| malformed("pending key", e))?;
    let cert = Certificate::from_bytes(p, &certs[..cl]).map_err(|e| malformed("certificate", e))?;
    let mut keys: Vec<OneTimeKey> = user
        .accept(vec![seed], vec![cert], &pkm)
        .map_err(dgsp_err)?;
    // Remove the key from the files before signing with it.
    write(pending_path, &pending[p.n()..])?;
    write(certs_path, &certs[cl..])?;
    let msg = read(o.req("msg")?)?;
    let sig = user.sign(keys.pop().expect("one key"), &msg);
    write(o.req("out")?, &sig.to_bytes())
}

fn load_sig(p: Params, path: &str) -> Result<GroupSignature, Failure> {
    GroupSignature::from_bytes(p, &read(path)?).map_err(|e| malformed("signature", e))
}

fn verify_cmd(o: &Opts) -> CmdResult {
    let pkm = ManagerPublicKey::from_bytes(&read(o.req("pk")?)?)
        .map_err(|e| malformed("manager key", e))?;
    let sig = load_sig(pkm.params(), o.req("sig")?)?;
    let msg = read(o.req("msg")?)?;
    let res = match o.req("dir") {
        Ok(dir) => {
            let store = RedbStore::open(&Path::new(dir).join("members.redb"))
                .map_err(|e| malformed("database", e))?;
            verify(&pkm, &msg, &sig, &store)
        }
        Err(_) => verify(
            &pkm,
            &msg,
            &sig,
            &alibi_dgsp::storage::MemoryRevokedList::default(),
        ),
    };
    res.map_err(dgsp_err)?;
    println!("valid");
    Ok(())
}

fn open(o: &Opts) -> CmdResult {
    let m = manager(o.req("dir")?)?;
    let sig = load_sig(m.public_key().params(), o.req("sig")?)?;
    let opened = m.open(&read(o.req("msg")?)?, &sig).map_err(dgsp_err)?;
    let pi: String = opened.pi.iter().map(|b| format!("{b:02x}")).collect();
    println!("{} {} {pi}", opened.id, opened.username);
    Ok(())
}

fn judge_cmd(o: &Opts) -> CmdResult {
    let pkm = ManagerPublicKey::from_bytes(&read(o.req("pk")?)?)
        .map_err(|e| malformed("manager key", e))?;
    let sig = load_sig(pkm.params(), o.req("sig")?)?;
    let id: u64 = o
        .req("id")?
        .parse()
        .map_err(|_| Failure::Usage("--id must be a number".into()))?;
    let hex = o.req("pi")?;
    let pi: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2).unwrap_or("zz"), 16))
        .collect::<Result<_, _>>()
        .map_err(|_| Failure::Usage("--pi must be hex".into()))?;
    judge(&pkm, &read(o.req("msg")?)?, &sig, id, &pi).map_err(dgsp_err)?;
    println!("valid");
    Ok(())
}

fn revoke(o: &Opts) -> CmdResult {
    let m = manager(o.req("dir")?)?;
    let id: u64 = o
        .req("id")?
        .parse()
        .map_err(|_| Failure::Usage("--id must be a number".into()))?;
    m.revoke(&[id]).map_err(dgsp_err)
}
