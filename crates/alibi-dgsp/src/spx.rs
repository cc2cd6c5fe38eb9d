//! SPHINCS+ (round 3.1, "simple") for the manager's certificates, behind one interface.
//!
//! Two implementations, byte-compatible: PQClean's C through `pqcrypto-sphincsplus` (AVX2 where
//! the CPU has it), chosen over the pure-Rust `slh-dsa` and `fips205` crates because it is several
//! times faster, and our own [`crate::sphincs`] for the SHAKE sets, which runs eight Keccak
//! permutations per AVX-512 instruction stream and builds a signature's subtrees in parallel.
//! Certificates (one SPHINCS+ signature each) and verification are DGSP's dominant costs, so the
//! SHAKE sets use ours where the CPU has AVX-512 and PQClean everywhere else; the SHA-2 sets
//! always use PQClean.

use crate::params::Params;
use crate::sphincs::{self, keccak_x8, SpxParams};
use crate::Error;
use getrandom::SysRng;
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use rand_core::{Rng, UnwrapErr};
use zeroize::Zeroizing;

/// Our implementation's parameters for a SHAKE set.
pub fn shake_params(p: Params) -> Option<SpxParams> {
    Some(match p {
        Params::Shake128f => sphincs::SHAKE_128F,
        Params::Shake128s => sphincs::SHAKE_128S,
        Params::Shake192f => sphincs::SHAKE_192F,
        Params::Shake192s => sphincs::SHAKE_192S,
        Params::Shake256f => sphincs::SHAKE_256F,
        Params::Shake256s => sphincs::SHAKE_256S,
        _ => return None,
    })
}

/// Our implementation where it is the faster one (a SHAKE set on an AVX-512 CPU).
fn ours(p: Params) -> Option<SpxParams> {
    shake_params(p).filter(|_| keccak_x8::has_avx512())
}

macro_rules! dispatch {
    ($p:expr, $m:ident => $body:expr) => {
        match $p {
            Params::Sha2_128f => {
                use pqcrypto_sphincsplus::sphincssha2128fsimple as $m;
                $body
            }
            Params::Sha2_128s => {
                use pqcrypto_sphincsplus::sphincssha2128ssimple as $m;
                $body
            }
            Params::Sha2_192f => {
                use pqcrypto_sphincsplus::sphincssha2192fsimple as $m;
                $body
            }
            Params::Sha2_192s => {
                use pqcrypto_sphincsplus::sphincssha2192ssimple as $m;
                $body
            }
            Params::Sha2_256f => {
                use pqcrypto_sphincsplus::sphincssha2256fsimple as $m;
                $body
            }
            Params::Sha2_256s => {
                use pqcrypto_sphincsplus::sphincssha2256ssimple as $m;
                $body
            }
            Params::Shake128f => {
                use pqcrypto_sphincsplus::sphincsshake128fsimple as $m;
                $body
            }
            Params::Shake128s => {
                use pqcrypto_sphincsplus::sphincsshake128ssimple as $m;
                $body
            }
            Params::Shake192f => {
                use pqcrypto_sphincsplus::sphincsshake192fsimple as $m;
                $body
            }
            Params::Shake192s => {
                use pqcrypto_sphincsplus::sphincsshake192ssimple as $m;
                $body
            }
            Params::Shake256f => {
                use pqcrypto_sphincsplus::sphincsshake256fsimple as $m;
                $body
            }
            Params::Shake256s => {
                use pqcrypto_sphincsplus::sphincsshake256ssimple as $m;
                $body
            }
        }
    };
}

/// SPHINCS+ signature length.
pub fn signature_len(p: Params) -> usize {
    dispatch!(p, m => m::signature_bytes())
}

/// SPHINCS+ public-key length (2n).
pub fn public_key_len(p: Params) -> usize {
    dispatch!(p, m => m::public_key_bytes())
}

/// SPHINCS+ secret-key length (4n).
pub fn secret_key_len(p: Params) -> usize {
    dispatch!(p, m => m::secret_key_bytes())
}

/// A fresh key pair (pk, sk), from the operating system's randomness (PQClean's randombytes).
pub fn keypair(p: Params) -> (Vec<u8>, Vec<u8>) {
    if let Some(sp) = ours(p) {
        let mut seed = Zeroizing::new(vec![0u8; 3 * sp.n]);
        UnwrapErr(SysRng).fill_bytes(&mut seed);
        let (pk, sk) = sphincs::keypair_from_seed(&sp, &seed).expect("3n-byte seed");
        return (pk, sk.to_vec());
    }
    dispatch!(p, m => {
        let (pk, sk) = m::keypair();
        (pk.as_bytes().to_vec(), sk.as_bytes().to_vec())
    })
}

/// A detached signature on `msg`; `None` if `sk` has the wrong length.
pub fn sign(p: Params, msg: &[u8], sk: &[u8]) -> Option<Vec<u8>> {
    if let Some(sp) = ours(p) {
        // PQClean's randomized signing: optrand from the operating system.
        let mut optrand = vec![0u8; sp.n];
        UnwrapErr(SysRng).fill_bytes(&mut optrand);
        return sphincs::sign(&sp, msg, sk, &optrand);
    }
    dispatch!(p, m => {
        let sk = m::SecretKey::from_bytes(sk).ok()?;
        Some(m::detached_sign(msg, &sk).as_bytes().to_vec())
    })
}

/// Verifies a detached signature: [`Error::InvalidSpxSignature`] (or [`Error::Length`] from our
/// implementation) when it does not verify.
pub fn verify(p: Params, msg: &[u8], sig: &[u8], pk: &[u8]) -> Result<(), Error> {
    if let Some(sp) = ours(p) {
        return sphincs::verify(&sp, msg, sig, pk);
    }
    dispatch!(p, m => {
        let (Ok(pk), Ok(sig)) = (m::PublicKey::from_bytes(pk), m::DetachedSignature::from_bytes(sig)) else {
            return Err(Error::InvalidSpxSignature);
        };
        m::verify_detached_signature(&sig, msg, &pk).map_err(|_| Error::InvalidSpxSignature)
    })
}
