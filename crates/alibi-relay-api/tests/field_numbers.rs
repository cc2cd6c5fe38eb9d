//! Pins the protobufs to Signal-Server's numbering and types (`TextSecure.proto` and
//! `WebSocketResources.proto` in signalapp/Signal-Server): a Signal client's decoder must read
//! what the relay writes, so a renumbered or retyped field fails here.

use alibi_relay_api::proto::{self, Envelope, WebSocketMessage};
use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::FileDescriptorSet;

fn fields(message: &str) -> Vec<(String, i32, Type, Label)> {
    let set = FileDescriptorSet::decode(proto::DESCRIPTORS).expect("descriptor set");
    let m = set
        .file
        .iter()
        .flat_map(|f| &f.message_type)
        .find(|m| m.name() == message)
        .unwrap_or_else(|| panic!("no message {message}"));
    m.field
        .iter()
        .map(|f| (f.name().to_string(), f.number(), f.r#type(), f.label()))
        .collect()
}

fn check(message: &str, expected: &[(&str, i32, Type)]) {
    let got = fields(message);
    assert_eq!(got.len(), expected.len(), "{message}: {got:?}");
    for (name, number, ty) in expected {
        let f = got
            .iter()
            .find(|f| f.0 == *name)
            .unwrap_or_else(|| panic!("{message}.{name} missing"));
        assert_eq!((f.1, f.2), (*number, *ty), "{message}.{name}");
        let label = if *name == "headers" {
            Label::Repeated
        } else {
            Label::Optional
        };
        assert_eq!(f.3, label, "{message}.{name}");
    }
}

#[test]
fn envelope_has_signal_servers_numbers_and_types() {
    check(
        "Envelope",
        &[
            ("type", 1, Type::Enum),
            ("source_service_id", 11, Type::String),
            ("source_device", 7, Type::Uint32),
            ("client_timestamp", 5, Type::Uint64),
            ("content", 8, Type::Bytes),
            ("server_guid", 9, Type::String),
            ("server_timestamp", 10, Type::Uint64),
            ("ephemeral", 12, Type::Bool),
            ("destination_service_id", 13, Type::String),
            ("urgent", 14, Type::Bool),
            ("updated_pni", 15, Type::String),
            ("story", 16, Type::Bool),
            ("report_spam_token", 17, Type::Bytes),
            ("shared_mrm_key", 18, Type::Bytes),
            // alibi's own, far from Signal's numbers.
            ("device_part", 100, Type::Bytes),
        ],
    );
}

#[test]
fn websocket_frames_have_signal_servers_numbers_and_types() {
    check(
        "WebSocketMessage",
        &[
            ("type", 1, Type::Enum),
            ("request", 2, Type::Message),
            ("response", 3, Type::Message),
        ],
    );
    check(
        "WebSocketRequestMessage",
        &[
            ("verb", 1, Type::String),
            ("path", 2, Type::String),
            ("body", 3, Type::Bytes),
            ("id", 4, Type::Uint64),
            ("headers", 5, Type::String),
        ],
    );
    check(
        "WebSocketResponseMessage",
        &[
            ("id", 1, Type::Uint64),
            ("status", 2, Type::Uint32),
            ("message", 3, Type::String),
            ("body", 4, Type::Bytes),
            ("headers", 5, Type::String),
        ],
    );
}

/// The generated code writes those numbers: the bytes of a small envelope, key by key
/// (tag = number << 3 | wire type).
#[test]
fn envelope_bytes_on_the_wire() {
    let env = Envelope {
        r#type: Some(proto::envelope::Type::UnidentifiedSender.into()),
        source_device: Some(2),
        content: Some(vec![0xAB]),
        server_guid: Some("g".into()),
        shared_mrm_key: Some(vec![0xCD]),
        ..Default::default()
    };
    assert_eq!(
        env.encode_to_vec(),
        [
            0x08, 6, // type = 1, varint
            0x38, 2, // source_device = 7, varint
            0x42, 1, 0xAB, // content = 8, bytes
            0x4A, 1, b'g', // server_guid = 9, string
            0x92, 0x01, 1, 0xCD, // shared_mrm_key = 18, bytes
        ]
    );
    assert!(env.urgent(), "urgent defaults to true, as in Signal-Server");
    let ack = WebSocketMessage::response(7, 200).encode_to_vec();
    assert_eq!(ack, [0x08, 2, 0x1A, 5, 0x08, 7, 0x10, 0xC8, 0x01]);
}

/// The JSON bodies use Signal-Server's names.
#[test]
fn json_names() {
    use alibi_relay_api::keys::{KeysUpload, OneTimeKey};
    let upload = KeysUpload {
        pre_keys: vec![OneTimeKey {
            id: 5,
            public: vec![1, 2],
        }],
        ..Default::default()
    };
    let v = serde_json::to_value(&upload).expect("json");
    assert_eq!(v["preKeys"][0]["keyId"], 5);
    assert_eq!(v["preKeys"][0]["publicKey"], "AQI=");
    let e = alibi_relay_api::ErrorBody {
        missing_devices: Some(vec![2]),
        ..alibi_relay_api::ErrorBody::new("x")
    };
    assert_eq!(
        serde_json::to_string(&e).expect("json"),
        r#"{"error":"x","missingDevices":[2]}"#
    );
}
