//! FROST in round-based's simulator: key generation among `n` parties, then a signature by the
//! first `threshold` of them, checked with the independent verifier and printed.
//!
//! `cargo run --release -p alibi-frost --example frost_sim -- [frost-ed25519|frost-secp256k1-tr] [n] [threshold]`
//! (defaults frost-ed25519, 3, 2).

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::{keygen, sign, verify, FrostSuite, KeyShare, OsRng, Scheme, Signature};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Key generation, then signing by key-generation indices `0..threshold`.
fn run<C: FrostSuite>(n: u16, threshold: u16, msg: &[u8]) -> Result<(Vec<KeyShare>, Signature)> {
    let shares = round_based::sim::run(n, |i, party| async move {
        keygen::<C, _, _>(party, b"frost_sim example", i, n, threshold, &mut OsRng).await
    })?
    .into_vec()
    .into_iter()
    .collect::<std::result::Result<Vec<_>, _>>()?;
    let signers: Vec<u16> = (0..threshold).collect();
    let signatures = round_based::sim::run(threshold, |j, party| {
        let (share, signers) = (&shares[usize::from(j)], &signers);
        async move { sign::<C, _, _>(party, share, signers, j, msg, &mut OsRng).await }
    })?
    .into_vec()
    .into_iter()
    .collect::<std::result::Result<Vec<_>, _>>()?;
    let sig = *signatures.first().ok_or("no signer")?;
    if signatures.iter().any(|s| *s != sig) {
        return Err("the signers disagree".into());
    }
    Ok((shares, sig))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scheme: Scheme = args
        .first()
        .map_or("frost-ed25519", String::as_str)
        .parse()?;
    let n: u16 = args.get(1).map_or(Ok(3), |a| a.parse())?;
    let threshold: u16 = args.get(2).map_or(Ok(2), |a| a.parse())?;
    let msg = b"hello from alibi-frost";
    let (shares, sig) = match scheme {
        Scheme::Ed25519 => run::<Ed25519>(n, threshold, msg)?,
        Scheme::Secp256k1Tr => run::<Secp256k1Tr>(n, threshold, msg)?,
    };
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let pk = shares[0].public_key();
    verify(scheme, &pk, msg, sig.as_bytes())?;
    println!("scheme     {scheme}, n = {n}, threshold = {threshold}");
    println!("public key {}", hex(&pk));
    println!("message    {:?}", String::from_utf8_lossy(msg));
    println!("signature  {}", hex(sig.as_bytes()));
    println!("verified   yes (independent verifier)");
    Ok(())
}
