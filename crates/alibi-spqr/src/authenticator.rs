//! The ML-KEM Braid's authenticator (ML-KEM Braid specification, "Authentication"): a root key
//! and a MAC key, updated with each epoch's secret, that MAC the encapsulation-key header sent
//! by one side and the ciphertext sent by the other, so a party that did not take part in the
//! session's handshake cannot inject either.

use hmac::{Hmac, KeyInit, Mac as _};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::kdf::{hkdf, ZERO_SALT};
use crate::{Epoch, Error};

/// Bytes of a MAC.
pub const MAC_SIZE: usize = 32;

const UPDATE_INFO: &[u8] = b"Signal_PQCKA_V1_MLKEM768:Authenticator Update";
const HEADER_LABEL: &[u8] = b"Signal_PQCKA_V1_MLKEM768:ekheader";
const CIPHERTEXT_LABEL: &[u8] = b"Signal_PQCKA_V1_MLKEM768:ciphertext";

/// The authenticator's two keys.
#[derive(Clone, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub struct Authenticator {
    pub(crate) root_key: [u8; 32],
    pub(crate) mac_key: [u8; 32],
}

impl Authenticator {
    /// Starts from the handshake's authentication key, as the first update of epoch `epoch`.
    pub fn new(auth_key: &[u8], epoch: Epoch) -> Self {
        let mut a = Self {
            root_key: [0; 32],
            mac_key: [0; 32],
        };
        a.update(epoch, auth_key);
        a
    }

    /// Mixes `key` in: `HKDF(0, root || key, label || epoch, 64)` gives the new root and MAC keys.
    pub fn update(&mut self, epoch: Epoch, key: &[u8]) {
        let ikm = zeroize::Zeroizing::new([&self.root_key[..], key].concat());
        let mut out = zeroize::Zeroizing::new([0u8; 64]);
        hkdf(
            &ZERO_SALT,
            &ikm,
            &[UPDATE_INFO, &epoch.to_be_bytes()],
            &mut out[..],
        );
        self.root_key.copy_from_slice(&out[..32]);
        self.mac_key.copy_from_slice(&out[32..]);
    }

    fn mac(&self, label: &[u8], epoch: Epoch, data: &[u8]) -> [u8; MAC_SIZE] {
        let mut m = Hmac::<Sha256>::new_from_slice(&self.mac_key).expect("any key length");
        m.update(label);
        m.update(&epoch.to_be_bytes());
        m.update(data);
        m.finalize().into_bytes().into()
    }

    /// The MAC of an encapsulation-key header.
    pub fn mac_header(&self, epoch: Epoch, header: &[u8]) -> [u8; MAC_SIZE] {
        self.mac(HEADER_LABEL, epoch, header)
    }

    /// The MAC of a whole ciphertext (`ct1 || ct2`).
    pub fn mac_ciphertext(&self, epoch: Epoch, ct: &[u8]) -> [u8; MAC_SIZE] {
        self.mac(CIPHERTEXT_LABEL, epoch, ct)
    }

    /// Checks a header's MAC in constant time.
    pub fn verify_header(&self, epoch: Epoch, header: &[u8], mac: &[u8]) -> Result<(), Error> {
        if bool::from(self.mac_header(epoch, header).ct_eq(mac)) {
            Ok(())
        } else {
            Err(Error::HeaderMac)
        }
    }

    /// Checks a ciphertext's MAC in constant time.
    pub fn verify_ciphertext(&self, epoch: Epoch, ct: &[u8], mac: &[u8]) -> Result<(), Error> {
        if bool::from(self.mac_ciphertext(epoch, ct).ct_eq(mac)) {
            Ok(())
        } else {
            Err(Error::CiphertextMac)
        }
    }
}

/// The type alone: the keys are secret.
impl core::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Authenticator(..)")
    }
}
