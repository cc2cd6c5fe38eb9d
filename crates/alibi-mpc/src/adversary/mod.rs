//! Every misbehaviour hook of key generation and signing, in one place, for the tests that check
//! a cheater is named. With the cargo feature `adversary` (which this crate's tests and the CLI's
//! adversarial tests turn on) `cheats.rs` implements them; without it, in the default build, the
//! shipped binary and `cargo install`, `honest.rs` does: each hook does nothing, and no cheating
//! code is compiled. The protocols call the hooks at the points where a cheater would act.

#[cfg(feature = "adversary")]
mod cheats;
#[cfg(feature = "adversary")]
pub use cheats::*;

#[cfg(not(feature = "adversary"))]
mod honest;
#[cfg(not(feature = "adversary"))]
pub(crate) use honest::*;
