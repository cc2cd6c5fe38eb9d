//! Reading inputs and writing outputs under the key-file rules: secrets are created with mode 0600,
//! a key file that exists is never replaced without `--force`, every write is atomic (a temporary
//! file in the same directory, then a rename), and a command that writes several files writes all
//! or none of them.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use zeroize::Zeroizing;

use crate::failure::{CmdResult, Failure};

/// What a file holds, which decides its mode and whether it may be replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Secret material (secret keys, shared keys, shares, pending one-time keys): mode 0600,
    /// never replaced without `--force`.
    Secret,
    /// A public key: mode 0644, never replaced without `--force`, since it belongs to a secret
    /// key written next to it.
    PublicKey,
    /// A signature, ciphertext, certificate, request or report: mode 0644, replaced freely.
    Data,
}

impl Kind {
    fn protected(self) -> bool {
        self != Kind::Data
    }
}

/// One file a command writes: the flag that named it, its path, what it holds and its bytes.
pub struct Output<'a> {
    /// The option that named the file (`--sk`), for messages.
    pub flag: &'static str,
    /// Where it goes.
    pub path: &'a Path,
    /// What it holds.
    pub kind: Kind,
    /// Its contents.
    pub data: &'a [u8],
}

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))
}

/// Reads a file that must not be empty, naming what it should hold when it is.
pub fn read_input(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    let b = read(path)?;
    if b.is_empty() {
        return Err(Failure::Usage(format!(
            "{} is empty; expected {what}",
            path.display()
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

/// Checks, before any work is done, that the outputs name distinct files and that no protected
/// one exists unless `force`.
pub fn check_outputs(outs: &[(&'static str, &Path, Kind)], force: bool) -> CmdResult {
    for (i, (flag, path, kind)) in outs.iter().enumerate() {
        if let Some((other, _, _)) = outs[..i].iter().find(|(_, p, _)| same_file(p, path)) {
            return Err(Failure::Usage(format!(
                "{other} and {flag} name the same file ({})",
                path.display()
            )));
        }
        if kind.protected() && !force && path.symlink_metadata().is_ok() {
            return Err(exists(flag, path));
        }
    }
    Ok(())
}

fn exists(flag: &str, path: &Path) -> Failure {
    Failure::Usage(format!(
        "{flag} {} already exists; use --force to replace it",
        path.display()
    ))
}

/// Writes the outputs, all or none. Every new file is first written in full beside its target
/// (a fresh temporary file, see [`stage`]); only then do they go into place one by one, each old
/// file kept aside until all are in. If anything fails, every file replaced so far gets its old
/// contents back and every file created is removed: `--force` never leaves some outputs new and
/// others old.
pub fn write_outputs(outs: &[Output], force: bool) -> CmdResult {
    let checks: Vec<_> = outs.iter().map(|o| (o.flag, o.path, o.kind)).collect();
    check_outputs(&checks, force)?;
    let staged = outs.iter().map(stage).collect::<Result<Vec<_>, _>>()?;
    let mut placed: Vec<Placed> = Vec::with_capacity(outs.len());
    for (o, tmp) in outs.iter().zip(staged) {
        match place(o, tmp, force) {
            Ok(p) => placed.push(p),
            Err(e) => {
                for p in placed.into_iter().rev() {
                    p.undo();
                }
                return Err(e);
            }
        }
    }
    // All in place: the old files kept aside are let go (dropping their temporary paths).
    Ok(())
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
    if o.kind != Kind::Secret {
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

/// Moves a staged file into place; without `replace` the rename refuses an existing protected
/// target.
fn place<'a>(
    o: &Output<'a>,
    tmp: tempfile::NamedTempFile,
    replace: bool,
) -> Result<Placed<'a>, Failure> {
    let clobber = replace || !o.kind.protected();
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

/// Replaces a state file the command owns (a member's pending keys after one is used): atomic,
/// and kept at the mode of its kind.
pub fn rewrite(flag: &'static str, path: &Path, kind: Kind, data: &[u8]) -> CmdResult {
    write_outputs(
        &[Output {
            flag,
            path,
            kind,
            data,
        }],
        true,
    )
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

    /// A write into a missing directory names the output, never the temporary file beside it.
    #[test]
    fn write_errors_name_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("missing").join("sig");
        let e = write("--out", &target, Kind::Data, b"x", false)
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
