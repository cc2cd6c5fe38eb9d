//! The relay's HTTP and WebSocket API, with Signal-Server's semantics (`signal-stack.md`, section
//! 4): accounts and devices with per-device secrets (HTTP Basic), the prekey directory, mailboxes,
//! one-request multi-recipient sends, WebSocket delivery acknowledged per envelope, and sender
//! certificates.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alibi_channel::sealed_sender::v2::{self, SentMessage};
use alibi_channel::sealed_sender::{SenderCertificate, ServerCertificate};
use alibi_handshake::{xeddsa, KemPublicKey, PrivateKey, PublicKey};
use axum::body::Bytes;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use base64::Engine;
use futures_util::{SinkExt, StreamExt};
use getrandom::SysRng;
use prost::Message as _;
use rand_core::{Rng, UnwrapErr};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::{mpsc, Notify};
use uuid::Uuid;

use crate::access::{self, AccessKey};
use crate::proto::{Envelope, WebSocketMessage, WebSocketRequest};
use crate::store::{DeviceInfo, KeysUpload, RelayStore};
use crate::{now_ms, Error};

/// Largest request body accepted (a 1,000-recipient multi-recipient send is about 100 KB).
pub const MAX_BODY: usize = 2 * 1024 * 1024;
/// At most this many prekeys of each kind per upload (Signal-Server's limit).
pub const MAX_KEYS_PER_UPLOAD: usize = 100;
/// Envelopes in flight (pushed, not yet acknowledged) per WebSocket: bounds a connection's memory.
pub const WINDOW: usize = 64;
/// How often a connected device's mailbox is re-read when nothing was signalled (another relay
/// process on the same database may have queued for it).
pub const POLL: Duration = Duration::from_millis(250);

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

struct Bucket {
    tokens: f64,
    at: Instant,
}

struct AppState {
    store: Arc<dyn RelayStore>,
    config: Config,
    server_cert: ServerCertificate,
    server_key: PrivateKey,
    wakeups: Mutex<HashMap<(Uuid, u8), Arc<Notify>>>,
    buckets: Mutex<HashMap<(Uuid, u8), Bucket>>,
    device_cache: Mutex<HashMap<Uuid, CachedAccount>>,
    live: Mutex<HashMap<(Uuid, u8), mpsc::Sender<Envelope>>>,
}

/// Envelopes handed straight to a connected device's socket task, beyond which they wait in the
/// store (the socket task reads them from there when it has room).
const LIVE_QUEUE: usize = 1024;

/// After a commit: hands each envelope to its device's socket task if one is connected here, and
/// wakes it otherwise (its next store read finds the envelope).
fn hand_over(s: &AppState, deliveries: Vec<(Uuid, u8, Envelope)>) {
    let live = s.live.lock().expect("live lock");
    for (a, d, env) in deliveries {
        let pushed = live.get(&(a, d)).is_some_and(|tx| tx.try_send(env).is_ok());
        if !pushed {
            wakeup(s, a, d).notify_one();
        }
    }
}

/// What a send checks of an account: its devices and access key, and when they were read.
#[derive(Clone)]
struct CachedAccount {
    devices: Arc<Vec<DeviceInfo>>,
    access_key: Option<AccessKey>,
    at: Instant,
}

/// How long an account's device list is trusted from memory. Another relay on the same database
/// may add a device; within this time a send may still be checked against the old list (the
/// sender then learns of the device on its next send).
const DEVICE_CACHE_TTL: Duration = Duration::from_secs(1);

/// The account's devices and access key, from memory when fresh (no devices: no account).
async fn account(s: &AppState, account: Uuid) -> ApiResult<CachedAccount> {
    if let Some(a) = s.device_cache.lock().expect("cache lock").get(&account) {
        if a.at.elapsed() < DEVICE_CACHE_TTL {
            return Ok(a.clone());
        }
    }
    let a = CachedAccount {
        devices: Arc::new(s.store.devices(account).await?),
        access_key: s.store.access_key(account).await?,
        at: Instant::now(),
    };
    if !a.devices.is_empty() {
        s.device_cache
            .lock()
            .expect("cache lock")
            .insert(account, a.clone());
    }
    Ok(a)
}

