//! Reading inputs and writing outputs under the key-file rules: secrets are created with mode 0600,
//! an output that exists is never replaced without `--force`, and never, even with it, by
//! something that is not a key pair when it holds a secret, a keyfile, a store or a manager's or
//! party's state; an output is never one of the command's inputs; every write is atomic (a
//! temporary file in the same directory, then a rename), and a command that writes several files
//! writes all or none of them. `-` reads stdin or writes stdout.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use zeroize::Zeroizing;

use crate::failure::{CmdResult, Failure};

/// What a file holds, which decides its mode and what it may replace.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// The secret half of a key pair (a keygen's secret key, a sealed share, a trust root):
    /// mode 0600. With `--force` it replaces an old secret (a key pair is replaced as a pair),
    /// never a store or a manager's or party's state.
    Secret,
    /// A public key written beside its secret: mode 0644; with `--force` it replaces a file that
    /// holds no secret.
    PublicKey,
    /// Secret data a command derives (a shared key, a credential, pending one-time keys): mode
    /// 0600; with `--force` it replaces only an earlier file of its own kind.
    Private(Own),
    /// Public data (a signature, ciphertext, certificate, request, group file), named for
    /// messages: mode 0644; with `--force` it replaces a file that holds no secret.
    Data(&'static str),
    /// A report the command regenerates (benchmark tables, CSVs, plots): mode 0644, replaced
    /// without `--force`, but never over a file that holds a secret.
    Report,
}

/// A kind of derived secret: its name for messages, and how to recognise an earlier file of it
/// (by its contents; the file's name must not be a secret key's either, see [`own_kind`]).
#[derive(Clone, Copy, Debug)]
pub struct Own {
    /// What it is, for messages ("a shared key").
    pub what: &'static str,
    /// Whether bytes could be an earlier file of this kind.
    pub same: fn(&[u8]) -> bool,
}

impl Kind {
    /// Written with mode 0600 and never to stdout.
    fn secret(self) -> bool {
        matches!(self, Kind::Secret | Kind::Private(_))
    }

    /// What the output is, for messages.
    fn what(self) -> &'static str {
        match self {
            Kind::Secret => "a secret key",
            Kind::PublicKey => "a public key",
            Kind::Private(o) => o.what,
            Kind::Data(w) => w,
            Kind::Report => "a report",
        }
    }
}

/// One file a command writes: the flag that named it, its path, what it holds and its bytes.
#[derive(Clone, Copy)]
pub struct Output<'a> {
    /// The option that named the file (`--sk`), for messages.
    pub flag: &'static str,
    /// Where it goes (`-`: stdout).
    pub path: &'a Path,
    /// What it holds.
    pub kind: Kind,
    /// Its contents.
    pub data: &'a [u8],
}

/// Whether file descriptor 1 was closed when the process started, recorded before Rust's
/// runtime replaces a closed standard descriptor by `/dev/null` (after which a write to it
/// "succeeds" and the output is lost with exit 0).
#[cfg(target_os = "linux")]
static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Runs from `.init_array`, before `main` and before the runtime touches descriptors 0-2.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
extern "C" fn record_stdout_at_start() {
    // SAFETY: fcntl(F_GETFD) on a descriptor number reads its flags; no memory is passed.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    STDOUT_CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[link_section = ".init_array"]
static RECORD_STDOUT_AT_START: extern "C" fn() = record_stdout_at_start;

/// Whether stdout is usable: not closed at start (see [`STDOUT_CLOSED_AT_START`]).
#[cfg(target_os = "linux")]
pub fn stdout_open() -> bool {
    !STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether file descriptor 1 is open now.
#[cfg(all(unix, not(target_os = "linux")))]
#[allow(unsafe_code)]
pub fn stdout_open() -> bool {
    // SAFETY: fcntl(F_GETFD) on a descriptor number reads its flags; no memory is passed.
    unsafe { libc::fcntl(1, libc::F_GETFD) != -1 }
}

/// Whether stdout is open (assumed elsewhere than Unix).
#[cfg(not(unix))]
pub fn stdout_open() -> bool {
    true
}

/// A path of a comma-separated list (`--ring "a.pk, b.pk"`), without the spaces around it.
#[derive(Clone, Copy, Debug)]
pub struct TrimmedPath;

impl clap::builder::TypedValueParser for TrimmedPath {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<PathBuf, clap::Error> {
        let t = trim_os(value);
        if t.is_empty() {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                "an empty entry in the list\n",
            )
            .with_cmd(cmd));
        }
        Ok(PathBuf::from(t))
    }
}

