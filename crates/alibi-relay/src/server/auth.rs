//! Who is asking: device credentials (HTTP Basic `uuid.device:password`, checked against the
//! stored hash in constant time), unidentified-access keys for sealed sends, per-device rate
//! limits, and the sender certificates the relay signs for authenticated devices.

use std::time::Instant;

use alibi_channel::sealed_sender::SenderCertificate;
use alibi_handshake::{PrivateKey, PublicKey};
use alibi_relay_api::access::{self, AccessKey};
use alibi_relay_api::b64;
use alibi_relay_api::certificates::{DeliveryCertificate, TrustRoot};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use getrandom::SysRng;
use rand_core::UnwrapErr;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::{accounts, ApiError, ApiResult, AppState, Shared};
use crate::Error;
use alibi_relay_api::now_ms;

/// Checks an `Unidentified-Access-Key` header against `expected` in constant time; an account
/// without a key cannot be reached this way.
pub(crate) fn check_access_key(headers: &HeaderMap, expected: Option<AccessKey>) -> ApiResult<()> {
    let unauthorized = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong Unidentified-Access-Key",
        )
    };
    let given = headers
        .get(access::HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(b64::decode)
        .ok_or_else(unauthorized)?;
    let expected = expected.ok_or_else(unauthorized)?;
    if given.len() != 16 || !bool::from(given.ct_eq(&expected[..])) {
        return Err(unauthorized());
    }
    Ok(())
}

pub(crate) fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The authenticated device of a request (HTTP Basic `uuid[.device]:secret`), rate limited.
pub(crate) async fn authenticate(s: &AppState, headers: &HeaderMap) -> ApiResult<(Uuid, u8)> {
    let unauthorized = || ApiError::new(StatusCode::UNAUTHORIZED, "missing or bad credentials");
    let h = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .ok_or_else(unauthorized)?;
    let decoded = b64::decode(h).ok_or_else(unauthorized)?;
    let decoded = String::from_utf8(decoded).map_err(|_| unauthorized())?;
    let (user, secret) = decoded.split_once(':').ok_or_else(unauthorized)?;
    let (account, device) = match user.split_once('.') {
        Some((a, d)) => (a, d.parse::<u8>().map_err(|_| unauthorized())?),
        None => (user, 1),
    };
    let account = Uuid::parse_str(account).map_err(|_| unauthorized())?;
    let devices = accounts::devices(s, account).await?;
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

/// A device's token bucket.
pub(crate) struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Takes a token from the device's bucket, refilled at the configured rate.
pub(crate) fn rate_limit(s: &AppState, account: Uuid, device: u8) -> ApiResult<()> {
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

/// `GET /v1/certificate/delivery`: a sender certificate for the calling device.
pub(crate) async fn delivery_certificate(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> ApiResult<Json<DeliveryCertificate>> {
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
    Ok(Json(DeliveryCertificate {
        certificate: cert.serialized().to_vec(),
    }))
}

/// `GET /v1/certificate/trust_root`.
pub(crate) async fn trust_root(State(s): State<Shared>) -> Json<TrustRoot> {
    let root = PrivateKey::from_bytes(s.config.trust_root).public_key();
    Json(TrustRoot {
        trust_root: root.serialize().to_vec(),
    })
}
