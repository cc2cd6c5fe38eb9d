//! Runs a 2-out-of-2 key generation and auxiliary info generation in round-based's simulation,
//! on the test fixtures' primes, and prints party 0's key share as one line of hex
//! (`KeyShare::to_bytes`). This is how `tests/vectors/key_share.hex` was made: a test-only
//! share (its primes are public), the sample the decoder tests and the fuzz target edit.
//!
//! ```text
//! cargo run --release -p alibi-threshold-ecdsa --example sample_key_share \
//!     > crates/alibi-threshold-ecdsa/tests/vectors/key_share.hex
//! ```

use alibi_threshold_ecdsa::round_based::sim::async_env::Network;
use alibi_threshold_ecdsa::round_based::MpcParty;
use alibi_threshold_ecdsa::{aux_info_gen, keygen, rand_core::OsRng, Error, KeyShare, Primes};
use futures_util::future::try_join_all;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let n = 2u16;
    let mut primes = Vec::new();
    for line in include_str!("../tests/vectors/primes.hex")
        .lines()
        .take(n.into())
    {
        let bytes = hex::decode(line).map_err(|_| Error::Malformed("fixture: not hex"))?;
        primes.push(Primes::from_bytes(&bytes)?);
    }
    let mut net = Network::new();
    let cores = try_join_all((0..n).map(|i| {
        let delivery = net.connect_new_party();
        async move {
            keygen(
                &mut OsRng,
                b"sample",
                i,
                n,
                n - 1,
                MpcParty::connected(delivery),
            )
            .await
        }
    }))
    .await?;
    let mut net = Network::new();
    let auxes = try_join_all((0..n).zip(primes).map(|(i, primes)| {
        let delivery = net.connect_new_party();
        async move {
            aux_info_gen(
                &mut OsRng,
                b"sample",
                i,
                n,
                primes,
                MpcParty::connected(delivery),
            )
            .await
        }
    }))
    .await?;
    let (Some(core), Some(aux)) = (cores.into_iter().next(), auxes.into_iter().next()) else {
        return Err(Error::Malformed("no party"));
    };
    let share = KeyShare::from_parts(core, aux)?;
    println!("{}", hex::encode(&*share.to_bytes()?));
    Ok(())
}
