//! Seed 000 (Katsumata, Niot, Tucker, Wiggers, USENIX Security 2025), Table 3: key generation,
//! signing, two-member ring signing, verification and two-member ring verification of Falcon-512
//! with FalconRS, and of MAYO_1 and MAYO_2 with MAYO-RS. The claim is relative (ring / plain),
//! so our ratios stand beside the paper's; its Megacycles, and those of the prior ring signatures
//! it compares with, are quoted.

use alibi_falcon::{Level, Signature as FalconSignature, SigningKey as FalconKey};
use alibi_mayo::{Params, SigningKey as MayoKey};
use alibi_ringsig::{mayo_rs, Ring, RingSignature};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use super::Measurement;
use crate::measure::{time, Stats};
use crate::table::{ns, stats, Plot, Table};
use crate::{op, Ctx, Error, Seed};

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// The paper's Table 3 in Megacycles (quoted): kg, sd, rs_sd, vv, rs_vv.
const PAPER: [(&str, [f64; 5]); 3] = [
    ("Falcon-512", [6.2, 0.26, 0.74, 0.02, 0.04]),
    ("MAYO_1", [0.24, 0.88, 1.1, 0.17, 0.28]),
    ("MAYO_2", [0.65, 1.1, 1.5, 0.09, 0.16]),
];

/// One scheme's five figures and its ring signature's size.
#[derive(Clone, Debug)]
struct Row {
    name: &'static str,
    /// keygen, sign, ring sign, verify, ring verify.
    figures: [Stats; 5],
    ring_bytes: usize,
    plain_bytes: usize,
}

/// What seed 000 measures: Falcon-512 with FalconRS, MAYO_1 and MAYO_2 with MAYO-RS.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    rows: Vec<Row>,
}

impl Measurement for Measured {
    fn measure(ctx: &mut Ctx) -> Result<Self, Error> {
        measure(ctx)
    }

    fn render(&self) -> Table {
        render(&self.rows)
    }
}

fn measure(ctx: &mut Ctx) -> Result<Measured, Error> {
    ctx.begin(Seed::Ring, 15);
    let b = ctx.budget;
    let mut rng = ChaCha20Rng::seed_from_u64(0);
    let mut rows = vec![];

    // Falcon-512 and FalconRS; signing with an expanded key on both sides, as ring signing does.
    ctx.step("Falcon-512 keygen");
    let kg = time(b, || FalconKey::generate(Level::Falcon512, &mut rng));
    let a = FalconKey::generate(Level::Falcon512, &mut rng);
    let other = FalconKey::generate(Level::Falcon512, &mut rng);
    let (ea, vk) = (a.expand(), a.verifying_key());
    let ring = op(
        "ring",
        Ring::new(vec![vk.clone(), other.verifying_key().clone()]),
    )?;
    ctx.step("Falcon-512 sign");
    let sd = time(b, || ea.sign(MSG, &mut rng));
    ctx.step("FalconRS ring sign");
    let rs_sd = time(b, || ring.sign(&ea, MSG, &mut rng));
    let sig = ea.sign(MSG, &mut rng).to_bytes();
    let rsig = op("ring sign", ring.sign(&ea, MSG, &mut rng))?.to_bytes();
    ctx.step("Falcon-512 verify");
    let vv = time(b, || {
        FalconSignature::from_bytes(&sig).map(|s| vk.verify(MSG, &s).is_ok())
    });
    ctx.step("FalconRS ring verify");
    let rs_vv = time(b, || {
        RingSignature::from_bytes(&ring, &rsig).map(|s| ring.verify(MSG, &s).is_ok())
    });
    rows.push(Row {
        name: "Falcon-512",
        figures: [kg, sd, rs_sd, vv, rs_vv],
        ring_bytes: rsig.len(),
        plain_bytes: sig.len(),
    });

    for (p, name) in [(Params::Mayo1, "MAYO_1"), (Params::Mayo2, "MAYO_2")] {
        ctx.step(format!("{name} keygen"));
        // The public key too: generation alone keeps only the seed.
        let kg = time(b, || {
            MayoKey::generate(p, &mut rng).public_key_bytes().len()
        });
        let sk = MayoKey::generate(p, &mut rng);
        let vk = sk.verifying_key();
        let other = MayoKey::generate(p, &mut rng);
        let ring = op(
            "MAYO ring",
            mayo_rs::Ring::new(vec![vk.clone(), other.verifying_key().clone()]),
        )?;
        ctx.step(format!("{name} sign"));
        let sd = time(b, || sk.sign(MSG, &mut rng));
        ctx.step(format!("MAYO-RS ({name}) ring sign"));
        let rs_sd = time(b, || ring.sign(&sk, MSG, &mut rng));
        let sig = sk.sign(MSG, &mut rng);
        let rsig = op("MAYO ring sign", ring.sign(&sk, MSG, &mut rng))?;
        ctx.step(format!("{name} verify"));
        let vv = time(b, || vk.verify(MSG, &sig).is_ok());
        ctx.step(format!("MAYO-RS ({name}) ring verify"));
        let rs_vv = time(b, || ring.verify(MSG, &rsig).is_ok());
        rows.push(Row {
            name,
            figures: [kg, sd, rs_sd, vv, rs_vv],
            ring_bytes: rsig.to_bytes().len(),
            plain_bytes: sig.to_bytes().len(),
        });
    }
    Ok(Measured { rows })
}

