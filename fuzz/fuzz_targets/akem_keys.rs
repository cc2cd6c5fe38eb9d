//! AKEM key decoders (PQ-AKEM and SHADOWFAX, public and secret): no panic; accepted keys re-encode
//! to the same bytes.
#![no_main]
use alibi_akem::pq::{PqPublicKey, PqSecretKey, Suite};
use alibi_akem::shadowfax;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for suite in [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024] {
        if let Ok(k) = PqPublicKey::from_bytes(suite, data) {
            assert_eq!(k.to_bytes(), data);
        }
        if let Ok(k) = PqSecretKey::from_bytes(suite, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
        if let Ok(k) = shadowfax::PublicKey::from_bytes(suite, data) {
            assert_eq!(k.to_bytes(), data);
        }
        if let Ok(k) = shadowfax::SecretKey::from_bytes(suite, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
    }
});