/// The account's devices, from memory when fresh.
async fn devices(s: &AppState, a: Uuid) -> ApiResult<Arc<Vec<DeviceInfo>>> {
    Ok(account(s, a).await?.devices)
}

/// Checks an `Unidentified-Access-Key` header against `expected` in constant time; an account
/// without a key cannot be reached this way.
fn check_access_key(headers: &HeaderMap, expected: Option<AccessKey>) -> ApiResult<()> {
    let unauthorized = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong Unidentified-Access-Key",
        )
    };
    let given = headers
        .get(access::HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            base64::engine::general_purpose::STANDARD
                .decode(v.trim())
                .ok()
        })
        .ok_or_else(unauthorized)?;
    let expected = expected.ok_or_else(unauthorized)?;
    if given.len() != 16 || !bool::from(given.ct_eq(&expected[..])) {
        return Err(unauthorized());
    }
    Ok(())
}

type Shared = Arc<AppState>;

/// An error answer: a status and a one-line reason.
struct ApiError(StatusCode, String, Option<serde_json::Value>);

impl ApiError {
    fn new(code: StatusCode, msg: impl Into<String>) -> Self {
        Self(code, msg.into(), None)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = self.2.unwrap_or_else(|| json!({}));
        body["error"] = json!(self.1);
        (self.0, Json(body)).into_response()
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

type ApiResult<T> = Result<T, ApiError>;

fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The authenticated device of a request (HTTP Basic `uuid[.device]:secret`), rate limited.
async fn authenticate(s: &AppState, headers: &HeaderMap) -> ApiResult<(Uuid, u8)> {
    let unauthorized = || ApiError::new(StatusCode::UNAUTHORIZED, "missing or bad credentials");
    let h = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .ok_or_else(unauthorized)?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(h.trim())
        .map_err(|_| unauthorized())?;
    let decoded = String::from_utf8(decoded).map_err(|_| unauthorized())?;
    let (user, secret) = decoded.split_once(':').ok_or_else(unauthorized)?;
    let (account, device) = match user.split_once('.') {
        Some((a, d)) => (a, d.parse::<u8>().map_err(|_| unauthorized())?),
        None => (user, 1),
    };
    let account = Uuid::parse_str(account).map_err(|_| unauthorized())?;
    let devices = devices(s, account).await?;
    let d = devices
        .iter()
        .find(|d| d.device_id == device)
        .ok_or_else(unauthorized)?;
    if !bool::from(d.secret_hash.ct_eq(&hash_secret(secret))) {
        return Err(unauthorized());
    }
    rate_limit(s, account, device)?;
    Ok((account, device))
}

fn rate_limit(s: &AppState, account: Uuid, device: u8) -> ApiResult<()> {
    let rate = s.config.rate_per_device;
    let mut b = s.buckets.lock().expect("bucket lock");
    let now = Instant::now();
    let e = b.entry((account, device)).or_insert(Bucket {
        tokens: 2.0 * rate,
        at: now,
    });
    e.tokens = (e.tokens + now.duration_since(e.at).as_secs_f64() * rate).min(2.0 * rate);
    e.at = now;
    if e.tokens < 1.0 {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate limit exceeded",
        ));
    }
    e.tokens -= 1.0;
    Ok(())
}

