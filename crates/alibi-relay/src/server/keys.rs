//! The prekey directory: uploads (signatures checked), counts, and bundle fetches that consume
//! one-time prekeys.

use alibi_identity::{xeddsa, KemPublicKey, PublicKey};
use alibi_relay_api::keys::{
    KeyCounts, KeysUpload, PreKeyResponse, MAX_KEYS_PER_UPLOAD, MAX_RINGXKEM_BUNDLE,
};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use uuid::Uuid;

use super::auth::authenticate;
use super::limits::ClientAddress;
use super::{ApiError, ApiResult, Shared};
use crate::Error;

/// `PUT /v2/keys`: the calling device's prekeys, every signature checked against the account's
/// identity key before anything is stored.
pub(crate) async fn put_keys(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
    Json(keys): Json<KeysUpload>,
) -> ApiResult<StatusCode> {
    let (account, device) = authenticate(&s, &headers, from).await?;
    if keys.pre_keys.len() > MAX_KEYS_PER_UPLOAD || keys.pq_pre_keys.len() > MAX_KEYS_PER_UPLOAD {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "at most 100 prekeys of each kind",
        ));
    }
    // The RingXKEM bundle is opaque here (clients check its Falcon signatures against the
    // identity pinned in the contact card); only its size is bounded.
    if keys
        .ringxkem_pre_key
        .as_ref()
        .is_some_and(|k| k.bundle.len() > MAX_RINGXKEM_BUNDLE)
    {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a RingXKEM bundle is at most {MAX_RINGXKEM_BUNDLE} bytes"),
        ));
    }
    // What a device may keep stored in total (a replaced key id counts twice here: an upper bound).
    let (ec, pq) = s.store.key_counts(account, device).await?;
    let max = s.config.max_stored_prekeys;
    if ec + keys.pre_keys.len() > max || pq + keys.pq_pre_keys.len() > max {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("at most {max} one-time prekeys of each kind stored per device"),
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

/// `GET /v2/keys`.
pub(crate) async fn key_counts(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
) -> ApiResult<Json<KeyCounts>> {
    let (account, device) = authenticate(&s, &headers, from).await?;
    let (ec, pq) = s.store.key_counts(account, device).await?;
    Ok(Json(KeyCounts {
        count: ec as u64,
        pq_count: pq as u64,
    }))
}

/// `GET /v2/keys/{account}/{device or *}`: takes one bundle per device asked for; each request
/// counts against the asking account's `prekey_fetches` (Signal-Server's per-requester rule) and
/// against `prekey_fetches_per_target` for that account, per asking account and per client
/// address, whose burst is below the one-time prekeys a client keeps: nobody drains another
/// account's one-time prekeys, with one account or with many made on one host.
pub(crate) async fn get_keys(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    Path((target, which)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Json<PreKeyResponse>> {
    let (requester, _) = authenticate(&s, &headers, from).await?;
    let target = Uuid::parse_str(&target)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "account: a UUID"))?;
    s.limits.prekey_fetches.check(&requester)?;
    // An account's own devices fetch each other's bundles too (linked devices): not a drain.
    if requester != target {
        s.limits
            .prekey_fetches_per_target
            .check(&(requester, target))?;
        s.limits
            .prekey_fetches_from_address
            .check(&(from, target))?;
    }
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
    Ok(Json(PreKeyResponse {
        identity_key: ik,
        devices,
    }))
}
