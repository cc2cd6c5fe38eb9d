//! Delivery: the WebSocket that pushes a device's mail, at most [`WINDOW`] envelopes
//! unacknowledged at a time, deleting each when the device answers 200.
//!
//! What a connection may cost is bounded: one socket per device (a new one replaces the old),
//! [`super::Config::max_sockets`] in total, a write buffer of [`WRITE_BUFFER`] (a reader that does
//! not take a frame within the send timeout is disconnected; its envelopes stay in the store), and
//! an idle timeout kept by pings. The shared part of a multi-recipient send is never copied per
//! device: every device's frame is its own short head followed by the one shared buffer, written
//! as WebSocket continuation frames of at most [`CHUNK`] bytes.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use alibi_relay_api::paths;
use alibi_relay_api::proto::{
    web_socket_message, Envelope, WebSocketMessage, WebSocketRequestMessage,
};
use alibi_sealed_sender::v2::RECEIVED_VERSION;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use prost::encoding::{encode_key, encode_varint, WireType};
use prost::Message as _;
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::WebSocketStream;
use tracing::Instrument;
use uuid::Uuid;

use super::auth::authenticate_device;
use super::limits::ClientAddress;
use super::metrics::{Metrics, Op};
use super::{ApiError, ApiResult, AppState, Shared};

/// Envelopes in flight (pushed, not yet acknowledged) per WebSocket: bounds a connection's memory.
pub const WINDOW: usize = 64;

/// How often a connected device's mailbox is re-read when nothing was signalled: a backstop only,
/// since mail stored by this process wakes the socket directly and mail stored by another process
/// on a shared store arrives as a signal (PostgreSQL's LISTEN/NOTIFY).
pub const POLL: Duration = Duration::from_secs(30);

/// Envelopes handed straight to a connected device's socket task, beyond which they wait in the
/// store (the socket task reads them from there when it has room).
const LIVE_QUEUE: usize = 1024;

