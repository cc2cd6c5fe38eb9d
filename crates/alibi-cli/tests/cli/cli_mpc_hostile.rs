//! Issue 65, item 1: a party's own account, and outsiders' mail, must not stop every run with
//! nobody named. Each test is the attack on the wire (party processes on a relay process),
//! failing before its defence.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Child;

use alibi_messenger::{ContactCard, Messenger};
use alibi_relay_api::messages::OutgoingMessage;
use common::code;
use common::mpc::{keygen_with, relay, setup, wait_all, PASS};

/// Key generation by every party of `dirs` under `session` over `transport`; their outputs.
fn keygen_all(
    d: &Path,
    dirs: &[PathBuf],
    group: &str,
    session: &str,
    transport: &str,
) -> Vec<std::process::Output> {
    let more = ["--session", session, "--transport", transport, "--force"];
    let children: Vec<Child> = (0..dirs.len())
        .map(|i| {
            let pk = d.join(format!("{i}.pk"));
            keygen_with(&dirs[i], group, &pk, "10", &more)
        })
        .collect();
    wait_all(children)
}

/// A member links a second device to its own account (with its primary's password; the new
/// device uploads no prekeys) and then plays honestly. The others send to the device its card
/// in the group file lists, and nothing else: every run finishes (group and pairwise channels),
/// and no phantom device is written for any member. Before, every honest sender got 409
/// "missing [2]", added device 2 (in group mode to every member), failed to fetch its bundle and
/// exited 3, no party blamed.
#[test]
fn a_device_the_card_does_not_list_stops_nothing() {
    let d = common::scratch("mpc-linked-device");
    let relay = relay(&d);
    let names = ["la", "lb", "lc"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let lc = Messenger::open(&dirs[2], PASS.as_bytes()).await.unwrap();
        lc.relay_client()
            .add_device(2, 4242, "a-second-device-password")
            .await
            .expect("lc links device 2 to its own account");
    });
    for transport in ["group", "pairwise"] {
        for (i, o) in keygen_all(&d, &dirs, &group, transport, transport)
            .iter()
            .enumerate()
        {
            assert_eq!(
                code(o),
                0,
                "{transport}, {}: {}",
                names[i],
                common::stderr(o)
            );
        }
    }
    for dir in &dirs[..2] {
        let text = std::fs::read_to_string(dir.join(alibi_messenger::CONTACTS_FILE)).unwrap();
        let cards: Vec<ContactCard> = serde_json::from_str(&text).unwrap();
        for c in cards {
            let ids: Vec<u8> = c.devices.iter().map(|d| d.id).collect();
            assert_eq!(
                ids,
                [1],
                "{}: {} has no phantom device",
                dir.display(),
                c.name
            );
        }
    }
}

