//! Accounts and devices: `POST /v1/accounts`, `PUT /v1/devices/{id}`,
//! `PUT /v1/accounts/attributes`. A device authenticates with HTTP Basic `uuid.device:password`.

use serde::{Deserialize, Serialize};

/// The shortest device password the relay accepts.
pub const MIN_PASSWORD: usize = 16;

/// `POST /v1/accounts`: a new account and its primary device (1).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateAccount {
    /// The account's identity key (33 bytes, `0x05 || X25519`).
    #[serde(with = "crate::b64")]
    pub identity_key: Vec<u8>,
    /// The primary device's registration id, 1..=16383.
    pub registration_id: u16,
    /// The primary device's password (at least [`MIN_PASSWORD`] characters).
    pub password: String,
}

/// The answer to [`CreateAccount`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountCreated {
    /// The account's id (its ACI).
    pub uuid: uuid::Uuid,
    /// The primary device's id: 1.
    pub device_id: u8,
}

/// `PUT /v1/devices/{device_id}`, authenticated as a device of the account.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddDevice {
    /// The new device's registration id.
    pub registration_id: u16,
    /// The new device's password.
    pub password: String,
}

/// `PUT /v1/accounts/attributes`: what senders need to reach the account unidentified.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountAttributes {
    /// The account's unidentified-access key (16 bytes, [`crate::access::derive_access_key`]).
    #[serde(with = "crate::b64")]
    pub unidentified_access_key: Vec<u8>,
}

/// Without the password.
impl core::fmt::Debug for CreateAccount {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CreateAccount")
            .field("identity_key", &self.identity_key)
            .field("registration_id", &self.registration_id)
            .finish_non_exhaustive()
    }
}

/// Without the password.
impl core::fmt::Debug for AddDevice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AddDevice")
            .field("registration_id", &self.registration_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_leaves_passwords_out() {
        let c = CreateAccount {
            identity_key: vec![5; 33],
            registration_id: 7,
            password: "correct horse battery staple".into(),
        };
        let a = AddDevice {
            registration_id: 8,
            password: "correct horse battery staple".into(),
        };
        for text in [format!("{c:?}"), format!("{a:?}")] {
            assert!(
                !text.contains("horse") && !text.contains("password"),
                "{text}"
            );
            assert!(text.contains("registration_id"), "{text}");
        }
    }
}