/// The table, from the figures alone.
fn render(rows: &[Row]) -> Table {
    let mut cells = vec![];
    let mut plot = Plot {
        unit: "µs".into(),
        series: vec![
            "keygen".into(),
            "sign".into(),
            "ring sign".into(),
            "verify".into(),
            "ring verify".into(),
        ],
        groups: vec![],
    };
    for (row, (_, paper)) in rows.iter().zip(PAPER) {
        let f = &row.figures;
        let r = |a: usize, b: usize| f[a].median / f[b].median;
        cells.push(vec![
            row.name.into(),
            stats(&f[0]),
            stats(&f[1]),
            stats(&f[2]),
            stats(&f[3]),
            stats(&f[4]),
            format!("{:.2}", r(2, 1)).into(),
            format!("{:.2}", paper[2] / paper[1]).into(),
            format!("{:.2}", r(4, 3)).into(),
            format!("{:.2}", paper[4] / paper[3]).into(),
            row.ring_bytes.to_string().into(),
            row.plain_bytes.to_string().into(),
        ]);
        plot.groups.push((
            row.name.to_string(),
            f.iter().map(|s| Some(s.median / 1e3)).collect(),
        ));
    }
    let quoted: Vec<String> = PAPER
        .iter()
        .map(|(n, p)| {
            format!(
                "{n}: kg {} , sd {}, rs_sd {}, vv {}, rs_vv {}",
                p[0], p[1], p[2], p[3], p[4]
            )
        })
        .collect();
    let falcon_rs = rows.first().map(|r| r.figures.clone());
    let falcon_rs = falcon_rs
        .as_ref()
        .map_or([f64::NAN; 2], |f| [f[2].median, f[4].median]);
    Table {
        id: "seed000-ring-signatures".into(),
        title: "Seed 000: FalconRS and MAYO-RS (Table 3)".into(),
        intro: vec![
            "Key generation, signing, two-member ring signing, verification and two-member ring \
             verification; Falcon signs with an expanded key on both sides (as ring signing does), \
             verification starts from the signature's bytes, MAYO from expanded keys on both sides. \
             The paper's claim is relative, so the ratios ring / plain are what compare with it."
                .into(),
        ],
        columns: [
            "scheme",
            "keygen",
            "sign",
            "ring sign (2)",
            "verify",
            "ring verify (2)",
            "ring sign / sign",
            "paper (quoted)",
            "ring verify / verify",
            "paper (quoted)",
            "ring signature (bytes)",
            "signature (bytes)",
        ]
        .map(String::from)
        .to_vec(),
        rows: cells,
        notes: vec![
            format!(
                "Quoted from the paper (Table 3, Megacycles on the authors' machine): {}.",
                quoted.join("; ")
            ),
            format!(
                "Prior two-member ring signatures, quoted from the paper's full version (Megacycles, \
                 keygen / ring sign / ring verify): Raptor 27.1 / 5 / 2, Falaf 0.1 / 163 / 76, \
                 Calamari 119.5 / 46,581 / 41,250. The paper's claim C1 (32-66x faster signing, \
                 146-1025x faster verification than these) rests on its own cycle counts; ours are \
                 wall-clock times, here FalconRS signs in {} and verifies in {}.",
                ns(falcon_rs[0]),
                ns(falcon_rs[1])
            ),
        ],
        plot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_fills_every_column() {
        let stats = |median: f64| Stats {
            median,
            min: median,
            max: median,
            samples: 1,
        };
        let row = |name| Row {
            name,
            figures: [10.0, 2.0, 6.0, 1.0, 3.0].map(stats),
            ring_bytes: 1000,
            plain_bytes: 600,
        };
        let table = Measured {
            rows: vec![row("Falcon-512"), row("MAYO_1"), row("MAYO_2")],
        }
        .render();
        assert_eq!(table.rows.len(), 3);
        assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
        // ring sign / sign and ring verify / verify, from the medians.
        assert_eq!(table.rows[0][6].markdown(), "3.00");
        assert_eq!(table.rows[0][8].markdown(), "3.00");
        assert_eq!(table.plot.groups.len(), 3);
    }
}
