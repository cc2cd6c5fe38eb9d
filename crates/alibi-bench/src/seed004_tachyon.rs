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
use crate::table::{ratio, stats, Plot, Table};
use crate::{Ctx, Error, Scale, Seed};

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// A peer from PQClean: sign and verify closures over one key pair, and its sizes.
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
            move || p::detached_sign(MSG, &sk),
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
    ctx.begin(Seed::Tachyon, 4 * levels.len() + 12);
    let b = ctx.budget;
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let mut rows = vec![];

    // ML-DSA at each level, also the partner of TACHYON's end-to-end pairs.
    let (s44, v44, z44) = pqclean!(pqcrypto_mldsa::mldsa44);
    let (s65, v65, z65) = pqclean!(pqcrypto_mldsa::mldsa65);
    let (s87, v87, z87) = pqclean!(pqcrypto_mldsa::mldsa87);
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
        let e2e_pair = match bits {
            128 => pair(b, &mut e2e, || v44() && !s44().as_bytes().is_empty()),
            192 => pair(b, &mut e2e, || v65() && !s65().as_bytes().is_empty()),
            _ => pair(b, &mut e2e, || v87() && !s87().as_bytes().is_empty()),
        };
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
            // The encoding is the same seed, plus the cached x_i (256 bytes each) as the paper
            // counts them.
            sizes: [sizes[0], sizes[1] + 256 * level.t(), sizes[2]],
            vs_mldsa: None,
        });
    }

    let mut peer = |ctx: &mut Ctx,
                    scheme: &str,
                    level: u32,
                    mut s: Box<dyn FnMut() -> bool + '_>,
                    mut v: Box<dyn FnMut() -> bool + '_>,
                    sizes: [usize; 3]| {
        ctx.step(format!("{scheme} sign"));
        let sign = time(b, &mut s);
        ctx.step(format!("{scheme} verify"));
        let verify = time(b, &mut v);
        rows.push(Row {
            scheme: scheme.into(),
            level,
            sign,
            verify,
            sizes,
            vs_mldsa: None,
        });
    };
    peer(
        ctx,
        "ML-DSA-44 (PQClean)",
        128,
        Box::new(move || !s44().as_bytes().is_empty()),
        Box::new(v44),
        z44,
    );
    peer(
        ctx,
        "ML-DSA-65 (PQClean)",
        192,
        Box::new(move || !s65().as_bytes().is_empty()),
        Box::new(v65),
        z65,
    );
    peer(
        ctx,
        "ML-DSA-87 (PQClean)",
        256,
        Box::new(move || !s87().as_bytes().is_empty()),
        Box::new(v87),
        z87,
    );
    let (s, v, z) = pqclean!(pqcrypto_falcon::falcon512);
    peer(
        ctx,
        "Falcon-512 (PQClean)",
        128,
        Box::new(move || !s().as_bytes().is_empty()),
        Box::new(v),
        z,
    );
    let (s, v, z) = pqclean!(pqcrypto_falcon::falcon1024);
    peer(
        ctx,
        "Falcon-1024 (PQClean)",
        256,
        Box::new(move || !s().as_bytes().is_empty()),
        Box::new(v),
        z,
    );
    let (s, v, z) = pqclean!(pqcrypto_sphincsplus::sphincssha2128fsimple);
    peer(
        ctx,
        "SPHINCS+-SHA2-128f (PQClean)",
        128,
        Box::new(move || !s().as_bytes().is_empty()),
        Box::new(v),
        z,
    );
    for (level, lv) in [
        (FalconLevel::Falcon512, 128),
        (FalconLevel::Falcon1024, 256),
    ] {
        let sk = alibi_falcon::SigningKey::generate(level, &mut rng);
        let esk = sk.expand();
        let vk = sk.verifying_key();
        let sig = esk.sign(MSG, &mut rng);
        let sizes = [
            vk.to_bytes().len(),
            sk.to_bytes().len(),
            sig.to_bytes().len(),
        ];
        let mut r2 = ChaCha20Rng::seed_from_u64(5);
        peer(
            ctx,
            &format!("{level} (alibi, expanded key)"),
            lv,
            Box::new(move || !esk.sign(MSG, &mut r2).to_bytes().is_empty()),
            Box::new(move || vk.verify(MSG, &sig).is_ok()),
            sizes,
        );
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
            r.scheme.clone(),
            r.level.to_string(),
            stats(&r.sign),
            stats(&r.verify),
            crate::table::ns(e2e),
            r.vs_mldsa.as_ref().map_or("-".into(), ratio),
            r.sizes[0].to_string(),
            r.sizes[1].to_string(),
            r.sizes[2].to_string(),
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
             measured alternately. SPHINCS+-128s is left out here: one signature takes about a quarter \
             of a second (`cargo bench -p alibi-tachyon --bench table2` has it)."
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
