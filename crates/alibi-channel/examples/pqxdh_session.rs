//! Two parties open a PQXDH session (Kyber1024 prekey) and exchange messages through the Double
//! Ratchet, Bob on a redb store that survives a restart.
//!
//! `cargo run --release -p alibi-channel --example pqxdh_session`

use std::time::SystemTime;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::{Address, InMemoryStore, ProtocolStore, RedbStore};
use alibi_handshake::PreKeyBundle;
use alibi_identity::{IdentityKeyPair, KemKeyPair, KemKeyType, KeyPair};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("alibi-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (alice_at, bob_at) = (Address::new("alice", 1), Address::new("bob", 1));

    // Bob publishes a signed prekey and a signed Kyber1024 prekey.
    let bob_id = IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let mut bob = RedbStore::create(dir.join("bob.redb"), &bob_id, 2)?;
    let spk = KeyPair::generate(&mut UnwrapErr(SysRng));
    let spk_sig = bob_id
        .sign(&spk.public.serialize(), &mut UnwrapErr(SysRng))
        .to_vec();
    bob.save_signed_pre_key(&SignedPreKeyRecord {
        id: 1,
        key_pair: spk.clone(),
        signature: spk_sig.clone(),
    })?;
    let kem = KemKeyPair::generate(KemKeyType::Kyber1024, &mut UnwrapErr(SysRng));
    let kem_sig = bob_id
        .sign(&kem.public.serialize(), &mut UnwrapErr(SysRng))
        .to_vec();
    bob.save_kyber_pre_key(&KyberPreKeyRecord {
        id: 1,
        key_pair: kem.clone(),
        signature: kem_sig.clone(),
        last_resort: true,
    })?;
    let bundle = PreKeyBundle {
        registration_id: 2,
        device_id: 1,
        pre_key: None,
        signed_pre_key_id: 1,
        signed_pre_key: spk.public,
        signed_pre_key_signature: spk_sig,
        identity_key: bob_id.identity,
        kyber_pre_key: Some((1, kem.public, kem_sig)),
    };

    // Alice processes the bundle (PQXDH) and writes first.
    let mut alice = InMemoryStore::new(IdentityKeyPair::generate(&mut UnwrapErr(SysRng)), 1);
    process_prekey_bundle(
        &bob_at,
        &mut alice,
        &bundle,
        SystemTime::now(),
        &mut UnwrapErr(SysRng),
    )?;
    let m = encrypt(&bob_at, &mut alice, b"hello Bob", SystemTime::now())?;
    println!(
        "Alice -> Bob: PreKey message, {} bytes",
        m.serialize().len()
    );

    // On the wire: a type and bytes. Bob opens the session, restarts, and answers.
    let wire = CiphertextMessage::deserialize(m.message_type(), m.serialize())?;
    println!(
        "Bob reads: {}",
        String::from_utf8_lossy(&decrypt(
            &alice_at,
            &mut bob,
            &wire,
            &mut UnwrapErr(SysRng)
        )?)
    );
    drop(bob);
    let mut bob = RedbStore::open(dir.join("bob.redb"))?;
    let r = encrypt(&alice_at, &mut bob, b"hello Alice", SystemTime::now())?;
    println!("Bob -> Alice: message, {} bytes", r.serialize().len());
    println!(
        "Alice reads: {}",
        String::from_utf8_lossy(&decrypt(&bob_at, &mut alice, &r, &mut UnwrapErr(SysRng))?)
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
