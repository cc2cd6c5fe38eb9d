//! Each seed paper's headline table, measured here with its peers in the same run: one module
//! per seed, named after what it measures.
//!
//! * [`ring`]: seed 000, ring signatures (FalconRS, MAYO-RS; Table 3).
//! * [`akem`]: seed 001, SHADOWFAX and its parts against the hpke crate's DHKEM (Table 1).
//! * [`mpc`]: seed 002, threshold signatures over pairwise and group channels.
//! * [`dgsp`]: seed 003, DGSP against dgsp 0.1.2.
//! * [`tachyon`]: seed 004, TACHYON against PQClean's ML-DSA, Falcon and SPHINCS+ (Table 2).

pub(crate) mod akem;
pub(crate) mod dgsp;
pub(crate) mod mpc;
pub(crate) mod ring;
pub(crate) mod tachyon;
