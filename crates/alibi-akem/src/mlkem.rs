//! ML-KEM (FIPS 203) through the `ml-kem` crate, on byte strings, for the two parameter sets our
//! suites use.

use kem::{Decapsulate, Encapsulate};
use ml_kem::{EncodedSizeUser, KemCore, MlKem512, MlKem768};
use rand_core::CryptoRngCore;
use zeroize::Zeroizing;

use crate::Error;

/// An ML-KEM parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MlKem {
    /// ML-KEM-512.
    K512,
    /// ML-KEM-768.
    K768,
}

impl MlKem {
    /// Encapsulation-key length.
    pub const fn ek_len(self) -> usize {
        match self {
            MlKem::K512 => 800,
            MlKem::K768 => 1184,
        }
    }
    /// Decapsulation-key length (FIPS 203 layout: dk_pke || ek || H(ek) || z).
    pub const fn dk_len(self) -> usize {
        match self {
            MlKem::K512 => 1632,
            MlKem::K768 => 2400,
        }
    }
    /// Ciphertext length.
    pub const fn ct_len(self) -> usize {
        match self {
            MlKem::K512 => 768,
            MlKem::K768 => 1088,
        }
    }

    /// A fresh key pair (dk, ek).
    pub fn generate(self, rng: &mut impl CryptoRngCore) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        fn go<K: KemCore>(rng: &mut impl CryptoRngCore) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
            let (dk, ek) = K::generate(rng);
            (
                Zeroizing::new(dk.as_bytes().to_vec()),
                ek.as_bytes().to_vec(),
            )
        }
        match self {
            MlKem::K512 => go::<MlKem512>(rng),
            MlKem::K768 => go::<MlKem768>(rng),
        }
    }

    /// (ct, ss) for the encapsulation key `ek`.
    pub fn encapsulate(
        self,
        ek: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
        fn go<K: KemCore>(
            ek: &[u8],
            rng: &mut impl CryptoRngCore,
        ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
            let enc = ml_kem::Encoded::<K::EncapsulationKey>::try_from(ek)
                .map_err(|_| Error::Malformed("ML-KEM encapsulation key"))?;
            let ek = K::EncapsulationKey::from_bytes(&enc);
            let (ct, ss) = ek.encapsulate(rng).map_err(|_| Error::Kem)?;
            let mut k = Zeroizing::new([0u8; 32]);
            k.copy_from_slice(&ss);
            Ok((ct.to_vec(), k))
        }
        match self {
            MlKem::K512 => go::<MlKem512>(ek, rng),
            MlKem::K768 => go::<MlKem768>(ek, rng),
        }
    }

    /// ss from `ct` under the decapsulation key `dk` (implicit rejection as FIPS 203 specifies).
    pub fn decapsulate(self, dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>, Error> {
        fn go<K: KemCore>(dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>, Error> {
            let enc = ml_kem::Encoded::<K::DecapsulationKey>::try_from(dk)
                .map_err(|_| Error::Malformed("ML-KEM decapsulation key"))?;
            let dk = K::DecapsulationKey::from_bytes(&enc);
            let ct = ml_kem::Ciphertext::<K>::try_from(ct)
                .map_err(|_| Error::Malformed("ML-KEM ciphertext"))?;
            let ss = dk.decapsulate(&ct).map_err(|_| Error::Kem)?;
            let mut k = Zeroizing::new([0u8; 32]);
            k.copy_from_slice(&ss);
            Ok(k)
        }
        match self {
            MlKem::K512 => go::<MlKem512>(dk, ct),
            MlKem::K768 => go::<MlKem768>(dk, ct),
        }
    }

    /// The encapsulation key embedded in a FIPS 203 decapsulation key.
    pub fn ek_of_dk(self, dk: &[u8]) -> Vec<u8> {
        // dk = dk_pke (384 k bytes) || ek (384 k + 32) || H(ek) || z.
        let off = self.ek_len() - 32;
        dk[off..off + self.ek_len()].to_vec()
    }
}
