//! `alibi`: one binary, `alibi <area> <verb> [options]`; with no arguments it runs the demo.
//!
//! Exit codes everywhere: 0 = success or valid, 1 = signature or ciphertext invalid (or an MPC
//! run stopped by named cheaters), 2 = bad usage or malformed input, 3 = an MPC run stopped by a
//! transport fault (no party blamed), with a one-line message on stderr and never a panic (a
//! closed or full stdout included).

mod akem;
mod bench;
mod demo;
mod failure;
mod falcon;
mod files;
mod group;
mod keys;
mod mpc;
mod net;
mod relay;
mod report;
mod ring;
mod rng;
mod tachyon;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::failure::{CmdResult, Failure};

/// The relay and the MPC runs allocate a little per message on many threads; mimalloc's
/// per-thread heaps avoid glibc's arena locks there (measured: docs/BENCHMARKS.md, issue 5).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Post-quantum, deniable, privacy-preserving authentication and secure channels.
///
/// Keys, signatures and ciphertexts are files in their raw standard encodings. Exit codes: 0
/// success or valid, 1 signature or ciphertext invalid (or an MPC run stopped by named
/// cheaters), 2 bad usage or malformed input, 3 an MPC run stopped by the relay or the network
/// (no party blamed). Secret
/// files are created with mode 0600. An existing output is replaced only with --force, and never
/// when it is one of the command's inputs or (but by a keygen) holds a secret key, a keyfile, a
/// store or a manager's or party's state. `-` is stdin for a file read and stdout for a public
/// file written. With no arguments, `alibi` runs the end-to-end demo.
#[derive(Parser, Debug)]
#[command(
    name = "alibi",
    version,
    propagate_version = true,
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    area: Option<Area>,
}

/// The areas.
#[derive(Subcommand, Debug)]
enum Area {
    /// Falcon-512/1024 signatures (byte-compatible with PQClean)
    #[command(subcommand)]
    Falcon(falcon::Cmd),
    /// Deniable ring signatures: GANDALF over Falcon keys, MAYO-RS over MAYO keys
    #[command(subcommand)]
    Ring(ring::Cmd),
    /// Authenticated KEMs: DH-AKEM (RFC 9180), PQ-AKEM and the hybrid deniable SHADOWFAX
    #[command(subcommand)]
    Akem(akem::Cmd),
    /// TACHYON lattice signatures
    #[command(subcommand)]
    Tachyon(tachyon::Cmd),
    /// DGSP dynamic group signatures: a manager, members, opening, judging, revocation
    #[command(subcommand)]
    Group(group::Cmd),
    /// The relay: Signal-Server-style accounts, prekeys, mailboxes and sealed sends
    #[command(subcommand)]
    Relay(relay::Cmd),
    /// Threshold signatures between parties over the relay's pairwise or group channels: BLS
    /// (alibi's own, identifiable abort), FROST-Ed25519, FROST-secp256k1 (taproot) and threshold
    /// ECDSA (CGGMP24), each party its own process
    #[command(subcommand)]
    Mpc(mpc::Cmd),
    /// Every seed's headline table measured here, peers in the same run: a report with CSVs and plots
    ///
    /// Seeds: 000 ring signatures (FalconRS, MAYO-RS; Table 3), 001 SHADOWFAX (Table 1, against
    /// the hpke crate's DHKEM), 002 threshold BLS over pairwise and group channels, 003 DGSP
    /// (against dgsp 0.1.2), 004 TACHYON (Table 2, against PQClean's ML-DSA, Falcon and SPHINCS+).
    /// Writes DIR/report.md (with the machine's description), one CSV and one SVG plot per table.
    /// --quick (the default) takes about two minutes; --full states its expected time first.
    Bench(bench::Args),
}

/// Runs the command; `m` holds its parsed words (a settings file fills only what they leave out).
fn run(area: Option<Area>, m: &clap::ArgMatches) -> CmdResult {
    match area {
        None => demo::run(),
        Some(Area::Falcon(c)) => falcon::run(c),
        Some(Area::Ring(c)) => ring::run(c),
        Some(Area::Akem(c)) => akem::run(c),
        Some(Area::Tachyon(c)) => tachyon::run(c),
        Some(Area::Group(c)) => group::run(c),
        Some(Area::Relay(c)) => relay::run(c, m.subcommand_matches("relay")),
        Some(Area::Mpc(c)) => mpc::run(c),
        Some(Area::Bench(a)) => bench::run(a),
    }
}

/// The command a (partial) argument list names, as words: `alibi falcon keygen`.
fn command_path(argv: &[OsString]) -> (Vec<String>, clap::Command) {
    let mut cmd = Cli::command();
    let mut path = vec!["alibi".to_string()];
    for a in argv.iter().skip(1) {
        let Some(sub) = a.to_str().and_then(|a| cmd.find_subcommand(a)).cloned() else {
            break;
        };
        path.push(sub.get_name().to_string());
        cmd = sub;
    }
    (path, cmd)
}

/// A clap error as the contract's one line: what is wrong, and where to read the usage.
fn usage_line(e: &clap::Error, argv: &[OsString]) -> String {
    let (path, cmd) = command_path(argv);
    let path = path.join(" ");
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        || e.kind() == ErrorKind::MissingSubcommand
    {
        let verbs: Vec<&str> = cmd
            .get_subcommands()
            .map(|s| s.get_name())
            .filter(|&n| n != "help")
            .collect();
        return format!(
            "'{path}' needs a verb: {} (see '{path} --help')",
            verbs.join(", ")
        );
    }
    // clap's message: a first line, then details (missing options, possible values, a tip) up
    // to the usage block; folded into one line.
    let rendered = e.render().to_string();
    let parts: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(|l| l.trim().trim_start_matches("error: "))
        .filter(|l| !l.is_empty())
        .collect();
    let text = match parts.split_first() {
        Some((first, rest)) if !rest.is_empty() => match first.strip_suffix(':') {
            Some(head) => format!("{head}: {}", rest.join(", ")),
            None => format!("{first}; {}", rest.join("; ")),
        },
        Some((first, _)) => first.to_string(),
        None => "invalid arguments".into(),
    };
    format!("{text} (see '{path} --help')")
}

