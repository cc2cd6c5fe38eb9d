//! HD derivation's decoders of untrusted input (alibi-threshold's `hd`): an extended public key
//! from BIP-32's 78 bytes (`ExtendedPublicKey::from_bytes`) and from Base58Check text (what
//! `mpc derive --xpub` and the Python package read), and a derivation path (`--path`). No
//! panic; an accepted key re-encodes to the same bytes (text: the same, trimmed) and derives a
//! child or refuses; an accepted path prints as a path that reads back
//! the same. Inputs edit BIP-32's test vector 2
//! master key (bytes and text), an Ed25519 extended key and a path (corpus `hd_decoders/`), or
//! are raw (`alibi_fuzz::input`).
#![no_main]
use alibi_threshold_ecdsa::{DerivationPath, ExtendedPublicKey};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// BIP-32's test vector 2, the master key.
const V2_M: &str = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB";

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let m = ExtendedPublicKey::from_base58(V2_M).expect("vector 2");
        // The same layout with an Ed25519 key: 0x00, then the base point's encoding.
        let mut ed = m.to_bytes().to_vec();
        ed[45..].copy_from_slice(&[0; 33]);
        ed[46] = 0x58;
        ed[47..].fill(0x66);
        vec![
            V2_M.as_bytes().to_vec(),
            m.to_bytes().to_vec(),
            ed,
            b"m/0/7/2147483647".to_vec(),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let data = &alibi_fuzz::input(data, samples())[..];
    let path = DerivationPath::new(vec![0, 7]).expect("a path");
    if let Ok(xpub) = ExtendedPublicKey::from_bytes(data) {
        assert_eq!(&xpub.to_bytes()[..], data);
        let _ = xpub.derive(&path);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(xpub) = ExtendedPublicKey::from_base58(text) {
        assert_eq!(xpub.to_base58(), text.trim());
        let _ = xpub.derive(&path);
    }
    if let Ok(p) = text.parse::<DerivationPath>() {
        // Printed without leading zeros ("m/01" reads as m/1), and read back the same.
        assert_eq!(p.to_string().parse::<DerivationPath>().expect("printed"), p);
    }
});
