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
use alibi_testkit::spread::{self, Operation};
use pqcrypto_traits::sign::SecretKey as _;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

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
    let count = spread::count_arg("sign_spread", args.next(), 2000);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let key = SigningKey::generate(level, &mut rng);
    let encoded = key.to_bytes();
    let expanded = key.expand();
    let pqclean: Box<dyn FnMut()> = match level {
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
    let mut rng2 = ChaCha20Rng::seed_from_u64(8);
    let mut operations: Vec<Operation> = vec![
        (
            "expanded key",
            Box::new(|| {
                std::hint::black_box(expanded.sign(b"m", &mut rng));
            }),
        ),
        (
            "encoded key",
            Box::new(|| {
                let key = SigningKey::from_bytes(&encoded).expect("the key just encoded decodes");
                std::hint::black_box(key.sign(b"m", &mut rng2));
            }),
        ),
        ("encoded key, PQClean", pqclean),
    ];
    let q = spread::report(&format!("{level} sign"), count, &mut operations);
    spread::print_ratio("ours / PQClean from the encoded key", &q[1], &q[2]);
}
