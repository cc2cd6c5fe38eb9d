//! The relay's HTTP and WebSocket API, with Signal-Server's semantics (`signal-stack.md`, section
//! 4), split by concern:
//!
//! * [`auth`]: who is asking (HTTP Basic, access keys), sender certificates;
//! * [`credentials`]: device passwords (Argon2id);
//! * [`limits`]: rate limits per client address, per account and per device;
//! * [`accounts`]: accounts, devices and their attributes; `account_cache`: the short-lived view
//!   of an account that authentication and sends check against;
//! * [`keys`]: the prekey directory;
//! * [`messages`]: sends, one account or many recipients in one request;
//! * [`delivery`]: the WebSocket that pushes each device's mail until acknowledged;
//! * `metrics`: `GET /metrics` (Prometheus text), `GET /health` and `GET /health/live`;
//! * [`control`]: the control socket of a relay on redb (`alibi relay backup`).
//!
//! The bodies are `alibi-relay-api`'s, the contract the clients build on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alibi_identity::PrivateKey;
use alibi_relay_api::{paths, ErrorBody};
use alibi_sealed_sender::ServerCertificate;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use tokio::sync::Notify;
use uuid::Uuid;

use crate::store::RelayStore;
use crate::Error;

mod account_cache;
pub mod accounts;
pub mod auth;
mod connections;
pub mod control;
pub mod credentials;
pub mod delivery;
pub mod keys;
pub mod limits;
pub mod messages;
mod metrics;
pub mod tls;

pub use alibi_relay_api::keys::MAX_KEYS_PER_UPLOAD;
pub use delivery::{POLL, WINDOW};
pub use limits::{AddressLimits, Rate};
pub use messages::{MAX_DEVICE_ENTRIES, MAX_RECIPIENTS};
pub use tls::Tls;

/// Largest request body accepted (a 1,000-recipient multi-recipient send is about 100 KB).
pub const MAX_BODY: usize = 2 * 1024 * 1024;

/// How the relay is run. The defaults are what `alibi relay serve` uses; docs/relay.md
/// ("Limits") lists each bound with its flag.
#[derive(Clone)]
pub struct Config {
    /// Delay added to every request, modelling a WAN round trip.
    pub delay: Duration,
    /// Requests per second each logged-in device may make (burst of twice that).
    pub rate_per_device: f64,
    /// Limits per client address, before login.
    pub per_address: AddressLimits,
    /// Bundles one account may fetch (each takes one-time prekeys of another device).
    pub prekey_fetches: Rate,
    /// Bundles one account may fetch of any one other account: below the one-time prekeys a
    /// client keeps (100, topped up below 30), so no account drains another's.
    pub prekey_fetches_per_target: Rate,
    /// Argon2id runs one account may cause from one client address (its devices' first logins and
    /// wrong passwords, counted per address so that a stranger cannot spend the owner's), and its
    /// new or replaced devices (counted per account), on top of the per-address limit.
    pub password_work_per_account: Rate,
    /// How long a wrong password waits before its 401.
    pub auth_failure_delay: Duration,
    /// Argon2id parameters for new device passwords.
    pub password_params: argon2::Params,
    /// A device's mailbox, at most: envelopes waiting.
    pub mailbox_messages: u64,
    /// A device's mailbox, at most: bytes waiting (a multi-recipient envelope counts its shared
    /// part in full, as it is delivered).
    pub mailbox_bytes: u64,
    /// What one sender may hold of a device's mailbox, in percent of both bounds above (rounded
    /// up): a sender is its account, or for a sealed send (the sender unnamed) its client
    /// address. One flooding sender leaves the rest to the others.
    pub mailbox_share_percent: u64,
    /// Undelivered envelopes older than this are deleted.
    pub message_expiry: Duration,
    /// One-time prekeys of each kind a device may have stored.
    pub max_stored_prekeys: usize,
    /// TCP connections open at once (HTTP and WebSocket); beyond it the relay stops accepting.
    pub max_connections: usize,
    /// TCP connections open at once from one client address; more are closed as accepted.
    pub max_connections_per_address: usize,
    /// A request's head (and a WebSocket's upgrade) must arrive whole within this time of the
    /// relay waiting for it; a kept-alive connection waiting longer for its next request closes.
    pub head_timeout: Duration,
    /// Delivery WebSockets open at once (a device has at most one: a new one replaces it).
    pub max_sockets: usize,
    /// A socket that cannot take a frame within this time (a reader that stopped reading) is
    /// closed; its envelopes stay in the store.
    pub send_timeout: Duration,
    /// A request must arrive whole within this time (else 408), a WebSocket that sends no whole
    /// frame (not even the answer to a ping) for this long is closed, and so is a connection
    /// whose peer takes none of what is written to it.
    pub idle_timeout: Duration,
    /// An envelope pushed and not acknowledged for this long is pushed again (on the same
    /// socket, under a new request id), so a lost frame neither waits for the socket to close
    /// nor holds one of the window's slots.
    pub ack_timeout: Duration,
    /// Sender certificates' lifetime.
    pub certificate_lifetime: Duration,
    /// The trust root's private key (its public key is what clients pin).
    pub trust_root: [u8; 32],
}

