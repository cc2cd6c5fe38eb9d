//! Where a client reaches the relay: one or more nodes serving one store, tried in turn, and the
//! TLS roots it trusts for `https://` (and so `wss://`) nodes.
//!
//! Several relay processes on one PostgreSQL database serve the same mailboxes (docs/relay.md),
//! so a client that cannot reach one node may use any other: requests that could not connect and
//! a delivery socket that dropped move on to the next node.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use crate::{Error, Result};

/// The relay's nodes and the TLS trust of the client that talks to them.
#[derive(Clone)]
pub struct Endpoint {
    nodes: Arc<[String]>,
    /// The node in use, an index into `nodes` (counts up; taken modulo their number).
    current: Arc<AtomicUsize>,
    tls: Arc<rustls::ClientConfig>,
    ca: Option<Arc<[u8]>>,
    /// The first node reached over plain http (or ws) on a host that is not loopback.
    plain_remote: Option<Arc<str>>,
    /// Plain http to such a node was allowed explicitly ([`Endpoint::allow_insecure_http`]).
    insecure_http: bool,
    /// How long, in milliseconds, a request that reaches no node is tried again
    /// ([`Endpoint::set_patience`]); shared by every clone.
    patience_ms: Arc<AtomicU64>,
    /// Told while a request is tried again ([`Endpoint::on_unreachable`]).
    on_unreachable: Arc<std::sync::Mutex<Option<OnUnreachable>>>,
    /// How long, in milliseconds, one request or one quiet delivery socket is given
    /// ([`Endpoint::set_request_timeout`]); shared by every clone.
    request_timeout_ms: Arc<AtomicU64>,
    /// The local address requests and the delivery socket leave from
    /// ([`Endpoint::with_local_address`]); the system's choice if `None`.
    local_address: Option<std::net::IpAddr>,
}

/// How long one request may take, from connecting to the last byte of the answer, unless set
/// otherwise ([`Endpoint::set_request_timeout`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long connecting to a node may take (TCP, and TLS): a node that does not answer within it
/// counts as unreachable, and the next is tried.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What an endpoint tells while a request reaches no node: the error, how long it has been
/// tried, and how long it will be tried at most.
pub type OnUnreachable = Arc<dyn Fn(&str, Duration, Duration) + Send + Sync>;

impl core::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Endpoint")
            .field("nodes", &self.nodes)
            .field("own_ca", &self.ca.is_some())
            .field("insecure_http", &self.insecure_http)
            .finish()
    }
}

/// Whether `node` is a plain `http://` (or `ws://`) URL to a host that is not loopback: every
/// request to the relay carries the device's password (HTTP Basic), which would cross the network
/// in clear. A node that does not parse is left to fail when it is used.
fn plain_to_remote(node: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(node) else {
        return false;
    };
    if !matches!(url.scheme(), "http" | "ws") {
        return false;
    }
    let host = url.host_str().unwrap_or_default();
    let loopback = match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    };
    !loopback
}

/// The client's TLS settings: `roots` only, on the ring provider.
fn tls_config(roots: rustls::RootCertStore) -> Result<rustls::ClientConfig> {
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| Error::Relay(format!("TLS: {e}")))?
    .with_root_certificates(roots)
    .with_no_client_auth())
}

