//! alibi-mpc's integration tests: parties on the in-memory network and over a relay.
//!
//! One test binary for the crate, each former test file a module of it: the release build links
//! one executable instead of 8, and compiles the generic code they share once.

mod agreement;
mod common;
mod net;
mod over_relay;
mod protocol;
mod resharing;
mod round_based;
mod signing;
mod threshold;
