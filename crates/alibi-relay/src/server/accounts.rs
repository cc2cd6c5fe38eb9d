//! Accounts and their devices: creation, linked devices, attributes (the access key). The
//! in-memory view of an account that authentication and sends check against is in
//! `account_cache.rs`.

use alibi_identity::PublicKey;
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::accounts::{
    AccountAttributes, AccountCreated, AddDevice, CreateAccount, MIN_PASSWORD,
};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use uuid::Uuid;

use super::auth::authenticate;
use super::limits::ClientAddress;
use super::{ApiError, ApiResult, Shared};
use crate::store::DeviceInfo;

/// `POST /v1/accounts`.
pub(crate) async fn create_account(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    Json(req): Json<CreateAccount>,
) -> ApiResult<Json<AccountCreated>> {
    s.limits.account_creations.check(&from)?;
    PublicKey::deserialize(&req.identity_key).map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "identity key: 33 bytes, 0x05 first",
        )
    })?;
    check_registration_id(req.registration_id)?;
    if req.password.len() < MIN_PASSWORD {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "password: at least 16 characters",
        ));
    }
    let account = Uuid::new_v4();
    let password_hash = s.credentials.hash((account, 1), &req.password).await?;
    s.store
        .create_account(
            account,
            &req.identity_key,
            DeviceInfo {
                device_id: 1,
                registration_id: req.registration_id,
                password_hash,
            },
        )
        .await?;
    Ok(Json(AccountCreated {
        uuid: account,
        device_id: 1,
    }))
}

fn check_registration_id(r: u16) -> ApiResult<()> {
    if r == 0 || r > 0x3FFF {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "registration id: 1..=16383",
        ));
    }
    Ok(())
}

/// `PUT /v1/devices/{device_id}`: links (or replaces) a device; only the primary may.
pub(crate) async fn add_device(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    Path(device_id): Path<u8>,
    headers: HeaderMap,
    Json(req): Json<AddDevice>,
) -> ApiResult<StatusCode> {
    let (account, caller) = authenticate(&s, &headers, from).await?;
    // A linked device that could replace the others could take the account over.
    if caller != 1 {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "only the primary device may add or replace devices",
        ));
    }
    if !(2..=127).contains(&device_id) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "device id: 2..=127"));
    }
    check_registration_id(req.registration_id)?;
    if req.password.len() < MIN_PASSWORD {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "password: at least 16 characters",
        ));
    }
    // Argon2id again, charged to the account (its primary asked): one account replacing devices
    // in a loop meets 429 instead of holding every Argon2 permit.
    s.limits.device_password(&from, &account)?;
    let password_hash = s
        .credentials
        .hash((account, device_id), &req.password)
        .await?;
    let credential = crate::store::credential_fingerprint(&password_hash);
    s.store
        .add_device(
            account,
            DeviceInfo {
                device_id,
                registration_id: req.registration_id,
                password_hash,
            },
        )
        .await?;
    s.device_cache.lock().expect("cache lock").remove(&account);
    // The device it replaces may hold a delivery socket here (the store tells other relays).
    super::delivery::close_replaced(&s, account, device_id, credential);
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /v1/accounts/attributes`: the account's unidentified-access key (the primary sets it).
pub(crate) async fn put_attributes(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
    Json(req): Json<AccountAttributes>,
) -> ApiResult<StatusCode> {
    let (account, caller) = authenticate(&s, &headers, from).await?;
    if caller != 1 {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "only the primary device may set the account's attributes",
        ));
    }
    let key: AccessKey = req
        .unidentified_access_key
        .try_into()
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "unidentifiedAccessKey: 16 bytes"))?;
    s.store.set_access_key(account, key).await?;
    s.device_cache.lock().expect("cache lock").remove(&account);
    Ok(StatusCode::NO_CONTENT)
}
