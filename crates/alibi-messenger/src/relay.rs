//! The relay's HTTP and WebSocket client, on the wire contract (`alibi-relay-api`): registration,
//! key upload, bundle fetch, sends, multi-recipient sends, and a receive stream over the WebSocket
//! with acknowledgements and reconnection with backoff. It moves bytes and believes nothing:
//! [`crate::Messenger`] checks what comes back against the pinned contacts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use alibi_relay_api::access::{self, AccessKey};
use alibi_relay_api::accounts::{AccountAttributes, AccountCreated, AddDevice, CreateAccount};
use alibi_relay_api::certificates::{DeliveryCertificate, TrustRoot};
use alibi_relay_api::keys::{KeyCounts, KeysUpload, PreKeyResponse};
use alibi_relay_api::messages::{OutgoingMessage, OutgoingMessages};
use alibi_relay_api::proto::{Envelope, MultiRecipientParts, WebSocketMessage};
use alibi_relay_api::{b64, paths, DeviceLists, ErrorBody};
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use serde::de::DeserializeOwned;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use uuid::Uuid;

use alibi_relay_api::now_ms;

pub use crate::endpoint::{Endpoint, OnUnreachable, CONNECT_TIMEOUT, REQUEST_TIMEOUT};

use crate::{Error, Result};

/// An HTTP client error with its causes (reqwest's own text hides them: "error sending
/// request" says nothing of an untrusted certificate or a refused connection).
fn client_err(e: impl std::error::Error) -> Error {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    Error::Relay(text)
}

/// A registered device talking to one relay.
#[derive(Clone)]
pub struct RelayClient {
    endpoint: Endpoint,
    http: reqwest::Client,
    /// The account.
    pub account: Uuid,
    /// The device.
    pub device: u8,
    password: String,
    /// `Basic base64(user:password)`, made once (every request carries it).
    authorization: reqwest::header::HeaderValue,
    /// Bytes of request bodies that reached a relay node, shared by clones (measurement).
    sent_bytes: Arc<AtomicU64>,
}

impl core::fmt::Display for SendError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SendError::MismatchedDevices { missing, extra } => {
                write!(
                    f,
                    "device list out of date (missing {missing:?}, extra {extra:?})"
                )
            }
            SendError::StaleDevices(d) => write!(f, "devices re-registered: {d:?}"),
            SendError::Accounts(a) => {
                let each: Vec<String> = a
                    .iter()
                    .map(|(u, l)| {
                        format!(
                            "{u}: missing {:?}, extra {:?}, re-registered {:?}",
                            l.missing_devices, l.extra_devices, l.stale_devices
                        )
                    })
                    .collect();
                write!(f, "device lists out of date ({})", each.join("; "))
            }
            SendError::Undeliverable { status, reason, .. } => write!(f, "{status}: {reason}"),
            SendError::Other(s, m) => write!(f, "{s}: {m}"),
        }
    }
}

/// What a send can answer besides success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// 409: the device list was wrong.
    MismatchedDevices {
        /// Devices the account has that the request left out.
        missing: Vec<u8>,
        /// Devices the request named that the account does not have.
        extra: Vec<u8>,
    },
    /// 410: registration ids changed (the devices were re-registered).
    StaleDevices(Vec<u8>),
    /// 409 or 410 of a multi-recipient send: each account whose device list was wrong, with its
    /// lists, so that each is corrected alone.
    Accounts(Vec<(Uuid, DeviceLists)>),
    /// The relay will not deliver to these accounts: it does not know them (404) or a device's
    /// mailbox is full (413); its status and reason.
    Undeliverable {
        /// The accounts it named.
        accounts: Vec<Uuid>,
        /// The HTTP status.
        status: u16,
        /// The relay's reason.
        reason: String,
    },
    /// Anything else: the status and the server's reason.
    Other(u16, String),
}

impl RelayClient {
    /// Registers a new account (primary device 1) with its identity key and registration id, on
    /// `relay` (a base URL, a comma-separated list of nodes, or an [`Endpoint`]).
    pub async fn register(
        relay: impl Into<Endpoint>,
        identity_key: &[u8],
        registration_id: u16,
        password: &str,
    ) -> Result<Self> {
        let mut me = Self::existing(relay, Uuid::nil(), 0, password);
        let body = CreateAccount {
            identity_key: identity_key.to_vec(),
            registration_id,
            password: password.to_string(),
        };
        let r = me
            .request(|http, node| http.post(format!("{node}{}", paths::ACCOUNTS)).json(&body))
            .await?;
        let created: AccountCreated = ok_json(r).await?;
        me.account = created.uuid;
        me.device = created.device_id;
        me.set_authorization();
        Ok(me)
    }

