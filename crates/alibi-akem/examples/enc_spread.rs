//! Encapsulation times as distributions, for the SHADOWFAX / DHKEM ratio on a noisy machine (the
//! Criterion ratio of `benches/akem.rs` ranged from 1.51 to 2.51 in five runs on one 2-vCPU VM,
//! while interleaved minima and 10th percentiles move by about 1%; alibi_testkit::spread).
//!
//! `cargo run --profile bench -p alibi-akem --example enc_spread -- [COUNT]`
//!
//! Times, in turn, COUNT encapsulations (default 3000) each of SHADOWFAX[X25519, ML-KEM-512,
//! GANDALF[Falcon-512]], our DH-AKEM (RFC 9180's DHKEM(X25519, HKDF-SHA256)) and the `hpke`
//! crate's on the same keys, the same work as Criterion's `akem/shadowfax/enc`,
//! `akem/dh-akem/enc` and `akem/dh-akem-hpke-crate/enc`; prints each one's minimum, 10th
//! percentile and median in µs, and SHADOWFAX and our DH-AKEM over the hpke crate's at each.

use alibi_akem::dh::{self, rfc9180};
use alibi_akem::pq::Suite;
use alibi_akem::shadowfax;
use alibi_testkit::spread::{self, Operation};
use hpke::{Deserializable, Kem as _};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

type HpkeKem = hpke::kem::X25519HkdfSha256;

fn main() {
    let count = spread::count_arg("enc_spread", std::env::args().nth(1), 3000);
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let suite = Suite::MlKem512Falcon512;
    let ss = shadowfax::SecretKey::generate(suite, &mut rng);
    let sr = shadowfax::SecretKey::generate(suite, &mut rng);
    let s = dh::SecretKey::generate(&mut rng);
    let r = dh::SecretKey::generate(&mut rng);
    let hs = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(s.secret()).expect("a DH secret key");
    let hspk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(s.public()).expect("a DH public key");
    let hrpk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(r.public()).expect("a DH public key");
    let (mut r1, mut r2, mut r3) = (
        ChaCha20Rng::seed_from_u64(2),
        ChaCha20Rng::seed_from_u64(3),
        ChaCha20Rng::seed_from_u64(4),
    );
    let mut operations: Vec<Operation> = vec![
        (
            "SHADOWFAX",
            Box::new(|| {
                let c = shadowfax::encap(&ss, sr.public_key(), &mut r1);
                std::hint::black_box(c.expect("encapsulation to a valid key"));
            }),
        ),
        (
            "DH-AKEM, alibi",
            Box::new(|| {
                let c = rfc9180::encap(&s, r.public(), &mut r2);
                std::hint::black_box(c.expect("encapsulation to a valid key"));
            }),
        ),
        (
            "DH-AKEM, hpke crate",
            Box::new(|| {
                let c = HpkeKem::encap_with_rng(&hrpk, Some((&hs, &hspk)), &mut r3);
                std::hint::black_box(c.expect("encapsulation to a valid key"));
            }),
        ),
    ];
    let q = spread::report("encapsulation", count, &mut operations);
    spread::print_ratio("SHADOWFAX / hpke DHKEM", &q[0], &q[2]);
    spread::print_ratio("DH-AKEM alibi / hpke DHKEM", &q[1], &q[2]);
}
