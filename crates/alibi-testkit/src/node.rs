//! A real libsignal party for interop tests: `node/signal-peer.cjs` run under Node.js against a
//! chosen version of the `@signalapp/libsignal-client` npm package.
//!
//! The package is installed once per version into
//! `<target dir>/node-peers/libsignal-client-<version>` and reused by later runs. The peer speaks
//! JSON lines (see the script's header for the commands); [`NodePeer::call`] sends one command and
//! returns its one response. Its remote party is always the address `("alibi", 1)`.

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a test waits for another test's `npm install` of the same version.
const INSTALL_WAIT: Duration = Duration::from_secs(15 * 60);
/// A lock file older than this is taken to be left by an installer that died.
const STALE_LOCK: Duration = Duration::from_secs(10 * 60);

/// A running `signal-peer.cjs`: one libsignal party whose remote is `("alibi", 1)`.
///
/// Dropping it kills the Node process.
pub struct NodePeer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    version: String,
}

/// Starts a libsignal peer on `@signalapp/libsignal-client@<version>` (e.g. `"0.90.0"` for PQXDH,
/// `"0.72.1"` for the last release with X3DH), installing the package with npm on first use.
///
/// `None` (after the peer policy's [`crate::skip`]) when `node` or `npm` is not on `PATH`, or the
/// install or the start fails.
pub fn signal_peer(version: &str) -> Option<NodePeer> {
    let (Some(node), Some(npm)) = (find_on_path("node"), find_on_path("npm")) else {
        crate::skip("node/npm not found on PATH (needed for the libsignal interop peer)");
        return None;
    };
    let dir = node_peers_dir().join(format!("libsignal-client-{version}"));
    if let Err(why) = ensure_installed(&npm, version, &dir) {
        crate::skip(&format!(
            "@signalapp/libsignal-client@{version} could not be installed into {}: {why}",
            dir.display()
        ));
        return None;
    }
    let script = peer_script();
    let spawned = Command::new(&node)
        .arg(&script)
        .env("NODE_PATH", dir.join("node_modules"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            crate::skip(&format!(
                "cannot start {} {}: {e}",
                node.display(),
                script.display()
            ));
            return None;
        }
    };
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut peer = NodePeer {
        child,
        stdin,
        stdout,
        version: version.to_owned(),
    };
    // The script answers every command with an error when the package does not load.
    let answer = peer.call(&serde_json::json!({"cmd": "version"}));
    if answer["version"].as_str() != Some(version) {
        crate::skip(&format!(
            "the libsignal {version} peer did not start as expected: {answer}"
        ));
        return None;
    }
    Some(peer)
}

impl NodePeer {
    /// Sends one JSON command and returns the peer's one-line JSON response (an object with an
    /// `error` field when the command failed on the peer's side).
    ///
    /// Panics when the Node process has died or answers with something that is not JSON.
    pub fn call(&mut self, req: &Value) -> Value {
        let cmd = req["cmd"].as_str().unwrap_or("?").to_owned();
        let mut line = serde_json::to_string(req).expect("a JSON value serializes");
        line.push('\n');
        if let Err(e) = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
        {
            let status = self.exit_status();
            panic!(
                "libsignal {} peer: cannot send {cmd:?} ({e}); {status}",
                self.version
            );
        }
        let mut answer = String::new();
        match self.stdout.read_line(&mut answer) {
            Ok(0) => {
                let status = self.exit_status();
                panic!(
                    "libsignal {} peer closed its output while handling {cmd:?}; {status}",
                    self.version
                )
            }
            Ok(_) => {}
            Err(e) => panic!(
                "libsignal {} peer: cannot read the answer to {cmd:?}: {e}",
                self.version
            ),
        }
        serde_json::from_str(answer.trim_end()).unwrap_or_else(|e| {
            panic!(
                "libsignal {} peer answered {cmd:?} with non-JSON {answer:?}: {e}",
                self.version
            )
        })
    }

    /// The npm package version this peer runs.
    pub fn version(&self) -> &str {
        &self.version
    }

