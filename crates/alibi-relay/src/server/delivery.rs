//! Delivery: the WebSocket that pushes a device's mail, at most [`WINDOW`] envelopes
//! unacknowledged at a time, deleting each when the device answers 200.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use alibi_channel::sealed_sender::v2;
use alibi_relay_api::paths;
use alibi_relay_api::proto::{Envelope, WebSocketMessage};
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use tokio::sync::{mpsc, Notify};
use uuid::Uuid;

use super::auth::authenticate;
use super::{ApiResult, AppState, Shared};

/// Envelopes in flight (pushed, not yet acknowledged) per WebSocket: bounds a connection's memory.
pub const WINDOW: usize = 64;

/// How often a connected device's mailbox is re-read when nothing was signalled (another relay
/// process on the same database may have queued for it).
pub const POLL: Duration = Duration::from_millis(250);

/// Envelopes handed straight to a connected device's socket task, beyond which they wait in the
/// store (the socket task reads them from there when it has room).
const LIVE_QUEUE: usize = 1024;

/// The device's wake-up signal.
pub(crate) fn wakeup(s: &AppState, account: Uuid, device: u8) -> Arc<Notify> {
    s.wakeups
        .lock()
        .expect("wakeup lock")
        .entry((account, device))
        .or_default()
        .clone()
}

/// `GET /v1/websocket/`: the authenticated device's delivery socket.
pub(crate) async fn websocket(
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
        let Some(guid) = env.guid() else {
            return true;
        };
        if !self.sent.insert(guid) {
            return true;
        }
        let frame =
            WebSocketMessage::request(self.next_id, "PUT", paths::WS_MESSAGE, env.encode_to_vec());
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
                if env.guid().is_some_and(|g| c.sent.contains(&g)) {
                    continue;
                }
                if let Some(key) = env.shared_mrm_key.clone() {
                    let key = Uuid::from_slice(&key).unwrap_or_default();
                    let Ok(Some(shared)) = s.store.shared(key).await else {
                        continue;
                    };
                    env.content = Some(v2::received_message(env.content(), &shared));
                }
                if !c.push(socket, env).await {
                    return None;
                }
            }
        }
        if c.in_flight.is_empty() && c.backlog.is_empty() && !c.check_store && !c.announced_empty {
            let frame = WebSocketMessage::request(0, "PUT", paths::WS_QUEUE_EMPTY, vec![]);
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
                            if let Some(guid) = c.in_flight.remove(&r.id()) {
                                if r.status() == 200 {
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
