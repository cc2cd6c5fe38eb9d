//! `GET /metrics` (Prometheus text exposition, version 0.0.4) and `GET /health`.
//!
//! Counters are this process's since it started; `alibi_relay_envelopes_queued` is the store's
//! count (every node's mail on a shared store), read at most once a second whatever the number of
//! scrapes, so the endpoint costs an unauthenticated caller nothing that grows.

use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::Shared;

/// A store operation whose latency is recorded.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    Enqueue = 0,
    Pending = 1,
    Ack = 2,
}

const OPS: [&str; 3] = ["enqueue", "pending", "ack"];

impl Op {
    fn name(self) -> &'static str {
        OPS[self as usize]
    }
}

/// The relay's counters.
#[derive(Default)]
pub(crate) struct Metrics {
    pub(crate) accepted: AtomicU64,
    pub(crate) pushed: AtomicU64,
    pub(crate) delivered: AtomicU64,
    pub(crate) redelivered: AtomicU64,
    pub(crate) auth_failures: AtomicU64,
    pub(crate) store_errors: AtomicU64,
    store_nanos: [AtomicU64; 3],
    store_calls: [AtomicU64; 3],
    queued: Mutex<Option<(Instant, u64)>>,
}

impl Metrics {
    /// Runs a store call, recording its latency (and an error, if it fails).
    pub(crate) async fn time<T, E>(
        &self,
        op: Op,
        f: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        let start = Instant::now();
        let r = f.await;
        let i = op as usize;
        self.store_nanos[i].fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.store_calls[i].fetch_add(1, Ordering::Relaxed);
        if r.is_err() {
            self.store_errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!(op = op.name(), "store call failed");
        }
        r
    }

    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// The store's queued count, at most a second old.
async fn queued(s: &super::AppState) -> Option<u64> {
    if let Some((at, n)) = *s.metrics.queued.lock().expect("metrics lock") {
        if at.elapsed() < Duration::from_secs(1) {
            return Some(n);
        }
    }
    let n = tokio::time::timeout(Duration::from_secs(2), s.store.queued())
        .await
        .ok()?
        .ok()?;
    *s.metrics.queued.lock().expect("metrics lock") = Some((Instant::now(), n));
    Some(n)
}

fn counter(out: &mut String, name: &str, help: &str, kind: &str, value: impl std::fmt::Display) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
    );
}

/// `GET /metrics`.
pub(crate) async fn metrics(State(s): State<Shared>) -> Response {
    let m = &s.metrics;
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let mut out = String::with_capacity(2048);
    counter(
        &mut out,
        "alibi_relay_envelopes_accepted_total",
        "Envelopes stored for delivery by this process.",
        "counter",
        get(&m.accepted),
    );
    counter(
        &mut out,
        "alibi_relay_envelopes_pushed_total",
        "Envelopes pushed on delivery sockets (a redelivery counts again).",
        "counter",
        get(&m.pushed),
    );
    counter(
        &mut out,
        "alibi_relay_envelopes_delivered_total",
        "Envelopes acknowledged by their device and deleted.",
        "counter",
        get(&m.delivered),
    );
    counter(
        &mut out,
        "alibi_relay_envelopes_redelivered_total",
        "Envelopes pushed again after the acknowledgement timeout.",
        "counter",
        get(&m.redelivered),
    );
    counter(
        &mut out,
        "alibi_relay_auth_failures_total",
        "Requests refused for missing or wrong credentials.",
        "counter",
        get(&m.auth_failures),
    );
    counter(
        &mut out,
        "alibi_relay_store_errors_total",
        "Store calls that failed.",
        "counter",
        get(&m.store_errors),
    );
    let sockets = s.live.lock().expect("live lock").len();
    counter(
        &mut out,
        "alibi_relay_sockets",
        "Delivery sockets open on this process.",
        "gauge",
        sockets,
    );
    if let Some(n) = queued(&s).await {
        counter(
            &mut out,
            "alibi_relay_envelopes_queued",
            "Envelopes in the store waiting for acknowledgement (all processes on the store).",
            "gauge",
            n,
        );
    }
    let _ = writeln!(
        out,
        "# HELP alibi_relay_store_seconds Time spent in store calls.\n# TYPE alibi_relay_store_seconds summary"
    );
    for (i, op) in OPS.iter().enumerate() {
        let secs = get(&m.store_nanos[i]) as f64 / 1e9;
        let _ = writeln!(
            out,
            "alibi_relay_store_seconds_sum{{op=\"{op}\"}} {secs:.6}\nalibi_relay_store_seconds_count{{op=\"{op}\"}} {}",
            get(&m.store_calls[i])
        );
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out).into_response()
}

/// `GET /health`: 200 when the store answers within two seconds, else 503.
pub(crate) async fn health(State(s): State<Shared>) -> Response {
    match queued(&s).await {
        Some(_) => (StatusCode::OK, "ok\n").into_response(),
        None => (StatusCode::SERVICE_UNAVAILABLE, "store unavailable\n").into_response(),
    }
}
