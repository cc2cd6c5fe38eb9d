//! Seed 003 (DGSP, ePrint 2025/760, its README's tables): every operation at both parameter sets
//! of the README (SPHINCS+-SHAKE-256f and -256s), in memory and on disk, batch 1 and 8 where the
//! batch matters, on a group of 2^10 members (2^25 with `--full`). The published `dgsp` 0.1.2 crate
//! runs beside ours, alternately, at SHAKE-256f (the parameter set it is built with here); its
//! README's figures are quoted for both sets.

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList, Plm, RedbStore, RevokedList};
use alibi_dgsp::{csr, judge, verify, Manager, OneTimeKey, Params, UserKey};
use dgsp::params::DGSP_N;
use dgsp::scheme::{DGSPCert, DGSPSignature};
use dgsp::{
    InDiskPLM, InDiskRevokedList, InMemoryPLM, InMemoryRevokedList, PLMInterface,
    RevokedListInterface, DGSP,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::path::Path;
use std::sync::Arc;

use super::Measurement;
use crate::measure::{pair, time, Budget, Pair, Stats};
use crate::table::{pair as pair_cells, stats, Cell, Plot, Table};
use crate::{op, Ctx, Error, Scale, Seed};

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// The README's figures in ms (quoted; i7-4702MQ, one core, 2.2 GHz): per operation, SHAKE-256f
/// then SHAKE-256s, each in the README's column order: in memory 2^10 (batch 1, 8), 2^25 (1, 8),
/// on disk 2^10 (1, 8), 2^25 (1, 8).
#[rustfmt::skip]
const README: [(&str, [f64; 8], [f64; 8]); 9] = [
    ("keygen", [3.0521, 3.0534, 3.0536, 3.0545, 3.0585, 3.0594, 3.0546, 3.0558], [48.888, 48.892, 48.921, 48.886, 48.802, 48.923, 48.882, 48.919]),
    ("join", [0.0030, 0.0030, 0.0029, 0.0029, 0.0259, 0.0255, 0.0278, 0.0287], [0.0030, 0.0030, 0.0029, 0.0029, 0.0250, 0.0263, 0.0272, 0.0280]),
    ("csr", [1.3630, 10.985, 1.3626, 10.988, 1.3982, 11.045, 1.4025, 11.051], [1.3552, 10.894, 1.3556, 10.905, 1.4094, 11.126, 1.4117, 11.137]),
    ("gen_cert", [61.451, 491.53, 61.552, 491.55, 61.910, 495.04, 61.596, 492.15], [582.70, 4661.6, 583.53, 4661.6, 582.93, 4664.1, 583.52, 4667.4]),
    ("sign", [1.3875, 1.3870, 1.3886, 1.3869, 1.4196, 1.4202, 1.4186, 1.4192], [1.3847, 1.3835, 1.3863, 1.3848, 1.4418, 1.4396, 1.4874, 1.4813]),
    ("verify", [2.7706, 2.7678, 2.7808, 2.7725, 2.7626, 2.7670, 2.7667, 2.7778], [1.8255, 1.8248, 1.8207, 1.8180, 1.8515, 1.8561, 1.8571, 1.8529]),
    ("open", [0.6798, 0.6948, 0.6987, 0.7043, 0.6957, 0.6978, 0.6831, 0.6954], [0.6991, 0.6881, 0.6901, 0.6911, 0.7137, 0.7060, 0.7197, 0.7237]),
    ("judge", [0.6917, 0.6912, 0.7014, 0.6937, 0.6914, 0.6728, 0.6878, 0.6877], [0.6806, 0.6813, 0.6744, 0.6798, 0.7016, 0.6987, 0.7016, 0.6986]),
    ("revoke", [0.0007, 0.0027, 0.0008, 0.0027, 0.0305, 0.0754, 0.0259, 0.0909], [0.0012, 0.0044, 0.0012, 0.0046, 0.1773, 0.0733, 0.0322, 0.0797]),
];

/// Where a row stands: parameter set, storage, group size (log2).
#[derive(Clone, Copy, Debug)]
struct Setting {
    params: Params,
    disk: bool,
    log_group: u32,
}

impl Setting {
    fn name(self) -> &'static str {
        match self.params {
            Params::Shake256s => "SHAKE-256s",
            _ => "SHAKE-256f",
        }
    }

    /// The storage column and progress label.
    fn storage(self) -> &'static str {
        if self.disk {
            "disk"
        } else {
            "memory"
        }
    }

    /// The README's quoted figure for `what` at `batch`, where it has this group size.
    fn readme(self, what: &str, batch: usize) -> String {
        let s256 = matches!(self.params, Params::Shake256s);
        let col = match self.log_group {
            10 => 0,
            25 => 2,
            _ => return "-".into(),
        } + 4 * usize::from(self.disk)
            + usize::from(batch == 8);
        README
            .iter()
            .find(|(n, ..)| *n == what)
            .map_or("-".into(), |(_, f, s)| {
                format!("{} ms", if s256 { s[col] } else { f[col] })
            })
    }
}

