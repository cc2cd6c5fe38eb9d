//! Threshold BLS between parties on a relay started in this process, over group channels:
//! key generation, then `runs` signatures by t+1 parties, each checked with plain BLS.
//!
//! `cargo run --release -p alibi-mpc --example threshold_bls -- [n] [runs] [pairwise|group]`
//! (defaults 5, 1, group; t = n-1).

use std::time::Duration;

use alibi_mpc::dkg::KeygenConfig;
use alibi_mpc::local::{keygen_all, register_parties, sign_all};
use alibi_mpc::relay::Mode;
use alibi_mpc::sign::SignConfig;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u16 = args.first().map_or(Ok(5), |a| a.parse())?;
    let runs: usize = args.get(1).map_or(Ok(1), |a| a.parse())?;
    let mode = match args.get(2).map(String::as_str) {
        Some("pairwise") => Mode::Pairwise,
        _ => Mode::Group,
    };
    let t = usize::from(n) - 1;
    let relay = alibi_relay::local::LocalRelay::start(Default::default()).await?;
    let indices: Vec<u16> = (1..=n).collect();
    let parties = register_parties(&relay.url, &indices, mode).await?;
    let config = KeygenConfig::new([1; 16], t, indices.clone(), Duration::from_secs(60));
    let (mut parties, shares, took) = keygen_all(parties, &config).await?;
    println!("keygen, n = {n}, t = {t}, {mode}: {took:?}");
    for run in 0..runs {
        let mut session = [2; 16];
        session[..8].copy_from_slice(&(run as u64).to_be_bytes());
        let config = SignConfig::new(session, indices.clone(), Duration::from_secs(60));
        let msg = format!("message {run}");
        let (back, signed, took) = sign_all(parties, &shares, &config, msg.as_bytes()).await?;
        parties = back;
        let ok =
            alibi_mpc::bls::verify(&shares[0].group_key, msg.as_bytes(), &signed.signature).is_ok();
        println!("signature {run}: {took:?}, verifies under the group key: {ok}");
    }
    Ok(())
}
