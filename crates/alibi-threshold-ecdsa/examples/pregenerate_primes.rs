//! Generates safe primes for `count` parties (default 5) and prints one line of hex per party,
//! each a `Primes::to_bytes` encoding, with progress on stderr. This is how
//! `tests/vectors/primes.hex` was made (test-only primes: they are public, never use them for
//! a real key):
//!
//! ```text
//! cargo run --release -p alibi-threshold-ecdsa --example pregenerate_primes -- 5 \
//!     > crates/alibi-threshold-ecdsa/tests/vectors/primes.hex
//! ```

use alibi_threshold_ecdsa::{generate_primes, PrimeProgress};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() {
    let count: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 5,
        Some(Ok(count)) => count,
        Some(Err(_)) => {
            eprintln!("usage: pregenerate_primes [COUNT]");
            std::process::exit(2);
        }
    };
    for party in 0..count {
        let primes = generate_primes(&mut UnwrapErr(SysRng), |event| match event {
            PrimeProgress::Started { bits, count } => {
                eprintln!("party {party}: {count} safe primes of {bits} bits")
            }
            PrimeProgress::Searching {
                index,
                candidates,
                elapsed,
            } => {
                eprintln!("party {party}: prime {index}: {candidates} candidates, {elapsed:.1?}")
            }
            PrimeProgress::Found { index, elapsed } => {
                eprintln!("party {party}: prime {index} found after {elapsed:.1?}")
            }
            PrimeProgress::Finished { elapsed } => {
                eprintln!("party {party}: done in {elapsed:.1?}")
            }
        });
        println!("{}", hex::encode(&*primes.to_bytes()));
    }
}
