//! TCP connections: at most [`super::Config::max_connections`] at once (beyond that the relay
//! stops accepting; the kernel's backlog holds the rest), and a connection from which nothing
//! has been read for [`super::Config::idle_timeout`] is closed. Without these an unauthenticated
//! client could open connections without end, or hold them all open by sending nothing
//! (hyper has no header timeout without a timer, and axum sets none).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// A listener that holds a permit per open connection.
pub(crate) struct Capped {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    idle: Duration,
}

impl Capped {
    pub(crate) fn new(inner: TcpListener, max: usize, idle: Duration) -> Self {
        Self {
            inner,
            permits: Arc::new(Semaphore::new(max.max(1))),
            idle,
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
        let (tcp, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        let connection = Connection {
            tcp,
            _permit: permit,
            idle: self.idle,
            last_read: Instant::now(),
            deadline: Box::pin(tokio::time::sleep(self.idle)),
        };
        (connection, addr)
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// An accepted connection: its permit goes back when it is dropped.
pub(crate) struct Connection {
    tcp: TcpStream,
    _permit: OwnedSemaphorePermit,
    idle: Duration,
    /// When bytes last came in; the deadline is moved up to it only when it fires, so a read
    /// costs a clock read, not a timer update.
    last_read: Instant,
    deadline: Pin<Box<Sleep>>,
}

impl Connection {
    /// The TCP stream (for socket options).
    pub(crate) fn tcp(&self) -> &TcpStream {
        &self.tcp
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.tcp).poll_read(cx, buf) {
            Poll::Ready(r) => {
                this.last_read = Instant::now();
                Poll::Ready(r)
            }
            Poll::Pending => loop {
                if this.deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                let due = this.last_read + this.idle;
                if due <= Instant::now() {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "nothing read for the idle timeout",
                    )));
                }
                this.deadline.as_mut().reset(due);
            },
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
