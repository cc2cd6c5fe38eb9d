//! Sender certificates (`GET /v1/certificate/delivery`) and the trust root they chain to
//! (`GET /v1/certificate/trust_root`).

use serde::{Deserialize, Serialize};

/// A sender certificate for the calling device, signed by the relay's server certificate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryCertificate {
    /// The serialized `SenderCertificate`.
    #[serde(with = "crate::b64")]
    pub certificate: Vec<u8>,
}

/// The relay's trust root. A client must not believe this answer: it pins the root it was given
/// out of band (a contact card or a group file) and only compares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustRoot {
    /// The trust root's public key (33 bytes).
    #[serde(with = "crate::b64")]
    pub trust_root: Vec<u8>,
}