/// How long a draining relay waits for a socket's outstanding acknowledgements (and then for
/// them to commit).
pub const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Acknowledged envelopes a socket remembers (more than its live queue holds, so a copy waiting
/// there is always recognised).
const REMEMBERED_ACKS: usize = 4 * LIVE_QUEUE;

/// Largest WebSocket frame the relay writes: a shared part goes out in pieces of this size.
pub const CHUNK: usize = 64 * 1024;

/// A socket's write buffer: written out to the kernel once it holds this much.
pub const WRITE_BUFFER: usize = 128 * 1024;

/// The envelope field `content` (envelope.proto) and the request field `body` and message field
/// `request` (websocket.proto): a frame with a shared part puts these last, so the shared part is
/// the frame's tail.
const ENVELOPE_CONTENT: u32 = 8;
const REQUEST_BODY: u32 = 3;
const MESSAGE_REQUEST: u32 = 2;

/// An envelope on its way to a socket. For a multi-recipient send `env.content` is the device's
/// `C || AT` and `shared` the part every recipient shares (a reference, never a copy).
#[derive(Clone)]
pub(crate) struct Outgoing {
    pub(crate) env: Envelope,
    pub(crate) shared: Option<Bytes>,
}

/// The socket of a connected device, as the send handlers and a replacing socket see it.
pub(crate) struct LiveSocket {
    tx: mpsc::Sender<Outgoing>,
    id: u64,
    displaced: Arc<Notify>,
    /// The credential fingerprint of the password the socket was opened with.
    credential: [u8; 32],
}

impl LiveSocket {
    /// Hands an envelope to the socket task; false if its queue is full or it has gone.
    pub(crate) fn offer(&self, out: Outgoing) -> bool {
        self.tx.try_send(out).is_ok()
    }
}

/// A shared multi-recipient part read from the store, held by every socket that pushes it.
struct Held(Arc<Vec<u8>>);

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The shared part `key`, from memory if a socket holds it already, else read once from the store.
async fn shared_part(s: &AppState, key: Uuid) -> Option<Bytes> {
    if let Some(p) = s
        .shared_parts
        .lock()
        .expect("shared lock")
        .get(&key)
        .and_then(Weak::upgrade)
    {
        return Some(Bytes::from_owner(Held(p)));
    }
    let p = Arc::new(s.store.shared(key).await.ok()??);
    let mut parts = s.shared_parts.lock().expect("shared lock");
    if parts.len() >= 1024 {
        parts.retain(|_, w| w.strong_count() > 0);
    }
    parts.insert(key, Arc::downgrade(&p));
    Some(Bytes::from_owner(Held(p)))
}

/// The device's wake-up signal.
pub(crate) fn wakeup(s: &AppState, account: Uuid, device: u8) -> Arc<Notify> {
    s.wakeups
        .lock()
        .expect("wakeup lock")
        .entry((account, device))
        .or_default()
        .clone()
}

/// A frame carrying `out` as request `id`: its head, and the shared part that follows it (the
/// fields are written in an order of our choosing, which protobuf decoders accept).
fn frame(id: u64, out: &Outgoing) -> (Vec<u8>, Option<Bytes>) {
    let Some(shared) = &out.shared else {
        let m = WebSocketMessage::request(id, "PUT", paths::WS_MESSAGE, out.env.encode_to_vec());
        return (m.encode_to_vec(), None);
    };
    let key_material = out.env.content();
    let mut env_head = Envelope {
        content: None,
        ..out.env.clone()
    }
    .encode_to_vec();
    encode_key(ENVELOPE_CONTENT, WireType::LengthDelimited, &mut env_head);
    encode_varint(
        (1 + key_material.len() + shared.len()) as u64,
        &mut env_head,
    );
    env_head.push(RECEIVED_VERSION);
    env_head.extend_from_slice(key_material);

    let mut req_head = WebSocketRequestMessage {
        verb: Some("PUT".into()),
        path: Some(paths::WS_MESSAGE.into()),
        body: None,
        headers: vec![],
        id: Some(id),
    }
    .encode_to_vec();
    encode_key(REQUEST_BODY, WireType::LengthDelimited, &mut req_head);
    encode_varint((env_head.len() + shared.len()) as u64, &mut req_head);
    req_head.extend_from_slice(&env_head);

    let mut head = WebSocketMessage {
        r#type: Some(web_socket_message::Type::Request.into()),
        request: None,
        response: None,
    }
    .encode_to_vec();
    encode_key(MESSAGE_REQUEST, WireType::LengthDelimited, &mut head);
    encode_varint((req_head.len() + shared.len()) as u64, &mut head);
    head.extend_from_slice(&req_head);
    (head, Some(shared.clone()))
}

/// `GET /v1/websocket/`: the authenticated device's delivery socket (the WebSocket handshake of
/// RFC 6455, section 4.2, answered here so the connection is ours to write frame by frame).
pub(crate) async fn websocket(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    mut req: axum::extract::Request,
) -> ApiResult<Response> {
    let ((account, device), credential) = authenticate_device(&s, req.headers(), from).await?;
    let key = handshake_key(req.headers())
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "not a WebSocket handshake"))?;
    let on_upgrade = req
        .extensions_mut()
        .remove::<hyper::upgrade::OnUpgrade>()
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "connection cannot be upgraded"))?;
    if *s.draining.borrow() {
        return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "draining")
            .retry_after(Duration::from_secs(1)));
    }
    let permit = s.sockets.clone().try_acquire_owned().map_err(|_| {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "too many connections")
            .retry_after(Duration::from_secs(5))
    })?;
    let place = take_place(&s, account, device, credential);
    let upgrade_by = s.config.head_timeout;
    tokio::spawn(
        async move {
            let Ok(Ok(upgraded)) = tokio::time::timeout(upgrade_by, on_upgrade).await else {
                leave(&s, account, device, place.id);
                return;
            };
            let config = WebSocketConfig::default()
                .write_buffer_size(WRITE_BUFFER)
                .max_write_buffer_size(WRITE_BUFFER + 2 * CHUNK)
                // Clients only send acknowledgements: small reads (each zero-fills its buffer
                // first, 128 KiB by default).
                .read_buffer_size(4096)
                .max_message_size(Some(64 * 1024))
                .max_frame_size(Some(64 * 1024));
            let ws = WebSocketStream::from_raw_socket(
                TokioIo::new(upgraded),
                Role::Server,
                Some(config),
            )
            .await;
            deliver(s, account, device, ws, permit, place).await;
        }
        // The socket's lines carry the id of the request that opened it.
        .instrument(tracing::Span::current()),
    );
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    let mut r = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let h = r.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(
        header::SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).expect("base64"),
    );
    Ok(r)
}

