//! The RustCrypto `kem` traits: an authenticated KEM fits them once the sender's secret key (for
//! encapsulation) or the sender's public key (for decapsulation) is bound to the operation.

use kem::{Decapsulate, Encapsulate};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use crate::{shadowfax, Error};

/// SHADOWFAX encapsulation from `sender` to `receiver`.
pub struct Sender<'a> {
    /// The sender's secret key.
    pub sender: &'a shadowfax::SecretKey,
    /// The receiver's public key.
    pub receiver: &'a shadowfax::PublicKey,
}

/// SHADOWFAX decapsulation by `receiver` of ciphertexts from `sender`.
pub struct Receiver<'a> {
    /// The receiver's secret key.
    pub receiver: &'a shadowfax::SecretKey,
    /// The sender's public key.
    pub sender: &'a shadowfax::PublicKey,
}

impl Encapsulate<Vec<u8>, Zeroizing<[u8; 32]>> for Sender<'_> {
    type Error = Error;
    fn encapsulate(
        &self,
        rng: &mut impl CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
        shadowfax::encap(self.sender, self.receiver, rng)
    }
}

impl Decapsulate<Vec<u8>, Zeroizing<[u8; 32]>> for Receiver<'_> {
    type Error = Error;
    fn decapsulate(&self, c: &Vec<u8>) -> Result<Zeroizing<[u8; 32]>, Error> {
        shadowfax::decap(self.receiver, self.sender, c)
    }
}
