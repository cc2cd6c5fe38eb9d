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

/// Writes the outputs, all or none: each atomically; if one fails, the files this call created
/// are removed again.
pub fn write_outputs(outs: &[Output], force: bool) -> CmdResult {
    let checks: Vec<_> = outs.iter().map(|o| (o.flag, o.path, o.kind)).collect();
    check_outputs(&checks, force)?;
    let mut created: Vec<&Path> = vec![];
    for o in outs {
        let existed = o.path.symlink_metadata().is_ok();
        if let Err(e) = write_one(o, force) {
            for p in created {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        if !existed {
            created.push(o.path);
        }
    }
    Ok(())
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
    write_one(
        &Output {
            flag,
            path,
            kind,
            data,
        },
        true,
    )
}

/// A temporary file beside the target (so the rename stays on one file system), created 0600
/// by `tempfile`, filled and synced, given its final mode and renamed into place; without
/// `replace` the rename refuses an existing protected target.
fn write_one(o: &Output, replace: bool) -> CmdResult {
    let fail = |e: &dyn std::fmt::Display| {
        Failure::Usage(format!("cannot write {}: {e}", o.path.display()))
    };
    let dir = match o.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".alibi-")
        .tempfile_in(dir)
        .map_err(|e| fail(&e))?;
    tmp.write_all(o.data).map_err(|e| fail(&e))?;
    tmp.as_file().sync_all().map_err(|e| fail(&e))?;
    #[cfg(unix)]
    if o.kind != Kind::Secret {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(|e| fail(&e))?;
    }
    let persisted = if replace || !o.kind.protected() {
        tmp.persist(o.path).map(drop)
    } else {
        tmp.persist_noclobber(o.path).map(drop)
    };
    persisted.map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            exists(o.flag, o.path)
        } else {
            fail(&e.error)
        }
    })
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

    #[test]
    fn same_file_sees_through_dots() {
        assert!(same_file(Path::new("a/./b"), Path::new("a/b")));
        assert!(same_file(Path::new("./x"), Path::new("x")));
        assert!(!same_file(Path::new("x"), Path::new("y")));
    }
}