    /// A client for an existing device.
    pub fn existing(relay: impl Into<Endpoint>, account: Uuid, device: u8, password: &str) -> Self {
        let endpoint = relay.into();
        let mut me = Self {
            http: endpoint.http_client(),
            endpoint,
            account,
            device,
            password: password.to_string(),
            authorization: reqwest::header::HeaderValue::from_static(""),
            sent_bytes: Arc::default(),
        };
        me.set_authorization();
        me
    }

    fn set_authorization(&mut self) {
        let cred = b64::encode(format!("{}:{}", self.user(), self.password).as_bytes());
        let mut v = reqwest::header::HeaderValue::from_str(&format!("Basic {cred}"))
            .unwrap_or_else(|_| reqwest::header::HeaderValue::from_static(""));
        v.set_sensitive(true);
        self.authorization = v;
    }

    /// The relay's nodes and TLS trust.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Bytes of request bodies this client (and its clones) sent to the relay so far: HTTP
    /// bodies only, not headers or WebSocket acknowledgements.
    pub fn sent_bytes(&self) -> u64 {
        self.sent_bytes.load(Ordering::Relaxed)
    }

    fn user(&self) -> String {
        format!("{}.{}", self.account, self.device)
    }

    fn auth(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.header(reqwest::header::AUTHORIZATION, self.authorization.clone())
    }