/// The `Sec-WebSocket-Key` of a version-13 upgrade request, if it is one.
fn handshake_key(h: &HeaderMap) -> Option<String> {
    let has_token = |name: header::HeaderName, token: &str| {
        h.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    if !has_token(header::CONNECTION, "upgrade") || !has_token(header::UPGRADE, "websocket") {
        return None;
    }
    if h.get(header::SEC_WEBSOCKET_VERSION)?.as_bytes() != b"13" {
        return None;
    }
    Some(h.get(header::SEC_WEBSOCKET_KEY)?.to_str().ok()?.to_owned())
}

type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// One connected device: what it has been sent and not yet acknowledged, and what waits.
struct Conn {
    next_id: u64,
    /// Request id -> (envelope id, when it was pushed).
    in_flight: HashMap<u64, (Uuid, Instant)>,
    sent: HashSet<Uuid>,
    /// The last [`REMEMBERED_ACKS`] envelopes this socket had acknowledged and deleted: an
    /// envelope handed over live may still wait in the backlog after a store read pushed it and
    /// its acknowledgement committed, and must not go out again.
    acked: HashSet<Uuid>,
    acked_order: VecDeque<Uuid>,
    backlog: VecDeque<Outgoing>,
    /// Something may be in the store that is neither in flight nor in the backlog.
    check_store: bool,
    /// A store read came back full of envelopes already sent (their acknowledgements still
    /// committing): read again once one has committed, not at once.
    more_after_ack: bool,
    announced_empty: bool,
    send_timeout: Duration,
    ack_timeout: Duration,
    metrics: Arc<Metrics>,
}

impl Conn {
    /// The envelope's deletion has committed.
    fn acknowledged(&mut self, guid: Uuid) {
        self.sent.remove(&guid);
        if self.acked.insert(guid) {
            self.acked_order.push_back(guid);
            if self.acked_order.len() > REMEMBERED_ACKS {
                if let Some(old) = self.acked_order.pop_front() {
                    self.acked.remove(&old);
                }
            }
        }
    }

    /// Writes one envelope's frame (fed, not flushed: the loop flushes once per turn, so a burst
    /// costs one write); false if the socket failed or the reader did not keep up.
    async fn push(&mut self, socket: &mut Socket, out: Outgoing) -> bool {
        let Some(guid) = out.env.guid() else {
            return true;
        };
        if self.acked.contains(&guid) || !self.sent.insert(guid) {
            return true;
        }
        let (head, tail) = frame(self.next_id, &out);
        self.in_flight.insert(self.next_id, (guid, Instant::now()));
        self.next_id += 1;
        self.announced_empty = false;
        // Every frame goes out in pieces of at most CHUNK bytes (the head, then the shared part
        // by reference), so the write buffer stays small whatever the envelope's size.
        let head = Bytes::from(head);
        let tail = tail.unwrap_or_default();
        let pieces = chunks(&head).chain(chunks(&tail));
        // The head is never empty (it holds at least the message type).
        let n = head.len().div_ceil(CHUNK) + tail.len().div_ceil(CHUNK);
        let write = async {
            for (i, piece) in pieces.enumerate() {
                let op = if i == 0 { Data::Binary } else { Data::Continue };
                let f = Frame::message(piece, OpCode::Data(op), i + 1 == n);
                socket.feed(WsMessage::Frame(f)).await?;
            }
            Ok::<_, tokio_tungstenite::tungstenite::Error>(())
        };
        let ok = matches!(
            tokio::time::timeout(self.send_timeout, write).await,
            Ok(Ok(()))
        );
        if ok {
            Metrics::add(&self.metrics.pushed, 1);
        }
        ok
    }
}

/// `b` in pieces of at most [`CHUNK`] bytes, by reference (none for an empty `b`).
fn chunks(b: &Bytes) -> impl Iterator<Item = Bytes> + '_ {
    (0..b.len().div_ceil(CHUNK)).map(move |i| b.slice(i * CHUNK..((i + 1) * CHUNK).min(b.len())))
}