/// One operation's times: ours alone, or ours alternately with the published crate's.
#[derive(Clone, Debug)]
enum Timed {
    /// Where the peer does not run (SHAKE-256s).
    Alone(Stats),
    /// Ours and the peer's, batches alternating.
    Pair(Pair),
}

/// One row: an operation at a setting and batch size, and its times.
#[derive(Clone, Debug)]
struct Row {
    setting: Setting,
    /// The operation, as the README names it.
    what: &'static str,
    batch: usize,
    timed: Timed,
}

/// What seed 003 measures: every operation at every setting, in the order they ran.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    /// The group's size, log2 (by scale).
    log_group: u32,
    /// Per parameter set, in memory then on disk.
    rows: Vec<Row>,
}

impl Measurement for Measured {
    fn measure(ctx: &mut Ctx) -> Result<Self, Error> {
        measure(ctx)
    }

    fn render(&self) -> Table {
        render(self)
    }
}

/// The published crate's state for one storage pair, and its member `alice` once joined.
struct Theirs<P: PLMInterface, R: RevokedListInterface> {
    pkm: dgsp::scheme::DGSPManagerPublicKey,
    skm: dgsp::scheme::DGSPManagerSecretKey,
    plm: P,
    revoked: R,
    user: Option<TheirUser>,
    sig: Option<TheirSig>,
}

/// The peer's member `alice`: id, cid* and user seed.
struct TheirUser {
    id: u64,
    cid: [u8; DGSP_N],
    seed: [u8; DGSP_N],
}

/// A signature by the peer's `alice`, for verify, open and judge; its opening's proof, and the
/// certificate and WOTS seed that sign again.
struct TheirSig {
    sig: DGSPSignature,
    pi: [u8; DGSP_N],
    cert: DGSPCert,
    wots_seed: [u8; DGSP_N],
}

/// Times one setting's operations into rows, alternately with the peer's when it runs there.
struct Recorder<'a, 'c> {
    ctx: &'a mut Ctx<'c>,
    rows: &'a mut Vec<Row>,
    s: Setting,
    /// Whether the peer runs this setting (its closures are then never called with its state
    /// missing).
    has_peer: bool,
}

impl<'a, 'c> Recorder<'a, 'c> {
    /// A recorder for setting `s`, appending to `rows`.
    fn new(ctx: &'a mut Ctx<'c>, rows: &'a mut Vec<Row>, s: Setting, has_peer: bool) -> Self {
        Recorder {
            ctx,
            rows,
            s,
            has_peer,
        }
    }

    /// Times `ours`, alternately with `theirs` when there is a peer; records the row.
    fn run(
        &mut self,
        what: &'static str,
        batch: usize,
        ours: impl FnMut() -> bool,
        mut theirs: impl FnMut() -> bool,
    ) {
        let s = self.s;
        self.ctx.step(format!(
            "DGSP {} {} {what} (batch {batch})",
            s.name(),
            s.storage()
        ));
        let b: Budget = self.ctx.budget;
        let timed = if self.has_peer {
            Timed::Pair(pair(b, ours, &mut theirs as &mut dyn FnMut() -> bool))
        } else {
            Timed::Alone(time(b, ours))
        };
        self.rows.push(Row {
            setting: s,
            what,
            batch,
            timed,
        });
    }
}