    /// Sends the request `build` makes for the node in use. One that could not connect never
    /// reached a relay, so it is sent again to the next node, each node tried once per pass; when
    /// a pass reaches none, passes repeat with backoff for the endpoint's patience
    /// ([`Endpoint::set_patience`]). One that connected but got no whole answer within the
    /// endpoint's request timeout ([`Endpoint::set_request_timeout`]) fails, naming the node, and
    /// the node is left for the next: it may have taken the request, so it is not sent again.
    async fn request(
        &self,
        build: impl Fn(&reqwest::Client, &str) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response> {
        self.endpoint.check()?;
        let start = tokio::time::Instant::now();
        let until = start + self.endpoint.patience();
        let mut backoff = Duration::from_millis(100);
        let mut report_at = start;
        loop {
            let mut last = None;
            for _ in 0..self.endpoint.len() {
                let (node, turn) = self.endpoint.current();
                // Built here, not by `send`, to read the body's length (already in memory).
                let timeout = self.endpoint.request_timeout();
                let request = build(&self.http, node)
                    .timeout(timeout)
                    .build()
                    .map_err(client_err)?;
                let len = request
                    .body()
                    .and_then(|b| b.as_bytes())
                    .map_or(0, <[u8]>::len);
                match self.http.execute(request).await {
                    Ok(r) => {
                        self.sent_bytes.fetch_add(len as u64, Ordering::Relaxed);
                        return Ok(r);
                    }
                    Err(e) if e.is_connect() => {
                        self.endpoint.failed(turn);
                        last = Some(e);
                    }
                    Err(e) if e.is_timeout() => {
                        self.endpoint.failed(turn);
                        return Err(Error::Relay(format!(
                            "{node}: no answer within {:.1} s (a stalled connection or relay); the next request goes to the next node",
                            timeout.as_secs_f64()
                        )));
                    }
                    Err(e) => return Err(client_err(e)),
                }
            }
            let error = client_err(last.expect("an endpoint has a node"));
            let now = tokio::time::Instant::now();
            if now >= until {
                return Err(error);
            }
            if now >= report_at {
                self.endpoint.unreachable(&error.to_string(), now - start);
                report_at = now + Duration::from_secs(5);
            }
            tokio::time::sleep(backoff.min(until - now)).await;
            backoff = (backoff * 2).min(Duration::from_secs(2));
        }
    }

    /// Adds device `device_id` to this account (as this device); returns its client.
    pub async fn add_device(
        &self,
        device_id: u8,
        registration_id: u16,
        password: &str,
    ) -> Result<RelayClient> {
        let body = AddDevice {
            registration_id,
            password: password.to_string(),
        };
        let r = self
            .request(|http, node| {
                self.auth(http.put(format!("{node}{}/{device_id}", paths::DEVICES)))
                    .json(&body)
            })
            .await?;
        ok_status(r).await?;
        Ok(Self::existing(
            &self.endpoint,
            self.account,
            device_id,
            password,
        ))
    }

    /// Uploads keys (`PUT /v2/keys`).
    pub async fn upload_keys(&self, keys: &KeysUpload) -> Result<()> {
        let r = self
            .request(|http, node| {
                self.auth(http.put(format!("{node}{}", paths::KEYS)))
                    .json(keys)
            })
            .await?;
        ok_status(r).await
    }

    /// How many one-time EC and KEM prekeys this device has left.
    pub async fn key_counts(&self) -> Result<KeyCounts> {
        let r = self
            .request(|http, node| self.auth(http.get(format!("{node}{}", paths::KEYS))))
            .await?;
        ok_json(r).await
    }

    /// Fetches bundles of `account` (one device, or all with `None`): its identity key as the
    /// relay has it and one bundle per device, each consuming that device's one-time keys.
    pub async fn fetch_bundles(&self, account: Uuid, device: Option<u8>) -> Result<PreKeyResponse> {
        let which = device.map_or("*".to_string(), |d| d.to_string());
        let r = self
            .request(|http, node| {
                self.auth(http.get(format!("{node}{}/{account}/{which}", paths::KEYS_OF)))
            })
            .await?;
        ok_json(r).await
    }

    /// Sends one message per device of `account`.
    pub async fn send(
        &self,
        account: Uuid,
        messages: Vec<OutgoingMessage>,
    ) -> Result<std::result::Result<(), SendError>> {
        self.put_messages(account, messages, None, false).await
    }

    /// Sends one message to each device the messages name, and to no other device of `account`
    /// ([`paths::LISTED_DEVICES`]): for a contact whose card's device list is authoritative.
    pub async fn send_listed(
        &self,
        account: Uuid,
        messages: Vec<OutgoingMessage>,
    ) -> Result<std::result::Result<(), SendError>> {
        self.put_messages(account, messages, None, true).await
    }

    /// `PUT /v1/messages/{account}`, as this device or, with `access_key`, unidentified; with
    /// `listed`, to the listed devices alone.
    async fn put_messages(
        &self,
        account: Uuid,
        messages: Vec<OutgoingMessage>,
        access_key: Option<&AccessKey>,
        listed: bool,
    ) -> Result<std::result::Result<(), SendError>> {
        let body = OutgoingMessages {
            messages,
            timestamp: now_ms(),
        };
        let r = self
            .request(|http, node| {
                let rb = http.put(format!("{node}{}/{account}", paths::MESSAGES));
                let rb = match access_key {
                    Some(k) => rb.header(access::HEADER, b64::encode(k)),
                    None => self.auth(rb),
                };
                with_listed(rb, listed).json(&body)
            })
            .await?;
        Ok(send_outcome(r).await)
    }

    /// Sends a sealed-sender v2 multi-recipient message (`PUT /v1/messages/multi_recipient`),
    /// presenting `access_key`: the XOR of the recipients' keys ([`access::combine`]).
    /// No credentials of the sender go with it. With `listed`, to the devices the message lists
    /// alone ([`paths::LISTED_DEVICES`]).
    pub async fn multi_send(
        &self,
        sent_message: Vec<u8>,
        access_key: &AccessKey,
        listed: bool,
    ) -> Result<std::result::Result<(), SendError>> {
        let body = bytes::Bytes::from(sent_message);
        let path = paths::MULTI_RECIPIENT;
        self.put_sealed(path, paths::MRM_CONTENT_TYPE, body, access_key, listed)
            .await
    }

    /// As [`Self::multi_send`], with a part for single devices
    /// (`PUT /v1/messages/multi_recipient/parts`, alibi's own): `parts[i]` reaches the i-th
    /// `(recipient, device)` entry of `sent_message` alone, in the envelope's `device_part`
    /// (empty: no part for that device). One length per entry, or the relay answers 400.
    pub async fn multi_send_parts(
        &self,
        sent_message: Vec<u8>,
        parts: &[Vec<u8>],
        access_key: &AccessKey,
        listed: bool,
    ) -> Result<std::result::Result<(), SendError>> {
        let part_lengths = parts
            .iter()
            .map(|p| u32::try_from(p.len()))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| Error::Relay("a device's part is over 4 GiB".into()))?;
        let body = MultiRecipientParts {
            mrm: Some(sent_message.into()),
            parts: Some(parts.concat().into()),
            part_lengths,
        }
        .encode_to_vec();
        let path = paths::MULTI_RECIPIENT_PARTS;
        let kind = paths::MRM_PARTS_CONTENT_TYPE;
        self.put_sealed(path, kind, body.into(), access_key, listed)
            .await
    }