/// Every setting but the trust root's secret key.
impl core::fmt::Debug for Config {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Config")
            .field("delay", &self.delay)
            .field("rate_per_device", &self.rate_per_device)
            .field("per_address", &self.per_address)
            .field("prekey_fetches", &self.prekey_fetches)
            .field("prekey_fetches_per_target", &self.prekey_fetches_per_target)
            .field("password_work_per_account", &self.password_work_per_account)
            .field("auth_failure_delay", &self.auth_failure_delay)
            .field("password_params", &self.password_params)
            .field("mailbox_messages", &self.mailbox_messages)
            .field("mailbox_bytes", &self.mailbox_bytes)
            .field("mailbox_share_percent", &self.mailbox_share_percent)
            .field("message_expiry", &self.message_expiry)
            .field("max_stored_prekeys", &self.max_stored_prekeys)
            .field("max_connections", &self.max_connections)
            .field(
                "max_connections_per_address",
                &self.max_connections_per_address,
            )
            .field("head_timeout", &self.head_timeout)
            .field("max_sockets", &self.max_sockets)
            .field("send_timeout", &self.send_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("ack_timeout", &self.ack_timeout)
            .field("certificate_lifetime", &self.certificate_lifetime)
            .finish_non_exhaustive()
    }
}

impl Default for Config {
    fn default() -> Self {
        let mut trust_root = [0u8; 32];
        UnwrapErr(SysRng).fill_bytes(&mut trust_root);
        Self {
            delay: Duration::ZERO,
            rate_per_device: 10_000.0,
            per_address: AddressLimits::default(),
            prekey_fetches: Rate::new(200, 1.0),
            prekey_fetches_per_target: Rate::new(10, 1.0 / 300.0),
            password_work_per_account: Rate::new(50, 0.5),
            auth_failure_delay: Duration::from_millis(500),
            password_params: argon2::Params::default(),
            mailbox_messages: 10_000,
            mailbox_bytes: 256 * 1024 * 1024,
            mailbox_share_percent: 25,
            message_expiry: Duration::from_secs(30 * 86_400),
            max_stored_prekeys: 1_000,
            max_connections: 20_000,
            max_connections_per_address: 100,
            head_timeout: Duration::from_secs(10),
            max_sockets: 10_000,
            send_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(120),
            ack_timeout: Duration::from_secs(60),
            certificate_lifetime: Duration::from_secs(86_400),
            trust_root,
        }
    }
}