fn wakeup(s: &AppState, account: Uuid, device: u8) -> Arc<Notify> {
    s.wakeups
        .lock()
        .expect("wakeup lock")
        .entry((account, device))
        .or_default()
        .clone()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateAccount {
    #[serde(with = "crate::b64")]
    identity_key: Vec<u8>,
    registration_id: u16,
    password: String,
}

async fn create_account(
    State(s): State<Shared>,
    Json(req): Json<CreateAccount>,
) -> ApiResult<Json<serde_json::Value>> {
    PublicKey::deserialize(&req.identity_key).map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "identity key: 33 bytes, 0x05 first",
        )
    })?;
    check_registration_id(req.registration_id)?;
    if req.password.len() < 16 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "password: at least 16 characters",
        ));
    }
    let account = Uuid::new_v4();
    s.store
        .create_account(
            account,
            &req.identity_key,
            DeviceInfo {
                device_id: 1,
                registration_id: req.registration_id,
                secret_hash: hash_secret(&req.password),
            },
        )
        .await?;
    Ok(Json(json!({"uuid": account.to_string(), "deviceId": 1})))
}

fn check_registration_id(r: u16) -> ApiResult<()> {
    if r == 0 || r > 0x3FFF {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "registration id: 1..=16383",
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AddDevice {
    registration_id: u16,
    password: String,
}

async fn add_device(
    State(s): State<Shared>,
    Path(device_id): Path<u8>,
    headers: HeaderMap,
    Json(req): Json<AddDevice>,
) -> ApiResult<StatusCode> {
    let (account, _) = authenticate(&s, &headers).await?;
    if !(2..=127).contains(&device_id) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "device id: 2..=127"));
    }
    check_registration_id(req.registration_id)?;
    if req.password.len() < 16 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "password: at least 16 characters",
        ));
    }
    s.store
        .add_device(
            account,
            DeviceInfo {
                device_id,
                registration_id: req.registration_id,
                secret_hash: hash_secret(&req.password),
            },
        )
        .await?;
    s.device_cache.lock().expect("cache lock").remove(&account);
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Attributes {
    #[serde(with = "crate::b64")]
    unidentified_access_key: Vec<u8>,
}

/// `PUT /v1/accounts/attributes`: the account's unidentified-access key (the primary sets it).
async fn put_attributes(
    State(s): State<Shared>,
    headers: HeaderMap,
    Json(req): Json<Attributes>,
) -> ApiResult<StatusCode> {
    let (account, _) = authenticate(&s, &headers).await?;
    let key: AccessKey = req
        .unidentified_access_key
        .try_into()
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "unidentifiedAccessKey: 16 bytes"))?;
    s.store.set_access_key(account, key).await?;
    s.device_cache.lock().expect("cache lock").remove(&account);
    Ok(StatusCode::NO_CONTENT)
}