/// Pushes the device's mailbox until the socket closes, fails, falls behind, goes idle, or is
/// replaced by a newer socket of the same device.
async fn deliver(
    s: Shared,
    account: Uuid,
    device: u8,
    mut socket: Socket,
    _permit: OwnedSemaphorePermit,
    mut place: Place,
) {
    let notify = wakeup(&s, account, device);
    let mut c = Conn {
        next_id: 1,
        in_flight: HashMap::new(),
        sent: Default::default(),
        acked: Default::default(),
        acked_order: Default::default(),
        backlog: Default::default(),
        check_store: true,
        more_after_ack: false,
        announced_empty: false,
        send_timeout: s.config.send_timeout,
        ack_timeout: s.config.ack_timeout,
        metrics: s.metrics.clone(),
    };
    let ends = Ends {
        notify: &notify,
        displaced: &place.displaced,
    };
    let _ = deliver_loop(
        &s,
        account,
        device,
        &mut socket,
        ends,
        &mut place.rx,
        &mut c,
    )
    .await;
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
    leave(&s, account, device, place.id);
}

/// A socket's place among the connected devices.
struct Place {
    id: u64,
    rx: mpsc::Receiver<Outgoing>,
    displaced: Arc<Notify>,
}

/// Takes the device's place for a new socket, closing the one that held it. Taken when the
/// upgrade is answered, not when the socket task starts, so the later socket of a device always
/// replaces the earlier one.
fn take_place(s: &AppState, account: Uuid, device: u8, credential: [u8; 32]) -> Place {
    let (tx, rx) = mpsc::channel(LIVE_QUEUE);
    let displaced = Arc::new(Notify::new());
    let id = s
        .next_socket
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let old = s.live.lock().expect("live lock").insert(
        (account, device),
        LiveSocket {
            tx,
            id,
            displaced: displaced.clone(),
            credential,
        },
    );
    if let Some(old) = old {
        old.displaced.notify_one();
    }
    Place { id, rx, displaced }
}

/// Closes the device's socket if it was opened under other credentials than `current` (the
/// device was replaced: its old holder must stop receiving, and acknowledging, the new one's
/// mail at once), and forgets the account's cached devices, so that its old password stops
/// working here too, whichever path (a signal, or the recheck after a lost one) brought the news.
pub(crate) fn close_replaced(s: &AppState, account: Uuid, device: u8, current: [u8; 32]) {
    s.device_cache.lock().expect("cache lock").remove(&account);
    let mut l = s.live.lock().expect("live lock");
    if l.get(&(account, device))
        .is_some_and(|x| x.credential != current)
    {
        if let Some(old) = l.remove(&(account, device)) {
            old.displaced.notify_one();
        }
    }
}

/// Checks every socket's credentials against the store, closing those of replaced or removed
/// devices: after a lost store connection, replacement signals may have been missed.
pub(crate) async fn recheck_credentials(s: Shared) {
    let live: Vec<((Uuid, u8), [u8; 32])> = s
        .live
        .lock()
        .expect("live lock")
        .iter()
        .map(|(k, v)| (*k, v.credential))
        .collect();
    for ((account, device), _) in live {
        let Ok(devices) = s.store.devices(account).await else {
            continue;
        };
        let current = devices
            .iter()
            .find(|d| d.device_id == device)
            .map_or([0; 32], |d| {
                crate::store::credential_fingerprint(&d.password_hash)
            });
        close_replaced(&s, account, device, current);
    }
}