/// Both parameter sets, each in memory then on disk; the peer at SHAKE-256f only.
fn measure(ctx: &mut Ctx) -> Result<Measured, Error> {
    let log_group = match ctx.scale {
        Scale::Tiny => 4,
        Scale::Quick => 10,
        Scale::Full => 25,
    };
    // Per parameter set: 12 rows in memory, 7 on disk.
    ctx.begin(Seed::Dgsp, 2 * 19);
    let mut rows = vec![];
    let scratch = op("temporary directory", tempfile::tempdir())?;
    for params in [Params::Shake256f, Params::Shake256s] {
        let dir = scratch.path().join(format!("{params:?}"));
        parameter_set(ctx, &mut rows, params, log_group, &dir)?;
    }
    Ok(Measured { log_group, rows })
}

/// One parameter set: in memory, then on disk in `dir` (a group already in the store).
fn parameter_set(
    ctx: &mut Ctx,
    rows: &mut Vec<Row>,
    params: Params,
    log_group: u32,
    dir: &Path,
) -> Result<(), Error> {
    let peer = matches!(params, Params::Shake256f);
    let mem = Setting {
        params,
        disk: false,
        log_group,
    };
    let their_mem = if peer {
        let (pkm, skm) = op("peer keygen", DGSP::keygen_manager())?;
        Some(Theirs {
            pkm,
            skm,
            plm: op("peer store", InMemoryPLM::open("unused"))?,
            revoked: op("peer store", InMemoryRevokedList::open("unused"))?,
            user: None,
            sig: None,
        })
    } else {
        None
    };
    let (plm, revoked) = (MemoryPlm::default(), MemoryRevokedList::default());
    let mut r = Recorder::new(ctx, rows, mem, their_mem.is_some());
    setting(&mut r, plm, revoked, their_mem, false)?;
    op("directory", std::fs::create_dir_all(dir.join("theirs")))?;
    let store = Arc::new(op("redb store", RedbStore::open(&dir.join("dgsp.redb")))?);
    // One write transaction for the whole group: joining one by one commits (and syncs) each.
    op(
        "populate",
        store.add_new_users((0..1u64 << log_group).map(|i| format!("member{i}"))),
    )?;
    let their_disk = if peer {
        let (pkm, skm) = op("peer keygen", DGSP::keygen_manager())?;
        Some(Theirs {
            pkm,
            skm,
            plm: op("peer store", InDiskPLM::open(dir.join("theirs")))?,
            revoked: op("peer store", InDiskRevokedList::open(dir.join("theirs")))?,
            user: None,
            sig: None,
        })
    } else {
        None
    };
    let disk = Setting {
        params,
        disk: true,
        log_group,
    };
    let mut r = Recorder::new(ctx, rows, disk, their_disk.is_some());
    setting(&mut r, store.clone(), store, their_disk, true)
}

/// Our operations on one storage pair, with the peer's when `theirs` is given.
fn setting<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    r: &mut Recorder,
    plm: P,
    revoked: R,
    mut theirs: Option<Theirs<TP, TR>>,
    populated: bool,
) -> Result<(), Error> {
    let p = r.s.params;
    let group = 1u64 << r.s.log_group;
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    if !r.s.disk {
        r.run(
            "keygen",
            1,
            || {
                !alibi_dgsp::ManagerSecretKey::generate(p, &mut rng)
                    .to_bytes()
                    .is_empty()
            },
            || DGSP::keygen_manager().is_ok(),
        );
    }
    let m = Manager::generate(p, plm, revoked, &mut rng);
    populate(&m, theirs.as_ref(), group, populated)?;
    join(r, &m, theirs.as_ref());
    let (id, cid) = op("join", m.join("alice"))?;
    let u = UserKey::generate(p, id, &mut rng);
    if let Some(t) = &mut theirs {
        t.user = Some(their_user(t)?);
    }
    certify(r, &m, &u, id, &cid, theirs.as_ref(), &mut rng);
    let (seeds, pks) = csr(&u, 1, &mut rng);
    let certs = op("gen_cert", m.gen_cert(id, &cid, &pks))?;
    let key_bytes = op("accept", u.accept(seeds, certs, m.public_key()))?
        .pop()
        .ok_or(Error::Operation("accept", "no key".into()))?
        .to_bytes();
    if let Some(t) = &mut theirs {
        t.sig = t.user.as_ref().map(|user| their_sig(t, user)).transpose()?;
    }
    sign_to_judge(r, &m, &u, id, &key_bytes, theirs.as_ref())?;
    revoke(r, &m, theirs.as_ref(), group);
    Ok(())
}