/// A name without ASCII spaces around it; the bytes between are kept as they are (a path need
/// not be UTF-8).
#[cfg(unix)]
fn trim_os(value: &std::ffi::OsStr) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(value.as_bytes().trim_ascii()).to_owned()
}

/// A name without spaces around it (elsewhere than Unix, when it is Unicode).
#[cfg(not(unix))]
fn trim_os(value: &std::ffi::OsStr) -> std::ffi::OsString {
    match value.to_str() {
        Some(s) => s.trim().into(),
        None => value.to_owned(),
    }
}

/// A name of a comma-separated list (`--signers "alice, bob"`), without the spaces around it.
pub fn trimmed(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("an empty entry in the list".into());
    }
    Ok(t.to_owned())
}

/// Whether a path is `-`, which means stdin for a file read and stdout for one written.
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A path for messages: `-` is named stdin.
fn shown(path: &Path) -> String {
    if is_std(path) {
        "stdin".into()
    } else {
        path.display().to_string()
    }
}

/// Set once stdin has been read: a second `-` input would read nothing.
static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// Reads a whole file, or stdin for `-` (once per command).
pub fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    if !is_std(path) {
        return std::fs::read(path)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())));
    }
    if STDIN_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(Failure::Usage(
            "- (stdin) is given for two inputs; only one can read stdin".into(),
        ));
    }
    let mut b = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut b)
        .map_err(|e| Failure::Usage(format!("cannot read stdin: {e}")))?;
    Ok(b)
}

/// Reads a file that must not be empty, naming what it should hold when it is.
pub fn read_input(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    let b = read(path)?;
    if b.is_empty() {
        return Err(Failure::Usage(format!(
            "{} is empty; expected {what}",
            shown(path)
        )));
    }
    Ok(b)
}

/// Reads a secret file into memory that is wiped when dropped.
pub fn read_secret(path: &Path, what: &str) -> Result<Zeroizing<Vec<u8>>, Failure> {
    read_input(path, what).map(Zeroizing::new)
}

