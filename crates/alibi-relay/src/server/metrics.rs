//! `GET /metrics` (Prometheus text exposition, version 0.0.4), `GET /health` (readiness) and
//! `GET /health/live` (liveness).
//!
//! Counters are this process's since it started; `alibi_relay_envelopes_queued` is the store's
//! count (every node's mail on a shared store, from the counters it keeps per mailbox), read by
//! one store call at a time and at most once a second whatever the number of scrapes: a slow
//! count is waited for, not started again, and kept when it ends. So the endpoints cost an
//! unauthenticated caller nothing that grows.

use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// The last count of the store (when it ended, and the count; none if the store failed).
    queued: tokio::sync::watch::Sender<Option<(Instant, Option<u64>)>>,
    /// A count is under way.
    counting: AtomicBool,
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

/// How old a count may be and still be answered.
const FRESH: Duration = Duration::from_secs(1);

/// How long a request waits for a count under way.
const WAIT: Duration = Duration::from_secs(2);

/// The store's queued count, at most [`FRESH`] old; `None` if the store failed or did not answer
/// within [`WAIT`]. One count runs at a time (in a task of its own, so a caller that stops
/// waiting does not cancel it): the others wait for it.
async fn queued(s: &Shared) -> Option<u64> {
    let fresh = |v: &Option<(Instant, Option<u64>)>| v.is_some_and(|(at, _)| at.elapsed() < FRESH);
    let mut rx = s.metrics.queued.subscribe();
    let last = *rx.borrow_and_update();
    if fresh(&last) {
        return last.and_then(|(_, n)| n);
    }
    if !s.metrics.counting.swap(true, Ordering::AcqRel) {
        let (store, m) = (s.store.clone(), s.metrics.clone());
        tokio::spawn(async move {
            let n = store.queued().await.ok();
            m.queued.send_replace(Some((Instant::now(), n)));
            m.counting.store(false, Ordering::Release);
        });
    }
    let got = match tokio::time::timeout(WAIT, rx.wait_for(fresh)).await {
        Ok(Ok(v)) => *v,
        _ => None,
    };
    got.and_then(|(_, n)| n)
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

/// `GET /health`, readiness: 200 when the store answers within two seconds and the relay is not
/// draining, else 503 (a load balancer sends new clients elsewhere).
pub(crate) async fn health(State(s): State<Shared>) -> Response {
    if *s.draining.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    match queued(&s).await {
        Some(_) => (StatusCode::OK, "ok\n").into_response(),
        None => (StatusCode::SERVICE_UNAVAILABLE, "store unavailable\n").into_response(),
    }
}

/// `GET /health/live`, liveness: 200 while the process answers requests, whatever the store
/// does (a supervisor restarts a relay that stops answering this, not one whose database is
/// away).
pub(crate) async fn live() -> Response {
    (StatusCode::OK, "alive\n").into_response()
}
