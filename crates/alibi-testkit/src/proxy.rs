//! A relay in the middle: forwards HTTP requests and the delivery WebSocket to a real relay, and
//! can lie on the way (rewrite a path, so one account's bundle is served for another; answer a
//! route itself, e.g. with another trust root). The malicious-relay tests stand it between the
//! parties and the honest relay.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::ws::{Message as AxMsg, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as TMsg;

/// How the proxy lies.
#[derive(Default, Clone)]
pub struct Rules {
    /// Path prefixes replaced before forwarding: (from, to).
    pub rewrite: Vec<(String, String)>,
    /// Routes answered by the proxy itself: (method, path prefix, status, JSON body).
    pub answer: Vec<(String, String, u16, String)>,
    /// Hold every forwarded request whose path starts with this prefix for so many ms after
    /// answering its sender 200 (a relay that delays mail while claiming it took it).
    pub delay: Option<(String, u64)>,
    /// JSON keys removed (at any depth) from the answers to paths with this prefix:
    /// (path prefix, key), e.g. the KEM prekey of a bundle.
    pub strip: Vec<(String, String)>,
    /// Lose the delivery with this number: the n-th message (from 0) the relay pushes down any
    /// delivery socket after [`Proxy::count_from_zero`] is not passed on (nor acknowledged, so
    /// the relay holds it as pending and never sends it again on that socket).
    pub drop_delivery: Option<usize>,
    /// Rewrites every message the relay pushes down a delivery socket (the WebSocket frame's
    /// bytes) before it is passed on: a relay that changes what it delivers.
    pub tamper: Option<Tamper>,
}

/// A rewrite of the delivery frames ([`Rules::tamper`]).
pub type Tamper = Arc<dyn Fn(Vec<u8>) -> Vec<u8> + Send + Sync>;

fn strip(v: &mut serde_json::Value, key: &str) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove(key);
            m.values_mut().for_each(|v| strip(v, key));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| strip(v, key)),
        _ => {}
    }
}

/// A running proxy; stops when dropped.
pub struct Proxy {
    /// Its base URL.
    pub url: String,
    /// Its rules, changeable while it runs.
    pub rules: Arc<Mutex<Rules>>,
    /// Messages pushed down delivery sockets so far.
    pub deliveries: Arc<AtomicUsize>,
    /// Requests whose path a [`Rules::rewrite`] changed so far.
    pub rewritten: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// Starts a proxy to the relay at `upstream` on a loopback port.
    pub async fn start(upstream: &str) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let rules = Arc::new(Mutex::new(Rules::default()));
        let deliveries = Arc::new(AtomicUsize::new(0));
        let rewritten = Arc::new(AtomicUsize::new(0));
        let state = (
            upstream.to_string(),
            rules.clone(),
            // Idle connections dropped before the relay closes them (its head timeout, 10 s).
            reqwest::Client::builder()
                .pool_idle_timeout(std::time::Duration::from_secs(4))
                .build()
                .unwrap_or_default(),
            deliveries.clone(),
            rewritten.clone(),
        );
        let app = axum::Router::new().fallback(move |req: Request| {
            let (upstream, rules, http, deliveries, rewritten) = state.clone();
            async move { handle(upstream, rules, http, deliveries, rewritten, req).await }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Proxy {
            url,
            rules,
            deliveries,
            rewritten,
            task,
        }
    }

    /// Starts counting deliveries from zero (for [`Rules::drop_delivery`]).
    pub fn count_from_zero(&self) {
        self.deliveries.store(0, Ordering::SeqCst);
    }
}

async fn handle(
    upstream: String,
    rules: Arc<Mutex<Rules>>,
    http: reqwest::Client,
    deliveries: Arc<AtomicUsize>,
    rewritten: Arc<AtomicUsize>,
    req: Request,
) -> Response {
    let live = rules.clone();
    let rules = rules.lock().expect("rules").clone();
    let method = req.method().to_string();
    let mut path = req
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    for (m, prefix, status, body) in &rules.answer {
        if *m == method && path.starts_with(prefix.as_str()) {
            let mut r =
                (StatusCode::from_u16(*status).expect("status"), body.clone()).into_response();
            r.headers_mut()
                .insert("content-type", HeaderValue::from_static("application/json"));
            return r;
        }
    }
    for (from, to) in &rules.rewrite {
        if path.starts_with(from.as_str()) {
            path = format!("{to}{}", &path[from.len()..]);
            rewritten.fetch_add(1, Ordering::SeqCst);
        }
    }
    let is_ws = req
        .headers()
        .get("upgrade")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket"));
    if is_ws {
        return websocket(upstream, path, req, live, deliveries).await;
    }
    let headers = req.headers().clone();
    let body = axum::body::to_bytes(req.into_body(), 4 << 20)
        .await
        .unwrap_or_default();
    let mut out = http.request(method.parse().expect("method"), format!("{upstream}{path}"));
    for (k, v) in &headers {
        if k != "host" && k != "content-length" {
            out = out.header(k.as_str(), v.as_bytes());
        }
    }
    let out = out.body(body.to_vec());
    if let Some((prefix, ms)) = &rules.delay {
        if path.starts_with(prefix.as_str()) {
            let ms = *ms;
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                let _ = out.send().await;
            });
            return (StatusCode::OK, r#"{"needsSync":false}"#).into_response();
        }
    }
    let Ok(r) = out.send().await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let status = r.status().as_u16();
    let ct = r.headers().get("content-type").cloned();
    let mut bytes = r.bytes().await.unwrap_or_default().to_vec();
    for (prefix, key) in &rules.strip {
        if path.starts_with(prefix.as_str()) {
            if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                strip(&mut v, key);
                bytes = serde_json::to_vec(&v).unwrap_or_default();
            }
        }
    }
    let mut resp = Response::new(Body::from(bytes));
    *resp.status_mut() = StatusCode::from_u16(status).expect("status");
    if let Some(ct) = ct {
        resp.headers_mut().insert(
            "content-type",
            HeaderValue::from_bytes(ct.as_bytes()).expect("ct"),
        );
    }
    resp
}

