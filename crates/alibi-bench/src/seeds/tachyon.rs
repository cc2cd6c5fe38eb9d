//! Seed 004 (TACHYON, section 5), Table 2: signing, verification and end-to-end delay (sign +
//! verify) of TACHYON at every level, with and without the signer's cached x_i, beside ML-DSA
//! (the Dilithium the paper compares with, as standardised), Falcon (ours and PQClean's) and
//! SPHINCS+ (PQClean) in the same run; the end-to-end delay of each TACHYON level is measured
//! alternately with ML-DSA's at the same level.

use alibi_falcon::Level as FalconLevel;
use alibi_tachyon::{Level, SigningKey};
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use super::Measurement;
use crate::measure::{pair, time, Pair, Stats};
use crate::table::{ratio, stats, Cell, Plot, Table};
use crate::{Ctx, Error, Scale, Seed};

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// A peer from PQClean: sign and verify closures over one key pair (true when they succeed), and
/// its sizes.
macro_rules! pqclean {
    ($m:path) => {{
        use $m as p;
        let (pk, sk) = p::keypair();
        let sig = p::detached_sign(MSG, &sk);
        let sizes = [
            pk.as_bytes().len(),
            sk.as_bytes().len(),
            sig.as_bytes().len(),
        ];
        (
            move || !p::detached_sign(MSG, &sk).as_bytes().is_empty(),
            move || p::verify_detached_signature(&sig, MSG, &pk).is_ok(),
            sizes,
        )
    }};
}

/// One TACHYON level: its figures with and without the signer's cached x_i, and its end-to-end
/// delay paired with ML-DSA's at the same level.
#[derive(Clone, Debug)]
struct Tachyon {
    /// "TACHYON", or the parameter set when the level has two.
    scheme: &'static str,
    /// Security level, bits.
    bits: u32,
    sign: Stats,
    /// Signing with x_i cached.
    sign_cached: Stats,
    verify: Stats,
    /// Public key, secret key (its encoding, a seed) and signature, bytes.
    sizes: [usize; 3],
    /// The cached x_i, bytes: the paper counts it in the secret key.
    cached_len: usize,
    /// Sign + verify, ours against ML-DSA's, measured alternately.
    vs_mldsa: Pair,
}

/// A counterpart: sign and verify alone.
#[derive(Clone, Debug)]
struct Peer {
    scheme: String,
    /// Security level, bits.
    level: u32,
    sign: Stats,
    verify: Stats,
    /// Public key, secret key, signature, bytes.
    sizes: [usize; 3],
}

/// What seed 004 measures: TACHYON at each level the scale runs, then the counterparts (ML-DSA
/// first, SPHINCS+-SHA2-128s only with `--full`).
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    tachyon: Vec<Tachyon>,
    peers: Vec<Peer>,
}

impl Measurement for Measured {
    fn measure(ctx: &mut Ctx) -> Result<Self, Error> {
        Ok(measure(ctx))
    }

    fn render(&self) -> Table {
        render(self)
    }
}

/// A sign or verify closure of a counterpart, true when it succeeds.
type Op = Box<dyn FnMut() -> bool>;

/// A counterpart ready to time: name, level, sign, verify, sizes.
type PeerOps = (String, u32, Op, Op, [usize; 3]);

/// All of seed 004's timing: the counterparts' keys first (they fix the step count), then TACHYON,
/// then the counterparts.
fn measure(ctx: &mut Ctx) -> Measured {
    let levels: &[Level] = match ctx.scale {
        Scale::Tiny => &[Level::T128],
        _ => &Level::ALL,
    };
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let mut peers = pqclean_peers(ctx.scale == Scale::Full);
    for (level, lv) in [
        (FalconLevel::Falcon512, 128),
        (FalconLevel::Falcon1024, 256),
    ] {
        peers.push(alibi_falcon_peer(level, lv, &mut rng));
    }
    ctx.begin(Seed::Tachyon, 4 * levels.len() + 2 * peers.len());
    let tachyon = levels
        .iter()
        .map(|level| tachyon(ctx, *level, &mut rng, &mut peers))
        .collect();
    let peers = peers
        .into_iter()
        .map(|(scheme, level, mut s, mut v, sizes)| {
            ctx.step(format!("{scheme} sign"));
            let sign = time(ctx.budget, &mut s);
            ctx.step(format!("{scheme} verify"));
            let verify = time(ctx.budget, &mut v);
            Peer {
                scheme,
                level,
                sign,
                verify,
                sizes,
            }
        })
        .collect();
    Measured { tachyon, peers }
}