/// Gives the place up, unless a newer socket has taken it.
fn leave(s: &AppState, account: Uuid, device: u8, id: u64) {
    let mut l = s.live.lock().expect("live lock");
    if l.get(&(account, device)).is_some_and(|x| x.id == id) {
        l.remove(&(account, device));
    }
}

/// What wakes a socket task besides its socket and queue.
struct Ends<'a> {
    notify: &'a Notify,
    displaced: &'a Notify,
}

/// Acknowledgements committing in the background, each the envelope's id and the store's answer.
type Acking =
    futures_util::stream::FuturesUnordered<tokio::task::JoinHandle<(Uuid, crate::Result<bool>)>>;

/// Which device a socket serves.
#[derive(Clone, Copy)]
struct Device {
    account: Uuid,
    device: u8,
}

/// A socket's timers, made once, not per turn of the loop (a timer per turn cost more than the
/// turn).
struct Timers {
    ping: tokio::time::Interval,
    poll: tokio::time::Interval,
    redeliver: tokio::time::Interval,
}

impl Timers {
    fn new(idle: Duration, ack_timeout: Duration) -> Self {
        let mut ping = tokio::time::interval(idle / 3);
        ping.reset();
        let mut poll = tokio::time::interval(POLL);
        poll.reset();
        let mut redeliver = tokio::time::interval((ack_timeout / 4).max(Duration::from_millis(10)));
        redeliver.reset();
        Timers {
            ping,
            poll,
            redeliver,
        }
    }
}

/// One socket's delivery: push what the device has (the backlog handed over live, then the
/// store), announce an empty queue, and handle whatever comes next (a frame, a committed
/// acknowledgement, live mail, a timer, a signal), until the socket ends, the device is
/// displaced, or the relay has drained. Each event has its handler on [`Conn`].
async fn deliver_loop(
    s: &AppState,
    account: Uuid,
    device: u8,
    socket: &mut Socket,
    ends: Ends<'_>,
    live: &mut mpsc::Receiver<Outgoing>,
    c: &mut Conn,
) -> Option<()> {
    let who = Device { account, device };
    let mut acking = Acking::new();
    let idle = s.config.idle_timeout;
    let mut last_heard = Instant::now();
    let mut timers = Timers::new(idle, c.ack_timeout);
    let drain_timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(drain_timer);
    let mut draining = s.draining.clone();
    if *draining.borrow_and_update() {
        return None;
    }
    // Once the relay drains: nothing more is pushed, and the socket stays open (for at most
    // DRAIN_GRACE) until what was pushed is acknowledged; then those acknowledgements commit and
    // the socket closes. Whatever was not acknowledged stays stored for the device's next socket.
    let mut drain_by: Option<tokio::time::Instant> = None;
    loop {
        if let Some(by) = drain_by {
            if c.in_flight.is_empty() || tokio::time::Instant::now() >= by {
                let wait = async { while acking.next().await.is_some() {} };
                let _ = tokio::time::timeout(DRAIN_GRACE, wait).await;
                tracing::debug!("delivery socket closed: draining");
                return None;
            }
        } else {
            c.push_backlog(socket).await?;
            c.read_store(s, who, socket).await?;
            c.announce_empty(socket).await?;
        }
        tokio::time::timeout(c.send_timeout, socket.flush())
            .await
            .ok()?
            .ok()?;
        tokio::select! {
            msg = socket.next() => {
                last_heard = Instant::now();
                match msg?.ok()? {
                    WsMessage::Binary(b) => c.on_frame(s, who, &b, &acking)?,
                    WsMessage::Close(_) => return None,
                    _ => {}
                }
            }
            Some(joined) = acking.next(), if !acking.is_empty() => c.on_committed(joined.ok()?)?,
            out = live.recv() => c.on_live(out?),
            _ = timers.ping.tick() => {
                if last_heard.elapsed() > idle {
                    return None;
                }
                socket.feed(WsMessage::Ping(Bytes::new())).await.ok()?;
            }
            _ = timers.redeliver.tick() => c.forget_late(&s.metrics),
            _ = ends.notify.notified() => c.check_store = true,
            _ = ends.displaced.notified() => return None,
            _ = draining.changed(), if drain_by.is_none() => {
                let by = tokio::time::Instant::now() + DRAIN_GRACE;
                drain_by = Some(by);
                drain_timer.as_mut().reset(by);
            }
            _ = &mut drain_timer, if drain_by.is_some() => {}
            _ = timers.poll.tick() => c.check_store = true,
        }
    }
}

