//! Refresh and resharing of a BLS key between in-memory parties: the group key stays, any t'+1
//! new shares sign, old and new shares do not combine, and a dealer of another secret is named.

use crate::common;

use std::collections::BTreeMap;

use alibi_mpc::curve::scalar_from_bytes;
use alibi_mpc::curve::Bls12;
use alibi_mpc::dkg::{KeySet, KeyShare, Misbehaviour, Resharing};
use alibi_mpc::poly::lagrange_at_zero;
use alibi_mpc::{Blame, Error, Fault, PartyIndex};
use blstrs::{G1Affine, G1Projective};
use common::{blst_verifies, parties, reshare_all, run_keygen, run_sign};
use group::Group;

/// The refresh of every share in `shares` (by its own party).
fn refresh_of(shares: &[KeyShare]) -> impl FnMut(PartyIndex) -> Option<Resharing> + '_ {
    |p| {
        let s = shares.iter().find(|s| s.index == p).expect("a share");
        Some(Resharing::refresh(s).expect("a refresh"))
    }
}

/// Every result, which must all be shares.
fn all_ok(results: Vec<(PartyIndex, alibi_mpc::Result<KeyShare>)>) -> Vec<KeyShare> {
    results
        .into_iter()
        .map(|(p, r)| r.unwrap_or_else(|e| panic!("party {p}: {e}")))
        .collect()
}

/// Whether the shares at these indices interpolate to `group_key` (g1 times Σ λ_i x_i).
fn interpolate_to(group_key: &[u8], shares: &[&KeyShare]) -> bool {
    let set: Vec<PartyIndex> = shares.iter().map(|s| s.index).collect();
    let x = shares.iter().fold(blstrs::Scalar::from(0u64), |acc, s| {
        acc + lagrange_at_zero::<blstrs::Scalar>(s.index, &set)
            * scalar_from_bytes(s.secret()).unwrap()
    });
    G1Affine::from(G1Projective::generator() * x).to_compressed() == group_key
}

