//! Distributed key generation: Joint-Feldman as Yang and Zhang run it (seed 002, section 2: commit,
//! decommit, Feldman shares point-to-point, proof of the share), upgraded so that a cheater is
//! named instead of the run aborting, and so that the honest parties agree on who that is
//! (docs/mpc.md, "What key generation and signing guarantee"):
//!
//! 1. **Commit** (broadcast): H(session, i, A_i, nonce) for the Feldman commitment
//!    A_i = (g1^a_i0, ..., g1^a_it).
//! 2. **Decommit** (broadcast): A_i and the nonce.
//! 3. **Shares** (point-to-point): f_i(j), signed by the dealer. Double Ratchet messages are
//!    deniable, so without the dealer's signature a victim could not prove what it got. All
//!    shares are checked at once with random weights, each alone only if that fails.
//! 4. **Complaints** (broadcast): a bad share is shown with its signature; a missing one is named.
//! 5. **Reveals** (broadcast, by everyone, usually empty): the accused dealer publishes each share
//!    complained about; a complaint with evidence is judged: the dealer or the accuser is named.
//! 6. **Confirm** (broadcast): the party's verification key with a proof of knowledge of the final
//!    share (the paper's "proof of sk", [`crate::share_proof`]) and a digest of the outcome
//!    (qualified set, group key, named parties). Repeated (7, 8) if round 5's settlement names a
//!    qualified party.
//! 10. **Close** (broadcast, empty): settles the confirmations.
//!
//! Every broadcast is signed and carries the attestations of the sender's previous broadcast
//! round ([`crate::echo`]): round r's equivocators are named when round r+1 (or the next
//! broadcast round) is read, by every party alike. A missing message is asked for, from its
//! sender and then from everyone, before anyone is named silent.
//!
//! The qualified set is every party not named; the group key is the sum of their A_i0 and party
//! j's share the sum of their f_i(j). Everyone's verification key g1^x_j follows from the
//! commitments, so signing can check each partial signature. A party finishes only if every
//! party that confirmed announced its outcome.
//!
//! The same rounds reshare an existing key ([`Resharing`], `resharing.rs`): refresh and moving a
//! key to another group. They run in any [`crate::curve::DkgCurve`]: G1 for BLS keys, Ed25519
//! and secp256k1 when a FROST key is refreshed (`crate::scheme::refresh`).
//!
//! Files: `rounds.rs` runs the rounds, one function each, in the order of the table above;
//! `messages.rs` holds what they send and what signatures cover; `key_share.rs` the result.

mod config;
mod key_share;
mod messages;
mod resharing;
mod rounds;

#[cfg(feature = "adversary")]
pub use crate::adversary::Misbehaviour;
pub use config::KeygenConfig;
pub use key_share::{KeySet, KeyShare};
pub use resharing::Resharing;
pub use rounds::keygen;

use messages::{Complaints, Confirm, Decommit, Reveal, SignedShare};

use crate::curve::{Bls12, DkgCurve, Ed25519, Secp256k1};
use crate::decode;
use crate::poly::Commitment;
use crate::share_proof::ShareProof;

/// Decodes `data` as each key-generation message (for the fuzz target), in each group the
/// rounds run in.
#[doc(hidden)]
pub fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<[u8; 32]>(data);
    let _ = decode::<SignedShare>(data);
    let _ = decode::<Complaints>(data);
    let _ = decode::<Reveal>(data);
    let _ = decode::<Confirm>(data);
    fuzz_curve::<Bls12>(data);
    fuzz_curve::<Ed25519>(data);
    fuzz_curve::<Secp256k1>(data);
    let _ = KeyShare::from_json(&String::from_utf8_lossy(data));
    let _ = KeySet::from_json(&String::from_utf8_lossy(data));
}

/// The decoders of `C`'s points and scalars inside the messages.
fn fuzz_curve<C: DkgCurve>(data: &[u8]) {
    let _ = ShareProof::<C>::from_bytes(data);
    let _ = decode::<Decommit>(data)
        .map(|d| Commitment::<C>::decode(&d.commitment).map(|c| (c.eval(1), c.in_subgroup())));
    let _ = decode::<SignedShare>(data).map(|s| C::scalar_from_bytes(&s.value));
    let _ = decode::<Complaints>(data).map(|c| {
        c.confirm
            .map(|c| ShareProof::<C>::from_bytes(&c.proof).is_ok())
    });
    let _ = decode::<Confirm>(data).map(|c| ShareProof::<C>::from_bytes(&c.proof));
    let _ = C::key_from_bytes(data);
}
