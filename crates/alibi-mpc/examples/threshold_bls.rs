//! Threshold signatures between parties on a relay started in this process: key generation,
//! then `runs` signatures by all n parties (t = n-1), each checked under the group key. Every
//! scheme runs through the same calls ([`alibi_mpc::endpoint::Endpoint`]).
//!
//! `cargo run --release -p alibi-mpc --example threshold_bls -- [n] [runs] [pairwise|group] [scheme]`
//! (defaults 5, 1, group, bls; ecdsa-secp256k1 first searches for every party's safe primes,
//! minutes).

use std::time::Duration;

use alibi_mpc::endpoint::{Keygen, Signing};
use alibi_mpc::local::{endpoints, keygen_all, register_parties, sign_all};
use alibi_mpc::relay::Mode;
use alibi_mpc::scheme::{verify, Scheme};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u16 = args.first().map_or(Ok(5), |a| a.parse())?;
    let runs: usize = args.get(1).map_or(Ok(1), |a| a.parse())?;
    let mode = match args.get(2).map(String::as_str) {
        Some("pairwise") => Mode::Pairwise,
        _ => Mode::Group,
    };
    let scheme: Scheme = args.get(3).map_or(Ok(Scheme::Bls), |a| a.parse())?;
    let t = usize::from(n) - 1;
    let relay = alibi_relay::local::LocalRelay::start(Default::default()).await?;
    let indices: Vec<u16> = (1..=n).collect();
    let parties = endpoints(register_parties(&relay.url, &indices, mode).await?);
    let wait = Duration::from_secs(300);
    let job = |_| Keygen::new(scheme, [1; 16], t, indices.clone(), wait);
    let (mut parties, shares, took) = keygen_all(parties, job).await?;
    println!("keygen {scheme}, n = {n}, t = {t}, {mode}: {took:?}");
    for run in 0..runs {
        let mut session = [2; 16];
        session[..8].copy_from_slice(&(run as u64).to_be_bytes());
        let job = Signing::new(session, indices.clone(), wait);
        let msg = format!("message {run}");
        let (back, signed, took) = sign_all(parties, &shares, &job, msg.as_bytes()).await?;
        parties = back;
        let pk = shares[0].public_key();
        let ok = verify(scheme, pk, msg.as_bytes(), &signed.bytes).is_ok();
        println!("signature {run}: {took:?}, verifies under the group key: {ok}");
    }
    Ok(())
}
