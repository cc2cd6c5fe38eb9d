//! The relay's HTTP and WebSocket API, with Signal-Server's semantics (`signal-stack.md`, section
//! 4), split by concern:
//!
//! * [`auth`]: device credentials (HTTP Basic), access keys, rate limits, sender certificates;
//! * [`accounts`]: accounts, devices and their attributes;
//! * [`keys`]: the prekey directory;
//! * [`messages`]: sends, one account or many recipients in one request;
//! * [`delivery`]: the WebSocket that pushes each device's mail until acknowledged.
//!
//! The bodies are `alibi-relay-api`'s, the contract the clients build on.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alibi_channel::sealed_sender::ServerCertificate;
use alibi_handshake::PrivateKey;
use alibi_relay_api::proto::Envelope;
use alibi_relay_api::{paths, ErrorBody};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use tokio::sync::{mpsc, Notify};
use uuid::Uuid;

use crate::store::RelayStore;
use crate::Error;

pub mod accounts;
pub mod auth;
pub mod delivery;
pub mod keys;
pub mod messages;

pub use alibi_relay_api::keys::MAX_KEYS_PER_UPLOAD;
pub use delivery::{POLL, WINDOW};
pub use messages::MAX_RECIPIENTS;

/// Largest request body accepted (a 1,000-recipient multi-recipient send is about 100 KB).
pub const MAX_BODY: usize = 2 * 1024 * 1024;

/// How the relay is run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Delay added to every request, modelling a WAN round trip.
    pub delay: Duration,
    /// Requests per second each device may make (token bucket; burst of twice that).
    pub rate_per_device: f64,
    /// Sender certificates' lifetime.
    pub certificate_lifetime: Duration,
    /// The trust root's private key (its public key is what clients pin).
    pub trust_root: [u8; 32],
}

impl Default for Config {
    fn default() -> Self {
        let mut trust_root = [0u8; 32];
        UnwrapErr(SysRng).fill_bytes(&mut trust_root);
        Self {
            delay: Duration::ZERO,
            rate_per_device: 10_000.0,
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
    /// Per device: its rate-limit bucket.
    pub(crate) buckets: Mutex<HashMap<(Uuid, u8), auth::Bucket>>,
    /// Per account: its devices and access key, recently read.
    pub(crate) device_cache: Mutex<HashMap<Uuid, accounts::CachedAccount>>,
    /// Per connected device: the queue into its socket task.
    pub(crate) live: Mutex<HashMap<(Uuid, u8), mpsc::Sender<Envelope>>>,
}

pub(crate) type Shared = Arc<AppState>;

/// An error answer: a status and the contract's error body (boxed: handlers return it on the
/// error path of every `Result`, which stays small).
pub(crate) struct ApiError(StatusCode, Box<ErrorBody>);

impl ApiError {
    pub(crate) fn new(code: StatusCode, msg: impl Into<String>) -> Self {
        Self(code, Box::new(ErrorBody::new(msg)))
    }

    /// An answer with more than a reason (the device lists of 404, 409 and 410).
    pub(crate) fn with(code: StatusCode, body: ErrorBody) -> Self {
        Self(code, Box::new(body))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(*self.1)).into_response()
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::AccountExists => ApiError::new(StatusCode::CONFLICT, "account exists"),
            Error::NotFound(w) => ApiError::new(StatusCode::NOT_FOUND, format!("{w} not found")),
            Error::BadRequest(m) => ApiError::new(StatusCode::BAD_REQUEST, m),
            e => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
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

/// The relay application on `store`.
pub fn app(store: Arc<dyn RelayStore>, config: Config) -> Router {
    let server_key = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let root = PrivateKey::from_bytes(config.trust_root);
    let server_cert =
        ServerCertificate::new(1, server_key.public_key(), &root, &mut UnwrapErr(SysRng));
    let state = Arc::new(AppState {
        store,
        config,
        server_cert,
        server_key,
        wakeups: Mutex::new(HashMap::new()),
        buckets: Mutex::new(HashMap::new()),
        device_cache: Mutex::new(HashMap::new()),
        live: Mutex::new(HashMap::new()),
    });
    Router::new()
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
            &format!("{}/{{account}}", paths::MESSAGES),
            put(messages::send),
        )
        .route(paths::DELIVERY_CERTIFICATE, get(auth::delivery_certificate))
        .route(paths::TRUST_ROOT, get(auth::trust_root))
        .route(paths::WEBSOCKET, get(delivery::websocket))
        .layer(axum::middleware::from_fn_with_state(state.clone(), delay))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serves the relay on `listener` until the future is dropped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Arc<dyn RelayStore>,
    config: Config,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // No Nagle: small WebSocket frames and answers go out at once instead of waiting for the
    // peer's delayed ACK (40 ms on Linux), which would otherwise pace every protocol round.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(
        listener,
        app(store, config).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
}
