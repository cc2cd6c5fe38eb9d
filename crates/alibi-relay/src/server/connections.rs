//! TCP connections, and the HTTP/1.1 server on them. What one client can hold is bounded:
//!
//! * at most [`super::Config::max_connections`] connections at once (beyond that the relay stops
//!   accepting; the kernel's backlog holds the rest), and at most
//!   [`super::Config::max_connections_per_address`] from one client address (more are closed as
//!   they are accepted), so one host cannot take every slot;
//! * a request's head must arrive whole within [`super::Config::head_timeout`] of the relay
//!   waiting for it (a new connection, or one kept alive after a response), and the whole request
//!   within [`super::Config::idle_timeout`]: a client trickling a byte now and then holds a slot
//!   only that long (hyper's own header timer, which axum's `serve` leaves unset, is what
//!   measures the head);
//! * a connection whose writes stall (a peer that stopped reading) for the idle timeout fails.
//!
//! A WebSocket, once upgraded, counts as idle when no whole frame arrives
//! ([`super::delivery`] pings it).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::IntoMakeServiceWithConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

use super::limits::ClientAddress;

/// Open connections per client address.
type Counts = Arc<Mutex<HashMap<ClientAddress, usize>>>;

/// A listener that holds a permit per open connection, and counts them per client address.
pub(crate) struct Capped {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    per_address: usize,
    counts: Counts,
    stall: Duration,
}

impl Capped {
    pub(crate) fn new(inner: TcpListener, c: &super::Config) -> Self {
        Self {
            inner,
            permits: Arc::new(Semaphore::new(c.max_connections.max(1))),
            per_address: c.max_connections_per_address.max(1),
            counts: Arc::default(),
            stall: c.idle_timeout,
        }
    }
}

impl axum::serve::Listener for Capped {
    type Io = Connection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Connection, SocketAddr) {
        // Not accepting while full: new clients wait in the backlog instead of costing a task.
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        loop {
            let (tcp, addr) = axum::serve::Listener::accept(&mut self.inner).await;
            let from = ClientAddress::of(addr.ip());
            {
                let mut counts = self.counts.lock().expect("connection counts");
                let n = counts.entry(from).or_default();
                if *n >= self.per_address {
                    // Closed at once (dropped): the slot stays free for other addresses.
                    tracing::debug!("connection refused: too many from one address");
                    continue;
                }
                *n += 1;
            }
            // No Nagle: small WebSocket frames and answers go out at once instead of waiting
            // for the peer's delayed ACK (40 ms on Linux), which would otherwise pace every
            // protocol round.
            let _ = tcp.set_nodelay(true);
            let connection = Connection {
                tcp,
                _slot: Slot {
                    _permit: permit,
                    from,
                    counts: self.counts.clone(),
                },
                stall: self.stall,
                stalled: None,
            };
            return (connection, addr);
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection's place: its permit, and its count against its address, given back on drop.
struct Slot {
    _permit: OwnedSemaphorePermit,
    from: ClientAddress,
    counts: Counts,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().expect("connection counts");
        if let Some(n) = counts.get_mut(&self.from) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.from);
            }
        }
    }
}

/// An accepted connection: its place goes back when it is dropped.
pub(crate) struct Connection {
    tcp: TcpStream,
    _slot: Slot,
    stall: Duration,
    /// Set while a write waits on a peer that does not read: fails the write when it fires.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Connection {
    /// A write that made no progress: `Pending` until the stall deadline, then an error.
    fn wait_or_fail<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let stall = self.stall;
        let deadline = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
        match deadline.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer took nothing for the idle timeout",
            ))),
        }
    }

    fn progress<T>(&mut self, p: Poll<io::Result<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match p {
            Poll::Pending => self.wait_or_fail(cx),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.tcp).poll_write(cx, buf);
        self.progress(p, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs);
        self.progress(p, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.tcp).poll_flush(cx);
        self.progress(p, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// Serves `app` over HTTP/1.1 (with upgrades, for the WebSocket) on every connection `listener`
/// accepts, each request's head bounded by `head_timeout`, until `shutdown` completes; then stops
/// accepting, lets the requests under way finish and returns once every connection has closed.
pub(crate) async fn serve<L>(
    mut listener: L,
    app: Router,
    head_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) where
    L: axum::serve::Listener<Addr = SocketAddr>,
{
    use tower_service::Service;
    let mut make: IntoMakeServiceWithConnectInfo<Router, SocketAddr> =
        app.into_make_service_with_connect_info::<SocketAddr>();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(head_timeout);
    // Each connection holds a receiver of `stop`; `stop.closed()` is when the last has gone.
    let (stop, stopped) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (io, addr) = tokio::select! {
            c = listener.accept() => c,
            () = &mut shutdown => break,
        };
        let service = make.call(addr).await.unwrap_or_else(|e| match e {});
        let conn = http
            .serve_connection(TokioIo::new(io), TowerToHyperService::new(service))
            .with_upgrades();
        let (alive, mut closing) = (stopped.clone(), stopped.clone());
        tokio::spawn(async move {
            tokio::pin!(conn);
            let closing = closing.wait_for(|s| *s);
            tokio::pin!(closing);
            let mut told = false;
            loop {
                tokio::select! {
                    r = conn.as_mut() => {
                        if let Err(e) = r {
                            tracing::debug!(error = %e, "connection ended");
                        }
                        break;
                    }
                    _ = &mut closing, if !told => {
                        told = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
            drop(alive);
        });
    }
    drop(listener);
    drop(stopped);
    stop.send_replace(true);
    stop.closed().await;
}