/// The resharing of `old` (t = old[0].threshold) onto the parties `1..=n` of a new run, where
/// `moved` maps a new index to the old index whose share it holds.
fn reshare_from<'a>(
    old: &'a [KeyShare],
    moved: &'a BTreeMap<PartyIndex, PartyIndex>,
) -> impl FnMut(PartyIndex) -> Option<Resharing> + 'a {
    move |p| {
        let mine = moved
            .get(&p)
            .map(|o| old.iter().find(|s| s.index == *o).expect("an old share"));
        let r = Resharing::new(&old[0].key_set(), moved.clone(), mine);
        Some(r.expect("a resharing"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refreshed_then_reshared_from_2_of_3_to_3_of_5_signs_under_the_same_key() {
    let ps3 = parties(3);
    let old = run_keygen(&ps3, 1, &[]).await;
    let key = old[0].group_key.clone();

    let fresh = all_ok(reshare_all(&ps3, 1, &[], refresh_of(&old)).await);
    for s in &fresh {
        assert_eq!(s.group_key, key);
        assert!(s.blamed.is_empty());
        assert_ne!(s.secret(), old[s.index as usize - 1].secret());
    }
    let signed = run_sign(&ps3, &fresh, &[1, 3], b"after refresh", &[]).await;
    assert!(blst_verifies(&key, b"after refresh", &signed[0].signature));
    // An old share and a new one do not make the key; two new ones, or two old ones, do.
    assert!(interpolate_to(&key, &[&fresh[0], &fresh[2]]));
    assert!(interpolate_to(&key, &[&old[0], &old[2]]));
    assert!(!interpolate_to(&key, &[&old[0], &fresh[2]]));
    assert!(!interpolate_to(&key, &[&fresh[0], &old[2]]));

    // To 3-of-5: the old holders take other places (old 1 is new 4, old 2 new 1, old 3 new 2).
    let ps5 = parties(5);
    let moved = BTreeMap::from([(4, 1), (1, 2), (2, 3)]);
    let new = all_ok(reshare_all(&ps5, 2, &[], reshare_from(&fresh, &moved)).await);
    for s in &new {
        assert_eq!((s.group_key.as_slice(), s.threshold), (key.as_slice(), 2));
        assert_eq!(s.parties, vec![1, 2, 3, 4, 5]);
    }
    let signed = run_sign(&ps5, &new, &[3, 4, 5], b"after resharing", &[]).await;
    assert!(blst_verifies(
        &key,
        b"after resharing",
        &signed[0].signature
    ));
    // Two new shares are too few now; the refreshed ones no longer mix with the new.
    assert!(interpolate_to(&key, &[&new[0], &new[2], &new[4]]));
    assert!(!interpolate_to(&key, &[&new[0], &new[2]]));
    assert!(!interpolate_to(&key, &[&fresh[0], &new[2], &new[4]]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dealer_of_another_secret_is_named_and_the_rest_reshare() {
    let ps = parties(4);
    let old = run_keygen(&ps, 1, &[]).await;
    let key = old[0].group_key.clone();
    // Party 2 deals its share plus one in a refresh.
    let cheat = [(2, Misbehaviour::DealOtherSecret)];
    let results = reshare_all(&ps, 1, &cheat, refresh_of(&old)).await;
    let honest: Vec<KeyShare> = results
        .into_iter()
        .filter(|(p, _)| *p != 2)
        .map(|(p, r)| r.unwrap_or_else(|e| panic!("party {p}: {e}")))
        .collect();
    for s in &honest {
        let named = Blame {
            party: 2,
            fault: Fault::WrongConstant,
        };
        assert_eq!(
            (s.blamed.as_slice(), s.group_key.as_slice()),
            (&[named][..], key.as_slice())
        );
        assert_eq!(s.qualified, vec![1, 3, 4]);
    }
    let signed = run_sign(&ps, &honest, &[1, 4], b"m", &[]).await;
    assert!(blst_verifies(&key, b"m", &signed[0].signature));

    // A party new to the key (5 of 5, holders 1..4) that deals a secret instead of zero.
    let ps5 = parties(5);
    let moved = BTreeMap::from([(1, 1), (2, 2), (3, 3), (4, 4)]);
    let cheat = [(5, Misbehaviour::DealOtherSecret)];
    let results = reshare_all(&ps5, 2, &cheat, reshare_from(&old, &moved)).await;
    for (p, r) in results.into_iter().filter(|(p, _)| *p != 5) {
        let s = r.unwrap_or_else(|e| panic!("party {p}: {e}"));
        assert_eq!(
            s.blamed
                .iter()
                .map(|b| (b.party, b.fault))
                .collect::<Vec<_>>(),
            [(5, Fault::WrongConstant)]
        );
        assert_eq!(s.group_key, key);
    }
}

#[test]
fn too_few_holders_or_a_foreign_share_are_refused_before_any_run() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let old = rt.block_on(run_keygen(&parties(3), 1, &[]));
    let other = rt.block_on(run_keygen(&parties(3), 1, &[]));
    let set = old[0].key_set();
    let one = BTreeMap::from([(1, 1)]);
    let e = Resharing::<Bls12>::new(&set, one, Some(&old[0])).unwrap_err();
    assert!(matches!(e, Error::Parameters(_)), "{e}");
    let two = BTreeMap::from([(1, 1), (2, 2)]);
    let e = Resharing::<Bls12>::new(&set, two.clone(), Some(&other[0])).unwrap_err();
    assert!(matches!(e, Error::Parameters(_)), "{e}");
    // The key set travels as JSON and reads back the same; a garbled one is refused.
    let json = set.to_json();
    assert_eq!(KeySet::from_json(&json).unwrap(), set);
    let garbled = json.replacen(&hex::encode(&set.group_key)[..8], "00000000", 1);
    assert!(KeySet::from_json(&garbled).is_err());
    assert!(Resharing::<Bls12>::new(&set, two, None).is_ok());
}