/// Fills the group before timing: ours member by member unless the store came `populated`, the
/// peer's always.
fn populate<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    m: &Manager<P, R>,
    theirs: Option<&Theirs<TP, TR>>,
    group: u64,
    populated: bool,
) -> Result<(), Error> {
    if !populated {
        for i in 0..group {
            op("join", m.join(&format!("member{i}")))?;
        }
    }
    if let Some(t) = theirs {
        for i in 0..group {
            op(
                "peer join",
                DGSP::join(&t.skm.msk.hash_secret, &format!("member{i}"), &t.plm),
            )?;
        }
    }
    Ok(())
}

/// join: each call a new member.
fn join<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    r: &mut Recorder,
    m: &Manager<P, R>,
    theirs: Option<&Theirs<TP, TR>>,
) {
    let (mut k, mut tk) = (0u64, 0u64);
    r.run(
        "join",
        1,
        || {
            k += 1;
            m.join(&format!("new{k}")).is_ok()
        },
        || {
            tk += 1;
            theirs.is_some_and(|t| {
                DGSP::join(&t.skm.msk.hash_secret, &format!("new{tk}"), &t.plm).is_ok()
            })
        },
    );
}

/// The peer's member `alice`, joined after the timed joins.
fn their_user<TP: PLMInterface, TR: RevokedListInterface>(
    t: &Theirs<TP, TR>,
) -> Result<TheirUser, Error> {
    let (id, cid) = op(
        "peer join",
        DGSP::join(&t.skm.msk.hash_secret, "alice", &t.plm),
    )?;
    Ok(TheirUser {
        id,
        cid,
        seed: DGSP::keygen_user(),
    })
}

/// csr (in memory only: it touches no storage) and gen_cert, at batch 1 and 8.
fn certify<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    r: &mut Recorder,
    m: &Manager<P, R>,
    u: &UserKey,
    id: u64,
    cid: &[u8],
    theirs: Option<&Theirs<TP, TR>>,
    rng: &mut ChaCha20Rng,
) {
    let their_user = theirs.and_then(|t| t.user.as_ref());
    for batch in [1usize, 8] {
        if !r.s.disk {
            r.run(
                "csr",
                batch,
                || !csr(u, batch, &mut *rng).1.is_empty(),
                || their_user.is_some_and(|tu| !DGSP::csr(&tu.seed, batch).0.is_empty()),
            );
        }
        let (_, pks) = csr(u, batch, &mut *rng);
        let their_pks = their_user.map(|tu| DGSP::csr(&tu.seed, batch).0);
        r.run(
            "gen_cert",
            batch,
            || m.gen_cert(id, cid, &pks).is_ok(),
            || match (theirs, their_user, &their_pks) {
                (Some(t), Some(tu), Some(tp)) => {
                    DGSP::gen_cert(&t.skm, tu.id, &tu.cid, tp, &t.plm).is_ok()
                }
                _ => false,
            },
        );
    }
}

/// The peer's signature by `alice`, and its opening's proof.
fn their_sig<TP: PLMInterface, TR: RevokedListInterface>(
    t: &Theirs<TP, TR>,
    user: &TheirUser,
) -> Result<TheirSig, Error> {
    let (tpks, wots_seeds) = DGSP::csr(&user.seed, 1);
    let cert = op(
        "peer gen_cert",
        DGSP::gen_cert(&t.skm, user.id, &user.cid, &tpks, &t.plm),
    )?
    .pop()
    .ok_or(Error::Operation("peer gen_cert", "no certificate".into()))?;
    let sig = DGSP::sign(MSG, &user.seed, user.id, wots_seeds[0], cert.clone());
    let (_, _, pi) = op("peer open", DGSP::open(&t.skm.msk, &t.plm, &sig, MSG))?;
    Ok(TheirSig {
        sig,
        pi,
        cert,
        wots_seed: wots_seeds[0],
    })
}