    /// A sealed send's `PUT` of `body` to `path`, presenting `access_key` and no credentials.
    async fn put_sealed(
        &self,
        path: &str,
        content_type: &str,
        body: bytes::Bytes,
        access_key: &AccessKey,
        listed: bool,
    ) -> Result<std::result::Result<(), SendError>> {
        let r = self
            .request(|http, node| {
                let rb = http
                    .put(format!("{node}{path}"))
                    .header("Content-Type", content_type)
                    .header(access::HEADER, b64::encode(access_key));
                with_listed(rb, listed).body(body.clone())
            })
            .await?;
        Ok(send_outcome(r).await)
    }

    /// Sends sealed-sender messages (type 6) to `account` without naming the sender: the request
    /// carries the recipient's access key instead of this device's credentials.
    pub async fn send_unidentified(
        &self,
        account: Uuid,
        messages: Vec<OutgoingMessage>,
        access_key: &AccessKey,
    ) -> Result<std::result::Result<(), SendError>> {
        self.put_messages(account, messages, Some(access_key), false)
            .await
    }

    /// Publishes this account's access key (`PUT /v1/accounts/attributes`), which senders
    /// derive from its profile key ([`access::derive_access_key`]).
    pub async fn set_access_key(&self, access_key: &AccessKey) -> Result<()> {
        let body = AccountAttributes {
            unidentified_access_key: access_key.to_vec(),
        };
        let r = self
            .request(|http, node| {
                self.auth(http.put(format!("{node}{}", paths::ATTRIBUTES)))
                    .json(&body)
            })
            .await?;
        ok_status(r).await
    }

    /// A sender certificate for this device.
    pub async fn sender_certificate(&self) -> Result<Vec<u8>> {
        let r = self
            .request(|http, node| {
                self.auth(http.get(format!("{node}{}", paths::DELIVERY_CERTIFICATE)))
            })
            .await?;
        Ok(ok_json::<DeliveryCertificate>(r).await?.certificate)
    }

    /// The trust root the relay claims (33 bytes): what a first registration pins, and nothing
    /// more (a contact card or group file is what later checks compare against).
    pub async fn trust_root(&self) -> Result<Vec<u8>> {
        let r = self
            .request(|http, node| http.get(format!("{node}{}", paths::TRUST_ROOT)))
            .await?;
        Ok(ok_json::<TrustRoot>(r).await?.trust_root)
    }

    /// Starts receiving: a background task keeps a WebSocket open (reconnecting with exponential
    /// backoff, 50 ms to 5 s) and hands envelopes over; each must be acknowledged with
    /// [`Receiver::ack`] to be deleted from the mailbox. Unacknowledged ones come again after a
    /// reconnect, so callers deduplicate by `server_guid`.
    pub fn receive(&self) -> Receiver {
        let (tx, rx) = mpsc::channel(256);
        let (ack_tx, ack_rx) = mpsc::unbounded_channel();
        let me = self.clone();
        let task = tokio::spawn(async move { me.receive_loop(tx, ack_rx).await });
        Receiver {
            rx,
            acks: ack_tx,
            task,
        }
    }