/// The path made absolute and cleaned of `.` parts, to tell whether two options name one file.
fn normalized(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// Whether two paths name the same file: the same cleaned path, or (when both exist) the same
/// inode.
fn same_file(a: &Path, b: &Path) -> bool {
    if normalized(a) == normalized(b) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// What an existing file holds that only a key pair may replace (`Secret`), or nothing may
/// (`State`), with the reason for messages.
enum Guard {
    /// A manager's or party's state, or a store: never replaced by another command's output.
    State(&'static str),
    /// A sealed secret (an alibi keyfile).
    Sealed,
    /// An owner-only file, as every secret alibi writes is.
    OwnerOnly,
}

impl Guard {
    fn reason(&self) -> &'static str {
        match self {
            Guard::State(r) => r,
            Guard::Sealed => "it is an alibi keyfile (a sealed secret)",
            Guard::OwnerOnly => "it holds a secret key (mode 0600, owner only)",
        }
    }
}

/// The state files that mark a place: a group manager's directory and a party's directory.
const STATE_FILES: [(&str, &str); 4] = [
    ("manager.sk", "it holds a group manager's secret key"),
    (
        "manager.pk",
        "it is a group manager's public key, part of its state",
    ),
    ("members.redb", "it is a group manager's member database"),
    ("identity.sealed", "it holds a party's sealed identity"),
];

/// The start of a redb database file, which every alibi store is.
const REDB_MAGIC: &[u8] = b"redb\x1a\x0a\xa9\x0d\x0a";

/// What an existing regular file holds that an output must not destroy: told by its place (the
/// state files' names), its contents (a keyfile's or a database's magic) or its mode (owner
/// only).
fn guarded(path: &Path, meta: &std::fs::Metadata) -> Option<Guard> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some((_, why)) = STATE_FILES.iter().find(|(f, _)| *f == name) {
        return Some(Guard::State(why));
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    if head[..n].starts_with(REDB_MAGIC) || name.ends_with(".redb") {
        return Some(Guard::State("it is a database (a store)"));
    }
    if alibi_keyfile::is_keyfile(&head[..n]) {
        return Some(Guard::Sealed);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 == 0 {
            return Some(Guard::OwnerOnly);
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    None
}

/// Whether an owner-only file is an earlier output of `own`'s kind: its contents fit, and its
/// name is not a secret key's (`*.sk`, or one with a `.pk` beside it), since a shared key and an
/// X25519 secret key, or a credential and a member key, look alike.
fn own_kind(path: &Path, own: &Own) -> bool {
    let key_name = path.extension().is_some_and(|e| e == "sk")
        || path.with_extension("pk").symlink_metadata().is_ok();
    !key_name && std::fs::read(path).is_ok_and(|b| (own.same)(&b))
}

/// Checks one output against what is at its path now: a file that holds a secret or state is
/// refused unless this output may replace it (even with `force`), any other existing file needs
/// `force` (but a report), and what is no regular file is refused.
fn check_existing(flag: &str, path: &Path, kind: Kind, force: bool) -> CmdResult {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(Failure::Usage(format!(
            "{flag} {} is a directory",
            path.display()
        )));
    }
    if !ft.is_file() && !ft.is_symlink() {
        return Err(Failure::Usage(format!(
            "{flag} {} is not a regular file (write to stdout with -)",
            path.display()
        )));
    }
    // A symlink is replaced, never followed: what it points to is not touched.
    let guard = if ft.is_file() {
        guarded(path, &meta)
    } else {
        None
    };
    if let Some(g) = guard {
        let allowed = match (kind, &g) {
            (_, Guard::State(_)) => false,
            (Kind::Secret, _) => true,
            (Kind::Private(own), Guard::OwnerOnly) => own_kind(path, &own),
            _ => false,
        };
        if !allowed {
            return Err(Failure::Usage(format!(
                "refusing to write {} over {}: {} (use another {flag})",
                kind.what(),
                path.display(),
                g.reason()
            )));
        }
    }
    if !force && !matches!(kind, Kind::Report) {
        return Err(exists(flag, path));
    }
    Ok(())
}

/// Checks, before any work is done, that the outputs name distinct files, none of them one of
/// the command's `inputs` (`(flag, path)`), that none overwrites what it must not (see
/// [`check_existing`]; any existing output needs `force`), and that stdout (`-`) takes at most
/// one output, and no secret.
pub fn check_outputs(
    outs: &[(&'static str, &Path, Kind)],
    inputs: &[(&'static str, &Path)],
    force: bool,
) -> CmdResult {
    for (i, &(flag, path, kind)) in outs.iter().enumerate() {
        if is_std(path) {
            if let Some((other, _, _)) = outs[..i].iter().find(|(_, p, _)| is_std(p)) {
                return Err(Failure::Usage(format!(
                    "{other} and {flag} both name stdout (-); only one output can go there"
                )));
            }
            if kind.secret() {
                return Err(Failure::Usage(format!(
                    "{flag} -: {} is never written to stdout; name a file (it is created with mode 0600)",
                    kind.what()
                )));
            }
            continue;
        }
        if let Some((other, _, _)) = outs[..i].iter().find(|(_, p, _)| same_file(p, path)) {
            return Err(Failure::Usage(format!(
                "{other} and {flag} name the same file ({})",
                path.display()
            )));
        }
        let read = inputs.iter().filter(|(_, p)| !is_std(p));
        if let Some((other, _)) = read.clone().find(|(_, p)| same_file(p, path)) {
            return Err(Failure::Usage(format!(
                "{flag} and {other} name the same file ({}): an output never replaces an input",
                path.display()
            )));
        }
        check_existing(flag, path, kind, force)?;
    }
    Ok(())
}

/// Refuses `--json` beside an output on stdout: the report and the bytes would mix.
pub fn check_json(json: bool, outs: &[(&'static str, &Path)]) -> CmdResult {
    match outs.iter().find(|(_, p)| is_std(p)) {
        Some((flag, _)) if json => Err(Failure::Usage(format!(
            "--json and {flag} - both write to stdout; write the output to a file"
        ))),
        _ => Ok(()),
    }
}

fn exists(flag: &str, path: &Path) -> Failure {
    Failure::Usage(format!(
        "{flag} {} already exists; use --force to replace it",
        path.display()
    ))
}

/// Writes the outputs, all or none, and keeps them (see [`place_outputs`]).
pub fn write_outputs(outs: &[Output], force: bool) -> CmdResult {
    place_outputs(outs, force).map(Written::keep)
}

/// Writes the outputs, all or none, to be kept only when [`Written::keep`] is called: a command
/// whose report then fails (stdout on a full disk) leaves no output. Every new file is first
/// written in full beside its target (a fresh temporary file, see [`stage`]); only then do they
/// go into place one by one, each old file kept aside until all are in, and last the output on
/// stdout (`-`), if any. If anything fails, every file replaced so far gets its old contents back
/// and every file created is removed: `--force` never leaves some outputs new and others old.
pub fn place_outputs<'a>(outs: &[Output<'a>], force: bool) -> Result<Written<'a>, Failure> {
    let checks: Vec<_> = outs.iter().map(|o| (o.flag, o.path, o.kind)).collect();
    check_outputs(&checks, &[], force)?;
    put(outs, force)
}

/// Whether `o` names a regular file that already holds exactly `o.data`: writing it would change
/// nothing, so it is no conflict (parties of one run writing the same public key or signature).
fn holds_already(o: &Output) -> bool {
    if is_std(o.path) || !o.path.is_file() {
        return false;
    }
    let same_len = std::fs::metadata(o.path).is_ok_and(|m| m.len() == o.data.len() as u64);
    same_len && std::fs::read(o.path).is_ok_and(|b| b == o.data)
}

/// The outputs that do not already hold exactly their bytes.
fn pending<'a>(outs: &[Output<'a>]) -> Vec<Output<'a>> {
    outs.iter().filter(|o| !holds_already(o)).copied().collect()
}

/// Writes a run's outputs when the run has computed something that cannot be computed again (a
/// party's share): `secret` first, on its own, then the others, skipping any that already holds
/// exactly its bytes. A clash of the others is reported after the secret is safe, saying so.
pub fn write_secret_first(secret: &Output, others: &[Output], force: bool) -> CmdResult {
    write_outputs(std::slice::from_ref(secret), force)?;
    write_unless_same(others, force).map_err(|e| match e {
        Failure::Usage(why) => Failure::Usage(format!(
            "{why} (the share is written: {}; give each party its own outputs)",
            secret.path.display()
        )),
        e => e,
    })
}

/// [`write_outputs`], skipping an output that already holds exactly its bytes (no conflict).
pub fn write_unless_same(outs: &[Output], force: bool) -> CmdResult {
    let rest = pending(outs);
    match write_outputs(&rest, force) {
        // Parties sharing a path finish together: another may have placed the same bytes between
        // the check and the write (placing is atomic, so what is there is whole).
        Err(Failure::Usage(_)) if pending(&rest).len() < rest.len() => {
            write_outputs(&pending(&rest), force)
        }
        done => done,
    }
}

/// Replaces state files the command owns and has just read (a member's pending keys and
/// certificates after one is used, notes in a party's directory): atomic, all or none, kept at
/// the mode of their kind, and not checked against the rules for outputs, which would refuse them
/// as inputs or as secrets.
pub fn rewrite_outputs(outs: &[Output]) -> CmdResult {
    put(outs, true).map(Written::keep)
}

/// Stages, places and (for `-`) prints the outputs; see [`place_outputs`].
fn put<'a>(outs: &[Output<'a>], force: bool) -> Result<Written<'a>, Failure> {
    let (to_stdout, files): (Vec<&Output>, Vec<&Output>) =
        outs.iter().partition(|o| is_std(o.path));
    let staged = files
        .iter()
        .map(|o| stage(o))
        .collect::<Result<Vec<_>, _>>()?;
    let mut written = Written {
        placed: Vec::with_capacity(files.len()),
        kept: false,
    };
    for (o, tmp) in files.into_iter().zip(staged) {
        // On an error, dropping `written` puts back what was placed so far.
        written.placed.push(place(o, tmp, force)?);
    }
    for o in to_stdout {
        if !stdout_open() {
            return Err(Failure::Usage(format!(
                "cannot write {} to stdout: stdout is closed",
                o.flag
            )));
        }
        let mut out = std::io::stdout().lock();
        out.write_all(o.data)
            .and_then(|()| out.flush())
            .map_err(|e| Failure::Usage(format!("cannot write {} to stdout: {e}", o.flag)))?;
    }
    Ok(written)
}

