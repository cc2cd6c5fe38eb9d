//! Failed runs: a delivery that ends is a transport fault blamed on no one; a party that does not
//! follow the protocol makes the others abort naming it, by its position in the run (the blame
//! alibi-threshold reads from cggmp21-keygen's abort, checked here on a real one).

use alibi_frost::suite::Ed25519;
use alibi_frost::{keygen, sign, Error, KeygenMsg, OsRng, SignMsg};
use alibi_threshold::Error as Run;
use round_based::{Incoming, MpcParty, Outgoing};

#[tokio::test]
async fn a_delivery_that_ends_is_a_transport_fault() {
    let incoming = futures_util::stream::empty::<
        Result<Incoming<KeygenMsg<Ed25519>>, std::convert::Infallible>,
    >();
    let outgoing = futures_util::sink::drain::<Outgoing<KeygenMsg<Ed25519>>>();
    let party = MpcParty::connected((incoming, outgoing));
    let out = keygen::<Ed25519, _, _>(&mut OsRng, b"alone", 0, 3, 1, party).await;
    assert!(
        matches!(out, Err(Error::Threshold(Run::Transport(_)))),
        "{out:?}"
    );
}

#[test]
fn a_party_off_the_protocol_is_blamed() {
    // Party 2 runs under another session id: its echo of round 1 does not match the others',
    // and they abort naming it.
    let outs = round_based::sim::run(3, |i, party| async move {
        let session: &[u8] = if i == 2 { b"other" } else { b"agreed" };
        keygen::<Ed25519, _, _>(&mut OsRng, session, i, 3, 1, party).await
    })
    .expect("simulation")
    .into_vec();
    for out in &outs[..2] {
        match out {
            Err(Error::Threshold(Run::Aborted { blamed, reason })) => {
                assert_eq!(blamed, &[2], "{reason}");
            }
            other => panic!("expected an abort naming party 2, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_signing_delivery_that_ends_is_a_transport_fault() {
    let shares = round_based::sim::run(2, |i, party| async move {
        keygen::<Ed25519, _, _>(&mut OsRng, b"pair", i, 2, 1, party).await
    })
    .expect("simulation")
    .expect_ok()
    .into_vec();
    let incoming = futures_util::stream::empty::<
        Result<Incoming<SignMsg<Ed25519>>, std::convert::Infallible>,
    >();
    let outgoing = futures_util::sink::drain::<Outgoing<SignMsg<Ed25519>>>();
    let party = MpcParty::connected((incoming, outgoing));
    let out = sign::<Ed25519, _, _>(
        &mut OsRng,
        &shares[1],
        &Default::default(),
        &[0, 1],
        b"m",
        party,
    )
    .await;
    assert!(
        matches!(out, Err(Error::Threshold(Run::Transport(_)))),
        "{out:?}"
    );
}
