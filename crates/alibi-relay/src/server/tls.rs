//! TLS (rustls, on the ring provider): the relay's certificate chain and key from PEM files, and
//! a listener whose handshakes run beside the accept loop, so a client that stalls its handshake
//! holds one connection slot (until [`HANDSHAKE_TIMEOUT`]) and never the accept loop itself.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::{Error, Result};

/// How long a client may take over its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The relay's TLS settings.
#[derive(Clone)]
pub struct Tls(TlsAcceptor);

impl core::fmt::Debug for Tls {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Tls(..)")
    }
}

impl Tls {
    /// From a PEM certificate chain (the relay's certificate first) and a PEM private key
    /// (PKCS#8, PKCS#1 or SEC1); TLS 1.3 and 1.2, HTTP/1.1 only (as axum serves here).
    pub fn from_pem(chain: &[u8], key: &[u8]) -> Result<Self> {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain)
            .collect::<core::result::Result<_, _>>()
            .map_err(|e| Error::BadRequest(format!("TLS certificate file: {e}")))?;
        if chain.is_empty() {
            return Err(Error::BadRequest(
                "TLS certificate file: no PEM CERTIFICATE block in it".into(),
            ));
        }
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|e| Error::BadRequest(format!("TLS key file: {e}")))?;
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::BadRequest(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| Error::BadRequest(format!("TLS certificate and key: {e}")))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self(TlsAcceptor::from(Arc::new(config))))
    }
}

/// Accepts on `inner` and hands over connections whose handshake completed.
pub(crate) struct Listener<L: axum::serve::Listener> {
    rx: mpsc::Receiver<(TlsStream<L::Io>, L::Addr)>,
    addr: io::Result<L::Addr>,
}

impl<L> Listener<L>
where
    L: axum::serve::Listener<Addr = SocketAddr>,
{
    pub(crate) fn new(mut inner: L, tls: Tls) -> Self {
        let addr = inner.local_addr();
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                // Stops accepting (and closes the port) once the server is gone.
                let (io, addr) = tokio::select! {
                    c = inner.accept() => c,
                    _ = tx.closed() => return,
                };
                let (acceptor, tx) = (tls.0.clone(), tx.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(io)).await {
                        Ok(Ok(stream)) => {
                            let _ = tx.send((stream, addr)).await;
                        }
                        Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed"),
                        Err(_) => tracing::debug!("TLS handshake timed out"),
                    }
                });
            }
        });
        Self { rx, addr }
    }
}

impl<L> axum::serve::Listener for Listener<L>
where
    L: axum::serve::Listener<Addr = SocketAddr>,
{
    type Io = TlsStream<L::Io>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(c) => c,
            // The accept task ended (it never does while this lives): nothing more comes.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.addr {
            Ok(a) => Ok(*a),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        }
    }
}
