//! SPHINCS+ (round 3.1, "simple", PQClean's C through `pqcrypto-sphincsplus`, AVX2 where the CPU
//! has it) for the manager's certificates. Chosen over the pure-Rust `slh-dsa` and `fips205` crates
//! for speed: certificate generation is one SPHINCS+ signature per certificate and dominates
//! DGSP's cost, and PQClean's AVX2 code signs several times faster.

use crate::params::Params;
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};

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
    dispatch!(p, m => {
        let (pk, sk) = m::keypair();
        (pk.as_bytes().to_vec(), sk.as_bytes().to_vec())
    })
}

/// A detached signature on `msg`; `None` if `sk` has the wrong length.
pub fn sign(p: Params, msg: &[u8], sk: &[u8]) -> Option<Vec<u8>> {
    dispatch!(p, m => {
        let sk = m::SecretKey::from_bytes(sk).ok()?;
        Some(m::detached_sign(msg, &sk).as_bytes().to_vec())
    })
}

/// Verifies a detached signature.
pub fn verify(p: Params, msg: &[u8], sig: &[u8], pk: &[u8]) -> bool {
    dispatch!(p, m => {
        let (Ok(pk), Ok(sig)) = (m::PublicKey::from_bytes(pk), m::DetachedSignature::from_bytes(sig)) else {
            return false;
        };
        m::verify_detached_signature(&sig, msg, &pk).is_ok()
    })
}