/// What every handler shares.
pub(crate) struct AppState {
    pub(crate) store: Arc<dyn RelayStore>,
    pub(crate) config: Config,
    pub(crate) server_cert: ServerCertificate,
    pub(crate) server_key: PrivateKey,
    /// Per device: wakes its socket task when mail was stored for it.
    pub(crate) wakeups: Mutex<HashMap<(Uuid, u8), Arc<Notify>>>,
    /// The rate limits.
    pub(crate) limits: limits::Limiters,
    /// Device passwords.
    pub(crate) credentials: credentials::Credentials,
    /// Per account: its devices and access key, recently read.
    pub(crate) device_cache: Mutex<HashMap<Uuid, account_cache::CachedAccount>>,
    /// Per connected device: its socket task.
    pub(crate) live: Mutex<HashMap<(Uuid, u8), delivery::LiveSocket>>,
    /// Numbers sockets (so a closing socket removes only itself).
    pub(crate) next_socket: std::sync::atomic::AtomicU64,
    /// Delivery sockets that may still open.
    pub(crate) sockets: Arc<tokio::sync::Semaphore>,
    /// Shared multi-recipient parts some socket is pushing, by key.
    pub(crate) shared_parts: Mutex<HashMap<Uuid, std::sync::Weak<Vec<u8>>>>,
    /// Counters for `GET /metrics`.
    pub(crate) metrics: Arc<metrics::Metrics>,
    /// Becomes true when the relay drains: sockets close (their mail stays stored), no new
    /// socket opens.
    pub(crate) draining: tokio::sync::watch::Receiver<bool>,
}

pub(crate) type Shared = Arc<AppState>;

impl AppState {
    /// A device's mailbox quota.
    pub(crate) fn quota(&self) -> crate::store::MailboxQuota {
        let c = &self.config;
        let share = |whole: u64| {
            let part =
                (u128::from(whole) * u128::from(c.mailbox_share_percent.min(100))).div_ceil(100);
            u64::try_from(part).unwrap_or(u64::MAX).max(1)
        };
        crate::store::MailboxQuota {
            messages: c.mailbox_messages,
            bytes: c.mailbox_bytes,
            sender_messages: share(c.mailbox_messages),
            sender_bytes: share(c.mailbox_bytes),
        }
    }
}

/// An error answer: a status and the contract's error body (boxed: handlers return it on the
/// error path of every `Result`, which stays small).
pub(crate) struct ApiError(StatusCode, Box<ErrorBody>, Option<u64>);

impl ApiError {
    pub(crate) fn new(code: StatusCode, msg: impl Into<String>) -> Self {
        Self(code, Box::new(ErrorBody::new(msg)), None)
    }

    /// An answer with more than a reason (the device lists of 404, 409 and 410).
    pub(crate) fn with(code: StatusCode, body: ErrorBody) -> Self {
        Self(code, Box::new(body), None)
    }

    /// With a `Retry-After` header: the wait, rounded up to whole seconds.
    pub(crate) fn retry_after(mut self, wait: Duration) -> Self {
        self.2 = Some(wait.as_secs() + u64::from(wait.subsec_nanos() > 0));
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.0, Json(*self.1)).into_response();
        if let Some(secs) = self.2 {
            r.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        r
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::AccountExists => ApiError::new(StatusCode::CONFLICT, "account exists"),
            Error::NotFound(w) => ApiError::new(StatusCode::NOT_FOUND, format!("{w} not found")),
            Error::BadRequest(m) => ApiError::new(StatusCode::BAD_REQUEST, m),
            Error::MailboxFull(a, d) => ApiError::with(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorBody {
                    full: Some(vec![a.to_string()]),
                    ..ErrorBody::new(format!(
                        "the mailbox of {a}.{d} is full; nothing was stored"
                    ))
                },
            ),
            Error::SenderShareFull(a, d) => ApiError::with(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorBody {
                    full: Some(vec![a.to_string()]),
                    ..ErrorBody::new(format!(
                        "this sender's share of the mailbox of {a}.{d} is used up; nothing was \
                         stored"
                    ))
                },
            ),
            // The store's text (paths, SQL, addresses) is for the operator, not the client.
            e => {
                tracing::error!(error = %e, "store");
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "service unavailable")
            }
        }
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

