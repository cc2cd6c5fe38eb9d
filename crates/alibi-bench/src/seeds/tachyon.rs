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

use crate::measure::{pair, time, Stats};
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

/// One row: scheme, level, sign, verify, sizes, and the end-to-end ratio against ML-DSA.
struct Row {
    scheme: String,
    level: u32,
    sign: Stats,
    verify: Stats,
    sizes: [usize; 3],
    vs_mldsa: Option<Stats>,
}

pub(crate) fn table(ctx: &mut Ctx) -> Result<Table, Error> {
    let levels: &[Level] = match ctx.scale {
        Scale::Tiny => &[Level::T128],
        _ => &Level::ALL,
    };
    let full = ctx.scale == Scale::Full;
    let b = ctx.budget;
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let mut rows = vec![];

    // ML-DSA at each level (the first three peers below), also the partner of TACHYON's
    // end-to-end pairs.
    let (s44, v44, z44) = pqclean!(pqcrypto_mldsa::mldsa44);
    let (s65, v65, z65) = pqclean!(pqcrypto_mldsa::mldsa65);
    let (s87, v87, z87) = pqclean!(pqcrypto_mldsa::mldsa87);
    // The peers: name, level, sign, verify, sizes.
    type Op = Box<dyn FnMut() -> bool>;
    let mut peers: Vec<(String, u32, Op, Op, [usize; 3])> = vec![
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
    for (level, lv) in [
        (FalconLevel::Falcon512, 128),
        (FalconLevel::Falcon1024, 256),
    ] {
        let sk = alibi_falcon::SigningKey::generate(level, &mut rng);
        let esk = sk.expand();
        let vk = sk.verifying_key().clone();
        let sig = esk.sign(MSG, &mut rng);
        let sizes = [
            vk.to_bytes().len(),
            sk.to_bytes().len(),
            sig.to_bytes().len(),
        ];
        let mut r2 = ChaCha20Rng::seed_from_u64(5);
        peers.push((
            format!("{level} (alibi, expanded key)"),
            lv,
            Box::new(move || !esk.sign(MSG, &mut r2).to_bytes().is_empty()),
            Box::new(move || vk.verify(MSG, &sig).is_ok()),
            sizes,
        ));
    }
    ctx.begin(Seed::Tachyon, 4 * levels.len() + 2 * peers.len());
    for level in levels {
        let (name, bits) = match level {
            Level::T128 => ("TACHYON", 128),
            Level::T192 => ("TACHYON", 192),
            Level::T256 => ("TACHYON", 256),
            Level::T128Small => ("TACHYON (t, k) = (256, 26)", 128),
        };
        let sk = SigningKey::generate(*level, &mut rng);
        let vk = sk.verifying_key();
        let pre = sk.clone().with_precomputation();
        let sig = sk.sign(MSG, &mut rng);
        let sizes = [
            vk.to_bytes().len(),
            sk.to_bytes().len(),
            sig.to_bytes().len(),
        ];
        ctx.step(format!("{name}-{bits} sign"));
        let sign = time(b, || sk.sign(MSG, &mut rng));
        ctx.step(format!("{name}-{bits} sign, x_i cached"));
        let sign_pre = time(b, || pre.sign(MSG, &mut rng));
        ctx.step(format!("{name}-{bits} verify"));
        let verify = time(b, || vk.verify(MSG, &sig).is_ok());
        ctx.step(format!("{name}-{bits} sign + verify, with ML-DSA's"));
        let mut e2e = || {
            let s = sk.sign(MSG, &mut rng);
            vk.verify(MSG, &s).is_ok()
        };
        let (_, _, ml_sign, ml_verify, _) = &mut peers[match bits {
            128 => 0,
            192 => 1,
            _ => 2,
        }];
        let e2e_pair = pair(b, &mut e2e, || ml_sign() && ml_verify());
        rows.push(Row {
            scheme: name.into(),
            level: bits,
            sign,
            verify: verify.clone(),
            sizes,
            vs_mldsa: Some(e2e_pair.ratio),
        });
        rows.push(Row {
            scheme: format!("{name}, x_i cached"),
            level: bits,
            sign: sign_pre,
            verify,
            // The encoding is the same seed; the paper counts the cached x_i too.
            sizes: [sizes[0], sizes[1] + pre.precomputation_len(), sizes[2]],
            vs_mldsa: None,
        });
    }

    for (scheme, level, mut s, mut v, sizes) in peers {
        ctx.step(format!("{scheme} sign"));
        let sign = time(b, &mut s);
        ctx.step(format!("{scheme} verify"));
        let verify = time(b, &mut v);
        rows.push(Row {
            scheme,
            level,
            sign,
            verify,
            sizes,
            vs_mldsa: None,
        });
    }

    let mut cells = vec![];
    let mut plot = Plot {
        unit: "µs".into(),
        series: vec!["sign".into(), "verify".into(), "sign + verify".into()],
        groups: vec![],
    };
    for r in &rows {
        let e2e = r.sign.median + r.verify.median;
        cells.push(vec![
            r.scheme.clone().into(),
            r.level.to_string().into(),
            stats(&r.sign),
            stats(&r.verify),
            // The sum of two medians: one figure, no range of its own.
            stats(&Stats {
                median: e2e,
                min: e2e,
                max: e2e,
                samples: 1,
            }),
            r.vs_mldsa.as_ref().map_or(Cell::None, ratio),
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
    Ok(Table {
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
    })
}