/// Outputs in place, not yet kept: dropped without [`Written::keep`], every file goes back to
/// what it was (the old contents, or no file).
#[must_use = "outputs not kept are undone when dropped"]
pub struct Written<'a> {
    placed: Vec<Placed<'a>>,
    kept: bool,
}

impl Written<'_> {
    /// The command is done: keep the new files and let the old ones go.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Written<'_> {
    fn drop(&mut self) {
        if !self.kept {
            for p in std::mem::take(&mut self.placed).into_iter().rev() {
                p.undo();
            }
        }
    }
}

/// An output moved into place: its path, and the old file kept aside under a temporary name
/// (none if there was no old file).
struct Placed<'a> {
    path: &'a Path,
    old: Option<tempfile::TempPath>,
}

impl Placed<'_> {
    /// Puts the old file back (or removes the new one if there was none).
    fn undo(self) {
        match self.old {
            // The backup is moved over the target; if both still name one file (the new one never
            // got in), rename does nothing and dropping the temporary path removes the backup.
            Some(old) => {
                let _ = std::fs::rename(&old, self.path);
                drop(old);
            }
            None => {
                let _ = std::fs::remove_file(self.path);
            }
        }
    }
}

fn cannot_write(o: &Output, e: &dyn std::fmt::Display) -> Failure {
    Failure::Usage(format!(
        "cannot write {}: {}",
        o.path.display(),
        without_temporary_path(&e.to_string())
    ))
}

