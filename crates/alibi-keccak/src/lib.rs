//! # alibi-keccak
//!
//! Keccak-f[1600] (FIPS 202 §3.3, Keccak-p[1600, 24]) and the sponges of FIPS 202 §6 on it:
//! SHA3-256, SHA3-512, SHAKE128 and SHAKE256. It is the one Keccak of the workspace's own code:
//! Falcon's HashToPoint, the AKEMs' key derivation, MAYO, TACHYON and SPHINCS+ in DGSP all absorb
//! and squeeze through it. (ML-KEM keeps libcrux's own Keccak, which has four-way AVX2 code.)
//!
//! The permutation is one portable source compiled twice: as it is, and with BMI1 enabled, where
//! chi's `!b & c` becomes one `andn` instruction; the BMI1 build runs when the CPU has it (checked
//! at run time, so one binary serves every x86-64 CPU). A test compares both builds with each
//! other and with the `keccak` crate on random states.
//!
//! ```
//! use alibi_keccak::{Sha3_256, Shake256};
//! let d = Sha3_256::digest(b"abc");
//! assert_eq!(d[..4], [0x3a, 0x98, 0x5d, 0xa7]);
//! let mut x = Shake256::default();
//! x.update(b"abc");
//! let mut out = [0u8; 8];
//! x.finalize_xof().read(&mut out);
//! assert_eq!(out[..2], [0x48, 0x33]);
//! ```

#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]
#![deny(unsafe_code)]

mod permutation;
mod sponge;
mod x2;

pub use permutation::{f1600, f1600_portable, RC, RHO};
pub use sponge::{Sha3_256, Sha3_512, Shake128, Shake256, XofReader};
pub use x2::{absorb_pair, absorb_pair_read, f1600_x2, Absorb, Xof};