/// Restores the default SIGPIPE action, so that `alibi ... | head` ends quietly when the reader
/// goes away, as other command-line tools do (Rust ignores SIGPIPE by default).
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

/// Turns transparent huge pages off for this process. mimalloc asks for them on its arenas
/// (`MADV_HUGEPAGE`), and the first touch of each 2 MiB page then zeroes all of it; an MPC party,
/// which frees and reuses memory as messages come and go, paid that again and again (9% of the
/// CPU of an n = 64 key generation, all in the kernel's page clearing; docs/BENCHMARKS.md,
/// issue 46). The kernel checks the flag at each fault, so pages mapped before it still follow it.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes an integer flag and no pointers; a kernel without it
    // returns an error, which changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}

fn fail(f: &Failure, argv: &[OsString]) -> ExitCode {
    // The write to stderr may itself fail; there is nowhere left to report that.
    let _ = writeln!(std::io::stderr(), "alibi: {}", f.line());
    // A script that asked for JSON gets one object on stdout, a failure too (unless the command
    // already printed its own, an invalid verdict's). Read from the words, so that a command
    // line that does not parse is answered alike.
    let json = argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    if json && !report::said() {
        let _ = report::say(report::failure_json(f));
    }
    ExitCode::from(f.code())
}

/// Names every command `alibi` for `--version`: clap would print a subcommand's version under a
/// name joined from its path ("alibi-falcon-keygen 0.1.0"), which is no program a user can run.
fn named_alibi(cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    names.iter().fold(cmd.display_name("alibi"), |c, n| {
        c.mut_subcommand(n, named_alibi)
    })
}

fn main() -> ExitCode {
    default_sigpipe();
    no_huge_pages();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let parsed = named_alibi(Cli::command())
        .try_get_matches_from(&argv)
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            // Help and version go to stdout, whose failure (a full disk) is reported, not a panic.
            let mut out = std::io::stdout().lock();
            let text = if out.is_terminal() {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            return match write!(out, "{text}").and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(
                    &Failure::Usage(format!("cannot write to stdout: {err}")),
                    &argv,
                ),
            };
        }
        Err(e) => return fail(&Failure::Usage(usage_line(&e, &argv)), &argv),
    };
    match run(cli.area, &matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => fail(&f, &argv),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// Every `alibi ...` command (and `cargo run --release -- ...`) in the shell blocks of
    /// README.md and docs/*.md parses with the current definitions, lines continued with `\`
    /// joined and quotes read as the shell reads them, so the documented usage cannot drift
    /// from the parser, also in the blocks that need other machines and cannot run in a test.
    #[test]
    fn documented_commands_parse() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut docs = vec![root.join("README.md")];
        for entry in std::fs::read_dir(root.join("docs")).expect("docs") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                docs.push(path);
            }
        }
        let mut checked = 0;
        for doc in &docs {
            let text = std::fs::read_to_string(doc).expect("doc");
            for cmd in shell_commands(&text) {
                let words = shell_words(&cmd);
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                let args: Vec<&str> = match words.as_slice() {
                    ["alibi", ..] => words.clone(),
                    ["cargo", "run", "--release", "--", rest @ ..] => std::iter::once("alibi")
                        .chain(rest.iter().copied())
                        .collect(),
                    _ => continue,
                };
                match Cli::try_parse_from(&args) {
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
                        ) => {}
                    Err(e) => panic!("{}: does not parse: {cmd}\n{e}", doc.display()),
                }
                checked += 1;
            }
        }
        assert!(checked >= 60, "only {checked} documented commands found");
    }

    /// The commands of a Markdown text's `sh` blocks: continued lines joined, comments and
    /// what follows a shell operator (a redirection, a pipe, `&&`) left out.
    fn shell_commands(text: &str) -> Vec<String> {
        let (mut out, mut in_sh, mut cmd) = (vec![], false, String::new());
        for line in text.lines() {
            if line.starts_with("```") {
                in_sh = matches!(line.trim(), "```sh" | "```sh run");
                continue;
            }
            if !in_sh {
                continue;
            }
            let line = line.split(" #").next().unwrap_or("");
            let line = if line.trim_start().starts_with('#') {
                ""
            } else {
                line
            };
            match line.trim_end().strip_suffix('\\') {
                Some(head) => cmd.push_str(head),
                None => {
                    cmd.push_str(line);
                    out.push(std::mem::take(&mut cmd).trim().to_string());
                }
            }
        }
        out
    }

    /// A command's words as the shell splits them (single and double quotes), up to the first
    /// shell operator.
    fn shell_words(cmd: &str) -> Vec<String> {
        let (mut words, mut word, mut quote, mut any) = (vec![], String::new(), None, false);
        for c in cmd.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    any = true;
                }
                (None, c) if c.is_whitespace() => {
                    if any || !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                (None, c) => word.push(c),
            }
        }
        if any || !word.is_empty() {
            words.push(word);
        }
        let end = words
            .iter()
            .position(|w| {
                matches!(w.as_str(), "&" | "|" | ";" | "&&" | "||" | "$(")
                    || w.starts_with('>')
                    || w.starts_with("2>")
                    || w.starts_with('<')
            })
            .unwrap_or(words.len());
        words.truncate(end);
        words
    }
}
