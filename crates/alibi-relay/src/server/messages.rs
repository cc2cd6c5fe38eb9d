//! Sends: one account's devices in one request (identified, or sealed with the recipient's access
//! key), and multi-recipient sealed-sender v2 sends; Signal-Server's device checks (409, 410);
//! each stored envelope handed to its device's socket if it is connected here.

use std::collections::HashMap;

use alibi_relay_api::access::{self, AccessKey};
use alibi_relay_api::messages::{MultiRecipientResponse, OutgoingMessages, SendResponse};
use alibi_relay_api::proto::{envelope, Envelope, MultiRecipientParts};
use alibi_relay_api::{paths, AccountDevices, DeviceLists, ErrorBody};
use alibi_sealed_sender::v2::{self, SentMessage};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use prost::Message;
use uuid::Uuid;

use super::account_cache::{account, CachedAccount};
use super::auth::{authenticate, check_access_key};
use super::delivery::{self, Outgoing};
use super::limits::ClientAddress;
use super::metrics;
use super::{ApiError, ApiResult, AppState, Shared};
use crate::store::{DeviceInfo, Sender};
use alibi_relay_api::now_ms;

/// Most recipient entries one multi-recipient send may list. Signal caps groups at 1,000
/// members; the bound keeps one request's parsing, account lookups and stored envelopes in
/// proportion to a real group. Over it: 413, before the body is parsed.
pub const MAX_RECIPIENTS: usize = 1000;

/// Most `(recipient, device)` entries one multi-recipient send may list, all recipients together
/// (1,000 recipients of 5 devices each). Each entry becomes a stored envelope, so the bound keeps
/// one request's work and storage in proportion to a real group. Over it: 413, before any account
/// is read.
pub const MAX_DEVICE_ENTRIES: usize = 5000;

/// 400 if a device id comes twice in one list: each copy would be stored, so one request could
/// fill a mailbox (or, in a multi-recipient send, list a device ~700,000 times in 2 MiB).
fn refuse_twice_listed(devices: impl IntoIterator<Item = u8>) -> ApiResult<()> {
    let mut seen = [false; 256];
    for d in devices {
        if std::mem::replace(&mut seen[usize::from(d)], true) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("device {d} is listed twice for one recipient"),
            ));
        }
    }
    Ok(())
}

/// After a commit: hands each envelope to its device's socket task if one is connected here, and
/// wakes it otherwise (its next store read finds the envelope).
pub(crate) fn hand_over(s: &AppState, deliveries: Vec<(Uuid, u8, Outgoing)>) {
    let live = s.live.lock().expect("live lock");
    for (a, d, out) in deliveries {
        let pushed = live.get(&(a, d)).is_some_and(|l| l.offer(out));
        if !pushed {
            delivery::wakeup(s, a, d).notify_one();
        }
    }
}

/// Signal-Server's comparison of an account's devices with a request's `given` (device,
/// registration id) list, `skip` (the sender's own device) aside: the devices it left out, those
/// it named that the account lacks, and those whose registration changed. With `listed` (the
/// request's [`paths::LISTED_DEVICES`] header), the devices left out are not missing: the sender
/// delivers to exactly those it lists.
fn compare_devices(
    devices: &[DeviceInfo],
    given: &[(u8, u16)],
    skip: Option<u8>,
    listed: bool,
) -> DeviceLists {
    let mut lists = DeviceLists::default();
    for d in devices {
        if Some(d.device_id) == skip {
            continue;
        }
        match given.iter().find(|g| g.0 == d.device_id) {
            None if !listed => lists.missing_devices.push(d.device_id),
            None => {}
            Some(g) if g.1 != d.registration_id => lists.stale_devices.push(d.device_id),
            Some(_) => {}
        }
    }
    for g in given {
        if !devices.iter().any(|d| d.device_id == g.0) || Some(g.0) == skip {
            lists.extra_devices.push(g.0);
        }
    }
    lists
}

/// Signal-Server's answers for one account's lists: 409 for missing or extra devices, then 410
/// for stale registrations.
fn check_devices(lists: DeviceLists) -> ApiResult<()> {
    if !lists.missing_devices.is_empty() || !lists.extra_devices.is_empty() {
        return Err(ApiError::with(
            StatusCode::CONFLICT,
            ErrorBody {
                missing_devices: Some(lists.missing_devices),
                extra_devices: Some(lists.extra_devices),
                ..ErrorBody::new("missing or extra devices")
            },
        ));
    }
    if !lists.stale_devices.is_empty() {
        return Err(ApiError::with(
            StatusCode::GONE,
            ErrorBody {
                stale_devices: Some(lists.stale_devices),
                ..ErrorBody::new("stale registration ids")
            },
        ));
    }
    Ok(())
}

