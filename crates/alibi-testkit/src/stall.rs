//! A network path that stalls: a TCP forwarder to a relay that, once told to, stops moving bytes
//! in both directions while keeping every socket open (and accepts new connections, which then
//! hang too). What a party sees when a middlebox or a half-dead link swallows its traffic: no
//! error, no close, nothing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A running forwarder; stops when dropped (its connections with it).
pub struct StallProxy {
    /// Its base URL (`http://127.0.0.1:PORT`), to give a party instead of the relay's.
    pub url: String,
    stalled: Arc<AtomicBool>,
    trigger: Arc<std::sync::Mutex<Option<Vec<u8>>>>,
    /// Chunks that were held back because the path was stalled: proof the stall bit.
    pub held: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for StallProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl StallProxy {
    /// Starts forwarding a loopback port to the relay at `upstream` (an `http://host:port` URL).
    pub async fn start(upstream: &str) -> StallProxy {
        let target = upstream
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let stalled = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let trigger = Arc::new(std::sync::Mutex::new(None));
        let path = Path {
            stalled: stalled.clone(),
            held: held.clone(),
            trigger: trigger.clone(),
        };
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&target).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                connections.spawn(pipe(cr, sw, path.clone(), true));
                connections.spawn(pipe(sr, cw, path.clone(), false));
            }
        });
        StallProxy {
            url,
            stalled,
            trigger,
            held,
            task,
        }
    }

    /// From now on no byte moves on any connection, old or new; the sockets stay open.
    pub fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }

    /// Stalls the path (as [`Self::stall`]) when a chunk the client sends holds `pattern`
    /// (plain HTTP: a request line such as `PUT /v1/messages`), that chunk held too: the path
    /// dies in the middle of a send.
    pub fn stall_on(&self, pattern: &[u8]) {
        *self.trigger.lock().expect("trigger lock") = Some(pattern.to_vec());
    }
}

/// What every connection of one forwarder shares.
#[derive(Clone)]
struct Path {
    stalled: Arc<AtomicBool>,
    held: Arc<AtomicUsize>,
    trigger: Arc<std::sync::Mutex<Option<Vec<u8>>>>,
}

impl Path {
    /// Whether `chunk`, going to the relay if `upstream`, must be held.
    fn holds(&self, chunk: &[u8], upstream: bool) -> bool {
        if upstream {
            let trigger = self.trigger.lock().expect("trigger lock");
            if let Some(p) = trigger.as_deref() {
                if chunk.windows(p.len()).any(|w| w == p) {
                    self.stalled.store(true, Ordering::SeqCst);
                }
            }
        }
        self.stalled.load(Ordering::SeqCst)
    }
}

/// Copies `from` to `to` (towards the relay if `upstream`) until either closes; once stalled,
/// holds each chunk (and the sockets) for ever.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    path: Path,
    upstream: bool,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if path.holds(&buf[..n], upstream) {
            path.held.fetch_add(1, Ordering::SeqCst);
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
