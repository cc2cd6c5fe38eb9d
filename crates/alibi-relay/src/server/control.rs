//! The control socket of a relay on redb, and `alibi relay backup`'s side of it.
//!
//! redb lets one process open a store, so a copy of a running relay's store is taken by the
//! relay: it listens on a Unix socket beside the store (`<db>.control`, mode 0600), answers only
//! a peer of its own user (or root), and serves one request a connection, a line:
//! `backup` -> `ok <length>` and the bytes of a consistent copy, or `error <why>`. The copy is
//! made in a temporary directory beside the store and removed once sent, so the caller writes
//! the backup wherever it may, as itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::store::redb::RedbRelayStore;
use crate::{Error, Result};

/// The control socket of the store at `db`.
pub fn path_for(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".control");
    PathBuf::from(s)
}

/// How long a request may take to arrive.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest request line.
const MAX_REQUEST: u64 = 64;

/// A copy made: its size and where it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// Bytes written.
    pub bytes: u64,
    /// Whether the running relay made it (through its control socket), or this process from a
    /// store no relay had open.
    pub from_running_relay: bool,
}

/// A bound control socket, not yet answering.
#[cfg(unix)]
pub struct Control {
    listener: tokio::net::UnixListener,
    db: PathBuf,
    owner: u32,
    _gone: RemoveOnDrop,
}

#[cfg(unix)]
impl Control {
    /// Binds the control socket of the store at `db` (needs a Tokio runtime): removes a socket
    /// file left by a relay that is gone, and refuses to start beside one that answers.
    pub async fn bind(db: &Path) -> Result<Self> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let path = path_for(db);
        if path.exists() {
            if tokio::net::UnixStream::connect(&path).await.is_ok() {
                return Err(Error::Store(format!(
                    "{}: another relay answers on this store's control socket",
                    path.display()
                )));
            }
            std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
        }
        let listener = tokio::net::UnixListener::bind(&path).map_err(|e| io(&path, e))?;
        let gone = RemoveOnDrop(path.clone());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| io(&path, e))?;
        let owner = std::fs::metadata(&path).map_err(|e| io(&path, e))?.uid();
        Ok(Self {
            listener,
            db: db.to_path_buf(),
            owner,
            _gone: gone,
        })
    }

    /// Answers requests for `store` until the future is dropped (which removes the socket).
    pub async fn serve(self, store: Arc<RedbRelayStore>) {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                // Out of file descriptors, say: wait rather than spin on the error.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            // Mode 0600 keeps others out already; the peer's user is checked as well.
            let allowed = stream
                .peer_cred()
                .is_ok_and(|c| c.uid() == self.owner || c.uid() == 0);
            if !allowed {
                continue;
            }
            let (store, db) = (store.clone(), self.db.clone());
            tokio::spawn(async move {
                if let Err(e) = answer(stream, &store, &db).await {
                    tracing::warn!(error = %e, "control socket");
                }
            });
        }
    }
}

/// Removes the socket file when the relay stops.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Store(format!("{}: {e}", path.display()))
}

/// Answers one request.
#[cfg(unix)]
async fn answer(
    stream: tokio::net::UnixStream,
    store: &Arc<RedbRelayStore>,
    db: &Path,
) -> Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let (r, mut w) = stream.into_split();
    let mut line = String::new();
    let read = tokio::time::timeout(REQUEST_TIMEOUT, async {
        tokio::io::BufReader::new(r.take(MAX_REQUEST))
            .read_line(&mut line)
            .await
    });
    if !matches!(read.await, Ok(Ok(_))) {
        return Ok(());
    }
    if line.trim_end() != "backup" {
        let _ = w.write_all(b"error unknown request\n").await;
        return Ok(());
    }
    let dir = db
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let scratch = tempfile::Builder::new()
        .prefix(".alibi-backup-")
        .tempdir_in(dir)
        .map_err(|e| io(dir, e))?;
    let copy = scratch.path().join("copy.redb");
    let (s, c) = (store.clone(), copy.clone());
    let made = tokio::task::spawn_blocking(move || s.backup(&c))
        .await
        .map_err(|e| Error::Store(e.to_string()))
        .and_then(|r| r);
    if let Err(e) = made {
        let _ = w.write_all(format!("error {e}\n").as_bytes()).await;
        return Err(e);
    }
    let mut file = tokio::fs::File::open(&copy)
        .await
        .map_err(|e| io(&copy, e))?;
    let len = file.metadata().await.map_err(|e| io(&copy, e))?.len();
    w.write_all(format!("ok {len}\n").as_bytes())
        .await
        .map_err(|e| io(&copy, e))?;
    tokio::io::copy(&mut file, &mut w)
        .await
        .map_err(|e| io(&copy, e))?;
    w.shutdown().await.map_err(|e| io(&copy, e))?;
    tracing::info!(bytes = len, "backup sent");
    Ok(())
}

/// Writes a consistent copy of the redb store at `db` to `out`, a new file (owner-only; an
/// existing one is an error): through the control socket of the relay running on it, or, if none
/// answers, from the file itself.
pub fn backup(db: &Path, out: &Path) -> Result<Backup> {
    if out.exists() {
        return Err(Error::BadRequest(format!(
            "{} exists; a backup never replaces a file",
            out.display()
        )));
    }
    #[cfg(unix)]
    if let Ok(stream) = std::os::unix::net::UnixStream::connect(path_for(db)) {
        let bytes = from_relay(stream, out)?;
        return Ok(Backup {
            bytes,
            from_running_relay: true,
        });
    }
    RedbRelayStore::backup_file(db, out).map_err(|e| match e {
        Error::Store(m) if m.contains("already open") => Error::Store(format!(
            "{}: open in a relay that does not answer on {}",
            db.display(),
            path_for(db).display()
        )),
        e => e,
    })?;
    let bytes = std::fs::metadata(out).map_err(|e| io(out, e))?.len();
    Ok(Backup {
        bytes,
        from_running_relay: false,
    })
}

/// Asks the relay on `stream` for a copy and writes it to `out`: into a temporary file beside
/// it, synced, then moved into place (never over an existing file).
#[cfg(unix)]
fn from_relay(mut stream: std::os::unix::net::UnixStream, out: &Path) -> Result<u64> {
    let failed = |e: std::io::Error| Error::Client(format!("the relay's control socket: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(600)))
        .map_err(failed)?;
    stream.write_all(b"backup\n").map_err(failed)?;
    let mut r = BufReader::new(stream);
    let mut head = String::new();
    r.by_ref().take(4096).read_line(&mut head).map_err(failed)?;
    let len: u64 = match head.trim_end().split_once(' ') {
        Some(("ok", n)) => n
            .parse()
            .map_err(|_| Error::Client(format!("answer {head:?}")))?,
        Some(("error", why)) => return Err(Error::Store(format!("the relay: {why}"))),
        _ => return Err(Error::Client(format!("the relay answered {head:?}"))),
    };
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".alibi-backup-")
        .tempfile_in(dir)
        .map_err(|e| io(dir, e))?;
    let got = std::io::copy(&mut r.take(len), tmp.as_file_mut()).map_err(failed)?;
    if got != len {
        return Err(Error::Client(format!(
            "the relay's copy ended after {got} of {len} bytes"
        )));
    }
    tmp.as_file().sync_all().map_err(|e| io(out, e))?;
    tmp.persist_noclobber(out).map_err(|e| io(out, e.error))?;
    Ok(len)
}
