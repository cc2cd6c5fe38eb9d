//! Signing times as a distribution, for comparing two builds on a noisy machine: Criterion's
//! medians moved by a third between runs minutes apart on the 2-vCPU VMs of docs/BENCHMARKS.md,
//! while the minimum and the 10th percentile of a few thousand signatures stay within about 1%.
//!
//! `cargo run --profile bench -p alibi-falcon --example sign_spread -- [512|1024] [COUNT]`
//!
//! Prints, for signing with the expanded key, from the encoded key (decode, expand, sign), and
//! PQClean's signing from its encoded key (pqcrypto-falcon, the peer of the Criterion bench), the
//! minimum, 10th percentile and median of COUNT signatures of each (default 2000), in µs, and
//! ours from the encoded key over PQClean's at each of the three.

use alibi_falcon::{Level, SigningKey};
use pqcrypto_traits::sign::SecretKey as _;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let level = match args.next().as_deref() {
        None | Some("512") => Level::Falcon512,
        Some("1024") => Level::Falcon1024,
        Some(other) => {
            eprintln!("sign_spread: the level is 512 or 1024, not {other}");
            std::process::exit(2);
        }
    };
    let count = match args.next().map(|c| c.parse::<usize>()) {
        None => 2000,
        Some(Ok(c)) if c > 0 => c,
        Some(_) => {
            eprintln!("sign_spread: COUNT is a positive number of signatures");
            std::process::exit(2);
        }
    };
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let key = SigningKey::generate(level, &mut rng);
    let encoded = key.to_bytes();
    let expanded = key.expand();
    let pqclean: Box<dyn Fn()> = match level {
        Level::Falcon512 => {
            use pqcrypto_falcon::falcon512 as pq;
            let sk = pq::SecretKey::from_bytes(&encoded).expect("PQClean reads our encoding");
            Box::new(move || {
                std::hint::black_box(pq::detached_sign(b"m", &sk));
            })
        }
        Level::Falcon1024 => {
            use pqcrypto_falcon::falcon1024 as pq;
            let sk = pq::SecretKey::from_bytes(&encoded).expect("PQClean reads our encoding");
            Box::new(move || {
                std::hint::black_box(pq::detached_sign(b"m", &sk));
            })
        }
    };
    let (mut from_expanded, mut from_encoded, mut peer) = (vec![], vec![], vec![]);
    // Interleaved, so that a slow spell of the machine falls on both alike.
    for _ in 0..count {
        let t = Instant::now();
        std::hint::black_box(expanded.sign(b"m", &mut rng));
        from_expanded.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let key = SigningKey::from_bytes(&encoded).expect("the key just encoded decodes");
        std::hint::black_box(key.sign(b"m", &mut rng));
        from_encoded.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        pqclean();
        peer.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let mut quantiles = vec![];
    for (what, times) in [
        ("expanded key", &mut from_expanded),
        ("encoded key", &mut from_encoded),
        ("encoded key, PQClean", &mut peer),
    ] {
        times.sort_by(f64::total_cmp);
        quantiles.push([times[0], times[count / 10], times[count / 2]]);
        println!(
            "{level} sign, {what}: min {:.1} µs, p10 {:.1} µs, median {:.1} µs ({count} signatures)",
            times[0],
            times[count / 10],
            times[count / 2]
        );
    }
    let (ours, theirs) = (quantiles[1], quantiles[2]);
    println!(
        "ours / PQClean from the encoded key: {:.3} (min), {:.3} (p10), {:.3} (median)",
        ours[0] / theirs[0],
        ours[1] / theirs[1],
        ours[2] / theirs[2]
    );
}
