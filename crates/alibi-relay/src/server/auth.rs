//! Who is asking: device credentials (HTTP Basic `uuid.device:password`, see [`super::credentials`]),
//! unidentified-access keys for sealed sends, and the sender certificates the relay signs for
//! authenticated devices.

use alibi_identity::{PrivateKey, PublicKey};
use alibi_relay_api::access::{self, AccessKey};
use alibi_relay_api::b64;
use alibi_relay_api::certificates::{DeliveryCertificate, TrustRoot};
use alibi_sealed_sender::SenderCertificate;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use getrandom::SysRng;
use rand_core::UnwrapErr;
use subtle::ConstantTimeEq;
use uuid::Uuid;
use zeroize::Zeroizing;

use super::limits::ClientAddress;
use super::{account_cache, ApiError, ApiResult, AppState, Shared};
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

/// The authenticated device of a request (HTTP Basic `uuid[.device]:password`), rate limited.
///
/// A password this relay process has verified before is checked by a keyed tag in constant time;
/// otherwise Argon2id runs (against a dummy hash for an unknown account or device, so the answer
/// takes as long), counted against the client address and (account, address). A wrong password is answered after
/// [`super::Config::auth_failure_delay`].
pub(crate) async fn authenticate(
    s: &AppState,
    headers: &HeaderMap,
    from: ClientAddress,
) -> ApiResult<(Uuid, u8)> {
    Ok(authenticate_device(s, headers, from).await?.0)
}

/// [`authenticate`], with the [`crate::store::credential_fingerprint`] of the password hash it
/// checked against (a delivery socket keeps it, to learn when its device was replaced).
pub(crate) async fn authenticate_device(
    s: &AppState,
    headers: &HeaderMap,
    from: ClientAddress,
) -> ApiResult<((Uuid, u8), [u8; 32])> {
    let unauthorized = || ApiError::new(StatusCode::UNAUTHORIZED, "missing or bad credentials");
    let h = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .ok_or_else(unauthorized)?;
    let decoded = b64::decode(h).ok_or_else(unauthorized)?;
    let decoded = Zeroizing::new(String::from_utf8(decoded).map_err(|_| unauthorized())?);
    let (user, password) = decoded.split_once(':').ok_or_else(unauthorized)?;
    let (account, device) = match user.split_once('.') {
        Some((a, d)) => (a, d.parse::<u8>().map_err(|_| unauthorized())?),
        None => (user, 1),
    };
    let account = Uuid::parse_str(account).map_err(|_| unauthorized())?;
    let who = (account, device);
    let devices = account_cache::devices(s, account).await?;
    let stored = devices
        .iter()
        .find(|d| d.device_id == device)
        .map(|d| d.password_hash.as_str());
    let fingerprint = crate::store::credential_fingerprint(stored.unwrap_or_default());
    let ok = match stored {
        Some(stored) if s.credentials.known(who, stored, password) => true,
        _ => {
            s.limits.password_check(&from, &account)?;
            s.credentials.verify(who, stored, password).await?
        }
    };
    if !ok {
        super::metrics::Metrics::add(&s.metrics.auth_failures, 1);
        // No account, device or address in the log: the metric and this line say that it
        // happens, which is what an operator acts on.
        tracing::info!("authentication failed");
        tokio::time::sleep(s.config.auth_failure_delay).await;
        return Err(unauthorized());
    }
    s.limits.per_device.check(&who)?;
    Ok((who, fingerprint))
}

/// `GET /v1/certificate/delivery`: a sender certificate for the calling device.
pub(crate) async fn delivery_certificate(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
) -> ApiResult<Json<DeliveryCertificate>> {
    let (account, device) = authenticate(&s, &headers, from).await?;
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
