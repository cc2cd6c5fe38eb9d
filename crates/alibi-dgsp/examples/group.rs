//! DGSP, the dynamic group signature, in memory: a manager, a member who joins, gets one-time keys
//! certified and signs; a verifier, the manager opening the signature, a judge checking the
//! opening, and revocation.
//!
//! `cargo run --release -p alibi-dgsp --example group`

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
use alibi_dgsp::{csr, judge, verify, Error, Manager, Params, UserKey};
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), Error> {
    let mut rng = UnwrapErr(SysRng);
    let p = Params::Shake128f;
    let manager = Manager::generate(
        p,
        MemoryPlm::default(),
        MemoryRevokedList::default(),
        &mut rng,
    );
    let pk = manager.public_key().clone();

    // Joining: the manager registers the name and hands out (id, cid*).
    let (id, cid_star) = manager.join("alice")?;
    // The member makes two one-time keys and has them certified.
    let alice = UserKey::generate(p, id, &mut rng);
    let (seeds, wots_pks) = csr(&alice, 2, &mut rng);
    let certs = manager.gen_cert(id, &cid_star, &wots_pks)?;
    let mut keys = alice.accept(seeds, certs, &pk)?;

    let msg = b"the group says hi";
    let key = keys.pop().ok_or(Error::InvalidCertificate)?;
    let sig = alice.sign(key, msg);
    println!("{p}: a group signature of {} bytes", sig.to_bytes().len());
    verify(&pk, msg, &sig, manager.revoked())?;

    // The manager opens it; anyone can check the opening.
    let opened = manager.open(msg, &sig)?;
    judge(&pk, msg, &sig, opened.id, &opened.pi)?;
    println!(
        "opened: member {} ({}), and the judge agrees",
        opened.id, opened.username
    );

    // After revocation the signature no longer verifies against the manager's list.
    manager.revoke(&[id])?;
    assert_eq!(
        verify(&pk, msg, &sig, manager.revoked()),
        Err(Error::Revoked)
    );
    println!("revoked: the signature is refused");
    Ok(())
}