/// The PQClean counterparts, ML-DSA at each level first (TACHYON's end-to-end partners).
fn pqclean_peers(full: bool) -> Vec<PeerOps> {
    let (s44, v44, z44) = pqclean!(pqcrypto_mldsa::mldsa44);
    let (s65, v65, z65) = pqclean!(pqcrypto_mldsa::mldsa65);
    let (s87, v87, z87) = pqclean!(pqcrypto_mldsa::mldsa87);
    let mut peers: Vec<PeerOps> = vec![
        (
            "ML-DSA-44 (PQClean)".into(),
            128,
            Box::new(s44),
            Box::new(v44),
            z44,
        ),
        (
            "ML-DSA-65 (PQClean)".into(),
            192,
            Box::new(s65),
            Box::new(v65),
            z65,
        ),
        (
            "ML-DSA-87 (PQClean)".into(),
            256,
            Box::new(s87),
            Box::new(v87),
            z87,
        ),
    ];
    macro_rules! add {
        ($name:expr, $level:expr, $m:path) => {{
            let (s, v, z) = pqclean!($m);
            peers.push(($name.into(), $level, Box::new(s), Box::new(v), z));
        }};
    }
    add!("Falcon-512 (PQClean)", 128, pqcrypto_falcon::falcon512);
    add!("Falcon-1024 (PQClean)", 256, pqcrypto_falcon::falcon1024);
    add!(
        "SPHINCS+-SHA2-128f (PQClean)",
        128,
        pqcrypto_sphincsplus::sphincssha2128fsimple
    );
    if full {
        // About a quarter of a second per signature: only in the long run.
        add!(
            "SPHINCS+-SHA2-128s (PQClean)",
            128,
            pqcrypto_sphincsplus::sphincssha2128ssimple
        );
    }
    peers
}

/// Our Falcon at `level` (`lv` bits) as a counterpart, signing with an expanded key; its key and
/// signature from `rng`, its signing from a generator of its own.
fn alibi_falcon_peer(level: FalconLevel, lv: u32, rng: &mut ChaCha20Rng) -> PeerOps {
    let sk = alibi_falcon::SigningKey::generate(level, &mut *rng);
    let esk = sk.expand();
    let vk = sk.verifying_key().clone();
    let sig = esk.sign(MSG, &mut *rng);
    let sizes = [
        vk.to_bytes().len(),
        sk.to_bytes().len(),
        sig.to_bytes().len(),
    ];
    let mut r2 = ChaCha20Rng::seed_from_u64(5);
    (
        format!("{level} (alibi, expanded key)"),
        lv,
        Box::new(move || !esk.sign(MSG, &mut r2).to_bytes().is_empty()),
        Box::new(move || vk.verify(MSG, &sig).is_ok()),
        sizes,
    )
}

/// TACHYON at `level`: sign, sign with x_i cached, verify, and sign + verify alternately with
/// ML-DSA's at the same level (one of the first three of `peers`).
fn tachyon(ctx: &mut Ctx, level: Level, rng: &mut ChaCha20Rng, peers: &mut [PeerOps]) -> Tachyon {
    let b = ctx.budget;
    let (name, bits) = match level {
        Level::T128 => ("TACHYON", 128),
        Level::T192 => ("TACHYON", 192),
        Level::T256 => ("TACHYON", 256),
        Level::T128Small => ("TACHYON (t, k) = (256, 26)", 128),
    };
    let sk = SigningKey::generate(level, &mut *rng);
    let vk = sk.verifying_key();
    let pre = sk.clone().with_precomputation();
    let sig = sk.sign(MSG, &mut *rng);
    let sizes = [
        vk.to_bytes().len(),
        sk.to_bytes().len(),
        sig.to_bytes().len(),
    ];
    ctx.step(format!("{name}-{bits} sign"));
    let sign = time(b, || sk.sign(MSG, &mut *rng));
    ctx.step(format!("{name}-{bits} sign, x_i cached"));
    let sign_cached = time(b, || pre.sign(MSG, &mut *rng));
    ctx.step(format!("{name}-{bits} verify"));
    let verify = time(b, || vk.verify(MSG, &sig).is_ok());
    ctx.step(format!("{name}-{bits} sign + verify, with ML-DSA's"));
    let mut e2e = || {
        let s = sk.sign(MSG, &mut *rng);
        vk.verify(MSG, &s).is_ok()
    };
    let (_, _, ml_sign, ml_verify, _) = &mut peers[match bits {
        128 => 0,
        192 => 1,
        _ => 2,
    }];
    let vs_mldsa = pair(b, &mut e2e, || ml_sign() && ml_verify());
    Tachyon {
        scheme: name,
        bits,
        sign,
        sign_cached,
        verify,
        sizes,
        cached_len: pre.precomputation_len(),
        vs_mldsa,
    }
}

/// One row of the table: scheme, level, sign, verify, sizes, and the end-to-end ratio against
/// ML-DSA where there is one.
struct Row<'a> {
    scheme: String,
    level: u32,
    sign: &'a Stats,
    verify: &'a Stats,
    sizes: [usize; 3],
    vs_mldsa: Option<&'a Stats>,
}