async fn put_keys(
    State(s): State<Shared>,
    headers: HeaderMap,
    Json(keys): Json<KeysUpload>,
) -> ApiResult<StatusCode> {
    let (account, device) = authenticate(&s, &headers).await?;
    if keys.pre_keys.len() > MAX_KEYS_PER_UPLOAD || keys.pq_pre_keys.len() > MAX_KEYS_PER_UPLOAD {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "at most 100 prekeys of each kind",
        ));
    }
    let ik = s
        .store
        .identity_key(account)
        .await?
        .ok_or(Error::NotFound("account"))?;
    let ik = PublicKey::deserialize(&ik).map_err(|_| Error::Store("stored identity key".into()))?;
    let bad = |what: &str| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("{what}: bad key or signature"),
        )
    };
    if let Some(k) = &keys.signed_pre_key {
        PublicKey::deserialize(&k.public).map_err(|_| bad("signedPreKey"))?;
        if xeddsa::verify(&ik, &[&k.public], &k.signature).is_err() {
            return Err(bad("signedPreKey"));
        }
    }
    for k in keys
        .pq_pre_keys
        .iter()
        .chain(keys.pq_last_resort_pre_key.iter())
    {
        KemPublicKey::deserialize(&k.public).map_err(|_| bad("pqPreKey"))?;
        if xeddsa::verify(&ik, &[&k.public], &k.signature).is_err() {
            return Err(bad("pqPreKey"));
        }
    }
    for k in &keys.pre_keys {
        PublicKey::deserialize(&k.public).map_err(|_| bad("preKey"))?;
    }
    s.store.upload_keys(account, device, keys).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn key_counts(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> ApiResult<Json<serde_json::Value>> {
    let (account, device) = authenticate(&s, &headers).await?;
    let (ec, pq) = s.store.key_counts(account, device).await?;
    Ok(Json(json!({"count": ec, "pqCount": pq})))
}

async fn get_keys(
    State(s): State<Shared>,
    Path((target, which)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Json<serde_json::Value>> {
    authenticate(&s, &headers).await?;
    let target = Uuid::parse_str(&target)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "account: a UUID"))?;
    let ik = s
        .store
        .identity_key(target)
        .await?
        .ok_or(Error::NotFound("account"))?;
    let ids: Vec<u8> = if which == "*" {
        s.store
            .devices(target)
            .await?
            .iter()
            .map(|d| d.device_id)
            .collect()
    } else {
        vec![which
            .parse()
            .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "device: a number or *"))?]
    };
    let mut devices = vec![];
    for d in ids {
        if let Some(b) = s.store.take_bundle(target, d).await? {
            devices.push(b);
        }
    }
    if devices.is_empty() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no keys for that device",
        ));
    }
    Ok(Json(json!({
        "identityKey": base64::engine::general_purpose::STANDARD.encode(&ik),
        "devices": devices,
    })))
}

/// One device's message in a `PUT /v1/messages/{account}` request.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingMessage {
    /// Envelope type: 1 ciphertext, 3 PreKey message, 6 unidentified sender.
    #[serde(rename = "type")]
    pub kind: u32,
    /// The recipient device.
    pub destination_device_id: u8,
    /// The registration id the sender's session has for that device.
    pub destination_registration_id: u16,
    /// The message.
    #[serde(with = "crate::b64")]
    pub content: Vec<u8>,
}

#[derive(Deserialize)]
struct SendRequest {
    messages: Vec<OutgoingMessage>,
    #[serde(default)]
    timestamp: u64,
}

/// Signal-Server's device checks: 409 for missing or extra devices, 410 for stale registrations.
fn check_devices(devices: &[DeviceInfo], given: &[(u8, u16)], skip: Option<u8>) -> ApiResult<()> {
    let mut missing = vec![];
    let mut extra = vec![];
    let mut stale = vec![];
    for d in devices {
        if Some(d.device_id) == skip {
            continue;
        }
        match given.iter().find(|g| g.0 == d.device_id) {
            None => missing.push(d.device_id),
            Some(g) if g.1 != d.registration_id => stale.push(d.device_id),
            Some(_) => {}
        }
    }
    for g in given {
        if !devices.iter().any(|d| d.device_id == g.0) || Some(g.0) == skip {
            extra.push(g.0);
        }
    }
    if !missing.is_empty() || !extra.is_empty() {
        return Err(ApiError(
            StatusCode::CONFLICT,
            "missing or extra devices".into(),
            Some(json!({"missingDevices": missing, "extraDevices": extra})),
        ));
    }
    if !stale.is_empty() {
        return Err(ApiError(
            StatusCode::GONE,
            "stale registration ids".into(),
            Some(json!({"staleDevices": stale})),
        ));
    }
    Ok(())
}