/// An error's text without the temporary file's path that `tempfile` appends (` at path
/// "/dir/.alibi-XXXX"`): the user named the output, not that file.
pub fn without_temporary_path(text: &str) -> &str {
    text.split(" at path ").next().unwrap_or(text)
}

/// The directory a file goes in (`.` for a bare name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The new contents in a temporary file beside the target (so the rename stays on one file
/// system): a random name created exclusively (`O_EXCL`, so nothing planted there, such as a
/// symlink, is ever opened) with mode 0600 by `tempfile`, filled, synced and given the final mode
/// of its kind.
fn stage(o: &Output) -> Result<tempfile::NamedTempFile, Failure> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".alibi-")
        .tempfile_in(dir_of(o.path))
        .map_err(|e| cannot_write(o, &e))?;
    tmp.write_all(o.data).map_err(|e| cannot_write(o, &e))?;
    tmp.as_file().sync_all().map_err(|e| cannot_write(o, &e))?;
    #[cfg(unix)]
    if !o.kind.secret() {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(|e| cannot_write(o, &e))?;
    }
    Ok(tmp)
}

/// Keeps the file at `path` aside under a fresh temporary name in its directory: a second hard
/// link (the target never goes missing), or where links cannot be made, a rename.
fn keep_aside(path: &Path) -> std::io::Result<tempfile::TempPath> {
    if path.symlink_metadata()?.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    tempfile::Builder::new()
        .prefix(".alibi-old-")
        .make_in(dir_of(path), |aside| {
            match std::fs::hard_link(path, aside) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    std::fs::rename(path, aside)
                }
                r => r,
            }
        })
        .map(tempfile::NamedTempFile::into_temp_path)
}

