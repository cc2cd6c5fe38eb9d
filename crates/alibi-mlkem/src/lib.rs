//! # alibi-mlkem
//!
//! ML-KEM (FIPS 203), and the round-3 Kyber1024 that libsignal's PQXDH still uses, through
//! `libcrux-ml-kem` (formally verified, with AVX2 code selected at run time). This is the one
//! ML-KEM wrapper of the workspace: `alibi-akem`'s KEMs use it (as `alibi_akem::mlkem`), and
//! `alibi-identity`'s PQXDH prekeys are its type-byte encoding. It stands low, on
//! `alibi-encoding` alone, so that checking a KEM prekey (as the relay does) links no
//! post-quantum signature scheme.
//!
//! Two faces over the same code:
//! * [`MlKem`], a parameter set chosen at run time, on byte strings (FIPS 203's expanded
//!   decapsulation-key layout), which the AKEMs' wire formats need;
//! * the RustCrypto `kem` 0.3 traits on typed keys, one marker type per parameter set
//!   ([`MlKem512`], [`MlKem768`], [`MlKem1024`], [`Kyber1024`]), with fixed-size arrays. As in
//!   RustCrypto's `ml-kem`, a [`DecapsulationKey`] is initialised from and exported as its
//!   64-byte seed d || z.
//!
//! The tests check both against RustCrypto's `ml-kem` in both directions.
//!
//! ```
//! use alibi_mlkem::MlKem;
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let (dk, ek) = MlKem::K768.generate(&mut rng);
//! let (ct, ss) = MlKem::K768.encapsulate(&ek, &mut rng).unwrap();
//! assert_eq!(*MlKem::K768.decapsulate(&dk, &ct).unwrap(), *ss);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

use alibi_encoding::LengthChecked;
use core::fmt;

use hybrid_array::sizes::{U1088, U1184, U1568, U768, U800};
use hybrid_array::{Array, ArraySize};
use kem::consts::{U32, U64};
use kem::{
    Decapsulate, Decapsulator, Encapsulate, Generate, InvalidKey, Kem, Key, KeyExport, KeyInit,
    KeySizeUser, SharedKey, TryKeyInit,
};
use libcrux_ml_kem::{kyber1024, mlkem1024, mlkem512, mlkem768};
use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::Zeroizing;

/// Errors of the ML-KEM wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// An input of the right length that does not decode (FIPS 203's input checks).
    #[error("malformed {0}")]
    Malformed(&'static str),
}

/// The length check, written once in `alibi-encoding`.
impl LengthChecked for Error {}

/// A parameter set, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MlKem {
    /// ML-KEM-512.
    K512,
    /// ML-KEM-768.
    K768,
    /// ML-KEM-1024.
    K1024,
    /// CRYSTALS-Kyber1024, round 3: ML-KEM-1024's sizes and algebra, but the pre-standard hashing
    /// of the shared secret (what libsignal's `0x08` KEM prekeys are).
    Kyber1024,
}