async fn delay(
    State(s): State<Shared>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !s.config.delay.is_zero() {
        tokio::time::sleep(s.config.delay).await;
    }
    next.run(req).await
}

/// Background upkeep while the app lives: deletes envelopes past their expiry, and forgets rate
/// limit keys that are back to full.
async fn janitor(state: std::sync::Weak<AppState>) {
    let every = |s: &AppState| {
        (s.config.message_expiry / 4).clamp(Duration::from_millis(50), Duration::from_secs(600))
    };
    let mut last_shrink = std::time::Instant::now();
    loop {
        let Some(period) = state.upgrade().map(|s| every(&s)) else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(s) = state.upgrade() else { return };
        let expiry = s.config.message_expiry.as_millis() as u64;
        let before = alibi_relay_api::now_ms().saturating_sub(expiry);
        if let Err(e) = s.store.expire(before).await {
            tracing::error!(error = %e, "expiring old envelopes");
        }
        if last_shrink.elapsed() >= Duration::from_secs(60) {
            s.limits.shrink();
            last_shrink = std::time::Instant::now();
        }
    }
}

/// Wakes this process's sockets for mail other relay processes stored (a store shared across
/// processes signals it, PostgreSQL through LISTEN/NOTIFY): a device connected here hears of
/// mail accepted anywhere at once. After a lost connection every socket re-reads its mailbox.
async fn wake_on_signals(
    state: std::sync::Weak<AppState>,
    mut signals: tokio::sync::mpsc::Receiver<crate::store::MailSignal>,
) {
    let mut alive = tokio::time::interval(Duration::from_secs(1));
    loop {
        // Stop (closing the listening connection) once the relay is gone, mail or not.
        let signal = tokio::select! {
            signal = signals.recv() => signal,
            _ = alive.tick() => {
                if state.strong_count() == 0 {
                    return;
                }
                continue;
            }
        };
        let Some(signal) = signal else { return };
        let Some(s) = state.upgrade() else { return };
        if let crate::store::MailSignal::DeviceReplaced(account, device, credential) = signal {
            delivery::close_replaced(&s, account, device, credential);
            continue;
        }
        let wakeups = s.wakeups.lock().expect("wakeup lock");
        match signal {
            crate::store::MailSignal::Mail(account, device) => {
                // Only sockets here have an entry worth waking; none is made for the others.
                if let Some(n) = wakeups.get(&(account, device)) {
                    n.notify_one();
                }
            }
            crate::store::MailSignal::Resync => {
                for n in wakeups.values() {
                    n.notify_one();
                }
                tokio::spawn(delivery::recheck_credentials(s.clone()));
            }
            crate::store::MailSignal::DeviceReplaced(..) => {}
        }
    }
}

/// Runs every request in a span `request{id=...}`, so each line logged for it carries its id
/// (the JSON log's `span.id`), and answers the id as `x-request-id`: a client's report can be
/// matched to the relay's lines without the log naming the client. A client's own
/// `x-request-id` is not taken: it would let anyone write into the log.
async fn request_span(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    use tracing::Instrument;
    let id = request_id();
    let mut r = next
        .run(req)
        .instrument(tracing::info_span!("request", id = %id))
        .await;
    if let Ok(v) = axum::http::HeaderValue::from_str(&id) {
        r.headers_mut().insert(REQUEST_ID, v);
    }
    r
}

/// The header that carries a request's id back to the client.
pub const REQUEST_ID: &str = "x-request-id";

/// A request id: 16 hex digits, counting up from a random start, so ids are unique within a
/// process and two relay nodes on one store are unlikely to share one.
fn request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static START: OnceLock<u64> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let start = *START.get_or_init(|| UnwrapErr(SysRng).next_u64());
    format!(
        "{:016x}",
        start.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed))
    )
}