/// Moves a staged file into place; without `replace` the rename refuses an existing target
/// (but a report's).
fn place<'a>(
    o: &Output<'a>,
    tmp: tempfile::NamedTempFile,
    replace: bool,
) -> Result<Placed<'a>, Failure> {
    let clobber = replace || matches!(o.kind, Kind::Report);
    let old = match o.path.symlink_metadata() {
        Ok(_) if clobber => Some(keep_aside(o.path).map_err(|e| cannot_write(o, &e))?),
        _ => None,
    };
    let persisted = if clobber {
        tmp.persist(o.path).map(drop)
    } else {
        tmp.persist_noclobber(o.path).map(drop)
    };
    let placed = Placed { path: o.path, old };
    match persisted {
        Ok(()) => Ok(placed),
        Err(e) => {
            if placed.old.is_some() {
                placed.undo();
            }
            Err(if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                exists(o.flag, o.path)
            } else {
                cannot_write(o, &e.error)
            })
        }
    }
}

/// Writes one file (see [`write_outputs`]).
pub fn write(flag: &'static str, path: &Path, kind: Kind, data: &[u8], force: bool) -> CmdResult {
    write_outputs(
        &[Output {
            flag,
            path,
            kind,
            data,
        }],
        force,
    )
}

/// Replaces one state file the command owns (see [`rewrite_outputs`]).
pub fn rewrite(flag: &'static str, path: &Path, kind: Kind, data: &[u8]) -> CmdResult {
    rewrite_outputs(&[Output {
        flag,
        path,
        kind,
        data,
    }])
}