/// Copies `b` into an array of the exact length, or names what was malformed.
fn exact<const N: usize>(b: &[u8], what: &'static str) -> Result<[u8; N], Error> {
    b.try_into().map_err(|_| Error::length(what, N, b.len()))
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
            MlKem::K1024 => {
                use mlkem1024 as $m;
                #[allow(unused_imports)]
                use mlkem1024::{
                    MlKem1024Ciphertext as Ct, MlKem1024PrivateKey as Dk, MlKem1024PublicKey as Ek,
                };
                $body
            }
            MlKem::Kyber1024 => {
                use kyber1024 as $m;
                #[allow(unused_imports)]
                use mlkem1024::{
                    MlKem1024Ciphertext as Ct, MlKem1024PrivateKey as Dk, MlKem1024PublicKey as Ek,
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
            MlKem::K1024 | MlKem::Kyber1024 => 1568,
        }
    }
    /// Decapsulation-key length (FIPS 203 layout: dk_pke || ek || H(ek) || z).
    pub const fn dk_len(self) -> usize {
        match self {
            MlKem::K512 => 1632,
            MlKem::K768 => 2400,
            MlKem::K1024 | MlKem::Kyber1024 => 3168,
        }
    }
    /// Ciphertext length.
    pub const fn ct_len(self) -> usize {
        match self {
            MlKem::K512 => 768,
            MlKem::K768 => 1088,
            MlKem::K1024 | MlKem::Kyber1024 => 1568,
        }
    }

    /// The key pair (dk, ek) of a 64-byte seed d || z (FIPS 203 ML-KEM.KeyGen_internal).
    pub fn from_seed(self, seed: &[u8; 64]) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        with_params!(self, m, {
            let kp = m::generate_key_pair(*seed);
            (
                Zeroizing::new(kp.private_key().as_slice().to_vec()),
                kp.public_key().as_slice().to_vec(),
            )
        })
    }

    /// A fresh key pair (dk, ek) (FIPS 203 ML-KEM.KeyGen from 64 random bytes d || z).
    pub fn generate<R: CryptoRng + ?Sized>(self, rng: &mut R) -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        let mut seed = Zeroizing::new([0u8; 64]);
        rng.fill_bytes(&mut seed[..]);
        self.from_seed(&seed)
    }

    /// FIPS 203's input check of an encapsulation key: its length and the modulus check (every
    /// coefficient below q). Round-3 Kyber keys have ML-KEM-1024's encoding and get the same check.
    pub fn check_ek(self, ek: &[u8]) -> Result<(), Error> {
        const WHAT: &str = "ML-KEM encapsulation key";
        let valid = match self {
            MlKem::K512 => mlkem512::validate_public_key(&exact::<800>(ek, WHAT)?.into()),
            MlKem::K768 => mlkem768::validate_public_key(&exact::<1184>(ek, WHAT)?.into()),
            MlKem::K1024 | MlKem::Kyber1024 => {
                mlkem1024::validate_public_key(&exact::<1568>(ek, WHAT)?.into())
            }
        };
        if !valid {
            return Err(Error::Malformed(WHAT));
        }
        Ok(())
    }

    /// (ct, ss) for the encapsulation key `ek`, after FIPS 203's input check of ek.
    pub fn encapsulate<R: CryptoRng + ?Sized>(
        self,
        ek: &[u8],
        rng: &mut R,
    ) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
        self.check_ek(ek)?;
        let mut m = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut m[..]);
        with_params!(self, p, {
            let ek = Ek::from(exact(ek, "ML-KEM encapsulation key")?);
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
        Error::check_len("ML-KEM decapsulation key", self.dk_len(), dk.len())?;
        let off = self.ek_len() - 32 + self.ek_len();
        if Sha3_256::digest(self.ek_of_dk(dk)?)[..] != dk[off..off + 32] {
            return Err(Error::Malformed("ML-KEM decapsulation key"));
        }
        Ok(())
    }

    /// The encapsulation key embedded in a FIPS 203 decapsulation key.
    pub fn ek_of_dk(self, dk: &[u8]) -> Result<Vec<u8>, Error> {
        Error::check_len("ML-KEM decapsulation key", self.dk_len(), dk.len())?;
        // dk = dk_pke (384 k bytes) || ek (384 k + 32) || H(ek) || z.
        let off = self.ek_len() - 32;
        Ok(dk[off..off + self.ek_len()].to_vec())
    }
}

/// A parameter set as a type, for the `kem` traits. Implemented by [`MlKem512`], [`MlKem768`],
/// [`MlKem1024`] and [`Kyber1024`] only.
pub trait ParameterSet: Kem<SharedKeySize = U32> + sealed::Sealed {
    /// The run-time parameter set.
    const SET: MlKem;
    /// Length of an encapsulation key.
    type EkSize: ArraySize;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! parameter_set {
    ($name:ident, $set:expr, $ek:ty, $ct:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name;

        impl sealed::Sealed for $name {}

        impl ParameterSet for $name {
            const SET: MlKem = $set;
            type EkSize = $ek;
        }

        impl Kem for $name {
            type DecapsulationKey = DecapsulationKey<$name>;
            type EncapsulationKey = EncapsulationKey<$name>;
            type SharedKeySize = U32;
            type CiphertextSize = $ct;
        }
    };
}

parameter_set!(
    MlKem512,
    MlKem::K512,
    U800,
    U768,
    "ML-KEM-512 for the `kem` traits."
);
parameter_set!(
    MlKem768,
    MlKem::K768,
    U1184,
    U1088,
    "ML-KEM-768 for the `kem` traits."
);
parameter_set!(
    MlKem1024,
    MlKem::K1024,
    U1568,
    U1568,
    "ML-KEM-1024 for the `kem` traits."
);
parameter_set!(
    Kyber1024,
    MlKem::Kyber1024,
    U1568,
    U1568,
    "Round-3 Kyber1024 (libsignal's PQXDH KEM) for the `kem` traits."
);

/// An encapsulation key of parameter set `P`, checked (FIPS 203 modulus check) when decoded.
#[derive(Clone, PartialEq, Eq)]
pub struct EncapsulationKey<P: ParameterSet> {
    bytes: Array<u8, P::EkSize>,
}

impl<P: ParameterSet> fmt::Debug for EncapsulationKey<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncapsulationKey({:?})", P::SET)
    }
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// Decodes and checks an encapsulation key.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        P::SET.check_ek(b)?;
        let bytes = Array::try_from(b)
            .map_err(|_| Error::length("ML-KEM encapsulation key", P::SET.ek_len(), b.len()))?;
        Ok(Self { bytes })
    }

    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl<P: ParameterSet> KeySizeUser for EncapsulationKey<P> {
    type KeySize = P::EkSize;
}

