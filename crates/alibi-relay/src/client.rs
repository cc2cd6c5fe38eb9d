//! The relay's client: registration, key upload, bundle fetch, sends, multi-recipient sends, and
//! a receive stream over the WebSocket with acknowledgements and reconnection with backoff.

use std::time::Duration;

use base64::Engine;
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use uuid::Uuid;

use crate::access::{self, AccessKey};
use crate::proto::{Envelope, WebSocketMessage, WebSocketResponse};
use crate::server::OutgoingMessage;
use crate::store::{DeviceBundle, KeysUpload};
use crate::{Error, Result};

fn client_err(e: impl core::fmt::Display) -> Error {
    Error::Client(e.to_string())
}

/// A registered device talking to one relay.
#[derive(Clone)]
pub struct RelayClient {
    base: String,
    http: reqwest::Client,
    /// The account.
    pub account: Uuid,
    /// The device.
    pub device: u8,
    password: String,
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
    /// Anything else: the status and the server's reason.
    Other(u16, String),
}

impl RelayClient {
    /// Registers a new account (primary device 1) with its identity key and registration id.
    pub async fn register(
        base: &str,
        identity_key: &[u8],
        registration_id: u16,
        password: &str,
    ) -> Result<Self> {
        let http = http_client();
        let r = http
            .post(format!("{base}/v1/accounts"))
            .json(&json!({
                "identityKey": base64::engine::general_purpose::STANDARD.encode(identity_key),
                "registrationId": registration_id,
                "password": password,
            }))
            .send()
            .await
            .map_err(client_err)?;
        let v: Value = ok_json(r).await?;
        let account = v["uuid"]
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| client_err("no uuid"))?;
        Ok(Self {
            base: base.to_string(),
            http,
            account,
            device: 1,
            password: password.to_string(),
        })
    }

    /// A client for an existing device.
    pub fn existing(base: &str, account: Uuid, device: u8, password: &str) -> Self {
        Self {
            base: base.to_string(),
            http: http_client(),
            account,
            device,
            password: password.to_string(),
        }
    }

    fn user(&self) -> String {
        format!("{}.{}", self.account, self.device)
    }

    fn auth(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.basic_auth(self.user(), Some(&self.password))
    }

    /// Adds device `device_id` to this account (as this device); returns its client.
    pub async fn add_device(
        &self,
        device_id: u8,
        registration_id: u16,
        password: &str,
    ) -> Result<RelayClient> {
        let r = self
            .auth(
                self.http
                    .put(format!("{}/v1/devices/{device_id}", self.base)),
            )
            .json(&json!({"registrationId": registration_id, "password": password}))
            .send()
            .await
            .map_err(client_err)?;
        ok_status(r).await?;
        Ok(Self::existing(
            &self.base,
            self.account,
            device_id,
            password,
        ))
    }

    /// Uploads keys (`PUT /v2/keys`).
    pub async fn upload_keys(&self, keys: &KeysUpload) -> Result<()> {
        let r = self
            .auth(self.http.put(format!("{}/v2/keys", self.base)))
            .json(keys)
            .send()
            .await
            .map_err(client_err)?;
        ok_status(r).await
    }

    /// How many one-time EC and KEM prekeys this device has left.
    pub async fn key_counts(&self) -> Result<(u64, u64)> {
        let r = self
            .auth(self.http.get(format!("{}/v2/keys", self.base)))
            .send()
            .await
            .map_err(client_err)?;
        let v = ok_json(r).await?;
        Ok((
            v["count"].as_u64().unwrap_or(0),
            v["pqCount"].as_u64().unwrap_or(0),
        ))
    }

    /// Fetches bundles of `account` (one device, or all with `None`): its identity key and one
    /// bundle per device, each consuming that device's one-time keys.
    pub async fn fetch_bundles(
        &self,
        account: Uuid,
        device: Option<u8>,
    ) -> Result<(Vec<u8>, Vec<DeviceBundle>)> {
        let which = device.map_or("*".to_string(), |d| d.to_string());
        let r = self
            .auth(
                self.http
                    .get(format!("{}/v2/keys/{account}/{which}", self.base)),
            )
            .send()
            .await
            .map_err(client_err)?;
        let v = ok_json(r).await?;
        let ik = base64::engine::general_purpose::STANDARD
            .decode(v["identityKey"].as_str().unwrap_or_default())
            .map_err(client_err)?;
        let devices: Vec<DeviceBundle> =
            serde_json::from_value(v["devices"].clone()).map_err(client_err)?;
        Ok((ik, devices))
    }

    /// Sends one message per device of `account`.
    pub async fn send(
        &self,
        account: Uuid,
        messages: Vec<OutgoingMessage>,
    ) -> Result<std::result::Result<(), SendError>> {
        let r = self
            .auth(
                self.http
                    .put(format!("{}/v1/messages/{account}", self.base)),
            )
            .json(&json!({"messages": messages, "timestamp": crate::now_ms()}))
            .send()
            .await
            .map_err(client_err)?;
        Ok(send_outcome(r).await)
    }

    /// Sends a sealed-sender v2 multi-recipient message (`PUT /v1/messages/multi_recipient`),
    /// presenting `access_key`: the XOR of the recipients' keys ([`crate::access::combine`]).
    /// No credentials of the sender go with it.
    pub async fn multi_send(
        &self,
        sent_message: Vec<u8>,
        access_key: &AccessKey,
    ) -> Result<std::result::Result<(), SendError>> {
        let r = self
            .http
            .put(format!("{}/v1/messages/multi_recipient", self.base))
            .header("Content-Type", "application/vnd.signal-messenger.mrm")
            .header(access::HEADER, b64(access_key))
            .body(sent_message)
            .send()
            .await
            .map_err(client_err)?;
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
        let r = self
            .http
            .put(format!("{}/v1/messages/{account}", self.base))
            .header(access::HEADER, b64(access_key))
            .json(&json!({"messages": messages, "timestamp": crate::now_ms()}))
            .send()
            .await
            .map_err(client_err)?;
        Ok(send_outcome(r).await)
    }

    /// Publishes this account's access key (`PUT /v1/accounts/attributes`), which senders
    /// derive from its profile key ([`crate::access::derive_access_key`]).
    pub async fn set_access_key(&self, access_key: &AccessKey) -> Result<()> {
        let r = self
            .auth(
                self.http
                    .put(format!("{}/v1/accounts/attributes", self.base)),
            )
            .json(&json!({"unidentifiedAccessKey": b64(access_key)}))
            .send()
            .await
            .map_err(client_err)?;
        ok_status(r).await
    }

    /// A sender certificate for this device.
    pub async fn sender_certificate(&self) -> Result<Vec<u8>> {
        let r = self
            .auth(
                self.http
                    .get(format!("{}/v1/certificate/delivery", self.base)),
            )
            .send()
            .await
            .map_err(client_err)?;
        let v = ok_json(r).await?;
        base64::engine::general_purpose::STANDARD
            .decode(v["certificate"].as_str().unwrap_or_default())
            .map_err(client_err)
    }

    /// The relay's trust root (33 bytes), for pinning.
    pub async fn trust_root(&self) -> Result<Vec<u8>> {
        let r = self
            .http
            .get(format!("{}/v1/certificate/trust_root", self.base))
            .send()
            .await
            .map_err(client_err)?;
        let v = ok_json(r).await?;
        base64::engine::general_purpose::STANDARD
            .decode(v["trustRoot"].as_str().unwrap_or_default())
            .map_err(client_err)
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
        let mut backoff = Duration::from_millis(50);
        let ws_url = self.base.replacen("http", "ws", 1) + "/v1/websocket/";
        loop {
            let mut req = match ws_url.as_str().into_client_request() {
                Ok(r) => r,
                Err(_) => return,
            };
            let cred = base64::engine::general_purpose::STANDARD.encode(format!(
                "{}:{}",
                self.user(),
                self.password
            ));
            req.headers_mut().insert(
                "Authorization",
                format!("Basic {cred}").parse().expect("header"),
            );
            let Ok((ws, _)) = tokio_tungstenite::connect_async_with_config(req, None, true).await
            else {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
                continue;
            };
            backoff = Duration::from_millis(50);
            let (mut sink, mut stream) = ws.split();
            // Request ids of this connection, by envelope guid, for the acknowledgements.
            let mut ids: std::collections::HashMap<Uuid, u64> = Default::default();
            loop {
                tokio::select! {
                    frame = stream.next() => {
                        let Some(Ok(WsMessage::Binary(b))) = frame else { break };
                        let Ok(frame) = WebSocketMessage::decode(&b[..]) else { break };
                        let Some(req) = frame.request else { continue };
                        if req.path != "/api/v1/message" {
                            continue;
                        }
                        let Ok(env) = Envelope::decode(&req.body[..]) else { continue };
                        if let Ok(g) = Uuid::from_slice(&env.server_guid) {
                            ids.insert(g, req.id);
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
                                let frame = WebSocketMessage {
                                    r#type: 2,
                                    request: None,
                                    response: Some(WebSocketResponse { id, status: 200 }),
                                };
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

    /// Acknowledges an envelope: the relay deletes it.
    pub fn ack(&self, env: &Envelope) {
        if let Ok(g) = Uuid::from_slice(&env.server_guid) {
            let _ = self.acks.send(g);
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The HTTP client: Nagle off, as on the server (see `server::serve`).
fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .unwrap_or_default()
}

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

async fn ok_json(r: reqwest::Response) -> Result<Value> {
    let status = r.status();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(Error::Client(format!(
            "{status}: {}",
            v["error"].as_str().unwrap_or("")
        )));
    }
    Ok(v)
}

async fn ok_status(r: reqwest::Response) -> Result<()> {
    if !r.status().is_success() {
        let status = r.status();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        return Err(Error::Client(format!(
            "{status}: {}",
            v["error"].as_str().unwrap_or("")
        )));
    }
    Ok(())
}

async fn send_outcome(r: reqwest::Response) -> std::result::Result<(), SendError> {
    let status = r.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(());
    }
    let v: Value = r.json().await.unwrap_or(Value::Null);
    let list = |k: &str| -> Vec<u8> {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_u64().map(|d| d as u8))
                    .collect()
            })
            .unwrap_or_default()
    };
    match status {
        409 => Err(SendError::MismatchedDevices {
            missing: list("missingDevices"),
            extra: list("extraDevices"),
        }),
        410 => Err(SendError::StaleDevices(list("staleDevices"))),
        s => Err(SendError::Other(
            s,
            v["error"].as_str().unwrap_or("").to_string(),
        )),
    }
}