/// The answers of a multi-recipient send for every account's lists at once, each account named
/// (Signal-Server's `[{uuid, devices}]`): 409 listing the accounts with missing or extra
/// devices, else 410 listing those with stale ones.
fn check_accounts(lists: Vec<AccountDevices>) -> ApiResult<()> {
    let conflict = |a: &AccountDevices| {
        !a.devices.missing_devices.is_empty() || !a.devices.extra_devices.is_empty()
    };
    let (status, error, wrong): (_, _, Vec<AccountDevices>) = if lists.iter().any(conflict) {
        let wrong = lists.into_iter().filter(conflict).collect();
        (StatusCode::CONFLICT, "missing or extra devices", wrong)
    } else {
        let stale = |a: &AccountDevices| !a.devices.stale_devices.is_empty();
        let wrong: Vec<AccountDevices> = lists.into_iter().filter(stale).collect();
        if wrong.is_empty() {
            return Ok(());
        }
        (StatusCode::GONE, "stale registration ids", wrong)
    };
    Err(ApiError::with(
        status,
        ErrorBody {
            accounts: Some(wrong),
            ..ErrorBody::new(error)
        },
    ))
}

/// Whether a send carries the [`paths::LISTED_DEVICES`] header.
fn listed_only(headers: &HeaderMap) -> bool {
    headers
        .get(paths::LISTED_DEVICES)
        .is_some_and(|v| v.as_bytes() == b"1")
}

/// `PUT /v1/messages/{account}`: one message per device of the account, all stored or none.
pub(crate) async fn send(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    Path(target): Path<String>,
    headers: HeaderMap,
    Json(req): Json<OutgoingMessages>,
) -> ApiResult<Json<SendResponse>> {
    let target = Uuid::parse_str(&target)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "account: a UUID"))?;
    refuse_twice_listed(req.messages.iter().map(|m| m.destination_device_id))?;
    // Signal's two ways in: the sender's own credentials, or (for sealed sender, the sender
    // unnamed) the recipient's access key.
    let unidentified = !headers.contains_key(axum::http::header::AUTHORIZATION)
        && headers.contains_key(access::HEADER);
    let sender = if unidentified {
        s.limits.unidentified_sends.check(&from)?;
        None
    } else {
        Some(authenticate(&s, &headers, from).await?)
    };
    let target_account = account(&s, target).await?;
    if unidentified {
        check_access_key(&headers, target_account.access_key)?;
    }
    let devices = target_account.devices;
    if devices.is_empty() {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "no such account"));
    }
    for m in &req.messages {
        let Some(kind) = envelope::Type::sendable(m.kind) else {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "type: 1, 3, 6 or 8"));
        };
        if unidentified && kind != envelope::Type::UnidentifiedSender {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "an unidentified send carries sealed-sender messages only (type 6)",
            ));
        }
    }
    let given: Vec<(u8, u16)> = req
        .messages
        .iter()
        .map(|m| (m.destination_device_id, m.destination_registration_id))
        .collect();
    let own_device = sender.and_then(|(a, d)| (a == target).then_some(d));
    if given.is_empty() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "no device listed"));
    }
    check_devices(compare_devices(
        &devices,
        &given,
        own_device,
        listed_only(&headers),
    ))?;
    let now = now_ms();
    let deliveries = req
        .messages
        .into_iter()
        .map(|m| {
            let sealed = m.kind == envelope::Type::UnidentifiedSender as u32;
            (
                target,
                m.destination_device_id,
                Envelope {
                    r#type: i32::try_from(m.kind).ok(),
                    source_service_id: sender.filter(|_| !sealed).map(|(a, _)| a.to_string()),
                    source_device: sender.filter(|_| !sealed).map(|(_, d)| d.into()),
                    client_timestamp: Some(req.timestamp),
                    content: Some(m.content),
                    server_guid: Some(crate::next_message_id().to_string()),
                    server_timestamp: Some(now),
                    destination_service_id: Some(target.to_string()),
                    ..Envelope::default()
                },
            )
        })
        .collect::<Vec<_>>();
    let n = deliveries.len() as u64;
    // The share a sender may take of the mailbox is its host's, named or sealed (issue 65, item
    // 8: four accounts made on one host each had a share, and filled a mailbox together).
    let share = Sender::address(from.0);
    s.metrics
        .time(
            metrics::Op::Enqueue,
            s.store.enqueue(deliveries.clone(), None, share, s.quota()),
        )
        .await?;
    metrics::Metrics::add(&s.metrics.accepted, n);
    let outgoing = deliveries
        .into_iter()
        .map(|(a, d, env)| (a, d, Outgoing { env, shared: None }))
        .collect();
    hand_over(&s, outgoing);
    Ok(Json(SendResponse { needs_sync: false }))
}