impl<P: ParameterSet> TryKeyInit for EncapsulationKey<P> {
    fn new(key: &Key<Self>) -> Result<Self, InvalidKey> {
        Self::from_bytes(key).map_err(|_| InvalidKey)
    }
}

impl<P: ParameterSet> KeyExport for EncapsulationKey<P> {
    fn to_bytes(&self) -> Key<Self> {
        self.bytes.clone()
    }
}

impl<P: ParameterSet<EncapsulationKey = Self>> Encapsulate for EncapsulationKey<P> {
    type Kem = P;

    fn encapsulate_with_rng<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> (kem::Ciphertext<P>, SharedKey<P>) {
        let (ct, ss) = P::SET
            .encapsulate(&self.bytes, rng)
            .expect("the key was checked when decoded");
        let ct =
            Array::try_from(&ct[..]).expect("libcrux returns a ciphertext of the set's length");
        (ct, Array::from(*ss))
    }
}

/// A decapsulation key of parameter set `P`: its 64-byte seed d || z, and the expanded key.
#[derive(Clone)]
pub struct DecapsulationKey<P: ParameterSet> {
    seed: Zeroizing<[u8; 64]>,
    dk: Zeroizing<Vec<u8>>,
    ek: EncapsulationKey<P>,
}

impl<P: ParameterSet> fmt::Debug for DecapsulationKey<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecapsulationKey({:?})", P::SET)
    }
}

impl<P: ParameterSet> DecapsulationKey<P> {
    /// The key of a 64-byte seed d || z.
    pub fn from_seed(seed: &[u8; 64]) -> Self {
        let (dk, ek) = P::SET.from_seed(seed);
        let bytes = Array::try_from(&ek[..]).expect("libcrux returns a key of the set's length");
        DecapsulationKey {
            seed: Zeroizing::new(*seed),
            dk,
            ek: EncapsulationKey { bytes },
        }
    }

    /// A fresh key.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut seed = Zeroizing::new([0u8; 64]);
        rng.fill_bytes(&mut seed[..]);
        Self::from_seed(&seed)
    }

    /// The encapsulation key.
    pub fn public_key(&self) -> &EncapsulationKey<P> {
        &self.ek
    }

    /// The seed d || z (the preferred encoding, as in FIPS 203 and RustCrypto's `ml-kem`).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 64]> {
        self.seed.clone()
    }

    /// The expanded FIPS 203 decapsulation key (dk_pke || ek || H(ek) || z).
    pub fn expanded_bytes(&self) -> &[u8] {
        &self.dk
    }
}

impl<P: ParameterSet> KeySizeUser for DecapsulationKey<P> {
    type KeySize = U64;
}

impl<P: ParameterSet> KeyInit for DecapsulationKey<P> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_seed(&key.0)
    }
}

impl<P: ParameterSet> KeyExport for DecapsulationKey<P> {
    fn to_bytes(&self) -> Key<Self> {
        Array::from(*self.seed)
    }
}

impl<P: ParameterSet> Generate for DecapsulationKey<P> {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut seed = Zeroizing::new([0u8; 64]);
        rng.try_fill_bytes(&mut seed[..])?;
        Ok(Self::from_seed(&seed))
    }
}

