//! A protocol alibi did not write, over its channels: n parties on a relay started in this
//! process add up private numbers without revealing them (additive secret sharing). Round 1
//! sends each party one share of this party's number, pairwise; round 2 broadcasts the sum of
//! the shares received, over the group channel; everyone adds the broadcasts.
//!
//! `cargo run --release -p alibi-mpc --example any_protocol -- [n] [group|pairwise]`
//! (default 3, group).

use alibi_mpc::net::{Net, NetConfig};
use alibi_mpc::relay::{Mode, RelayParty};

/// One party's run: returns the total of every party's `secret`.
async fn secure_sum(net: Net<RelayParty>, secret: u64) -> alibi_mpc::Result<u64> {
    let others: Vec<u16> = net
        .participants()
        .iter()
        .copied()
        .filter(|&p| p != net.me())
        .collect();
    let mut mine = secret;
    for &to in &others {
        let share = rand_core::Rng::next_u64(&mut rand_core::UnwrapErr(getrandom::SysRng));
        mine = mine.wrapping_sub(share);
        net.send(1, to, share.to_be_bytes().to_vec()).await?;
    }
    for _ in &others {
        let m = net.recv_round(1).await?;
        mine = mine.wrapping_add(u64::from_be_bytes(m.bytes.try_into().unwrap_or_default()));
    }
    net.broadcast(2, mine.to_be_bytes().to_vec()).await?;
    let mut total = mine;
    for _ in &others {
        let m = net.recv_round(2).await?;
        total = total.wrapping_add(u64::from_be_bytes(m.bytes.try_into().unwrap_or_default()));
    }
    Ok(total)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u16 = std::env::args().nth(1).map_or(Ok(3), |a| a.parse())?;
    let mode = match std::env::args().nth(2).as_deref() {
        Some("pairwise") => Mode::Pairwise,
        _ => Mode::Group,
    };
    let relay = alibi_relay::local::LocalRelay::start(Default::default()).await?;
    let indices: Vec<u16> = (1..=n).collect();
    let parties = alibi_mpc::local::register_parties(&relay.url, &indices, mode).await?;
    let runs = parties.into_iter().map(|p| {
        let (party, session) = (p.party(), [7; 16]);
        let secret = 10 * u64::from(party.index);
        let net = Net::new(p, party, session, &indices, NetConfig::default());
        async move { secure_sum(net?, secret).await }
    });
    for (i, total) in futures_util::future::join_all(runs)
        .await
        .into_iter()
        .enumerate()
    {
        println!("party {}: the total is {}", i + 1, total?);
    }
    Ok(())
}
