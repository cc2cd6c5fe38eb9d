//! What every CLI test needs: run `alibi`, and read its exit code while checking the contract
//! (no panic, a one-line message on failure).

#![allow(dead_code)]

pub mod group;
pub mod mpc;
pub mod relay_process;

use std::path::Path;
use std::process::{Command, Output};

/// Runs the `alibi` binary built for these tests.
/// Sends SIGTERM to process `pid` (libc's `kill(2)`: a fresh machine may have no `kill`
/// command, procps not being installed).
pub fn sigterm(pid: u32) {
    let pid = libc::pid_t::try_from(pid).expect("a pid");
    // SAFETY: kill(2) takes plain integers and touches no memory of this process.
    #[allow(unsafe_code)]
    let r = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(r, 0, "kill({pid}, SIGTERM)");
}

pub fn alibi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .output()
        .expect("run alibi")
}

/// The exit code, after checking that nothing panicked and that a failure says one line (after
/// the progress reports of a wait, if any).
pub fn code(o: &Output) -> i32 {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    if o.status.code() != Some(0) {
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert!(!lines.is_empty(), "a failure says why: {err:?}");
        assert!(
            lines[..lines.len() - 1].iter().all(|l| is_progress(l)),
            "one-line message: {err:?}"
        );
    }
    o.status.code().unwrap()
}

/// Whether a stderr line is a wait's progress report (`alibi mpc`): in words or as JSON.
pub fn is_progress(line: &str) -> bool {
    let primes = [
        "safe primes for the Paillier key",
        "still searching for safe prime",
        "found safe prime",
        "safe primes ready",
    ];
    let words = line.starts_with("alibi: ")
        && (line.contains(": waiting for ") || primes.iter().any(|p| line.contains(p)));
    let json = [r#""event":"waiting""#, r#""event":"primes""#];
    words || (line.starts_with('{') && json.iter().any(|e| line.contains(e)))
}

/// A fresh scratch directory for one test, removed when the test ends (also when it fails:
/// a panic unwinds through the drop).
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A fresh scratch directory named after the test.
pub fn scratch(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("alibi-cli-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// Runs `alibi` with arguments that need not be UTF-8.
pub fn alibi_os(args: &[std::ffi::OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .output()
        .expect("run alibi")
}

/// The one-line message of a failed run.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).trim_end().to_string()
}

/// What a run printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A path in `d`, as the string the command line takes.
pub fn path(d: &Path, f: &str) -> String {
    d.join(f).to_str().unwrap().to_string()
}

/// The permission bits of a file.
#[cfg(unix)]
pub fn mode(p: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}
