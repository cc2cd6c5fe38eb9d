//! The single-signer primitive against the ethereum/bls12-381-tests vectors for ciphersuite
//! `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (vectors/bls12381-g2-pop): every case of
//! every kind, valid and invalid.

use alibi_bls as bls;
use alibi_testkit::{skip, vectors_dir};
use serde_json::Value;

fn cases(kind: &str) -> Vec<(String, Value)> {
    let dir = vectors_dir().join("bls12381-g2-pop").join(kind);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        skip(&format!("{} not found", dir.display()));
        return vec![];
    };
    let mut out: Vec<(String, Value)> = entries
        .map(|e| e.unwrap().path())
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no {kind} vectors");
    out
}

fn bytes(v: &Value) -> Vec<u8> {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("hex string expected: {v}"));
    let s = s.strip_prefix("0x").unwrap_or(s);
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn list(v: &Value) -> Vec<Vec<u8>> {
    v.as_array().unwrap().iter().map(bytes).collect()
}

#[test]
fn sign() {
    for (name, c) in cases("sign") {
        let sk: [u8; 32] = bytes(&c["input"]["privkey"]).try_into().unwrap();
        let msg = bytes(&c["input"]["message"]);
        match &c["output"] {
            Value::Null => assert!(bls::sign(&sk, &msg).is_err(), "{name}"),
            out => {
                let sig = bls::sign(&sk, &msg).unwrap();
                assert_eq!(sig.to_vec(), bytes(out), "{name}");
                assert!(
                    bls::verify(&bls::public_key(&sk).unwrap(), &msg, &sig).is_ok(),
                    "{name}"
                );
            }
        }
    }
}