async fn send(
    State(s): State<Shared>,
    Path(target): Path<String>,
    headers: HeaderMap,
    Json(req): Json<SendRequest>,
) -> ApiResult<Json<serde_json::Value>> {
    let target = Uuid::parse_str(&target)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "account: a UUID"))?;
    // Signal's two ways in: the sender's own credentials, or (for sealed sender, the sender
    // unnamed) the recipient's access key.
    let unidentified = !headers.contains_key(axum::http::header::AUTHORIZATION)
        && headers.contains_key(access::HEADER);
    let sender = if unidentified {
        None
    } else {
        Some(authenticate(&s, &headers).await?)
    };
    let target_account = account(&s, target).await?;
    if unidentified {
        check_access_key(&headers, target_account.access_key)?;
        rate_limit(&s, target, 0)?;
    }
    let devices = target_account.devices;
    if devices.is_empty() {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "no such account"));
    }
    for m in &req.messages {
        if ![1, 3, 6].contains(&m.kind) {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "type: 1, 3 or 6"));
        }
        if unidentified && m.kind != 6 {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "an unidentified send carries sealed-sender messages only (type 6)",
            ));
        }
    }
    let given: Vec<(u8, u16)> = req
        .messages
        .iter()
        .map(|m| (m.destination_device_id, m.destination_registration_id))
        .collect();
    let own_device = sender.and_then(|(a, d)| (a == target).then_some(d));
    check_devices(&devices, &given, own_device)?;
    let now = now_ms();
    let deliveries = req
        .messages
        .into_iter()
        .map(|m| {
            let sealed = m.kind == 6;
            (
                target,
                m.destination_device_id,
                Envelope {
                    r#type: m.kind,
                    source_service_id: sender.filter(|_| !sealed).map(|(a, _)| a.to_string()),
                    source_device: sender.filter(|_| !sealed).map(|(_, d)| d.into()),
                    client_timestamp: req.timestamp,
                    content: m.content,
                    server_guid: crate::next_message_id().as_bytes().to_vec(),
                    server_timestamp: now,
                    shared_mrm_key: None,
                    destination_device: m.destination_device_id.into(),
                },
            )
        })
        .collect::<Vec<_>>();
    s.store.enqueue(deliveries.clone(), None).await?;
    hand_over(&s, deliveries);
    Ok(Json(json!({"needsSync": false})))
}

async fn multi_recipient(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<serde_json::Value>> {
    let sent = SentMessage::parse(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("multi-recipient body: {e}"),
        )
    })?;
    let mut deliveries = vec![];
    let key = Uuid::new_v4();
    let now = now_ms();
    let mut unknown = vec![];
    let mut accounts = Vec::with_capacity(sent.recipients.len());
    for r in &sent.recipients {
        if r.devices.is_empty() {
            continue;
        }
        let a = account(&s, r.service_id.uuid).await?;
        if a.devices.is_empty() {
            unknown.push(r.service_id.uuid.to_string());
        }
        accounts.push((r, a));
    }
    if !unknown.is_empty() {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "unknown recipients".into(),
            Some(json!({"uuids404": unknown})),
        ));
    }
    // The sender proves it may reach every recipient: the XOR of their access keys.
    let keys: Option<Vec<AccessKey>> = accounts.iter().map(|(_, a)| a.access_key).collect();
    check_access_key(&headers, keys.map(|k| access::combine(&k)))?;
    for (r, a) in accounts {
        check_devices(&a.devices, &r.devices, None)?;
        let account = r.service_id.uuid;
        let c_and_at = sent.key_material(r).expect("has devices").to_vec();
        // Stored per device: C || AT (48 bytes); the rest is the shared part.
        for &(d, _) in &r.devices {
            deliveries.push((
                account,
                d,
                Envelope {
                    r#type: 6,
                    source_service_id: None,
                    source_device: None,
                    client_timestamp: now,
                    content: c_and_at.clone(),
                    server_guid: crate::next_message_id().as_bytes().to_vec(),
                    server_timestamp: now,
                    shared_mrm_key: Some(key.as_bytes().to_vec()),
                    destination_device: d.into(),
                },
            ));
        }
    }
    s.store
        .enqueue(
            deliveries.clone(),
            Some((key, sent.shared_bytes().to_vec())),
        )
        .await?;
    let shared = sent.shared_bytes();
    let full = deliveries
        .into_iter()
        .map(|(a, d, mut env)| {
            env.content = v2::received_message(&env.content, shared);
            (a, d, env)
        })
        .collect();
    hand_over(&s, full);
    Ok(Json(json!({"uuids404": []})))
}

