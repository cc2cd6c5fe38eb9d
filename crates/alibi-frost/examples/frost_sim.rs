//! FROST in round-based's simulator: key generation among `n` parties, then a signature by the
//! first `t + 1` of them, checked with the independent verifier and printed.
//!
//! `cargo run --release -p alibi-frost --example frost_sim -- [frost-ed25519|frost-secp256k1-tr] [n] [t]`
//! (defaults frost-ed25519, 3, 1: any 2 of 3 sign).

use alibi_frost::suite::{Ed25519, Secp256k1Tr};
use alibi_frost::{
    keygen, sign, verify, DerivationPath, FrostSuite, KeyShare, OsRng, Scheme, Signature,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Key generation, then signing by key-generation indices `0..=t`.
fn run<C: FrostSuite>(n: u16, t: u16, msg: &[u8]) -> Result<(Vec<KeyShare>, Signature)> {
    let shares = round_based::sim::run(n, |i, party| async move {
        keygen::<C, _, _>(&mut OsRng, b"frost_sim example", i, n, t, party).await
    })?
    .into_vec()
    .into_iter()
    .collect::<std::result::Result<Vec<_>, _>>()?;
    let signers: Vec<u16> = (0..=t).collect();
    let signatures = round_based::sim::run(t + 1, |j, party| {
        let (share, signers) = (&shares[usize::from(j)], &signers);
        async move {
            sign::<C, _, _>(
                &mut OsRng,
                share,
                &DerivationPath::master(),
                signers,
                msg,
                party,
            )
            .await
        }
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
    let t: u16 = args.get(2).map_or(Ok(1), |a| a.parse())?;
    let msg = b"hello from alibi-frost";
    let (shares, sig) = match scheme {
        Scheme::Ed25519 => run::<Ed25519>(n, t, msg)?,
        Scheme::Secp256k1Tr => run::<Secp256k1Tr>(n, t, msg)?,
    };
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let pk = shares[0].public_key();
    verify(scheme, &pk, msg, sig.as_bytes())?;
    println!("scheme     {scheme}, n = {n}, t = {t} (any {} sign)", t + 1);
    println!("public key {}", hex(&pk));
    println!("message    {:?}", String::from_utf8_lossy(msg));
    println!("signature  {}", hex(sig.as_bytes()));
    println!("verified   yes (independent verifier)");
    Ok(())
}
