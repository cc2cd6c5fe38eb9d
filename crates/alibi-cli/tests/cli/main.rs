//! The alibi command line's tests: each runs the built binary (CARGO_BIN_EXE_alibi) as a user would.
//!
//! One test binary for the crate, each former test file a module of it: the release build links
//! one executable instead of 20, and compiles the generic code they share once.

mod cli_akem;
mod cli_bench;
mod cli_contract;
mod cli_falcon;
mod cli_gaps;
mod cli_group;
mod cli_json;
mod cli_messages;
mod cli_mpc;
mod cli_mpc_hostile;
mod cli_mpc_schemes;
mod cli_newcomer;
mod cli_outputs;
mod cli_ring;
mod cli_tachyon;
mod common;
mod docs_run;
mod relay_nodes;
mod relay_operations;
mod relay_sigkill;
mod relay_tls;
