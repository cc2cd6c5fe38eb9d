//! ML-KEM (FIPS 203) on byte strings, for the two parameter sets our suites use, through
//! `libcrux-ml-kem` (formally verified, with AVX2 code selected at run time). The tests check it
//! against RustCrypto's `ml-kem` in both directions.

use libcrux_ml_kem::{mlkem512, mlkem768};
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

/// Copies `b` into an array of the exact length, or names what was malformed.
fn exact<const N: usize>(b: &[u8], what: &'static str) -> Result<[u8; N], Error> {
    b.try_into().map_err(|_| Error::Malformed(what))
}

macro_rules! with_params {
    ($self:expr, $m:ident, $body:expr) => {
        match $self {
            MlKem::K512 => {
                use mlkem512 as $m;
                #[allow(unused_imports)]
                use $m::{
                    MlKem512Ciphertext as Ct, MlKem512PrivateKey as Dk, MlKem512PublicKey as Ek,
                };
                $body
            }
            MlKem::K768 => {
                use mlkem768 as $m;
                #[allow(unused_imports)]
                use $m::{
                    MlKem768Ciphertext as Ct, MlKem768PrivateKey as Dk, MlKem768PublicKey as Ek,
                };
                $body
            }
        }
    };
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

    /// A fresh key pair (dk, ek) (FIPS 203 ML-KEM.KeyGen from 64 random bytes d || z).
    pub fn generate(self, rng: &mut impl CryptoRngCore) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        let mut seed = Zeroizing::new([0u8; 64]);
        rng.fill_bytes(&mut seed[..]);
        with_params!(self, m, {
            let kp = m::generate_key_pair(*seed);
            (
                Zeroizing::new(kp.private_key().as_slice().to_vec()),
                kp.public_key().as_slice().to_vec(),
            )
        })
    }

    /// (ct, ss) for the encapsulation key `ek`, after FIPS 203's input check of ek.
    pub fn encapsulate(
        self,
        ek: &[u8],
        rng: &mut impl CryptoRngCore,
    ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
        let mut m = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut m[..]);
        with_params!(self, p, {
            let ek = Ek::from(exact(ek, "ML-KEM encapsulation key")?);
            if !p::validate_public_key(&ek) {
                return Err(Error::Malformed("ML-KEM encapsulation key"));
            }
            let (ct, ss) = p::encapsulate(&ek, *m);
            Ok((ct.as_slice().to_vec(), Zeroizing::new(ss)))
        })
    }

    /// ss from `ct` under the decapsulation key `dk` (implicit rejection, FIPS 203).
    pub fn decapsulate(self, dk: &[u8], ct: &[u8]) -> Result<Zeroizing<[u8; 32]>, Error> {
        with_params!(self, p, {
            let dk = Zeroizing::new(exact(dk, "ML-KEM decapsulation key")?);
            let dk = Dk::from(*dk);
            let ct = Ct::from(exact(ct, "ML-KEM ciphertext")?);
            Ok(Zeroizing::new(p::decapsulate(&dk, &ct)))
        })
    }

    /// FIPS 203's check of a decapsulation key (§7.3): its length, and the stored H(ek) equal to
    /// SHA3-256 of its ek.
    pub fn check_dk(self, dk: &[u8]) -> Result<(), Error> {
        use sha3::{Digest, Sha3_256};
        if dk.len() != self.dk_len() {
            return Err(Error::Malformed("ML-KEM decapsulation key"));
        }
        let off = self.ek_len() - 32 + self.ek_len();
        if Sha3_256::digest(self.ek_of_dk(dk))[..] != dk[off..off + 32] {
            return Err(Error::Malformed("ML-KEM decapsulation key"));
        }
        Ok(())
    }

    /// The encapsulation key embedded in a FIPS 203 decapsulation key.
    pub fn ek_of_dk(self, dk: &[u8]) -> Vec<u8> {
        // dk = dk_pke (384 k bytes) || ek (384 k + 32) || H(ek) || z.
        let off = self.ek_len() - 32;
        dk[off..off + self.ek_len()].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kem::{Decapsulate, Encapsulate};
    use ml_kem::{EncodedSizeUser, KemCore, MlKem512, MlKem768};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// libcrux (ours) against RustCrypto's ml-kem, both directions, both parameter sets.
    fn cross<K: KemCore>(p: MlKem) {
        let mut rng = ChaCha20Rng::seed_from_u64(p.ct_len() as u64);
        for _ in 0..10 {
            // Their key pair: we encapsulate, they decapsulate.
            let (dk, ek) = K::generate(&mut rng);
            let (ct, ss) = p.encapsulate(&ek.as_bytes(), &mut rng).unwrap();
            let ct_theirs = ml_kem::Ciphertext::<K>::try_from(&ct[..]).unwrap();
            assert_eq!(dk.decapsulate(&ct_theirs).unwrap()[..], ss[..]);
            // They encapsulate to their key; we decapsulate with their dk bytes.
            let (ct, ss) = ek.encapsulate(&mut rng).unwrap();
            let ours = p.decapsulate(&dk.as_bytes(), &ct).unwrap();
            assert_eq!(ours[..], ss[..]);
            p.check_dk(&dk.as_bytes()).unwrap();
            // Our key pair: they encapsulate.
            let (odk, oek) = p.generate(&mut rng);
            assert_eq!(p.ek_of_dk(&odk), oek);
            let enc = ml_kem::Encoded::<K::EncapsulationKey>::try_from(&oek[..]).unwrap();
            let (ct, ss) = K::EncapsulationKey::from_bytes(&enc)
                .encapsulate(&mut rng)
                .unwrap();
            assert_eq!(p.decapsulate(&odk, &ct).unwrap()[..], ss[..]);
        }
        // An encapsulation key with a coefficient >= q fails FIPS 203's modulus check.
        let (_, mut ek) = p.generate(&mut rng);
        ek[0] = 0xff;
        ek[1] |= 0x0f;
        assert_eq!(
            p.encapsulate(&ek, &mut rng).unwrap_err(),
            Error::Malformed("ML-KEM encapsulation key")
        );
    }

    #[test]
    fn agrees_with_rustcrypto_ml_kem() {
        cross::<MlKem512>(MlKem::K512);
        cross::<MlKem768>(MlKem::K768);
    }
}