/// The rows in the table's order: each TACHYON level, then with x_i cached, then the
/// counterparts.
fn rows(m: &Measured) -> Vec<Row<'_>> {
    let mut rows = vec![];
    for t in &m.tachyon {
        rows.push(Row {
            scheme: t.scheme.into(),
            level: t.bits,
            sign: &t.sign,
            verify: &t.verify,
            sizes: t.sizes,
            vs_mldsa: Some(&t.vs_mldsa.ratio),
        });
        rows.push(Row {
            scheme: format!("{}, x_i cached", t.scheme),
            level: t.bits,
            sign: &t.sign_cached,
            verify: &t.verify,
            // The encoding is the same seed; the paper counts the cached x_i too.
            sizes: [t.sizes[0], t.sizes[1] + t.cached_len, t.sizes[2]],
            vs_mldsa: None,
        });
    }
    rows.extend(m.peers.iter().map(|p| Row {
        scheme: p.scheme.clone(),
        level: p.level,
        sign: &p.sign,
        verify: &p.verify,
        sizes: p.sizes,
        vs_mldsa: None,
    }));
    rows
}

/// The table, from the figures alone.
fn render(m: &Measured) -> Table {
    let mut cells = vec![];
    let mut plot = Plot {
        unit: "µs".into(),
        series: vec!["sign".into(), "verify".into(), "sign + verify".into()],
        groups: vec![],
    };
    for r in rows(m) {
        let e2e = r.sign.median + r.verify.median;
        cells.push(vec![
            r.scheme.clone().into(),
            r.level.to_string().into(),
            stats(r.sign),
            stats(r.verify),
            // The sum of two medians: one figure, no range of its own.
            stats(&Stats {
                median: e2e,
                min: e2e,
                max: e2e,
                samples: 1,
            }),
            r.vs_mldsa.map_or(Cell::None, ratio),
            r.sizes[0].to_string().into(),
            r.sizes[1].to_string().into(),
            r.sizes[2].to_string().into(),
        ]);
        plot.groups.push((
            format!("{} {}", r.scheme, r.level),
            vec![
                Some(r.sign.median / 1e3),
                Some(r.verify.median / 1e3),
                Some(e2e / 1e3),
            ],
        ));
    }
    Table {
        id: "seed004-tachyon".into(),
        title: "Seed 004: TACHYON and its counterparts (Table 2)".into(),
        intro: vec![
            "Signing and verification of one message; end-to-end delay = sign + verify (the paper's \
             measure). \"x_i cached\" is the signer-side precomputation the paper discusses (a larger \
             secret key). The ratio is TACHYON's sign + verify over ML-DSA's at the same level, the two \
             measured alternately. SPHINCS+-SHA2-128s (about a quarter of a second per signature) runs \
             with `--full` only."
                .into(),
        ],
        columns: [
            "scheme",
            "security level (bits)",
            "sign",
            "verify",
            "sign + verify",
            "sign + verify / ML-DSA's, same level",
            "public key (bytes)",
            "secret key (bytes)",
            "signature (bytes)",
        ]
        .map(String::from)
        .to_vec(),
        rows: cells,
        notes: vec![
            "The paper's Table 2 (quoted) puts TACHYON's end-to-end delay below every counterpart's \
             at each level, on its authors' machine; the column above is that claim's test here."
                .into(),
        ],
        plot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time or ratio with a ±10 % range over five samples.
    fn s(median: f64) -> Stats {
        Stats::around(median)
    }

    /// A counterpart with ML-DSA-44's sizes.
    fn peer(scheme: &str, level: u32, sign: f64, verify: f64) -> Peer {
        Peer {
            scheme: scheme.into(),
            level,
            sign: s(sign),
            verify: s(verify),
            sizes: [1312, 2560, 2420],
        }
    }

    #[test]
    fn every_row_fills_every_column() {
        let table = Measured {
            tachyon: vec![Tachyon {
                scheme: "TACHYON",
                bits: 128,
                sign: s(100_000.0),
                sign_cached: s(40_000.0),
                verify: s(20_000.0),
                sizes: [1000, 32, 2000],
                cached_len: 5000,
                vs_mldsa: Pair {
                    ours: s(120_000.0),
                    peer: s(150_000.0),
                    ratio: s(0.8),
                },
            }],
            peers: vec![
                peer("ML-DSA-44 (PQClean)", 128, 100_000.0, 50_000.0),
                peer("Falcon-512 (PQClean)", 128, 200_000.0, 30_000.0),
            ],
        }
        .render();
        // Each level twice (with and without x_i cached), then the peers.
        assert_eq!(table.rows.len(), 4);
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        // Sign + verify is the sum of the medians, one figure.
        assert_eq!(table.rows[0][4].markdown(), "120.0 µs");
        assert_eq!(table.rows[1][4].markdown(), "60.0 µs");
        assert_eq!(table.rows[0][5].markdown(), "0.80 (0.72–0.88)");
        assert_eq!(table.rows[1][5].markdown(), "-");
        // The cached x_i counts in the secret key.
        assert_eq!(table.rows[0][7].markdown(), "32");
        assert_eq!(table.rows[1][7].markdown(), "5032");
        assert_eq!(table.rows[1][0].markdown(), "TACHYON, x_i cached");
        assert_eq!(table.rows[3][0].markdown(), "Falcon-512 (PQClean)");
        assert_eq!(table.plot.groups[1].0, "TACHYON, x_i cached 128");
        assert_eq!(
            table.plot.groups[3].1,
            vec![Some(200.0), Some(30.0), Some(230.0)]
        );
    }
}
