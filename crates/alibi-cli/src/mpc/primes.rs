//! Threshold ECDSA's safe primes in a party's directory: `alibi mpc aux` seals them ahead of
//! time, a key generation takes them (or searches for them, and seals what it found before the
//! run so that a failed run leaves them for the next) and deletes them once used.

use std::path::{Path, PathBuf};
use std::time::Instant;

use alibi_mpc::scheme::{generate_primes, PrimeProgress, Primes, PRIME_COUNT};
use serde_json::json;

use super::args::AuxArgs;
use super::setup::{passphrase, seal};
use crate::failure::{CmdResult, Failure};
use crate::files::{check_outputs, read_secret, write, Kind};
use crate::report::{file_json, Format};

/// The keyfile purpose of sealed precomputed primes.
const PRIMES_PURPOSE: &str = "alibi mpc paillier primes v1";

/// Where `mpc aux` leaves precomputed primes for the next ECDSA key generation.
pub(super) fn path(dir: &Path) -> PathBuf {
    dir.join("primes.sealed")
}

/// Prints the progress of the safe-prime search on stderr (a JSON line with `--json`).
fn prime_reporter(format: Format) -> impl FnMut(PrimeProgress) + Send {
    move |p| {
        let (event, text) = match p {
            PrimeProgress::Started { bits, count } => (
                json!({"event": "primes", "state": "started", "bits": bits, "count": count}),
                format!("alibi: generating {count} {bits}-bit safe primes for the Paillier key and ring-Pedersen modulus (slow: seconds to minutes; `alibi mpc aux` does it ahead of time)"),
            ),
            PrimeProgress::Searching { index, candidates, elapsed } => (
                json!({"event": "primes", "state": "searching", "prime": index + 1, "candidates": candidates, "elapsed_s": elapsed.as_secs()}),
                format!("alibi: still searching for safe prime {} of {PRIME_COUNT} ({candidates} candidates tested, {} s)", index + 1, elapsed.as_secs()),
            ),
            PrimeProgress::Found { index, elapsed } => (
                json!({"event": "primes", "state": "found", "prime": index + 1, "elapsed_s": elapsed.as_secs()}),
                format!("alibi: found safe prime {} of {PRIME_COUNT} after {} s", index + 1, elapsed.as_secs()),
            ),
            PrimeProgress::Finished { elapsed } => (
                json!({"event": "primes", "state": "finished", "elapsed_s": elapsed.as_secs()}),
                format!("alibi: safe primes ready after {} s", elapsed.as_secs()),
            ),
        };
        let line = if format.json { event.to_string() } else { text };
        // Best effort: a closed stderr must not stop the work.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
    }
}

/// `alibi mpc aux`: the safe primes of threshold ECDSA's key generation, ahead of time, sealed
/// in the party's directory.
pub(super) fn aux(a: AuxArgs) -> CmdResult {
    let AuxArgs {
        dir,
        from,
        force,
        passphrase: pass,
        format,
    } = a;
    let (dir, from) = (dir.as_path(), from.as_deref());
    let out = path(dir);
    let identity = dir.join(alibi_messenger::IDENTITY_FILE);
    if !identity.exists() {
        return Err(Failure::Usage(format!(
            "{}: no party here (run `alibi mpc init` first)",
            dir.display()
        )));
    }
    let inputs: Vec<(&'static str, &Path)> = from.iter().map(|f| ("--from", *f)).collect();
    check_outputs(&[("--dir", &out, Kind::Secret)], &inputs, force)?;
    let given = from
        .map(|f| {
            let bytes = read_secret(f, "safe primes")?;
            Primes::from_bytes(&bytes).map_err(|e| Failure::Usage(format!("{}: {e}", f.display())))
        })
        .transpose()?;
    let passphrase = passphrase(&pass)?;
    let start = Instant::now();
    let primes = match given {
        Some(p) => p,
        None => generate_primes(prime_reporter(format)),
    };
    let sealed = seal(PRIMES_PURPOSE, &primes.to_bytes(), &passphrase)?;
    write("--dir", &out, Kind::Secret, &sealed, force)?;
    let took = start.elapsed().as_secs_f64();
    format.report(
        format!(
            "safe primes for the next ecdsa-secp256k1 key generation sealed in {} ({took:.1} s); used once",
            out.display()
        ),
        json!({"primes": file_json(&out, sealed.len()), "s": took}),
    )
}

/// The first wait of an ecdsa-secp256k1 key generation unless `--timeout-s` says otherwise: a
/// party without `mpc aux` primes searches for them first (a set took 18 to 39 s on one thread
/// of the build machine, longer with several parties on one machine), while the others wait.
pub(super) const ECDSA_KEYGEN_TIMEOUT_S: u64 = 300;

/// The primes of this party's ECDSA key generation: those `mpc aux` (or a failed run) left, or
/// new ones, searched for now and sealed in the party's directory before the run, so that a
/// failed run leaves them for the next. A successful run deletes them (one key generation per
/// set). The party searches once connected, after telling the others ([`SEARCHING_PRIMES`]):
/// its delivery socket stays alive meanwhile (pinged), and what the others send waits for it.
pub(super) fn search(dir: &Path, passphrase: &[u8], format: Format) -> Result<Primes, Failure> {
    let primes = generate_primes(prime_reporter(format));
    let sealed = seal(PRIMES_PURPOSE, &primes.to_bytes(), passphrase)?;
    write("--dir", &path(dir), Kind::Secret, &sealed, false)?;
    Ok(primes)
}

/// What a party without primes tells the others before it searches for them: their waiting
/// lines show it beside its name.
pub(super) const SEARCHING_PRIMES: &str =
    "searching for its safe primes before it takes part: a minute \
                                or more, up to about 3 minutes on two cores";

/// The primes `mpc aux` left, if any (taken: primes serve one key generation only).
pub(super) fn take(dir: &Path, passphrase: &[u8]) -> Result<Option<Primes>, Failure> {
    let path = path(dir);
    if !path.exists() {
        return Ok(None);
    }
    let sealed = read_secret(&path, "sealed primes")?;
    let bytes = alibi_keyfile::open(PRIMES_PURPOSE, &sealed, passphrase)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let primes = Primes::from_bytes(&bytes)
        .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    Ok(Some(primes))
}

/// Says what `mpc bench` (the grid, or `--life`) waits for while it searches for party
/// `party`'s safe primes ahead of its timed runs ([`crate::report::progress_note`]), at each
/// heartbeat, as `mpc keygen` reports its own search.
pub(super) fn for_bench(
    bar: &indicatif::ProgressBar,
    party: usize,
    elapsed_s: u64,
    format: Format,
) {
    let text = format!(
        "searching for safe primes for party {party} (untimed, ahead of the runs): {elapsed_s} s"
    );
    let event =
        json!({"event": "primes", "state": "searching", "party": party, "elapsed_s": elapsed_s});
    crate::report::progress_note(bar, text, event, format);
}