/// sign and judge (in memory only), verify and open.
fn sign_to_judge<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    r: &mut Recorder,
    m: &Manager<P, R>,
    u: &UserKey,
    id: u64,
    key_bytes: &[u8],
    theirs: Option<&Theirs<TP, TR>>,
) -> Result<(), Error> {
    let p = r.s.params;
    let their_user = theirs.and_then(|t| t.user.as_ref());
    let their_sig = theirs.and_then(|t| t.sig.as_ref());
    if !r.s.disk {
        r.run(
            "sign",
            1,
            || {
                OneTimeKey::from_bytes(p, key_bytes)
                    .is_ok_and(|key| u.sign(key, MSG).zeta().len() == 16)
            },
            || match (their_user, their_sig) {
                (Some(tu), Some(ts)) => {
                    DGSP::sign(MSG, &tu.seed, tu.id, ts.wots_seed, ts.cert.clone())
                        .zeta
                        .len()
                        == 16
                }
                _ => false,
            },
        );
    }
    let sig = u.sign(
        op("one-time key", OneTimeKey::from_bytes(p, key_bytes))?,
        MSG,
    );
    r.run(
        "verify",
        1,
        || verify(m.public_key(), MSG, &sig, m.revoked()).is_ok(),
        || match (theirs, their_sig) {
            (Some(t), Some(ts)) => DGSP::verify(MSG, &ts.sig, &t.revoked, &t.pkm).is_ok(),
            _ => false,
        },
    );
    r.run(
        "open",
        1,
        || m.open(MSG, &sig).is_ok(),
        || match (theirs, their_sig) {
            (Some(t), Some(ts)) => DGSP::open(&t.skm.msk, &t.plm, &ts.sig, MSG).is_ok(),
            _ => false,
        },
    );
    if !r.s.disk {
        let pi = op("open", m.open(MSG, &sig))?.pi;
        r.run(
            "judge",
            1,
            || judge(m.public_key(), MSG, &sig, id, &pi).is_ok(),
            || match (their_user, their_sig) {
                (Some(tu), Some(ts)) => DGSP::judge(&ts.sig, MSG, tu.id, &ts.pi).is_ok(),
                _ => false,
            },
        );
    }
    Ok(())
}

/// revoke, batch 1 and 8: each call revokes the next `batch` members, round the group.
fn revoke<P: Plm, R: RevokedList, TP: PLMInterface, TR: RevokedListInterface>(
    r: &mut Recorder,
    m: &Manager<P, R>,
    theirs: Option<&Theirs<TP, TR>>,
    group: u64,
) {
    for batch in [1u64, 8] {
        let (mut next, mut tnext) = (0u64, 0u64);
        let ids = move |from: &mut u64| -> Vec<u64> {
            let v = (0..batch).map(|j| (*from + j) % group).collect();
            *from += batch;
            v
        };
        r.run(
            "revoke",
            batch as usize,
            || m.revoke(&ids(&mut next)).is_ok(),
            || {
                theirs.is_some_and(|t| {
                    DGSP::revoke(&t.skm.msk.aes_key, &t.plm, &ids(&mut tnext), &t.revoked).is_ok()
                })
            },
        );
    }
}

/// The table, from the figures alone.
fn render(m: &Measured) -> Table {
    let log_group = m.log_group;
    Table {
        id: "seed003-dgsp".into(),
        title: "Seed 003: DGSP (the README's tables)".into(),
        intro: vec![format!(
            "Every operation on a group of 2^{log_group} members, batch 1 and 8 where the batch counts \
             (csr, gen_cert, revoke); in memory, and on disk for the operations that touch storage (ours: \
             redb; the published crate: sled). The published `dgsp` 0.1.2 runs alternately with ours at \
             SHAKE-256f, the set it is built with here; it is measured for speed only (it has \
             correctness bugs, see alibi-dgsp's documentation). Both use every core for gen_cert. \
             sign includes decoding our one-time key and cloning the peer's certificate."
        )],
        columns: [
            "parameters",
            "storage",
            "group",
            "operation",
            "batch",
            "alibi",
            "dgsp 0.1.2, same run",
            "alibi / dgsp 0.1.2",
            "README, quoted",
        ]
        .map(String::from)
        .to_vec(),
        rows: m.rows.iter().map(cells).collect(),
        notes: vec![
            "Unequal work, by design: our open and judge verify the signature first (the published \
             crate's skip it), so they cost about one verification; our on-disk store (redb) makes each \
             write durable before it returns (an fsync per join or revocation), where sled's flush is \
             asynchronous, which is most of the difference in the disk rows of join and revoke."
                .into(),
            "README figures are quoted from the DGSP README (Intel i7-4702MQ at 2.2 GHz, one core, no \
             turbo), at the same group size where it has one (2^10 and 2^25)."
                .into(),
        ],
        plot: Plot {
            unit: "µs".into(),
            series: vec!["alibi".into(), "dgsp 0.1.2".into()],
            groups: m.rows.iter().filter_map(bars).collect(),
        },
    }
}

