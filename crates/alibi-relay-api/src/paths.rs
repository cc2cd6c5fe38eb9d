//! Signal-Server's routes, as the relay serves them (`{…}` marks a path parameter).

/// `POST`: create an account with its primary device ([`crate::accounts::CreateAccount`]).
pub const ACCOUNTS: &str = "/v1/accounts";
/// `PUT /v1/devices/{device_id}`: add a device ([`crate::accounts::AddDevice`]).
pub const DEVICES: &str = "/v1/devices";
/// `PUT`: the account's attributes ([`crate::accounts::AccountAttributes`]).
pub const ATTRIBUTES: &str = "/v1/accounts/attributes";
/// `PUT`: upload prekeys ([`crate::keys::KeysUpload`]); `GET`: [`crate::keys::KeyCounts`].
pub const KEYS: &str = "/v2/keys";
/// `GET /v2/keys/{account}/{device or *}`: fetch bundles ([`crate::keys::PreKeyResponse`]).
pub const KEYS_OF: &str = "/v2/keys";
/// `PUT /v1/messages/{account}`: one message per device ([`crate::messages::OutgoingMessages`]).
pub const MESSAGES: &str = "/v1/messages";
/// `PUT`: a sealed-sender v2 multi-recipient send (body: the `SentMessage` bytes).
pub const MULTI_RECIPIENT: &str = "/v1/messages/multi_recipient";
/// `PUT`: a sealed-sender v2 send with a part for single devices (alibi's own; body: the
/// encoded [`crate::proto::MultiRecipientParts`]); each device's part reaches that device alone.
pub const MULTI_RECIPIENT_PARTS: &str = "/v1/messages/multi_recipient/parts";
/// `GET`: a sender certificate for the calling device
/// ([`crate::certificates::DeliveryCertificate`]).
pub const DELIVERY_CERTIFICATE: &str = "/v1/certificate/delivery";
/// `GET`: the relay's trust root ([`crate::certificates::TrustRoot`]).
pub const TRUST_ROOT: &str = "/v1/certificate/trust_root";
/// `GET`: the relay's counters in Prometheus text (alibi's own).
pub const METRICS: &str = "/metrics";
/// `GET`: readiness, 200 when the relay and its store answer and it is not draining, else 503
/// (alibi's own).
pub const HEALTH: &str = "/health";
/// `GET`: liveness, 200 while the relay process answers, whatever its store does (alibi's own).
pub const LIVE: &str = "/health/live";
/// `GET`: upgrade to the WebSocket that delivers the device's mail.
pub const WEBSOCKET: &str = "/v1/websocket/";
/// The path of a request the relay pushes on the WebSocket with one envelope as its body.
pub const WS_MESSAGE: &str = "/api/v1/message";
/// The path of the request the relay pushes when the mailbox has been drained.
pub const WS_QUEUE_EMPTY: &str = "/api/v1/queue/empty";
/// The content type of a multi-recipient send.
pub const MRM_CONTENT_TYPE: &str = "application/vnd.signal-messenger.mrm";
/// The content type of a multi-recipient send with parts.
pub const MRM_PARTS_CONTENT_TYPE: &str = "application/x-protobuf";
/// A header of a send (alibi's own): with value `1`, the devices the request lists are exactly
/// those to deliver to. The relay then answers no 409 for devices of the account the request
/// left out (only for listed devices the account does not have, and 410 for changed
/// registrations). A sender whose contact card is authoritative (an MPC party's) sends so: a
/// device its contact links to its own account later cannot stop delivery to the carded ones.
pub const LISTED_DEVICES: &str = "alibi-listed-devices";