/// Logs every request at debug level: method, route (its template, so no account id), status
/// and time taken.
async fn log_request(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return next.run(req).await;
    }
    let method = req.method().clone();
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "(no route)".to_string(), |p| p.as_str().to_string());
    let start = std::time::Instant::now();
    let r = next.run(req).await;
    tracing::debug!(
        %method,
        route,
        status = r.status().as_u16(),
        micros = start.elapsed().as_micros() as u64,
        "request"
    );
    r
}

/// The relay application on `store`.
pub fn app(store: Arc<dyn RelayStore>, config: Config) -> Router {
    app_draining(store, config, tokio::sync::watch::channel(false).1).0
}

/// The application, draining when `draining` turns true; with the socket count it waits on.
fn app_draining(
    store: Arc<dyn RelayStore>,
    config: Config,
    draining: tokio::sync::watch::Receiver<bool>,
) -> (Router, Arc<tokio::sync::Semaphore>) {
    let server_key = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let root = PrivateKey::from_bytes(config.trust_root);
    let server_cert =
        ServerCertificate::new(1, server_key.public_key(), &root, &mut UnwrapErr(SysRng));
    let max_sockets = config.max_sockets;
    let idle_timeout = config.idle_timeout;
    let sockets = Arc::new(tokio::sync::Semaphore::new(max_sockets));
    let state = Arc::new(AppState {
        store,
        limits: limits::Limiters::new(&config),
        credentials: credentials::Credentials::new(config.password_params.clone()),
        config,
        server_cert,
        server_key,
        wakeups: Mutex::new(HashMap::new()),
        device_cache: Mutex::new(HashMap::new()),
        live: Mutex::new(HashMap::new()),
        next_socket: Default::default(),
        sockets: sockets.clone(),
        shared_parts: Mutex::new(HashMap::new()),
        metrics: Arc::default(),
        draining,
    });
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        rt.spawn(janitor(Arc::downgrade(&state)));
        if let Some(signals) = state.store.mail_signals() {
            rt.spawn(wake_on_signals(Arc::downgrade(&state), signals));
        }
    }
    let router = Router::new()
        .route(paths::ACCOUNTS, post(accounts::create_account))
        .route(
            &format!("{}/{{device_id}}", paths::DEVICES),
            put(accounts::add_device),
        )
        .route(paths::ATTRIBUTES, put(accounts::put_attributes))
        .route(paths::KEYS, put(keys::put_keys).get(keys::key_counts))
        .route(
            &format!("{}/{{account}}/{{device}}", paths::KEYS_OF),
            get(keys::get_keys),
        )
        .route(paths::MULTI_RECIPIENT, put(messages::multi_recipient))
        .route(
            paths::MULTI_RECIPIENT_PARTS,
            put(messages::multi_recipient_parts),
        )
        .route(
            &format!("{}/{{account}}", paths::MESSAGES),
            put(messages::send),
        )
        .route(paths::DELIVERY_CERTIFICATE, get(auth::delivery_certificate))
        .route(paths::TRUST_ROOT, get(auth::trust_root))
        .route(paths::WEBSOCKET, get(delivery::websocket))
        .route(paths::METRICS, get(metrics::metrics))
        .route(paths::HEALTH, get(metrics::health))
        .route(paths::LIVE, get(metrics::live))
        .layer(axum::middleware::from_fn_with_state(state.clone(), delay))
        .layer(axum::middleware::from_fn(limits::client_address))
        .route_layer(axum::middleware::from_fn(log_request))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        // The whole request, body included: a body trickled in byte by byte ends here.
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            idle_timeout,
        ))
        .layer(axum::middleware::from_fn(request_span))
        .with_state(state);
    (router, sockets)
}

/// Serves the relay on `listener` until the future is dropped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Arc<dyn RelayStore>,
    config: Config,
) -> std::io::Result<()> {
    serve_with(listener, store, config, None, std::future::pending()).await
}