#[test]
fn verify() {
    for (name, c) in cases("verify") {
        let i = &c["input"];
        let ok = bls::verify(
            &bytes(&i["pubkey"]),
            &bytes(&i["message"]),
            &bytes(&i["signature"]),
        );
        assert_eq!(ok.is_ok(), c["output"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn aggregate() {
    for (name, c) in cases("aggregate") {
        let sigs = list(&c["input"]);
        let refs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
        match &c["output"] {
            Value::Null => assert!(bls::aggregate(&refs).is_err(), "{name}"),
            out => assert_eq!(
                bls::aggregate(&refs).unwrap().to_vec(),
                bytes(out),
                "{name}"
            ),
        }
    }
}

#[test]
fn fast_aggregate_verify() {
    for (name, c) in cases("fast_aggregate_verify") {
        let i = &c["input"];
        let pks = list(&i["pubkeys"]);
        let refs: Vec<&[u8]> = pks.iter().map(Vec::as_slice).collect();
        let ok = bls::fast_aggregate_verify(&refs, &bytes(&i["message"]), &bytes(&i["signature"]));
        assert_eq!(ok.is_ok(), c["output"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn aggregate_verify() {
    for (name, c) in cases("aggregate_verify") {
        let i = &c["input"];
        let pks = list(&i["pubkeys"]);
        let msgs = list(&i["messages"]);
        let pk_refs: Vec<&[u8]> = pks.iter().map(Vec::as_slice).collect();
        let msg_refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let ok = bls::aggregate_verify(&pk_refs, &msg_refs, &bytes(&i["signature"]));
        assert_eq!(ok.is_ok(), c["output"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn batch_verify() {
    // A batch is valid when every (key, message, signature) triple is.
    for (name, c) in cases("batch_verify") {
        let i = &c["input"];
        let (pks, msgs, sigs) = (
            list(&i["pubkeys"]),
            list(&i["messages"]),
            list(&i["signatures"]),
        );
        let ok = pks.len() == msgs.len()
            && msgs.len() == sigs.len()
            && (0..pks.len()).all(|k| bls::verify(&pks[k], &msgs[k], &sigs[k]).is_ok());
        let triples: Vec<(&[u8], &[u8], &[u8])> = (0..pks.len().min(msgs.len()).min(sigs.len()))
            .map(|k| (pks[k].as_slice(), msgs[k].as_slice(), sigs[k].as_slice()))
            .collect();
        let batched = pks.len() == msgs.len()
            && msgs.len() == sigs.len()
            && bls::batch_verify(&triples, &mut rand_core::UnwrapErr(getrandom::SysRng)).is_ok();
        assert_eq!(batched, ok, "{name}: batch against one by one");
        assert_eq!(ok, c["output"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn deserialization() {
    for (name, c) in cases("deserialization_G1") {
        let ok = bls::g1_decodes(&bytes(&c["input"]["pubkey"]));
        assert_eq!(ok, c["output"].as_bool().unwrap(), "{name}");
    }
    for (name, c) in cases("deserialization_G2") {
        let ok = bls::g2_decodes(&bytes(&c["input"]["signature"]));
        assert_eq!(ok, c["output"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn hash_to_g2() {
    for (name, c) in cases("hash_to_G2") {
        let msg = c["input"]["msg"].as_str().unwrap().as_bytes();
        // RFC 9380's own G2 vectors (appendix J.10.1), under its test tag.
        let p = bls::hash_to_g2(msg, b"QUUX-V01-CS02-with-BLS12381G2_XMD:SHA-256_SSWU_RO_");
        // Uncompressed G2: x.c1 || x.c0 || y.c1 || y.c0; the vectors give "c0,c1".
        let coords = |v: &Value| -> Vec<u8> {
            let s = v.as_str().unwrap();
            let (c0, c1) = s.split_once(',').unwrap();
            [bytes(&Value::from(c1)), bytes(&Value::from(c0))].concat()
        };
        let want = [coords(&c["output"]["x"]), coords(&c["output"]["y"])].concat();
        assert_eq!(p.to_vec(), want, "{name}");
    }
}

#[test]
fn proof_of_possession() {
    let sk = bls::keygen(&[42u8; 32]).unwrap();
    let pk = bls::public_key(&sk).unwrap();
    let proof = bls::pop_prove(&sk).unwrap();
    assert!(bls::pop_verify(&pk, &proof).is_ok());
    let other = bls::public_key(&bls::keygen(&[43u8; 32]).unwrap()).unwrap();
    assert!(bls::pop_verify(&other, &proof).is_err());
    // A proof is not a signature on the key's bytes under the signing tag.
    assert!(bls::verify(&pk, &pk, &proof).is_err());
}

#[test]
fn one_message_batches_catch_a_single_bad_signature() {
    let keys: Vec<_> = (0..5u8)
        .map(|i| bls::keygen(&[i + 1; 32]).unwrap())
        .collect();
    let pks: Vec<_> = keys.iter().map(|k| bls::public_key(k).unwrap()).collect();
    let mut sigs: Vec<_> = keys.iter().map(|k| bls::sign(k, b"m").unwrap()).collect();
    let items = |sigs: &[[u8; 96]]| -> Vec<(Vec<u8>, Vec<u8>)> {
        pks.iter()
            .zip(sigs)
            .map(|(p, s)| (p.to_vec(), s.to_vec()))
            .collect()
    };
    let check = |v: &[(Vec<u8>, Vec<u8>)], m: &[u8]| {
        let refs: Vec<(&[u8], &[u8])> = v
            .iter()
            .map(|(p, s)| (p.as_slice(), s.as_slice()))
            .collect();
        bls::batch_verify_one_message(&refs, m, &mut rand_core::UnwrapErr(getrandom::SysRng))
            .is_ok()
    };
    assert!(check(&items(&sigs), b"m"));
    assert!(!check(&items(&sigs), b"other"));
    sigs[3] = bls::sign(&keys[3], b"x").unwrap();
    assert!(!check(&items(&sigs), b"m"));
    let pairs: Vec<([u8; 48], [u8; 96])> = keys
        .iter()
        .map(|k| (bls::public_key(k).unwrap(), bls::pop_prove(k).unwrap()))
        .collect();
    let mut refs: Vec<(&[u8], &[u8])> = pairs.iter().map(|(p, s)| (&p[..], &s[..])).collect();
    assert!(bls::batch_pop_verify(&refs, &mut rand_core::UnwrapErr(getrandom::SysRng)).is_ok());
    refs.swap(0, 1);
    refs[0].0 = &pairs[0].0;
    assert!(bls::batch_pop_verify(&refs, &mut rand_core::UnwrapErr(getrandom::SysRng)).is_err());
}
