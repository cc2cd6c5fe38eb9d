//! The messenger's inbound path on hostile envelopes: what the receiving task does with each
//! envelope the relay pushes (pairwise PreKey and Double Ratchet messages, sealed sender v1 and
//! v2, sender-key messages, their content and the checks against the pinned contacts). No panic.
//!
//! The fixture runs a relay in this process; B sends A a direct message and a group message, and
//! the envelopes waiting for A are the samples. Inputs edit a sample's content
//! (`alibi_fuzz::input`) under that sample's envelope fields; a first byte of 255 makes the rest a
//! whole envelope. A's sessions change as valid messages go through (a replayed message is then
//! refused), so a campaign's runs are not all independent.
#![no_main]
use std::sync::OnceLock;
use std::time::Duration;

use alibi_messenger::{fuzzing, Group, Messenger, Options};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay_api::proto::Envelope;
use libfuzzer_sys::fuzz_target;
use prost::Message;

struct Fixture {
    _rt: tokio::runtime::Runtime,
    _relay: LocalRelay,
    a: Messenger,
    envelopes: Vec<Envelope>,
    contents: Vec<Vec<u8>>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (relay, a, envelopes) = rt.block_on(async {
            let relay = LocalRelay::start(Config::default()).await.unwrap();
            let o = Options::default();
            let a = Messenger::ephemeral(&relay.url, "A", &o).await.unwrap();
            let b = Messenger::ephemeral(&relay.url, "B", &o).await.unwrap();
            a.import(&b.card()).unwrap();
            b.import(&a.card()).unwrap();
            b.send("A", b"direct").await.unwrap();
            let group = Group {
                id: uuid::Uuid::from_u128(1),
                members: vec!["A".into()],
            };
            b.send_group(&group, b"group", &[("A".into(), b"private".to_vec())])
                .await
                .unwrap();
            b.send_group(&group, b"again", &[]).await.unwrap();
            let got = fuzzing::waiting(&a, 8, Duration::from_secs(5)).await;
            assert!(got.len() >= 3, "only {} envelopes arrived", got.len());
            (relay, a, got)
        });
        let contents = envelopes.iter().map(|e| e.content().to_vec()).collect();
        Fixture {
            _rt: rt,
            _relay: relay,
            a,
            envelopes,
            contents,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let env = match data.split_first() {
        Some((255, rest)) => match Envelope::decode(rest) {
            Ok(e) => e,
            Err(_) => return,
        },
        _ => {
            let which = data.first().map_or(0, |&m| usize::from(m.max(1) - 1));
            Envelope {
                content: Some(alibi_fuzz::input(data, &f.contents).into_owned()),
                ..f.envelopes[which % f.envelopes.len()].clone()
            }
        }
    };
    let _ = fuzzing::inbound(&f.a, &env);
});