impl<P: ParameterSet<EncapsulationKey = EncapsulationKey<P>>> Decapsulator for DecapsulationKey<P> {
    type Kem = P;

    fn encapsulation_key(&self) -> &EncapsulationKey<P> {
        &self.ek
    }
}

impl<P: ParameterSet<EncapsulationKey = EncapsulationKey<P>>> Decapsulate for DecapsulationKey<P> {
    fn decapsulate(&self, ct: &kem::Ciphertext<P>) -> SharedKey<P> {
        // Implicit rejection: every ciphertext of the right length (the type's) yields a key.
        let ss = P::SET
            .decapsulate(&self.dk, ct)
            .expect("key and ciphertext have the set's lengths");
        Array::from(*ss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kem::{FromSeed, TryDecapsulate};
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    /// libcrux (ours) against RustCrypto's ml-kem, both directions, on bytes and through the
    /// shared `kem` 0.3 traits: the same seed gives the same keys.
    fn cross<Theirs, Ours>(p: MlKem)
    where
        Theirs: kem::Kem + FromSeed<SeedSize = U64>,
        Ours: ParameterSet<EncapsulationKey = EncapsulationKey<Ours>>,
        Theirs::DecapsulationKey: kem::Decapsulate,
    {
        let mut rng = ChaCha20Rng::seed_from_u64(p.ct_len() as u64);
        for _ in 0..10 {
            let mut seed = [0u8; 64];
            rng.fill_bytes(&mut seed);
            let (their_dk, their_ek) = Theirs::from_seed(&Array::from(seed));
            let ours = DecapsulationKey::<Ours>::from_seed(&seed);
            assert_eq!(their_ek.to_bytes()[..], ours.public_key().as_bytes()[..]);
            assert_eq!(ours.to_bytes()[..], seed[..]);
            p.check_dk(ours.expanded_bytes()).unwrap();
            assert_eq!(
                p.ek_of_dk(ours.expanded_bytes()).unwrap(),
                ours.public_key().as_bytes()
            );
            // They encapsulate, we decapsulate (typed and on bytes).
            let (ct, ss) = their_ek.encapsulate_with_rng(&mut rng);
            assert_eq!(ours.decapsulate_slice(&ct).unwrap()[..], ss[..]);
            assert_eq!(
                p.decapsulate(ours.expanded_bytes(), &ct).unwrap()[..],
                ss[..]
            );
            // We encapsulate, they decapsulate.
            let (ct, ss) = ours.public_key().encapsulate_with_rng(&mut rng);
            assert_eq!(their_dk.decapsulate_slice(&ct).unwrap()[..], ss[..]);
            let (ct, ss) = p
                .encapsulate(ours.public_key().as_bytes(), &mut rng)
                .unwrap();
            assert_eq!(their_dk.decapsulate_slice(&ct).unwrap()[..], ss[..]);
        }
        // An encapsulation key with a coefficient >= q fails FIPS 203's modulus check.
        let (_, mut ek) = p.generate(&mut rng);
        ek[0] = 0xff;
        ek[1] |= 0x0f;
        assert_eq!(
            p.encapsulate(&ek, &mut rng).unwrap_err(),
            Error::Malformed("ML-KEM encapsulation key")
        );
        assert!(EncapsulationKey::<Ours>::new_from_slice(&ek).is_err());
    }

    #[test]
    fn agrees_with_rustcrypto_ml_kem() {
        cross::<ml_kem::MlKem512, MlKem512>(MlKem::K512);
        cross::<ml_kem::MlKem768, MlKem768>(MlKem::K768);
        cross::<ml_kem::MlKem1024, MlKem1024>(MlKem::K1024);
    }

    /// Through `kem::Kem` alone, at every set, Kyber included.
    fn generic<K: kem::Kem>() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let (dk, ek) = K::generate_keypair_from_rng(&mut rng);
        let (ct, ss) = ek.encapsulate_with_rng(&mut rng);
        let ss2 = dk.try_decapsulate(&ct).ok();
        assert_eq!(ss2.as_deref(), Some(&ss[..]));
    }

    #[test]
    fn kem_traits_round_trip() {
        generic::<MlKem512>();
        generic::<MlKem768>();
        generic::<MlKem1024>();
        generic::<Kyber1024>();
    }
}