/// `PUT /v1/messages/multi_recipient`: a sealed-sender v2 message for many accounts, its shared
/// part stored once; the sender proves it may reach them all with the XOR of their access keys.
pub(crate) async fn multi_recipient(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<MultiRecipientResponse>> {
    s.limits.unidentified_sends.check(&from)?;
    multi_send(&s, from, &headers, body, None).await
}

/// `PUT /v1/messages/multi_recipient/parts` (alibi's own): as [`multi_recipient`], with a part
/// for single devices beside the shared message, each stored in and delivered with that device's
/// envelope alone. A group round's point-to-point messages travel so: otherwise every member
/// would receive (and the relay push to each) all members' parts.
pub(crate) async fn multi_recipient_parts(
    State(s): State<Shared>,
    Extension(from): Extension<ClientAddress>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<MultiRecipientResponse>> {
    s.limits.unidentified_sends.check(&from)?;
    // At most 4 bytes of lengths decoded per byte of the (bounded) body; the parts and the
    // shared message stay slices of it.
    let m = MultiRecipientParts::decode(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("multi-recipient parts: {e}"),
        )
    })?;
    let parts = DeviceParts {
        bytes: m.parts.unwrap_or_default(),
        lengths: m.part_lengths,
    };
    multi_send(&s, from, &headers, m.mrm.unwrap_or_default(), Some(parts)).await
}

/// The parts of a multi-recipient send with parts: `lengths[i]` bytes of `bytes` for the i-th
/// `(recipient, device)` entry of its `SentMessage`, one after another.
struct DeviceParts {
    bytes: Bytes,
    lengths: Vec<u32>,
}

impl DeviceParts {
    /// 400 unless there is one length per entry and they add up to the parts' bytes.
    fn check(&self, entries: usize) -> ApiResult<()> {
        let total: u64 = self.lengths.iter().map(|&l| u64::from(l)).sum();
        if self.lengths.len() != entries || total != self.bytes.len() as u64 {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "the parts' lengths must name one part per device entry and add up to the parts",
            ));
        }
        Ok(())
    }

    /// Each entry's part, in order (slices of the request body, not copies).
    fn split(self) -> Vec<Bytes> {
        let mut at = 0;
        self.lengths
            .iter()
            .map(|&l| {
                let part = self.bytes.slice(at..at + l as usize);
                at += l as usize;
                part
            })
            .collect()
    }
}

/// A multi-recipient send (its body `body`), with `parts` for single devices if given.
async fn multi_send(
    s: &AppState,
    from: ClientAddress,
    headers: &HeaderMap,
    body: Bytes,
    parts: Option<DeviceParts>,
) -> ApiResult<Json<MultiRecipientResponse>> {
    // Bounded before any work proportional to the count.
    let bad = |e: alibi_sealed_sender::Error| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("multi-recipient body: {e}"),
        )
    };
    if v2::announced_recipients(&body).map_err(bad)? > MAX_RECIPIENTS as u64 {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("at most {MAX_RECIPIENTS} recipients per request"),
        ));
    }
    let sent = SentMessage::parse(&body).map_err(bad)?;
    // Before any account is read or envelope made: no device twice for a recipient, and no more
    // entries than a real group has.
    let mut entries = 0;
    for r in &sent.recipients {
        refuse_twice_listed(r.devices.iter().map(|&(d, _)| d))?;
        entries += r.devices.len();
    }
    if entries > MAX_DEVICE_ENTRIES {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("at most {MAX_DEVICE_ENTRIES} device entries per request"),
        ));
    }
    if let Some(p) = &parts {
        p.check(entries)?;
    }
    let accounts = recipient_accounts(s, &sent).await?;
    // The sender proves it may reach every recipient: the XOR of their access keys, each
    // account's once (listed as ACI and as PNI, a key would cancel itself out).
    let keys: Option<Vec<AccessKey>> = accounts.values().map(|a| a.access_key).collect();
    check_access_key(headers, keys.map(|k| access::combine(&k)))?;
    let listed = sent.recipients.iter().filter(|r| !r.devices.is_empty());
    if listed.count() != accounts.len() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "an account is listed twice (as ACI and as PNI)",
        ));
    }
    let lists = sent
        .recipients
        .iter()
        .filter(|r| !r.devices.is_empty())
        .map(|r| AccountDevices {
            uuid: r.service_id.uuid.to_string(),
            devices: compare_devices(
                &accounts[&r.service_id.uuid].devices,
                &r.devices,
                None,
                listed_only(headers),
            ),
        })
        .collect();
    check_accounts(lists)?;
    let key = Uuid::new_v4();
    let deliveries = envelopes(&sent, parts, key)?;
    let n = deliveries.len() as u64;
    s.metrics
        .time(
            metrics::Op::Enqueue,
            s.store.enqueue(
                deliveries.clone(),
                Some((key, sent.shared_bytes().to_vec())),
                Sender::address(from.0),
                s.quota(),
            ),
        )
        .await?;
    metrics::Metrics::add(&s.metrics.accepted, n);
    // Every device's socket gets a reference to the one shared part in the request body.
    let shared = body.slice_ref(sent.shared_bytes());
    let outgoing = deliveries
        .into_iter()
        .map(|(a, d, env)| {
            let shared = Some(shared.clone());
            (a, d, Outgoing { env, shared })
        })
        .collect();
    hand_over(s, outgoing);
    Ok(Json(MultiRecipientResponse::default()))
}

