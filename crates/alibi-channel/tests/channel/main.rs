//! alibi-channel's integration tests: sessions, groups and the libsignal interop.
//!
//! One test binary for the crate, each former test file a module of it: the release build links
//! one executable instead of 7, and compiles the generic code they share once.

mod codec_props;
mod common;
mod groups;
mod libsignal_groups;
mod libsignal_interop;
mod ringxkem;
mod sealed_store;
mod session;
