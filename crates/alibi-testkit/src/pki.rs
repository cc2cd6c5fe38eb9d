//! A throwaway PKI for TLS tests: a CA and a relay certificate it issued for `localhost` and
//! `127.0.0.1`, all PEM.

/// PEM texts of a test CA, a leaf certificate it signed, and the leaf's private key.
pub struct TestPki {
    /// The CA certificate (what clients trust).
    pub ca: String,
    /// The relay's certificate, for `localhost` and `127.0.0.1`.
    pub cert: String,
    /// The relay's private key (PKCS#8).
    pub key: String,
}

/// A fresh CA and a relay certificate it issued (ECDSA P-256).
pub fn test_pki() -> TestPki {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "alibi test CA");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
        .expect("CA certificate");
    let key = KeyPair::generate().expect("relay key");
    let cert = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .expect("relay parameters")
        .signed_by(&key, &ca)
        .expect("relay certificate");
    TestPki {
        ca: ca.pem(),
        cert: cert.pem(),
        key: key.serialize_pem(),
    }
}
