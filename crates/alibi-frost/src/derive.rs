//! [`public_key_at`]: the key a FROST signature verifies under at a derivation path, from the
//! group's extended public key alone (no givre: the Python package and `mpc derive` use it).

use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey, HdCurve};
use k256::elliptic_curve::sec1::ToEncodedPoint;
use k256::elliptic_curve::PrimeField;
use sha2::{Digest, Sha256};

use crate::verify::PUBLIC_KEY_LEN;
use crate::{Error, Scheme};

/// The public key signatures of `scheme` verify under at `path` below `xpub` (the group's
/// extended public key, [`crate::KeyShare::extended_public_key`]), in the scheme's standard
/// encoding: for `frost-ed25519`, the child point of hd-wallet's Edwards derivation (the one
/// givre signs under; no standard defines it); for `frost-secp256k1-tr`, the BIP-32 child of the
/// internal key, then tweaked as BIP-341 says for an output without a script tree (the x-only
/// output key), as givre tweaks the child it signs with.
pub fn public_key_at(
    scheme: Scheme,
    xpub: &ExtendedPublicKey,
    path: &DerivationPath,
) -> Result<[u8; PUBLIC_KEY_LEN], Error> {
    let curve = match scheme {
        Scheme::Ed25519 => HdCurve::Ed25519,
        Scheme::Secp256k1Tr => HdCurve::Secp256k1,
    };
    if xpub.curve() != curve {
        return Err(Error::Malformed(
            "extended public key of the other curve than the scheme's",
        ));
    }
    let child = xpub.derive(path)?;
    match scheme {
        Scheme::Ed25519 => {
            alibi_encoding::array("Ed25519 public key", child.public_key()).map_err(Error::from)
        }
        Scheme::Secp256k1Tr => taproot_output_key(child.public_key()),
    }
}

/// BIP-341's output key of an internal key `P` (SEC1 compressed) with no script tree: the
/// x-only `Q = lift_x(x(P)) + int(H_TapTweak(x(P)))·G`.
fn taproot_output_key(internal: &[u8]) -> Result<[u8; PUBLIC_KEY_LEN], Error> {
    let x = internal
        .get(1..33)
        .filter(|_| internal.len() == 33)
        .ok_or(Error::Malformed("secp256k1 public key"))?;
    let mut even = [0u8; 33];
    even[0] = 0x02;
    even[1..].copy_from_slice(x);
    let p = k256::PublicKey::from_sec1_bytes(&even)
        .map_err(|_| Error::Malformed("secp256k1 public key"))?;
    let tag = Sha256::digest(b"TapTweak");
    let t = Sha256::new()
        .chain_update(tag)
        .chain_update(tag)
        .chain_update(x)
        .finalize();
    let t = Option::<k256::Scalar>::from(k256::Scalar::from_repr(
        k256::FieldBytes::clone_from_slice(&t),
    ))
    .ok_or(Error::Malformed(
        "taproot tweak (not below the group order)",
    ))?;
    let q = (p.to_projective() + k256::ProjectivePoint::GENERATOR * t).to_affine();
    let encoded = q.to_encoded_point(true);
    alibi_encoding::array(
        "taproot output key",
        encoded.as_bytes().get(1..).unwrap_or(&[]),
    )
    .map_err(Error::from)
}