    async fn receive_loop(
        self,
        tx: mpsc::Sender<Envelope>,
        mut acks: mpsc::UnboundedReceiver<Uuid>,
    ) {
        if self.endpoint.check().is_err() {
            return; // never a password in clear, not even on the socket
        }
        let mut backoff = Duration::from_millis(50);
        loop {
            let (node, turn) = self.endpoint.current();
            let ws_url = node.replacen("http", "ws", 1) + paths::WEBSOCKET;
            let mut req = match ws_url.as_str().into_client_request() {
                Ok(r) => r,
                Err(_) => return,
            };
            req.headers_mut()
                .insert("Authorization", self.authorization.clone());
            let bound = self.endpoint.request_timeout();
            let handshake = open_socket(&self.endpoint, req);
            let Ok(Ok(ws)) = tokio::time::timeout(bound, handshake).await else {
                // Unreachable: the next node, after a pause once every node was tried.
                self.endpoint.failed(turn);
                if turn.wrapping_add(1) % self.endpoint.len() == 0 {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
                continue;
            };
            backoff = Duration::from_millis(50);
            let (mut sink, mut stream) = ws.split();
            // Request ids of this connection, by envelope guid, for the acknowledgements.
            let mut ids: std::collections::HashMap<Uuid, u64> = Default::default();
            // Liveness: a ping a third of the way into a quiet spell; a socket that stays
            // silent for the whole bound (a stalled path, the relay gone without a close) is
            // dropped, and the next node's socket is opened.
            let mut heard = tokio::time::Instant::now();
            let mut ping = tokio::time::interval(bound / 3);
            ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ping.tick().await;
            loop {
                tokio::select! {
                    _ = ping.tick() => {
                        if heard.elapsed() >= bound {
                            self.endpoint.failed(turn);
                            break;
                        }
                        if heard.elapsed() >= bound / 3
                            && sink.send(WsMessage::Ping(Vec::new().into())).await.is_err()
                        {
                            break;
                        }
                    }
                    frame = stream.next() => {
                        heard = tokio::time::Instant::now();
                        // Pings are answered by tungstenite; anything but data or the end of the
                        // connection is skipped.
                        let b = match frame {
                            Some(Ok(WsMessage::Binary(b))) => b,
                            Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_) | WsMessage::Text(_))) => continue,
                            _ => break,
                        };
                        let Ok(frame) = WebSocketMessage::decode(&b[..]) else { break };
                        let Some(req) = frame.request else { continue };
                        if req.path() != paths::WS_MESSAGE {
                            continue;
                        }
                        let Ok(env) = Envelope::decode(req.body()) else { continue };
                        if let Some(g) = env.guid() {
                            ids.insert(g, req.id());
                        }
                        if tx.send(env).await.is_err() {
                            return;
                        }
                    }
                    ack = acks.recv() => {
                        let Some(first) = ack else { return };
                        // Every acknowledgement already queued goes out in one write.
                        let mut next = Some(first);
                        let mut ok = true;
                        while let Some(guid) = next {
                            if let Some(id) = ids.remove(&guid) {
                                let frame = WebSocketMessage::response(id, 200);
                                ok &= sink.feed(WsMessage::Binary(frame.encode_to_vec().into())).await.is_ok();
                            }
                            next = acks.try_recv().ok();
                        }
                        if !ok || sink.flush().await.is_err() {
                            break;
                        }
                    }
                }
            }
            tokio::time::sleep(backoff).await;
        }
    }
}

/// The receiving end of [`RelayClient::receive`].
pub struct Receiver {
    rx: mpsc::Receiver<Envelope>,
    acks: mpsc::UnboundedSender<Uuid>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// The next envelope (`None` once the client stopped).
    pub async fn next(&mut self) -> Option<Envelope> {
        self.rx.recv().await
    }

    /// The next envelope if one has arrived already, without waiting.
    pub fn try_next(&mut self) -> Option<Envelope> {
        self.rx.try_recv().ok()
    }

    /// Acknowledges an envelope: the relay deletes it.
    pub fn ack(&self, env: &Envelope) {
        if let Some(g) = env.guid() {
            let _ = self.acks.send(g);
        }
    }

    /// A handle that acknowledges envelopes by id, for whoever hands the messages on.
    pub fn acker(&self) -> Acker {
        Acker {
            acks: self.acks.clone(),
        }
    }
}

/// Acknowledges envelopes of a [`Receiver`] by their `server_guid`.
#[derive(Clone)]
pub struct Acker {
    acks: mpsc::UnboundedSender<Uuid>,
}