async fn delivery_certificate(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> ApiResult<Json<serde_json::Value>> {
    let (account, device) = authenticate(&s, &headers).await?;
    let ik = s
        .store
        .identity_key(account)
        .await?
        .ok_or(Error::NotFound("account"))?;
    let ik = PublicKey::deserialize(&ik).map_err(|_| Error::Store("stored identity key".into()))?;
    let cert = SenderCertificate::new(
        account.to_string(),
        None,
        ik,
        device.into(),
        now_ms() + s.config.certificate_lifetime.as_millis() as u64,
        s.server_cert.clone(),
        &s.server_key,
        &mut UnwrapErr(SysRng),
    );
    Ok(Json(
        json!({"certificate": base64::engine::general_purpose::STANDARD.encode(cert.serialized())}),
    ))
}

async fn trust_root(State(s): State<Shared>) -> Json<serde_json::Value> {
    let root = PrivateKey::from_bytes(s.config.trust_root).public_key();
    Json(json!({"trustRoot": base64::engine::general_purpose::STANDARD.encode(root.serialize())}))
}

async fn websocket(
    State(s): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> ApiResult<Response> {
    let (account, device) = authenticate(&s, &headers).await?;
    Ok(ws
        .max_message_size(64 * 1024)
        .on_upgrade(move |socket| deliver(s, account, device, socket)))
}

/// One connected device: what it has been sent and not yet acknowledged, and what waits.
struct Conn {
    next_id: u64,
    in_flight: HashMap<u64, Uuid>,
    sent: std::collections::HashSet<Uuid>,
    backlog: std::collections::VecDeque<Envelope>,
    /// Something may be in the store that is neither in flight nor in the backlog.
    check_store: bool,
    announced_empty: bool,
}

impl Conn {
    async fn push(&mut self, socket: &mut WebSocket, env: Envelope) -> bool {
        let Ok(guid) = Uuid::from_slice(&env.server_guid) else {
            return true;
        };
        if !self.sent.insert(guid) {
            return true;
        }
        let frame = WebSocketMessage {
            r#type: 1,
            request: Some(WebSocketRequest {
                verb: "PUT".into(),
                path: "/api/v1/message".into(),
                body: env.encode_to_vec(),
                id: self.next_id,
            }),
            response: None,
        };
        self.in_flight.insert(self.next_id, guid);
        self.next_id += 1;
        self.announced_empty = false;
        // Fed, not flushed: the loop flushes once per turn, so a burst costs one write.
        socket
            .feed(WsMessage::Binary(frame.encode_to_vec().into()))
            .await
            .is_ok()
    }
}

/// Pushes the device's mailbox, at most [`WINDOW`] envelopes unacknowledged at a time, deleting
/// each on its 200 answer. New mail comes straight from this relay's send handlers, or from the
/// store when signalled, when the hand-over queue overflowed, or on a timer (another relay process
/// on the same database may have queued for this device).
async fn deliver(s: Shared, account: Uuid, device: u8, mut socket: WebSocket) {
    let notify = wakeup(&s, account, device);
    let (tx, mut live) = mpsc::channel(LIVE_QUEUE);
    s.live
        .lock()
        .expect("live lock")
        .insert((account, device), tx);
    let mut c = Conn {
        next_id: 1,
        in_flight: HashMap::new(),
        sent: Default::default(),
        backlog: Default::default(),
        check_store: true,
        announced_empty: false,
    };
    let _ = deliver_loop(&s, account, device, &mut socket, &notify, &mut live, &mut c).await;
    s.live.lock().expect("live lock").remove(&(account, device));
}

#[allow(clippy::too_many_arguments)]
async fn deliver_loop(
    s: &AppState,
    account: Uuid,
    device: u8,
    socket: &mut WebSocket,
    notify: &Notify,
    live: &mut mpsc::Receiver<Envelope>,
    c: &mut Conn,
) -> Option<()> {
    let mut acking = futures_util::stream::FuturesUnordered::new();
    loop {
        while c.in_flight.len() < WINDOW {
            let Some(env) = c.backlog.pop_front() else {
                break;
            };
            if !c.push(socket, env).await {
                return None;
            }
        }
        if c.check_store && c.in_flight.len() < WINDOW {
            c.check_store = false;
            let pending = s
                .store
                .pending(account, device, WINDOW + c.in_flight.len())
                .await
                .ok()?;
            for mut env in pending {
                if c.in_flight.len() >= WINDOW {
                    c.check_store = true;
                    break;
                }
                if Uuid::from_slice(&env.server_guid).is_ok_and(|g| c.sent.contains(&g)) {
                    continue;
                }
                if let Some(key) = env.shared_mrm_key.clone() {
                    let key = Uuid::from_slice(&key).unwrap_or_default();
                    let Ok(Some(shared)) = s.store.shared(key).await else {
                        continue;
                    };
                    env.content = v2::received_message(&env.content, &shared);
                }
                if !c.push(socket, env).await {
                    return None;
                }
            }
        }
        if c.in_flight.is_empty() && c.backlog.is_empty() && !c.check_store && !c.announced_empty {
            let frame = WebSocketMessage {
                r#type: 1,
                request: Some(WebSocketRequest {
                    verb: "PUT".into(),
                    path: "/api/v1/queue/empty".into(),
                    body: vec![],
                    id: 0,
                }),
                response: None,
            };
            socket
                .feed(WsMessage::Binary(frame.encode_to_vec().into()))
                .await
                .ok()?;
            c.announced_empty = true;
        }
        socket.flush().await.ok()?;
        tokio::select! {
            msg = socket.recv() => {
                match msg?.ok()? {
                    WsMessage::Binary(b) => {
                        let frame = WebSocketMessage::decode(&b[..]).ok()?;
                        if let Some(r) = frame.response {
                            if let Some(guid) = c.in_flight.remove(&r.id) {
                                if r.status == 200 {
                                    // The deletion commits in the background so the window
                                    // moves on at once; the id stays in `sent` until it has
                                    // committed, so a store read cannot push it again.
                                    let store = s.store.clone();
                                    acking.push(async move {
                                        (guid, store.ack(account, device, guid).await)
                                    });
                                } else {
                                    // Not accepted: it stays in the store and comes again later.
                                    c.sent.remove(&guid);
                                    c.check_store = true;
                                }
                            }
                        }
                    }
                    WsMessage::Close(_) => return None,
                    _ => {}
                }
            }
            Some((guid, done)) = acking.next(), if !acking.is_empty() => {
                done.ok()?;
                c.sent.remove(&guid);
            }
            env = live.recv() => {
                let env = env?;
                if c.backlog.len() < LIVE_QUEUE {
                    c.backlog.push_back(env);
                } else {
                    c.check_store = true;
                }
            }
            _ = notify.notified() => c.check_store = true,
            _ = tokio::time::sleep(POLL) => c.check_store = true,
        }
    }
}

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
        .route("/v1/accounts", post(create_account))
        .route("/v1/devices/{device_id}", put(add_device))
        .route("/v1/accounts/attributes", put(put_attributes))
        .route("/v2/keys", put(put_keys).get(key_counts))
        .route("/v2/keys/{account}/{device}", get(get_keys))
        .route("/v1/messages/multi_recipient", put(multi_recipient))
        .route("/v1/messages/{account}", put(send))
        .route("/v1/certificate/delivery", get(delivery_certificate))
        .route("/v1/certificate/trust_root", get(trust_root))
        .route("/v1/websocket/", get(websocket))
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