/// Restricts a file another library created (a database) to its owner.
pub fn owner_only(path: &Path) -> CmdResult {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Failure::Usage(format!("cannot restrict {}: {e}", path.display())))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Files a command created and must remove again if it fails before it is done (a server that
/// cannot start leaves nothing behind).
#[derive(Default)]
pub struct Created {
    paths: Vec<PathBuf>,
    done: bool,
}

impl Created {
    /// Records that `path` was created by this command.
    pub fn add(&mut self, path: &Path) {
        self.paths.push(path.to_path_buf());
    }

    /// The command got far enough: keep the files.
    pub fn keep(&mut self) {
        self.done = true;
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        if !self.done {
            for p in &self.paths {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// A directory a command creates (with any missing parents), removed again with all it holds
/// unless the command gets far enough to [`NewDir::keep`] it: a failed command leaves no empty
/// (or half-filled) directory behind. Nothing is removed when the directory already existed.
pub struct NewDir {
    /// The topmost directory this command creates, if any.
    top: Option<PathBuf>,
}

impl NewDir {
    /// Notes which of `dir` and its parents do not exist yet, for a library that creates them.
    pub fn track(dir: &Path) -> NewDir {
        NewDir {
            top: dir
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
                .take_while(|a| a.symlink_metadata().is_err())
                .last()
                .map(Path::to_path_buf),
        }
    }

    /// Creates `dir` and its missing parents.
    pub fn create(dir: &Path) -> Result<NewDir, Failure> {
        let d = NewDir::track(dir);
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
        Ok(d)
    }

    /// The command got far enough: keep the directory.
    pub fn keep(mut self) {
        self.top = None;
    }
}

impl Drop for NewDir {
    fn drop(&mut self) {
        if let Some(top) = &self.top {
            let _ = std::fs::remove_dir_all(top);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out<'a>(flag: &'static str, path: &'a Path, data: &'a [u8]) -> Output<'a> {
        Output {
            flag,
            path,
            kind: Kind::Secret,
            data,
        }
    }

    /// `--force` over several files where a later one cannot be written (its path is a
    /// directory, or its directory is missing): every old file keeps its old contents and mode,
    /// and nothing is left beside them. Replacing file by file used to leave the first ones new.
    #[test]
    fn force_with_a_failing_later_output_leaves_every_old_file_intact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a.sk"), dir.path().join("b.pk"));
        write_outputs(&[out("--a", &a, b"old a"), out("--b", &b, b"old b")], false)
            .expect("first write");
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).expect("mkdir");
        let missing = dir.path().join("no-such-dir").join("c");
        for bad in [&blocked, &missing] {
            let r = write_outputs(
                &[
                    out("--a", &a, b"new a"),
                    out("--b", &b, b"new b"),
                    out("--c", bad, b"new c"),
                ],
                true,
            );
            assert!(r.is_err(), "{} cannot be written", bad.display());
            assert_eq!(std::fs::read(&a).expect("a"), b"old a", "{}", bad.display());
            assert_eq!(std::fs::read(&b).expect("b"), b"old b", "{}", bad.display());
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&a).expect("a").permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
            let mut left: Vec<_> = std::fs::read_dir(dir.path())
                .expect("list")
                .map(|e| e.expect("entry").file_name())
                .collect();
            left.sort();
            assert_eq!(left, ["a.sk", "b.pk", "blocked"], "no temporary file left");
        }
        write_outputs(&[out("--a", &a, b"new a"), out("--b", &b, b"new b")], true)
            .expect("a write that can succeed");
        assert_eq!(std::fs::read(&a).expect("a"), b"new a");
        assert_eq!(std::fs::read(&b).expect("b"), b"new b");
    }

    /// A symlink planted where a fixed temporary name would be (`a.sk.tmp`, `a.tmp`) is never
    /// followed: the temporary name is random and created exclusively.
    #[cfg(unix)]
    #[test]
    fn symlink_planted_at_a_temporary_name_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"victim").expect("victim");
        let a = dir.path().join("a.sk");
        for planted in ["a.sk.tmp", "a.tmp", ".a.sk.tmp"] {
            std::os::unix::fs::symlink(&victim, dir.path().join(planted)).expect("symlink");
        }
        write("--a", &a, Kind::Secret, b"secret", true).expect("write");
        assert_eq!(std::fs::read(&victim).expect("victim"), b"victim");
        assert_eq!(std::fs::read(&a).expect("a"), b"secret");
        assert!(!a.symlink_metadata().expect("a").file_type().is_symlink());
    }

    const SIG: Kind = Kind::Data("a signature");
    const SHARED: Kind = Kind::Private(Own {
        what: "a shared key",
        same: |b| b.len() == 32,
    });

    /// Writes `data` at `path` with `mode`.
    #[cfg(unix)]
    fn file(path: &Path, data: &[u8], mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, data).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn line(r: CmdResult) -> String {
        match r {
            Err(f) => f.line(),
            Ok(()) => "accepted".into(),
        }
    }

    /// What each kind may replace with `--force`: a key pair's secret an old secret, never state;
    /// a derived secret only an earlier one of its kind, not named like a key; public data
    /// nothing that holds a secret.
    #[cfg(unix)]
    #[test]
    fn force_never_replaces_a_secret_with_something_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = |f: &str| dir.path().join(f);
        file(&p("a.sk"), &[7; 32], 0o600);
        file(&p("k"), &[7; 32], 0o600);
        file(&p("sealed"), b"alibi-keyfile\0rest", 0o644);
        file(&p("db"), b"redb\x1a\x0a\xa9\x0d\x0a...", 0o644);
        file(&p("manager.pk"), b"public", 0o644);
        file(&p("sig"), b"old", 0o644);
        let check = |f: &str, kind: Kind| line(check_outputs(&[("--out", &p(f), kind)], &[], true));
        for f in ["a.sk", "k", "sealed", "db", "manager.pk"] {
            assert!(
                check(f, SIG).starts_with("refusing to write a signature over"),
                "{f}"
            );
        }
        assert_eq!(check("sig", SIG), "accepted");
        assert_eq!(check("k", SHARED), "accepted", "an earlier shared key");
        assert!(
            check("a.sk", SHARED).contains("secret key"),
            "named like a key"
        );
        assert!(check("sealed", SHARED).contains("keyfile"));
        assert_eq!(check("a.sk", Kind::Secret), "accepted", "keygen --force");
        assert_eq!(
            check("sealed", Kind::Secret),
            "accepted",
            "a share sealed again"
        );
        assert!(check("db", Kind::Secret).contains("database"));
        assert!(check("manager.pk", Kind::Secret).contains("manager"));
        assert!(check("a.sk", Kind::PublicKey).starts_with("refusing"));
        // Without --force, any existing output is refused, and a new one accepted.
        let r = line(check_outputs(&[("--out", &p("sig"), SIG)], &[], false));
        assert!(r.contains("already exists"), "{r}");
        assert_eq!(check("new", SIG), "accepted");
    }

    /// An output is never an input (by path or by inode) nor another output; stdout takes one
    /// public output, never a secret, and not beside --json.
    #[cfg(unix)]
    #[test]
    fn outputs_are_not_inputs_and_stdout_takes_no_secret() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (msg, link) = (dir.path().join("msg"), dir.path().join("link"));
        file(&msg, b"m", 0o644);
        std::fs::hard_link(&msg, &link).expect("link");
        let r = check_outputs(&[("--out", &link, SIG)], &[("--msg", &msg)], true);
        assert!(line(r).contains("--out and --msg name the same file"));
        let dash = Path::new("-");
        let r = check_outputs(&[("--out", dash, SIG)], &[("--msg", dash)], false);
        assert_eq!(line(r), "accepted", "stdin in, stdout out");
        let r = check_outputs(&[("--a", dash, SIG), ("--b", dash, SIG)], &[], false);
        assert!(line(r).contains("both name stdout"));
        let r = check_outputs(&[("--key", dash, SHARED)], &[], false);
        assert!(line(r).contains("never written to stdout"));
        assert!(line(check_json(true, &[("--out", dash)])).contains("--json"));
        assert_eq!(line(check_json(false, &[("--out", dash)])), "accepted");
    }

    /// Outputs placed but not kept are undone: old contents back, new files gone.
    #[test]
    fn written_outputs_not_kept_are_undone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"old a").expect("a");
        let outs = [
            Output {
                flag: "--a",
                path: &a,
                kind: SIG,
                data: b"new a",
            },
            Output {
                flag: "--b",
                path: &b,
                kind: SIG,
                data: b"new b",
            },
        ];
        let w = place_outputs(&outs, true).expect("placed");
        assert_eq!(std::fs::read(&b).expect("b"), b"new b");
        drop(w);
        assert_eq!(std::fs::read(&a).expect("a"), b"old a");
        assert!(!b.exists());
        place_outputs(&outs, true).expect("placed").keep();
        assert_eq!(std::fs::read(&a).expect("a"), b"new a");
        let left = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(left, 2, "no backup left");
    }

    /// A directory created for a command that then fails is removed with its parents; one that
    /// existed stays.
    #[test]
    fn new_directories_go_unless_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let deep = dir.path().join("x").join("y");
        drop(NewDir::create(&deep).expect("create"));
        assert!(!dir.path().join("x").exists());
        NewDir::create(&deep).expect("create").keep();
        assert!(deep.exists());
        drop(NewDir::create(&deep).expect("exists"));
        assert!(deep.exists(), "an existing directory is not removed");
    }

    /// A write into a missing directory names the output, never the temporary file beside it.
    #[test]
    fn write_errors_name_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("missing").join("sig");
        let e = write("--out", &target, SIG, b"x", false)
            .expect_err("no directory")
            .line();
        assert!(e.contains("missing/sig") && !e.contains(".alibi-"), "{e}");
    }

    #[test]
    fn same_file_sees_through_dots() {
        assert!(same_file(Path::new("a/./b"), Path::new("a/b")));
        assert!(same_file(Path::new("./x"), Path::new("x")));
        assert!(!same_file(Path::new("x"), Path::new("y")));
    }
}