/// How long a drain waits for delivery sockets to close and acknowledgements to commit.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves the relay on `listener` (over TLS with `tls`) until `shutdown` completes, then drains:
/// stops accepting, lets requests under way finish (an answered send is stored, whatever
/// follows), closes every delivery socket once the acknowledgements it received have committed
/// (its other envelopes stay stored for the device's next socket, here or on another node), and
/// returns; at most [`DRAIN_TIMEOUT`] for the sockets.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    store: Arc<dyn RelayStore>,
    config: Config,
    tls: Option<Tls>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (drain_tx, drain_rx) = tokio::sync::watch::channel(false);
    let max_sockets = config.max_sockets;
    let head_timeout = config.head_timeout;
    let listener = connections::Capped::new(listener, &config);
    let (app, sockets) = app_draining(store, config, drain_rx);
    // Held here too, so the sockets' receivers never see the sender gone while serving.
    let drain_tx = Arc::new(drain_tx);
    let drain = drain_tx.clone();
    let signal = async move {
        shutdown.await;
        tracing::info!("draining");
        drain.send_replace(true);
    };
    match tls {
        None => connections::serve(listener, app, head_timeout, signal).await,
        Some(tls) => {
            let listener = tls::Listener::new(listener, tls);
            connections::serve(listener, app, head_timeout, signal).await
        }
    }
    // Every socket gives its permit back when it has closed.
    let all = u32::try_from(max_sockets).unwrap_or(u32::MAX);
    if tokio::time::timeout(DRAIN_TIMEOUT, sockets.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!(
            "drain: delivery sockets still open after {} s",
            DRAIN_TIMEOUT.as_secs()
        );
    }
    tracing::info!("drained");
    drop(drain_tx);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_leaves_the_trust_root_and_password_hashes_out() {
        let c = Config {
            trust_root: [0xAB; 32],
            ..Config::default()
        };
        let text = format!("{c:?}");
        assert!(
            !text.contains("171") && !text.contains("trust_root"),
            "{text}"
        );
        assert!(text.contains("mailbox_messages"), "{text}");
        let d = crate::store::DeviceInfo {
            device_id: 1,
            registration_id: 2,
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
        };
        let text = format!("{d:?}");
        assert!(
            !text.contains("argon2") && !text.contains("password"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn health_is_not_ready_while_draining_and_live_stays_up() {
        use tower_service::Service;
        let dir = tempfile::tempdir().expect("temporary directory");
        let store =
            crate::store::redb::RedbRelayStore::create(dir.path().join("r.redb")).expect("a store");
        let (drain, draining) = tokio::sync::watch::channel(false);
        let (mut app, _) = app_draining(Arc::new(store), Config::default(), draining);
        let mut get = |path: &str| {
            let req = axum::http::Request::get(path)
                .body(axum::body::Body::empty())
                .expect("a request");
            app.call(req)
        };
        let ready = get(paths::HEALTH).await.expect("an answer");
        assert_eq!(ready.status(), StatusCode::OK);
        let id = ready.headers().get(REQUEST_ID).expect("a request id");
        assert_eq!(id.len(), 16);
        let next = get(paths::HEALTH).await.expect("an answer");
        assert_ne!(next.headers().get(REQUEST_ID), Some(id), "ids differ");
        drain.send_replace(true);
        assert_eq!(
            get(paths::HEALTH).await.expect("an answer").status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            get(paths::LIVE).await.expect("an answer").status(),
            StatusCode::OK
        );
    }

    #[test]
    fn a_store_failure_answers_503_without_the_store_s_text() {
        let e = ApiError::from(Error::Store(
            "postgres: password authentication failed for user \"relay\" at 10.0.0.5".into(),
        ));
        assert_eq!(e.0, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(e.1.error, "service unavailable");
        let full = ApiError::from(Error::MailboxFull(Uuid::nil(), 3));
        assert_eq!(full.0, StatusCode::PAYLOAD_TOO_LARGE);
    }
}