/// The envelope each listed device of `sent` gets (its `C || AT` and its part, if any; the
/// shared part is stored once under `key`); the device lists are checked already.
fn envelopes(
    sent: &SentMessage<'_>,
    parts: Option<DeviceParts>,
    key: Uuid,
) -> ApiResult<Vec<(Uuid, u8, Envelope)>> {
    let entries = sent.recipients.iter().map(|r| r.devices.len()).sum();
    let mut deliveries = Vec::with_capacity(entries);
    let now = now_ms();
    // The entries' parts in order (none without parts); recipients without devices have none.
    let mut part_of_entry = parts
        .map(DeviceParts::split)
        .unwrap_or_default()
        .into_iter();
    for r in sent.recipients.iter().filter(|r| !r.devices.is_empty()) {
        let account = r.service_id.uuid;
        let c_and_at = sent.key_material(r).expect("has devices").to_vec();
        // Stored per device: C || AT (48 bytes) and its part; the rest is the shared part.
        for &(d, _) in &r.devices {
            let device_part = part_of_entry
                .next()
                .filter(|p| !p.is_empty())
                .map(|p| p.to_vec());
            deliveries.push((
                account,
                d,
                Envelope {
                    r#type: Some(envelope::Type::UnidentifiedSender.into()),
                    client_timestamp: Some(now),
                    content: Some(c_and_at.clone()),
                    server_guid: Some(crate::next_message_id().to_string()),
                    server_timestamp: Some(now),
                    destination_service_id: Some(account.to_string()),
                    shared_mrm_key: Some(key.as_bytes().to_vec()),
                    device_part,
                    ..Envelope::default()
                },
            ));
        }
    }
    Ok(deliveries)
}

/// The accounts a multi-recipient send lists with devices, each once: 400 if there are none,
/// 404 naming those that do not exist.
async fn recipient_accounts(
    s: &AppState,
    sent: &SentMessage<'_>,
) -> ApiResult<HashMap<Uuid, CachedAccount>> {
    let mut listed = vec![];
    let mut seen = std::collections::HashSet::new();
    for r in sent.recipients.iter().filter(|r| !r.devices.is_empty()) {
        if seen.insert(r.service_id.uuid) {
            listed.push(r.service_id.uuid);
        }
    }
    // One read of the store for every account not fresh in memory, not one per account.
    let accounts = super::account_cache::accounts(s, &listed).await?;
    let unknown: Vec<String> = listed
        .iter()
        .filter(|a| accounts[a].devices.is_empty())
        .map(Uuid::to_string)
        .collect();
    // With nobody to deliver to, the access-key check would compare against the XOR of no keys
    // (all zero) and the shared part would be stored with no reference: refused.
    if accounts.is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "no recipient to deliver to",
        ));
    }
    if !unknown.is_empty() {
        return Err(ApiError::with(
            StatusCode::NOT_FOUND,
            ErrorBody {
                uuids_404: Some(unknown),
                ..ErrorBody::new("unknown recipients")
            },
        ));
    }
    Ok(accounts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(bytes: &'static [u8], lengths: &[u32]) -> DeviceParts {
        DeviceParts {
            bytes: Bytes::from_static(bytes),
            lengths: lengths.to_vec(),
        }
    }

    #[test]
    fn parts_need_one_length_per_entry_adding_up_to_the_bytes() {
        assert!(parts(b"abc", &[2, 0, 1]).check(3).is_ok());
        // One length short, one too many, a sum short of the bytes, and one past them.
        for (lengths, entries) in [(&[2, 1][..], 3), (&[2, 0, 1, 0], 3), (&[1, 0, 1], 3)] {
            let e = parts(b"abc", lengths).check(entries).unwrap_err();
            assert_eq!(e.0, StatusCode::BAD_REQUEST, "{lengths:?}");
        }
        assert!(parts(b"abc", &[2, 0, 2]).check(3).is_err());
    }

    #[test]
    fn each_entry_gets_its_own_slice_in_order() {
        let split = parts(b"abcdef", &[2, 0, 3, 1]).split();
        let got: Vec<&[u8]> = split.iter().map(|b| &b[..]).collect();
        assert_eq!(got, [&b"ab"[..], b"", b"cde", b"f"]);
    }
}