impl Acker {
    /// Acknowledges the envelope with this id (nothing for `None`).
    pub fn ack(&self, guid: Option<Uuid>) {
        if let Some(g) = guid {
            let _ = self.acks.send(g);
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// WebSocket limits: frames and messages up to [`MAX_ANSWER`].
/// The delivery socket's connection, from the endpoint's local address if it has one.
async fn open_socket(
    endpoint: &Endpoint,
    req: tokio_tungstenite::tungstenite::handshake::client::Request,
) -> std::result::Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    tokio_tungstenite::tungstenite::Error,
> {
    let Some(local) = endpoint.local_address() else {
        let connecting = tokio_tungstenite::connect_async_tls_with_config(
            req,
            Some(ws_config()),
            true,
            Some(endpoint.ws_connector()),
        );
        return connecting.await.map(|(ws, _)| ws);
    };
    let uri = req.uri();
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_matches(['[', ']'])
        .to_owned();
    let port = uri
        .port_u16()
        .unwrap_or(if uri.scheme_str() == Some("wss") {
            443
        } else {
            80
        });
    let stream = connect_from(local, &host, port).await?;
    let opened = tokio_tungstenite::client_async_tls_with_config(
        req,
        stream,
        Some(ws_config()),
        Some(endpoint.ws_connector()),
    );
    opened.await.map(|(ws, _)| ws)
}

/// A TCP connection to `host:port` from `local` (to the first address of the same family).
async fn connect_from(
    local: std::net::IpAddr,
    host: &str,
    port: u16,
) -> std::io::Result<tokio::net::TcpStream> {
    let to = tokio::net::lookup_host((host, port))
        .await?
        .find(|a| a.is_ipv4() == local.is_ipv4())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::AddrNotAvailable,
                "the relay has no address of the local address's family",
            )
        })?;
    let socket = if local.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.bind(std::net::SocketAddr::new(local, 0))?;
    let stream = socket.connect(to).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(MAX_ANSWER))
        .max_frame_size(Some(MAX_ANSWER))
        // Each read zero-fills this much first (128 KiB by default: a fifth of the CPU of a
        // small-message load went to it).
        .read_buffer_size(16 * 1024)
}

/// The error body of a failed answer (its reason, or the status alone).
/// The most of an answer or a pushed frame the client reads: above the relay's largest request
/// (2 MiB), so no honest answer is cut, and a relay cannot make the client buffer without bound.
pub const MAX_ANSWER: usize = 4 << 20;

/// An answer's body, read chunk by chunk up to [`MAX_ANSWER`].
async fn body(mut r: reqwest::Response) -> Result<Vec<u8>> {
    let mut out = vec![];
    while let Some(chunk) = r.chunk().await.map_err(client_err)? {
        if out.len() + chunk.len() > MAX_ANSWER {
            return Err(Error::Relay(format!(
                "an answer over {MAX_ANSWER} bytes; refused"
            )));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

async fn failure(r: reqwest::Response) -> (u16, ErrorBody) {
    let status = r.status().as_u16();
    let body = body(r)
        .await
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| ErrorBody::new(""));
    (status, body)
}

async fn ok_json<T: DeserializeOwned>(r: reqwest::Response) -> Result<T> {
    if !r.status().is_success() {
        let (status, body) = failure(r).await;
        return Err(Error::Refused {
            status,
            reason: body.error,
        });
    }
    serde_json::from_slice(&body(r).await?).map_err(client_err)
}

async fn ok_status(r: reqwest::Response) -> Result<()> {
    if !r.status().is_success() {
        let (status, body) = failure(r).await;
        return Err(Error::Refused {
            status,
            reason: body.error,
        });
    }
    Ok(())
}

/// The [`paths::LISTED_DEVICES`] header on a send, when `listed`.
fn with_listed(rb: reqwest::RequestBuilder, listed: bool) -> reqwest::RequestBuilder {
    match listed {
        true => rb.header(paths::LISTED_DEVICES, "1"),
        false => rb,
    }
}

/// Accounts the relay named in an answer; names that are no account are dropped.
fn named(uuids: Vec<String>) -> Vec<Uuid> {
    uuids
        .iter()
        .filter_map(|u| Uuid::parse_str(u).ok())
        .collect()
}

async fn send_outcome(r: reqwest::Response) -> std::result::Result<(), SendError> {
    if r.status().is_success() {
        return Ok(());
    }
    let (status, body) = failure(r).await;
    if let Some(accounts) = body.accounts.filter(|_| matches!(status, 409 | 410)) {
        let each = accounts
            .into_iter()
            .filter_map(|a| Some((Uuid::parse_str(&a.uuid).ok()?, a.devices)))
            .collect();
        return Err(SendError::Accounts(each));
    }
    let undeliverable = match status {
        404 => body.uuids_404,
        413 => body.full,
        _ => None,
    };
    if let Some(accounts) = undeliverable {
        return Err(SendError::Undeliverable {
            accounts: named(accounts),
            status,
            reason: body.error,
        });
    }
    match status {
        409 => Err(SendError::MismatchedDevices {
            missing: body.missing_devices.unwrap_or_default(),
            extra: body.extra_devices.unwrap_or_default(),
        }),
        410 => Err(SendError::StaleDevices(
            body.stale_devices.unwrap_or_default(),
        )),
        s => Err(SendError::Other(s, body.error)),
    }
}