/// The socket's event handlers.
impl Conn {
    /// Pushes mail handed over live while the window has room.
    async fn push_backlog(&mut self, socket: &mut Socket) -> Option<()> {
        while self.in_flight.len() < WINDOW {
            let Some(out) = self.backlog.pop_front() else {
                break;
            };
            if !self.push(socket, out).await {
                return None;
            }
        }
        Some(())
    }

    /// Reads the device's stored mail when it may hold some and the window has room, and
    /// pushes what was not sent yet.
    async fn read_store(&mut self, s: &AppState, who: Device, socket: &mut Socket) -> Option<()> {
        if !self.check_store || self.in_flight.len() >= WINDOW {
            return Some(());
        }
        self.check_store = false;
        let limit = WINDOW + self.in_flight.len();
        let pending = s
            .metrics
            .time(Op::Pending, s.store.pending(who.account, who.device, limit))
            .await
            .ok()?;
        // A full read may have left mail behind: read again once there is room (at once if
        // this read pushed something, else after the next acknowledgement commits).
        let full = pending.len() == limit;
        let pushed_before = self.next_id;
        for env in pending {
            if self.in_flight.len() >= WINDOW {
                self.check_store = true;
                break;
            }
            if env.guid().is_some_and(|g| self.sent.contains(&g)) {
                continue;
            }
            let shared = match env.shared_mrm_key.as_deref() {
                Some(key) => {
                    let key = Uuid::from_slice(key).unwrap_or_default();
                    let Some(part) = shared_part(s, key).await else {
                        continue;
                    };
                    Some(part)
                }
                None => None,
            };
            if !self.push(socket, Outgoing { env, shared }).await {
                return None;
            }
        }
        if full {
            if self.next_id != pushed_before {
                self.check_store = true;
            } else {
                self.more_after_ack = true;
            }
        }
        Some(())
    }

    /// Tells the device once that its queue is empty (nothing in flight, waiting or stored).
    async fn announce_empty(&mut self, socket: &mut Socket) -> Option<()> {
        if !self.in_flight.is_empty()
            || !self.backlog.is_empty()
            || self.check_store
            || self.announced_empty
        {
            return Some(());
        }
        let frame = WebSocketMessage::request(0, "PUT", paths::WS_QUEUE_EMPTY, vec![]);
        socket
            .feed(WsMessage::Binary(frame.encode_to_vec().into()))
            .await
            .ok()?;
        self.announced_empty = true;
        Some(())
    }