/// Outsiders fill a member's mailbox before a run (accounts of their own on four hosts, each
/// host within its share of the mailbox). The relay then refuses every message for that member (413, naming its
/// account): the others stop the run naming it unreachable, with the relay's answer, and say
/// how to go on without it; nobody is blamed. Before, they stopped with an anonymous transport
/// fault.
#[test]
fn a_member_whose_mailbox_is_full_is_named_unreachable() {
    let d = common::scratch("mpc-full-mailbox");
    let relay = common::mpc::relay_with(&d, &["--mailbox-messages", "8"]);
    let names = ["fa", "fb", "fc"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let card: ContactCard = ContactCard::from_json(
        &std::fs::read_to_string(dirs[2].join(alibi_messenger::CARD_FILE)).unwrap(),
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let filled = rt.block_on(async {
        let mut stored = 0;
        for reg in 1..=4u16 {
            // Another loopback address is another host to the relay.
            let host = std::net::IpAddr::from([127, 0, 0, 1 + reg as u8]);
            let outsider = alibi_messenger::RelayClient::register(
                alibi_messenger::Endpoint::new(relay.url.as_str()).with_local_address(host),
                &outsider_identity(),
                reg,
                "an-outsider-password-1",
            )
            .await
            .unwrap();
            for _ in 0..2 {
                let junk = OutgoingMessage {
                    kind: 1,
                    destination_device_id: 1,
                    destination_registration_id: card.devices[0].registration_id,
                    content: vec![7; 32],
                };
                if let Ok(Ok(())) = outsider.send(card.account, vec![junk]).await {
                    stored += 1;
                }
            }
        }
        stored
    });
    assert_eq!(filled, 8, "the outsiders filled fc's mailbox");
    // fc is not started: its mailbox stays full.
    let outs = keygen_all(&d, &dirs[..2], &group, "full", "group");
    for (i, o) in outs.iter().enumerate() {
        let err = common::stderr(o);
        assert_eq!(code(o), 3, "{}: {err}", names[i]);
        assert!(
            err.contains("will not deliver to fc (") && err.contains("413"),
            "{}: {err}",
            names[i]
        );
        assert!(err.contains("--exclude fc"), "{err}");
    }
}

fn outsider_identity() -> Vec<u8> {
    alibi_identity::IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
        .identity
        .serialize()
        .to_vec()
}

/// Issue 65, item 6: a relay in the middle loses one delivery (a different one each run) in a
/// 4-party FROST-Ed25519 key generation (t = 1, separate processes). Every honest party ends
/// alike: all hold the same key, or none claims one. Before, a party that had finished exited
/// and no longer answered the others' asks for a lost message: three parties wrote the key while
/// the fourth exited 3 without a share, in 5 of 6 positions.
#[test]
fn one_lost_message_does_not_split_a_frost_key_generation() {
    let d = common::scratch("mpc-frost-lost");
    let relay = relay(&d);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let proxy = rt.block_on(alibi_testkit::proxy::Proxy::start(&relay.url));
    let names = ["w1", "w2", "w3", "w4"];
    let (dirs, group) = common::mpc::setup_at(&d, &proxy.url, &relay.trust_root, &names, 1);
    let pk = |i: usize, run: usize| d.join(format!("{}-{run}.pk", names[i]));
    // About 80 deliveries make a run without the closing rounds; before them, every loss from
    // the 62nd on split the run (checked: 14 positions of 62 to 78), earlier ones did not.
    for (run, lost) in [3usize, 62, 66, 70, 74, 78].into_iter().enumerate() {
        proxy.rules.lock().unwrap().drop_delivery = Some(lost);
        proxy.count_from_zero();
        let session = format!("lost-{lost}");
        let more = [
            "--scheme",
            "frost-ed25519",
            "--session",
            &session,
            "--force",
        ];
        let children: Vec<Child> = (0..4)
            .map(|i| keygen_with(&dirs[i], &group, &pk(i, run), "10", &more))
            .collect();
        let outs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let dropped = proxy.deliveries.load(std::sync::atomic::Ordering::SeqCst) > lost;
        assert!(dropped, "lost {lost}: the proxy reached that delivery");
        let ok: Vec<usize> = (0..4).filter(|&i| code(&outs[i]) == 0).collect();
        let report: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    "{}: {} {}",
                    names[i],
                    code(&outs[i]),
                    common::stderr(&outs[i])
                )
            })
            .collect();
        assert!(
            ok.len() == 4 || ok.is_empty(),
            "lost {lost}: only {ok:?} finished: {report:#?}"
        );
        if ok.len() == 4 {
            let key = std::fs::read(pk(0, run)).unwrap();
            assert!((1..4).all(|i| std::fs::read(pk(i, run)).unwrap() == key));
        }
    }
}

/// Issue 65: a run stopped by one cheater names that cheater at every honest party. In a
/// FROST-Ed25519 key generation, m1 deals m3 the pairwise message it dealt m2 (a share only m3
/// can check). m3's check fails and names m1; m3's signed accusation stops m2 at once, which
/// names m1 as m3 did (exit 1, noted in its directory). Before, m2 waited out the round and
/// reported m3, the victim, as the party nothing was heard from (exit 3). The next run, every
/// honest party excluding m1, finishes without it.
#[test]
fn a_frost_party_that_misdeals_is_named_at_every_honest_party() {
    let d = common::scratch("mpc-frost-misdeal");
    let relay = relay(&d);
    let names = ["m1", "m2", "m3"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let pk = |i: usize, run: &str| d.join(format!("{}-{run}.pk", names[i]));
    let children: Vec<Child> = (0..3)
        .map(|i| {
            let mut more = vec!["--scheme", "frost-ed25519", "--session", "first"];
            if i == 0 {
                more.extend(["--misbehave", "misdeal:3"]);
            }
            keygen_with(&dirs[i], &group, &pk(i, "first"), "30", &more)
        })
        .collect();
    let started = std::time::Instant::now();
    let outs = wait_all(children);
    for (i, o) in outs.iter().enumerate().skip(1) {
        let err = common::stderr(o);
        assert_eq!(code(o), 1, "{}: {err}", names[i]);
        assert!(err.contains("excluded: m1"), "{}: {err}", names[i]);
    }
    let err = common::stderr(&outs[1]);
    assert!(
        err.contains("m3 names m1"),
        "m2 hears m3's accusation: {err}"
    );
    // At once, not after the 30 s round m2 would otherwise have waited out.
    assert!(started.elapsed().as_secs() < 25, "{:?}", started.elapsed());
    let noted = std::fs::read_to_string(dirs[1].join("named.json")).unwrap();
    assert!(noted.contains("named in key generation by m3"), "{noted}");
    let children: Vec<Child> = (1..3)
        .map(|i| {
            let more = [
                "--scheme",
                "frost-ed25519",
                "--session",
                "second",
                "--exclude",
                "m1",
            ];
            keygen_with(&dirs[i], &group, &pk(i, "second"), "10", &more)
        })
        .collect();
    for (i, o) in wait_all(children).iter().enumerate() {
        assert_eq!(code(o), 0, "{}: {}", names[i + 1], common::stderr(o));
    }
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&group).unwrap()).unwrap();
    assert_eq!(file["excluded"][0]["name"], "m1", "{file}");
    let why = file["excluded"][0]["reason"].as_str().unwrap();
    assert!(why.starts_with("named in key generation"), "{why}");
}