impl Endpoint {
    /// The nodes of a comma-separated list of base URLs (`https://a.example:8443,https://b...`;
    /// a trailing `/` is dropped), trusting the public web PKI (webpki-roots) for `https`.
    pub fn new(nodes: &str) -> Self {
        let nodes: Vec<String> = nodes
            .split(',')
            .map(|n| n.trim().trim_end_matches('/').to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Self {
            plain_remote: nodes
                .iter()
                .find(|n| plain_to_remote(n))
                .map(|n| Arc::from(n.as_str())),
            nodes: if nodes.is_empty() {
                Arc::from(vec![String::new()])
            } else {
                nodes.into()
            },
            current: Arc::default(),
            tls: Arc::new(tls_config(roots).expect("ring supports the default TLS versions")),
            ca: None,
            insecure_http: false,
            patience_ms: Arc::default(),
            on_unreachable: Arc::default(),
            request_timeout_ms: Arc::new(AtomicU64::new(REQUEST_TIMEOUT.as_millis() as u64)),
            local_address: None,
        }
    }

    /// Sends every request, and opens the delivery socket, from this local address (a host with
    /// several, where the relay should see one in particular; the relay counts its limits and
    /// mailbox shares per client address).
    pub fn with_local_address(mut self, address: std::net::IpAddr) -> Self {
        self.local_address = Some(address);
        self
    }

    /// The local address given to [`Self::with_local_address`], if any.
    pub fn local_address(&self) -> Option<std::net::IpAddr> {
        self.local_address
    }

    /// Bounds every request to a node, from connecting to the last byte of its answer, and the
    /// delivery socket: its handshake, and its quiet (the client pings a third of the way in;
    /// a socket that stays silent for the whole bound is dropped and opened again on the next
    /// node). A request past the bound fails, and the node is left for the next one. Default
    /// [`REQUEST_TIMEOUT`]; a run with a shorter round timeout sets that here. Shared by every
    /// clone of this endpoint.
    pub fn set_request_timeout(&self, timeout: Duration) {
        let ms = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        self.request_timeout_ms.store(ms, Ordering::Relaxed);
    }

    /// The bound of [`Self::set_request_timeout`].
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms.load(Ordering::Relaxed))
    }

    /// Keeps trying, for up to `patience`, a request that could not connect to any node (a relay
    /// restarting, a network blip), with backoff from 100 ms to 2 s. Such a request never
    /// reached a relay, so sending it again cannot duplicate it. Zero (the default): fail at once.
    /// Shared by every clone of this endpoint.
    pub fn set_patience(&self, patience: Duration) {
        let ms = u64::try_from(patience.as_millis()).unwrap_or(u64::MAX);
        self.patience_ms.store(ms, Ordering::Relaxed);
    }

    /// How long a request that reaches no node is tried again.
    pub fn patience(&self) -> Duration {
        Duration::from_millis(self.patience_ms.load(Ordering::Relaxed))
    }

    /// Tells `report`, when a request first reaches no node and then every 5 s while it is
    /// tried again, why and for how long (so that a wait for a relay says what it waits for).
    /// Shared by every clone of this endpoint.
    pub fn on_unreachable(&self, report: OnUnreachable) {
        if let Ok(mut r) = self.on_unreachable.lock() {
            *r = Some(report);
        }
    }

    /// Reports a request that reaches no node (see [`Self::on_unreachable`]).
    pub(crate) fn unreachable(&self, error: &str, waited: Duration) {
        let report = self.on_unreachable.lock().ok().and_then(|r| r.clone());
        if let Some(report) = report {
            report(error, waited, self.patience());
        }
    }

    /// Allows (or not) plain `http://` to nodes that are not loopback, which sends the device's
    /// password in clear: an explicit opt-in (`--insecure-http`), for a network the user trusts.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.insecure_http = allow;
        self
    }

    /// Whether plain `http://` to nodes that are not loopback was allowed.
    pub fn insecure_http(&self) -> bool {
        self.insecure_http
    }

    /// Refuses a node reached over plain `http://` on a host that is not loopback, unless that
    /// was allowed ([`Self::allow_insecure_http`]). The relay client checks this before every
    /// connection; callers may check up front to report it early.
    pub fn check(&self) -> Result<()> {
        match &self.plain_remote {
            Some(node) if !self.insecure_http => Err(Error::InsecureRelay(node.to_string())),
            _ => Ok(()),
        }
    }

    /// Trusts exactly the CA certificates of `pem` (one or more `CERTIFICATE` blocks) instead of
    /// the public roots: a relay whose certificate an own CA issued.
    pub fn with_ca(mut self, pem: &[u8]) -> Result<Self> {
        let mut roots = rustls::RootCertStore::empty();
        let mut n = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| Error::Relay(format!("CA file: {e}")))?;
            roots
                .add(cert)
                .map_err(|e| Error::Relay(format!("CA file: {e}")))?;
            n += 1;
        }
        if n == 0 {
            return Err(Error::Relay(
                "CA file: no PEM CERTIFICATE block in it".into(),
            ));
        }
        self.tls = Arc::new(tls_config(roots)?);
        self.ca = Some(pem.into());
        Ok(self)
    }

    /// The CA certificates trusted instead of the public roots, as given to [`Self::with_ca`].
    pub fn ca(&self) -> Option<&[u8]> {
        self.ca.as_deref()
    }

    /// Every node, comma-separated: what [`Self::new`] reads back.
    pub fn nodes(&self) -> String {
        self.nodes.join(",")
    }

    /// The node in use, and its turn (for [`Self::failed`]).
    pub fn current(&self) -> (&str, usize) {
        let turn = self.current.load(Ordering::Relaxed);
        (&self.nodes[turn % self.nodes.len()], turn)
    }

    /// The node of `turn` could not be reached: move to the next (once, however many callers
    /// saw the same node fail).
    pub fn failed(&self, turn: usize) {
        let _ = self.current.compare_exchange(
            turn,
            turn.wrapping_add(1),
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// How many nodes there are.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Never true: an endpoint has at least one node (possibly an empty URL, which fails).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// An HTTP client with this endpoint's TLS trust (Nagle off, as on the server). An idle
    /// connection is dropped after [`POOL_IDLE`], well before the relay closes one that sends
    /// no request head (its `head_timeout`, 10 s by default): a request sent on a connection the
    /// relay is closing fails without an answer (after a party computed for a while, say).
    pub(crate) fn http_client(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .tcp_nodelay(true)
            .connect_timeout(CONNECT_TIMEOUT)
            .pool_idle_timeout(POOL_IDLE)
            .local_address(self.local_address)
            .use_preconfigured_tls((*self.tls).clone())
            .build()
            .unwrap_or_default()
    }

    /// The WebSocket connector with this endpoint's TLS trust.
    pub(crate) fn ws_connector(&self) -> tokio_tungstenite::Connector {
        tokio_tungstenite::Connector::Rustls(self.tls.clone())
    }
}

/// How long the client keeps an idle connection to a relay node (see [`Endpoint::http_client`]).
pub(crate) const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(4);

impl From<&str> for Endpoint {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

impl From<&String> for Endpoint {
    fn from(s: &String) -> Self {
        Self::new(s)
    }
}

impl From<String> for Endpoint {
    fn from(s: String) -> Self {
        Self::new(&s)
    }
}

impl From<&Endpoint> for Endpoint {
    fn from(e: &Endpoint) -> Self {
        e.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_read_from_a_list_and_taken_in_turn() {
        let e = Endpoint::new("http://a:1/, http://b:2");
        assert_eq!(e.nodes(), "http://a:1,http://b:2");
        let (n, turn) = e.current();
        assert_eq!(n, "http://a:1");
        e.failed(turn);
        e.failed(turn); // a second caller that saw the same failure does not skip b
        assert_eq!(e.current().0, "http://b:2");
        e.failed(e.current().1);
        assert_eq!(e.current().0, "http://a:1");
    }

    /// Plain http to a host that is not loopback would carry the device password in clear:
    /// refused (before any connection: this is a check on the URL) unless allowed explicitly.
    #[test]
    fn plain_http_to_a_remote_host_is_refused_unless_allowed() {
        for remote in [
            "http://example.invalid",
            "https://a.invalid,http://example.invalid:8080",
            "http://10.0.0.1:80",
            "ws://relay.invalid",
        ] {
            match Endpoint::new(remote).check() {
                Err(Error::InsecureRelay(n)) => assert!(remote.contains(&n), "{n}"),
                other => panic!("{remote}: expected refused, got {other:?}"),
            }
            assert!(Endpoint::new(remote)
                .allow_insecure_http(true)
                .check()
                .is_ok());
        }
        for fine in [
            "http://127.0.0.1:8080",
            "http://127.3.4.5",
            "http://[::1]:80",
            "http://localhost:1/",
            "https://example.invalid",
            "https://a.invalid,http://127.0.0.1:1",
        ] {
            assert!(Endpoint::new(fine).check().is_ok(), "{fine}");
        }
    }

    #[test]
    fn a_ca_file_must_hold_a_certificate() {
        assert!(Endpoint::new("https://a").with_ca(b"not pem").is_err());
        assert!(Endpoint::new("https://a")
            .with_ca(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
            .is_err());
    }
}