    /// A frame from the device: an answer to a pushed envelope. Accepted, its deletion commits
    /// in the background so the window moves on at once (the id stays in `sent` until it has
    /// committed, so a store read cannot push it again); refused, it stays stored and comes
    /// again later.
    fn on_frame(&mut self, s: &AppState, who: Device, b: &[u8], acking: &Acking) -> Option<()> {
        let frame = WebSocketMessage::decode(b).ok()?;
        let Some(r) = frame.response else {
            return Some(());
        };
        let Some((guid, _)) = self.in_flight.remove(&r.id()) else {
            return Some(());
        };
        if r.status() != 200 {
            self.sent.remove(&guid);
            self.check_store = true;
            return Some(());
        }
        // A task of its own: a store connection it holds is released whatever the loop awaits
        // meanwhile (a store read there waiting for a connection that an unpolled
        // acknowledgement holds would never end).
        let (store, m) = (s.store.clone(), s.metrics.clone());
        acking.push(tokio::spawn(async move {
            let done = m
                .time(Op::Ack, store.ack(who.account, who.device, guid))
                .await;
            if matches!(done, Ok(true)) {
                Metrics::add(&m.delivered, 1);
            }
            (guid, done)
        }));
        Some(())
    }

    /// An acknowledgement's deletion has committed (or failed: the socket ends).
    fn on_committed(&mut self, (guid, done): (Uuid, crate::Result<bool>)) -> Option<()> {
        done.ok()?;
        self.acknowledged(guid);
        if std::mem::take(&mut self.more_after_ack) {
            self.check_store = true;
        }
        Some(())
    }

    /// Mail handed over live: kept for the next push, or read from the store later when the
    /// backlog is full.
    fn on_live(&mut self, out: Outgoing) {
        if self.backlog.len() < LIVE_QUEUE {
            self.backlog.push_back(out);
        } else {
            self.check_store = true;
        }
    }

    /// Pushed and never acknowledged within the timeout (a client that lost the frame, or
    /// stalls): forget it was sent, so the next store read pushes it again and it does not hold
    /// one of the window's slots until the socket closes.
    fn forget_late(&mut self, metrics: &Metrics) {
        let now = Instant::now();
        let late: Vec<u64> = self
            .in_flight
            .iter()
            .filter(|(_, (_, at))| now.duration_since(*at) >= self.ack_timeout)
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            if let Some((guid, _)) = self.in_flight.remove(&id) {
                self.sent.remove(&guid);
                self.check_store = true;
                Metrics::add(&metrics.redelivered, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_with_a_shared_tail_decodes_to_the_whole_message() {
        let env = Envelope {
            r#type: Some(6),
            content: Some(vec![7; 48]),
            server_guid: Some(Uuid::new_v4().to_string()),
            server_timestamp: Some(1234),
            shared_mrm_key: Some(vec![9; 16]),
            ..Envelope::default()
        };
        let shared = Bytes::from(vec![0xA5u8; 200_000]);
        let (head, tail) = frame(
            42,
            &Outgoing {
                env: env.clone(),
                shared: Some(shared.clone()),
            },
        );
        let whole = [&head[..], &tail.unwrap()[..]].concat();
        let got = WebSocketMessage::decode(&whole[..]).unwrap();
        let req = got.request.unwrap();
        assert_eq!(
            (req.id(), req.verb(), req.path()),
            (42, "PUT", paths::WS_MESSAGE)
        );
        let mut want = env;
        want.content = Some(alibi_sealed_sender::v2::received_message(&[7; 48], &shared));
        assert_eq!(Envelope::decode(req.body()).unwrap(), want);
        assert!(head.len() < 200, "the head is short: {}", head.len());
    }

    #[test]
    fn only_version_13_upgrades_are_accepted() {
        let mut h = HeaderMap::new();
        h.insert(header::CONNECTION, "keep-alive, Upgrade".parse().unwrap());
        h.insert(header::UPGRADE, "websocket".parse().unwrap());
        h.insert(header::SEC_WEBSOCKET_VERSION, "13".parse().unwrap());
        h.insert(
            header::SEC_WEBSOCKET_KEY,
            "dGhlIHNhbXBsZSBub25jZQ==".parse().unwrap(),
        );
        assert_eq!(
            handshake_key(&h).as_deref(),
            Some("dGhlIHNhbXBsZSBub25jZQ==")
        );
        h.insert(header::SEC_WEBSOCKET_VERSION, "8".parse().unwrap());
        assert_eq!(handshake_key(&h), None);
    }
}
