//! The sponges against known-answer digests (FIPS 202's examples, as NIST's and the Keccak team's
//! published values) and against RustCrypto's `sha3` and `shake` on random inputs cut into random
//! pieces.

use alibi_keccak::{Sha3_256, Sha3_512, Shake128, Shake256};
use proptest::prelude::*;
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn empty_and_abc_digests() {
    assert_eq!(
        hex(&Sha3_256::digest(b"")),
        "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"
    );
    assert_eq!(
        hex(&Sha3_256::digest(b"abc")),
        "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
    );
    assert_eq!(
        hex(&Sha3_512::digest(b"abc")),
        "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e\
         10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"
    );
    let mut out = [0u8; 32];
    Shake128::new().finalize_into(&mut out);
    assert_eq!(
        hex(&out),
        "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"
    );
    Shake256::new().finalize_into(&mut out);
    assert_eq!(
        hex(&out),
        "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
    );
}

#[test]
fn a_million_a() {
    // FIPS 202's long-message example: SHA3-256 of 10^6 times 'a'.
    let mut h = Sha3_256::new();
    let block = [b'a'; 1000];
    for _ in 0..1000 {
        h.update(&block);
    }
    assert_eq!(
        hex(&h.finalize()),
        "5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1"
    );
}

/// `data` cut at the given points (taken modulo its length).
fn pieces<'a>(data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut last = 0;
    for c in at.into_iter().chain([data.len()]) {
        out.push(&data[last..c]);
        last = c;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn agrees_with_rustcrypto(
        data in proptest::collection::vec(any::<u8>(), 0..700),
        cuts in proptest::collection::vec(any::<usize>(), 0..5),
        out_len in 0usize..600,
        reads in proptest::collection::vec(any::<usize>(), 0..4),
    ) {
        let parts = pieces(&data, &cuts);

        let mut ours = Sha3_256::new();
        let mut ours512 = Sha3_512::new();
        let mut s128 = Shake128::new();
        let mut s256 = Shake256::new();
        for p in &parts {
            ours.update(p);
            ours512.update(p);
            s128.update(p);
            s256.update(p);
        }
        prop_assert_eq!(ours.finalize(), <[u8; 32]>::from(sha3::Sha3_256::digest(&data)));
        prop_assert_eq!(&ours512.finalize()[..], &sha3::Sha3_512::digest(&data)[..]);

        // The XOF read in pieces, as callers read it, against one read of the peer.
        let out = vec![0u8; out_len];
        let outs = pieces(&out, &reads);
        for (ours, peer) in [
            (s128.finalize_xof(), {
                let mut h = shake::Shake128::default();
                h.update(&data);
                let mut v = vec![0u8; out_len];
                h.finalize_xof().read(&mut v);
                v
            }),
            (s256.finalize_xof(), {
                let mut h = shake::Shake256::default();
                h.update(&data);
                let mut v = vec![0u8; out_len];
                h.finalize_xof().read(&mut v);
                v
            }),
        ] {
            let mut ours = ours;
            let mut got = Vec::new();
            for piece in &outs {
                let mut buf = vec![0u8; piece.len()];
                ours.read(&mut buf);
                got.extend_from_slice(&buf);
            }
            prop_assert_eq!(got, peer);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Two sponges absorbed as a pair end in the states that separate updates give.
    #[test]
    fn absorbing_in_pairs_changes_nothing(
        x in proptest::collection::vec(any::<u8>(), 0..1500),
        y in proptest::collection::vec(any::<u8>(), 0..1500),
        xcuts in proptest::collection::vec(any::<usize>(), 0..4),
        ycuts in proptest::collection::vec(any::<usize>(), 0..4),
        head in 0usize..200,
    ) {
        let (xp, yp) = (pieces(&x, &xcuts), pieces(&y, &ycuts));
        // Some input before the pair, so that it starts mid-block.
        let mut a = Shake128::new();
        a.update(&y[..head.min(y.len())]);
        let mut b = Sha3_256::new();
        b.update(&x[..head.min(x.len())]);
        let (mut a1, mut b1) = (a.clone(), b.clone());
        alibi_keccak::absorb_pair(&mut a, &xp, &mut b, &yp);
        a1.update(&x);
        b1.update(&y);
        let mut got = [0u8; 300];
        let mut want = [0u8; 300];
        a.finalize_into(&mut got);
        a1.finalize_into(&mut want);
        prop_assert_eq!(&got[..], &want[..]);
        prop_assert_eq!(b.finalize(), b1.finalize());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A SHAKE absorbed beside another hash and read ahead gives the bytes a lone SHAKE gives,
    /// in any pieces, past the bytes read ahead too.
    #[test]
    fn reading_ahead_in_pairs_changes_nothing(
        x in proptest::collection::vec(any::<u8>(), 0..1200),
        y in proptest::collection::vec(any::<u8>(), 0..3000),
        ahead in 0usize..1000,
        reads in proptest::collection::vec(any::<usize>(), 0..4),
    ) {
        let mut b = Sha3_256::new();
        let mut r = alibi_keccak::absorb_pair_read(Shake128::new(), &[&x], ahead, &mut b, &[&y]);
        let mut want = vec![0u8; 1500];
        Shake128::new().chain_update(&x).finalize_into(&mut want);
        let mut got = Vec::new();
        for piece in pieces(&want, &reads) {
            let mut buf = vec![0u8; piece.len()];
            r.read(&mut buf);
            got.extend_from_slice(&buf);
        }
        prop_assert_eq!(got, want);
        prop_assert_eq!(b.finalize(), Sha3_256::digest(&y));
    }
}
