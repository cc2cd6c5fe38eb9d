//! Runs a 2-out-of-2 key generation and auxiliary info generation in round-based's simulation,
//! on the test fixtures' primes, and prints party 0's key share as one line of hex
//! (`KeyShare::to_bytes`). This is how `tests/vectors/key_share.hex` was made: a test-only
//! share (its primes are public), the sample the decoder tests and the fuzz target edit. With
//! `--presignature` it presigns with both parties and prints party 0's presignature instead
//! (`Presignature::to_bytes`), as `tests/vectors/presignature.hex` was made. With `--group N T`
//! the key is N parties' with threshold T (N at most 5, the fixture primes), and every party's
//! share is printed, one line each, as `tests/vectors/key_shares_5_2.hex` was made (the
//! 5-party signing tests start from it instead of the minutes of auxiliary information).
//!
//! ```text
//! cargo run --release -p alibi-threshold-ecdsa --example sample_key_share \
//!     > crates/alibi-threshold-ecdsa/tests/vectors/key_share.hex
//! cargo run --release -p alibi-threshold-ecdsa --example sample_key_share -- --presignature \
//!     > crates/alibi-threshold-ecdsa/tests/vectors/presignature.hex
//! cargo run --release -p alibi-threshold-ecdsa --example sample_key_share -- --group 5 2 \
//!     > crates/alibi-threshold-ecdsa/tests/vectors/key_shares_5_2.hex
//! ```

use alibi_threshold_ecdsa::round_based::sim::async_env::Network;
use alibi_threshold_ecdsa::round_based::MpcParty;
use alibi_threshold_ecdsa::{
    aux_info_gen, keygen, presign, rand_core::OsRng, Error, KeyShare, Primes,
};
use futures_util::future::try_join_all;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let group = match &args[..] {
        [flag, n, t] if flag == "--group" => Some((n.parse(), t.parse())),
        _ => None,
    };
    let (n, t) = match group {
        None => (2u16, 1u16),
        Some((Ok(n), Ok(t))) if (2..=5).contains(&n) && t < n => (n, t),
        Some(_) => return Err(Error::Malformed("usage: --group N T, 2 <= N <= 5, T < N")),
    };
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
                t,
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
    let shares = cores
        .into_iter()
        .zip(auxes)
        .map(|(core, aux)| KeyShare::from_parts(core, aux))
        .collect::<Result<Vec<_>, _>>()?;
    if group.is_some() {
        for share in &shares {
            println!("{}", hex::encode(&*share.to_bytes()?));
        }
        return Ok(());
    }
    let share = shares.first().ok_or(Error::Malformed("no party"))?;
    if args.first().map(String::as_str) == Some("--presignature") {
        let mut net = Network::new();
        let signers = [0u16, 1];
        let presigs = try_join_all(shares.iter().map(|share| {
            let party = MpcParty::connected(net.connect_new_party());
            async move { presign(&mut OsRng, b"sample", share, &signers, party).await }
        }))
        .await?;
        let presig = presigs.first().ok_or(Error::Malformed("no party"))?;
        println!("{}", hex::encode(&*presig.to_bytes()?));
        return Ok(());
    }
    println!("{}", hex::encode(&*share.to_bytes()?));
    Ok(())
}