/// Forwards the delivery WebSocket frame by frame, losing the one [`Rules::drop_delivery`] names
/// and rewriting each by [`Rules::tamper`].
async fn websocket(
    upstream: String,
    path: String,
    req: Request,
    rules: Arc<Mutex<Rules>>,
    deliveries: Arc<AtomicUsize>,
) -> Response {
    let auth = req.headers().get("authorization").cloned();
    let (mut parts, _) = req.into_parts();
    let Ok(ws) = WebSocketUpgrade::from_request_parts(&mut parts, &()).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let url = format!("{}{path}", upstream.replacen("http", "ws", 1));
    let mut up = url.into_client_request().expect("request");
    if let Some(a) = auth {
        up.headers_mut().insert("authorization", a);
    }
    let Ok((upstream, _)) = tokio_tungstenite::connect_async(up).await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    ws.on_upgrade(move |client| async move {
        let (mut up_tx, mut up_rx) = upstream.split();
        let (mut cl_tx, mut cl_rx) = client.split();
        let down = async {
            while let Some(Ok(m)) = up_rx.next().await {
                let m = match m {
                    TMsg::Binary(b) => AxMsg::Binary(b),
                    TMsg::Close(_) => break,
                    _ => continue,
                };
                let n = deliveries.fetch_add(1, Ordering::SeqCst);
                let (drop, tamper) = {
                    let r = rules.lock().expect("rules");
                    (r.drop_delivery == Some(n), r.tamper.clone())
                };
                if drop {
                    continue;
                }
                let m = match (m, tamper) {
                    (AxMsg::Binary(b), Some(t)) => AxMsg::Binary(t(b.to_vec()).into()),
                    (m, _) => m,
                };
                if cl_tx.send(m).await.is_err() {
                    break;
                }
            }
        };
        let upward = async {
            while let Some(Ok(m)) = cl_rx.next().await {
                let m = match m {
                    AxMsg::Binary(b) => TMsg::Binary(b),
                    AxMsg::Close(_) => break,
                    _ => continue,
                };
                if up_tx.send(m).await.is_err() {
                    break;
                }
            }
        };
        tokio::select! {
            _ = down => {},
            _ = upward => {},
        }
    })
}
