//! `alibi`: one binary, `alibi <area> <verb> [--flag value ...]`.
//!
//! Exit codes everywhere: 0 = success or valid, 1 = signature or ciphertext invalid, 2 = bad usage or
//! malformed input, with a one-line message on stderr. With no arguments it runs the demo.

mod akem;
mod args;
mod demo;
mod falcon;
mod group;
mod mpc;
mod relay;
mod ring;
mod tachyon;

use std::process::ExitCode;

/// The relay and the MPC runs allocate a little per message on many threads; mimalloc's
/// per-thread heaps avoid glibc's arena locks there (measured: docs/BENCHMARKS.md, issue 5).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How a command failed; the variant fixes the exit code.
#[derive(Debug)]
pub enum Failure {
    /// A signature or ciphertext did not verify (exit 1).
    Invalid(String),
    /// Bad usage, unreadable file or malformed input (exit 2).
    Usage(String),
}

impl Failure {
    fn code(&self) -> u8 {
        match self {
            Failure::Invalid(_) => 1,
            Failure::Usage(_) => 2,
        }
    }

    fn message(&self) -> &str {
        match self {
            Failure::Invalid(m) | Failure::Usage(m) => m,
        }
    }
}

/// The result of a command.
pub type CmdResult = Result<(), Failure>;

const USAGE: &str =
    "usage: alibi [<area> <verb> [options]]  (areas: falcon, ring, akem, tachyon, group, relay, mpc; no arguments runs the demo)";

fn run(argv: &[String]) -> CmdResult {
    match argv.first().map(String::as_str) {
        None => demo::run(),
        Some("falcon") => falcon::run(&argv[1..]),
        Some("ring") => ring::run(&argv[1..]),
        Some("akem") => akem::run(&argv[1..]),
        Some("tachyon") => tachyon::run(&argv[1..]),
        Some("group") => group::run(&argv[1..]),
        Some("relay") => relay::run(&argv[1..]),
        Some("mpc") => mpc::run(&argv[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            println!("  alibi falcon keygen --level 512|1024 --pk FILE --sk FILE");
            println!("  alibi falcon sign --sk FILE --msg FILE --out FILE");
            println!("  alibi falcon verify --pk FILE --msg FILE --sig FILE");
            println!(
                "  alibi ring keygen --scheme falcon512|falcon1024|mayo1|mayo2 --pk FILE --sk FILE"
            );
            println!("  alibi ring sign --sk FILE --ring PK1,PK2[,...] --msg FILE --out FILE [--scheme S]");
            println!("  alibi ring verify --ring PK1,PK2[,...] --msg FILE --sig FILE [--scheme S]");
            println!("  alibi akem keygen --scheme dh|pq|shadowfax --pk FILE --sk FILE");
            println!("  alibi akem encap --scheme S --sender-sk FILE --receiver-pk FILE --ct FILE --key FILE");
            println!("  alibi akem decap --scheme S --receiver-sk FILE --sender-pk FILE --ct FILE --key FILE");
            println!("  alibi tachyon keygen --level 128|192|256 --pk FILE --sk FILE");
            println!("  alibi tachyon sign --sk FILE --msg FILE --out FILE");
            println!("  alibi tachyon verify --pk FILE --msg FILE --sig FILE");
            println!("  alibi group manager-keygen --params shake-128f --dir DIR");
            println!("  alibi group join --dir DIR --username NAME --cred FILE");
            println!(
                "  alibi group csr --cred FILE --user-sk FILE --count B --req FILE --pending FILE"
            );
            println!("  alibi group cert --dir DIR --req FILE --certs FILE");
            println!("  alibi group sign --user-sk FILE --pending FILE --certs FILE --pk FILE --msg FILE --out FILE");
            println!("  alibi group verify --pk FILE --msg FILE --sig FILE [--dir DIR]");
            println!("  alibi group open --dir DIR --msg FILE --sig FILE");
            println!("  alibi group judge --pk FILE --msg FILE --sig FILE --id N --pi HEX");
            println!("  alibi group revoke --dir DIR --id N");
            println!("  alibi relay serve --listen ADDR [--db FILE | --postgres URL] [--delay-ms N] [--trust-root FILE] [--rate N]");
            println!("  alibi relay bench [--url URL | --db FILE | --postgres URL] [--pairs N] [--messages N] [--recipients 1,10,100,1000]");
            println!("  alibi mpc keygen --parties N --threshold T [--relay URL] [--transport group|pairwise] [--out DIR]");
            println!("  alibi mpc sign --keys DIR --msg FILE --out FILE [--signers 1,2,3] [--relay URL] [--transport group|pairwise]");
            println!("  alibi mpc verify --pk FILE --msg FILE --sig FILE");
            println!("  alibi mpc bench [--parties 3,4,5,8,16,32,64] [--delays 0,50] [--later 2] [--csv FILE] [--plot FILE.svg]");
            Ok(())
        }
        Some(a @ "bench") => Err(Failure::Usage(format!(
            "area '{a}' is not available in this build yet"
        ))),
        Some(other) => Err(Failure::Usage(format!("unknown area '{other}'; {USAGE}"))),
    }
}

/// Restores the default SIGPIPE action, so that `alibi ... | head` ends quietly when the reader
/// goes away instead of panicking in `println!` (Rust ignores SIGPIPE by default).
#[cfg(unix)]
#[allow(unsafe_code)]
fn default_sigpipe() {
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    default_sigpipe();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // One line, whatever the message holds.
            eprintln!("alibi: {}", f.message().replace('\n', " "));
            ExitCode::from(f.code())
        }
    }
}