/// One row's cells: where, what, ours, the peer's and the ratio (or none), the README's.
fn cells(row: &Row) -> Vec<Cell> {
    let s = row.setting;
    let (ours, theirs, ratio) = match &row.timed {
        Timed::Pair(p) => {
            let [ours, theirs, ratio] = pair_cells(p);
            (ours, theirs, ratio)
        }
        Timed::Alone(st) => (stats(st), Cell::None, Cell::None),
    };
    vec![
        s.name().into(),
        s.storage().into(),
        format!("2^{}", s.log_group).into(),
        row.what.into(),
        row.batch.to_string().into(),
        ours,
        theirs,
        ratio,
        s.readme(row.what, row.batch).into(),
    ]
}

/// The plot's bars for a row: SHAKE-256f in memory at batch 1 only, in µs.
fn bars(row: &Row) -> Option<(String, Vec<Option<f64>>)> {
    let s = row.setting;
    if s.disk || row.batch != 1 || !matches!(s.params, Params::Shake256f) {
        return None;
    }
    let (ours, peer) = match &row.timed {
        Timed::Pair(p) => (&p.ours, Some(p.peer.median)),
        Timed::Alone(st) => (st, None),
    };
    Some((
        row.what.into(),
        vec![Some(ours.median / 1e3), peer.map(|x| x / 1e3)],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One sample of `median` ns.
    fn stats(median: f64) -> Stats {
        Stats {
            median,
            min: median,
            max: median,
            samples: 1,
        }
    }

    #[test]
    fn every_row_fills_every_column() {
        let at = |params, disk| Setting {
            params,
            disk,
            log_group: 10,
        };
        let row = |setting, what, batch, timed| Row {
            setting,
            what,
            batch,
            timed,
        };
        let pair = |ours: f64, peer: f64| {
            Timed::Pair(Pair {
                ours: stats(ours),
                peer: stats(peer),
                ratio: stats(ours / peer),
            })
        };
        let f = Params::Shake256f;
        let m = Measured {
            log_group: 10,
            rows: vec![
                row(at(f, false), "keygen", 1, pair(2e6, 4e6)),
                row(at(f, false), "csr", 8, pair(1e6, 1e6)),
                row(at(f, true), "revoke", 8, pair(3e5, 1e5)),
                row(
                    at(Params::Shake256s, false),
                    "sign",
                    1,
                    Timed::Alone(stats(1.5e6)),
                ),
            ],
        };
        let table = m.render();
        assert_eq!(table.rows.len(), 4);
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        let text = |r: usize, c: usize| table.rows[r][c].markdown();
        assert_eq!(text(0, 7), "0.50");
        assert_eq!(text(2, 7), "3.00");
        assert_eq!(text(0, 5), "2.00 ms");
        assert_eq!(text(0, 2), "2^10");
        // The README's column: memory 2^10 batch 1; disk 2^10 batch 8; SHAKE-256s memory batch 1.
        assert_eq!(text(0, 8), "3.0521 ms");
        assert_eq!(text(2, 8), "0.0754 ms");
        assert_eq!(text(3, 8), "1.3847 ms");
        assert_eq!(
            (text(3, 0), text(3, 6), text(3, 7)),
            ("SHAKE-256s".into(), "-".into(), "-".into())
        );
        assert_eq!(text(2, 1), "disk");
        // Only SHAKE-256f in memory at batch 1 is plotted.
        assert_eq!(
            table.plot.groups,
            vec![("keygen".to_string(), vec![Some(2000.0), Some(4000.0)])]
        );
        assert!(table.intro[0].starts_with("Every operation on a group of 2^10 members"));
    }
}
