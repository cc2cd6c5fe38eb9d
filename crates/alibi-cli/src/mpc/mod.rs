//! `alibi mpc init|group|keygen|presign|sign|refresh|reshare|keys|derive|verify|aux|bench`: threshold signatures (BLS, FROST-Ed25519,
//! FROST-secp256k1-tr, CGGMP24 ECDSA) between parties that each run in their own process (one
//! terminal, one machine, one directory each), talking through a relay over pinned Signal
//! channels; and the paper's experiment comparing the transports.
//!
//! * `args`: one argument struct per verb, and the flags verbs share;
//! * `setup`: `init`, `group`, a party of a group from its directory, `--exclude`, sessions;
//! * `party`: `keygen`, `sign`, `verify`, one code path for every scheme;
//! * `presign`: `presign` and `sign --presigned` (threshold ECDSA), the party's stored
//!   presignatures;
//! * `reshare`: `refresh` (BLS and FROST keys' new shares) and `reshare` (BLS keys to another group);
//! * `keys`: `keys` and `derive` (a key's public material, its child keys);
//! * `primes`: threshold ECDSA's safe primes (`aux`);
//! * `report`: waiting lines, failures and who they name;
//! * `bench`: `bench` and `bench-party`;
//! * `life`: `bench --life`, each step of a key's life timed.

mod args;
mod bench;
mod keys;
mod life;
mod party;
mod presign;
mod primes;
mod report;
mod reshare;
mod setup;

use clap::Subcommand;

use args::{
    AuxArgs, BenchArgs, BenchPartyArgs, DeriveArgs, GroupArgs, InitArgs, KeygenArgs, KeysArgs,
    PresignArgs, RefreshArgs, ReshareArgs, SignArgs, VerifyArgs,
};

use crate::failure::CmdResult;

/// `alibi mpc <verb>`.
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Set a party up: register on the relay, seal its identity in DIR under the passphrase, and
    /// write DIR/card.json (public: hand it to whoever assembles the group)
    Init(InitArgs),
    /// Assemble the group file from the parties' cards (party i is the i-th card)
    Group(GroupArgs),
    /// Key generation, as one party (every party runs this in its own process): seals this
    /// party's share in DIR and writes the group key; exit 1 if cheaters were named and too few
    /// parties remain, 3 if the relay or the network failed (no party blamed)
    Keygen(KeygenArgs),
    /// Threshold signing, as one signer (t+1 or more run this, each in its own process, with the
    /// same --session): it finishes as soon as t+1 valid partial signatures are in hand and
    /// writes the signature, checked under the group key (the same whichever t+1 signed)
    Sign(SignArgs),
    /// Threshold ECDSA's offline phase, as one of the t+1 signers (each runs this with the same
    /// --session and --signers): makes --count presignatures and stores them sealed in DIR (all
    /// or none), each
    /// for one later `sign --presigned` by the same signers, in one round
    Presign(PresignArgs),
    /// New shares of the same BLS or FROST key among the same parties (every party runs this
    /// with the same --session; a FROST key needs all of them): key generation's rounds, each
    /// party dealing its own share, so the old shares no longer combine with the new; replaces
    /// this party's share file. Exit codes as keygen's
    Refresh(RefreshArgs),
    /// Move a BLS key to another group (other parties, another n or t; the group key unchanged):
    /// every party of the new group runs this with the same --session; at least t+1 of the old
    /// key's parties must be among them. A holder's old share is deleted once its new one is
    /// written. Exit codes as keygen's
    Reshare(ReshareArgs),
    /// Write the public material of this party's share: for bls the key set (threshold, group
    /// key, every party's verification key), what a party new to the key gives `mpc reshare
    /// --keys`; for the others the extended public key (BIP-32 `xpub` text), what `mpc
    /// derive` reads
    Keys(KeysArgs),
    /// Print the child public key at a non-hardened path (m/0/7) below an extended public key
    /// (`mpc keys`), the key `mpc sign --path` signs under; no share or relay needed. BIP-32
    /// for ecdsa-secp256k1 and frost-secp256k1-tr (whose signing key is the child's taproot
    /// output key), a non-standard Edwards derivation for frost-ed25519
    Derive(DeriveArgs),
    /// Standard verification under the group key (plain BLS; Ed25519 by ed25519-dalek's strict
    /// rules; BIP-340 and ECDSA by k256): exit 0 if valid, 1 if not
    Verify(VerifyArgs),
    /// Precompute the four safe primes an ecdsa-secp256k1 key generation needs for this party's
    /// Paillier key and ring-Pedersen modulus (the slow step: seconds to minutes), sealed in DIR/primes.sealed under the
    /// passphrase; the next `keygen --scheme ecdsa-secp256k1` uses and deletes them (without
    /// them, keygen searches first, and the others wait: give them a --timeout-s that allows it)
    Aux(AuxArgs),
    /// The paper's experiment: keygen and signing (t = n-1) over sequential and concurrent
    /// pairwise channels and group channels, for each party count and relay delay; prints the
    /// table, writes a CSV and an SVG plot. With --life: the time, requests and bytes of every
    /// step of a key's life instead
    Bench(BenchArgs),
    /// One party of `bench --processes` (driven over stdin and stdout by the bench)
    #[command(hide = true)]
    BenchParty(BenchPartyArgs),
}

/// Runs `alibi mpc <verb>`.
pub fn run(cmd: Cmd) -> CmdResult {
    match cmd {
        Cmd::Init(a) => setup::init(a),
        Cmd::Group(a) => setup::group(a),
        Cmd::Keygen(a) => party::keygen(a),
        Cmd::Sign(a) if a.presigned => presign::sign(a),
        Cmd::Sign(a) => party::sign(a),
        Cmd::Presign(a) => presign::presign(a),
        Cmd::Refresh(a) => reshare::refresh(a),
        Cmd::Reshare(a) => reshare::reshare(a),
        Cmd::Keys(a) => keys::keys(a),
        Cmd::Derive(a) => keys::derive(a),
        Cmd::Verify(a) => party::verify(a),
        Cmd::Aux(a) => primes::aux(a),
        Cmd::Bench(a) => bench::bench(a),
        Cmd::BenchParty(a) => bench::party(a),
    }
}
