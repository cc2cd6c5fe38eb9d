//! Key and signature sizes of TACHYON and its Table 2 peers, as markdown.
//!
//! `cargo run --release -p alibi-tachyon --example sizes`

use alibi_tachyon::Level;

fn main() {
    println!("| scheme | public key (B) | secret key (B) | signature (B) |");
    println!("|---|---|---|---|");
    for l in Level::ALL {
        println!(
            "| {l} | {} | {} (pre-computed: {}) | {} |",
            l.public_key_len(),
            l.secret_key_len(),
            l.secret_key_len() + l.t() * alibi_tachyon::INPUT / 8,
            l.signature_len()
        );
    }
    macro_rules! row {
        ($name:expr, $m:path) => {{
            use $m as p;
            println!(
                "| {} | {} | {} | {} |",
                $name,
                p::public_key_bytes(),
                p::secret_key_bytes(),
                p::signature_bytes()
            );
        }};
    }
    row!("ML-DSA-44", pqcrypto_mldsa::mldsa44);
    row!("ML-DSA-65", pqcrypto_mldsa::mldsa65);
    row!("ML-DSA-87", pqcrypto_mldsa::mldsa87);
    row!("Falcon-512 (max signature)", pqcrypto_falcon::falcon512);
    row!("Falcon-1024 (max signature)", pqcrypto_falcon::falcon1024);
    row!(
        "SPHINCS+-SHA2-128f",
        pqcrypto_sphincsplus::sphincssha2128fsimple
    );
    row!(
        "SPHINCS+-SHA2-128s",
        pqcrypto_sphincsplus::sphincssha2128ssimple
    );
}