    fn exit_status(&mut self) -> String {
        // Give a dying process a moment to be reaped, so the message says how it ended.
        for _ in 0..20 {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("the process exited: {status}"),
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => return format!("its status is unknown: {e}"),
            }
        }
        "the process is still running".to_owned()
    }
}

impl Drop for NodePeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `<crate>/node/signal-peer.cjs`, absolute.
fn peer_script() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("node/signal-peer.cjs");
    p.canonicalize().unwrap_or(p)
}

/// `<target dir>/node-peers`: `CARGO_TARGET_DIR` when set (a relative one taken from the workspace
/// root), else `<workspace root>/target`.
fn node_peers_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) if !t.is_empty() => root.join(t),
        _ => root.join("target"),
    };
    target.join("node-peers")
}

/// The first executable called `name` in a `PATH` directory.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .flat_map(|d| {
            let mut names = vec![d.join(name)];
            if cfg!(windows) {
                names.push(d.join(format!("{name}.exe")));
                names.push(d.join(format!("{name}.cmd")));
            }
            names
        })
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

fn installed_marker(dir: &Path) -> PathBuf {
    dir.join("node_modules/@signalapp/libsignal-client/package.json")
}

fn with_suffix(dir: &Path, suffix: &str) -> PathBuf {
    let mut s = dir.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Makes sure `dir` holds the package, installing it under the lock file `<dir>.lock` when it does
/// not. Tests run in parallel threads and processes: one installs while the others wait.
fn ensure_installed(npm: &Path, version: &str, dir: &Path) -> Result<(), String> {
    let marker = installed_marker(dir);
    if marker.is_file() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let lock = with_suffix(dir, ".lock");
    let deadline = Instant::now() + INSTALL_WAIT;
    loop {
        if marker.is_file() {
            return Ok(());
        }
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(mut f) => {
                let _ = writeln!(f, "{}", std::process::id());
                // Another installer may have finished between the check above and the lock.
                let result = if marker.is_file() {
                    Ok(())
                } else {
                    npm_install(npm, version, dir)
                };
                let _ = fs::remove_file(&lock);
                return result;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let age = fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok());
                if age.is_some_and(|a| a > STALE_LOCK) {
                    let _ = fs::remove_file(&lock);
                    continue;
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "timed out waiting for another install (lock file {})",
                        lock.display()
                    ));
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            Err(e) => return Err(format!("cannot create lock file {}: {e}", lock.display())),
        }
    }
}

/// Installs into a fresh sibling folder and renames it to `dir`, so `dir` is either absent or whole
/// even when an installer is killed midway.
fn npm_install(npm: &Path, version: &str, dir: &Path) -> Result<(), String> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = with_suffix(dir, &format!(".tmp-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let spec = format!("@signalapp/libsignal-client@{version}");
    let output = Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(&tmp)
        .args([
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--no-update-notifier",
        ])
        .arg(&spec)
        .stdin(Stdio::null())
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(format!("cannot run {}: {e}", npm.display()));
        }
    };
    if !output.status.success() || !installed_marker(&tmp).is_file() {
        let _ = fs::remove_dir_all(&tmp);
        return Err(format!(
            "`npm install {spec}` failed ({}): {}",
            output.status,
            tail(&output.stderr, &output.stdout)
        ));
    }
    // A leftover without the package (an old partial install) is in the way of the rename.
    if dir.exists() && !installed_marker(dir).is_file() {
        let _ = fs::remove_dir_all(dir);
    }
    match fs::rename(&tmp, dir) {
        Ok(()) => Ok(()),
        Err(_) if installed_marker(dir).is_file() => {
            let _ = fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            Err(format!(
                "cannot move {} to {}: {e}",
                tmp.display(),
                dir.display()
            ))
        }
    }
}

/// The last lines of npm's error output (or of its standard output when that is empty).
fn tail(stderr: &[u8], stdout: &[u8]) -> String {
    let text = if stderr.iter().any(|b| !b.is_ascii_whitespace()) {
        String::from_utf8_lossy(stderr)
    } else {
        String::from_utf8_lossy(stdout)
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(8);
    let joined = lines[start..].join(" | ");
    if joined.is_empty() {
        "no output".to_owned()
    } else {
        joined
    }
}
