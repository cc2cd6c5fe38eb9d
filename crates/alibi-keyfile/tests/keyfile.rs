//! The public API: roundtrips, every kind of damage a file can take, the cost limits, and the
//! passphrase helper.

use std::io::Write;
use std::time::{Duration, Instant};

use alibi_keyfile::{is_keyfile, open, passphrase, seal, Error, Params, HEADER_LEN, MAGIC};
use proptest::prelude::*;
use rand_core::UnwrapErr;

const PURPOSE: &str = "alibi identity";
const PASS: &[u8] = b"correct horse battery staple";
const SECRET: &[u8] = b"a 32-byte identity secret key!!!";

// Header field offsets, as documented in the crate docs.
const VERSION_AT: usize = 14;
const PARAMS_AT: usize = 15;
const SALT_AT: usize = 27;
const NONCE_AT: usize = 43;
const CHECK_AT: usize = 67;

fn rng() -> UnwrapErr<getrandom::SysRng> {
    UnwrapErr(getrandom::SysRng)
}

fn sealed() -> Vec<u8> {
    seal(PURPOSE, SECRET, PASS, Params::TEST, &mut rng()).unwrap()
}

/// A header with the given parameters in front of an otherwise well-formed (but meaningless) body.
fn crafted(params: Params) -> Vec<u8> {
    let mut file = sealed();
    file[PARAMS_AT..PARAMS_AT + 4].copy_from_slice(&params.m_cost_kib.to_be_bytes());
    file[PARAMS_AT + 4..PARAMS_AT + 8].copy_from_slice(&params.t_cost.to_be_bytes());
    file[PARAMS_AT + 8..PARAMS_AT + 12].copy_from_slice(&params.p_cost.to_be_bytes());
    file
}

#[test]
fn roundtrip_test_params() {
    let file = sealed();
    assert!(is_keyfile(&file));
    assert_eq!(file.len(), HEADER_LEN + SECRET.len() + 16);
    assert_eq!(&file[..14], MAGIC);
    assert_eq!(file[VERSION_AT], 1);
    assert_eq!(
        &file[PARAMS_AT..SALT_AT],
        &[0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    );
    assert_eq!(&open(PURPOSE, &file, PASS).unwrap()[..], SECRET);
}

/// Decrypts a sealed file with argon2 and chacha20poly1305 directly, following the crate docs'
/// format description rather than the crate's code.
#[test]
fn format_matches_documentation() {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};

    let file = sealed();
    let (header, body) = file.split_at(HEADER_LEN);
    let argon = argon2::Argon2::new(
        argon2::Algorithm::Argon2id,
        argon2::Version::V0x13,
        argon2::Params::new(256, 1, 1, Some(48)).unwrap(),
    );
    let mut okm = [0u8; 48];
    argon
        .hash_password_into(PASS, &header[SALT_AT..NONCE_AT], &mut okm)
        .unwrap();
    assert_eq!(&header[CHECK_AT..HEADER_LEN], &okm[32..]);
    let cipher = chacha20poly1305::XChaCha20Poly1305::new_from_slice(&okm[..32]).unwrap();
    let nonce = chacha20poly1305::XNonce::try_from(&header[NONCE_AT..CHECK_AT]).unwrap();
    let aad = [header, PURPOSE.as_bytes()].concat();
    let plaintext = cipher
        .decrypt(
            &nonce,
            Payload {
                msg: body,
                aad: &aad,
            },
        )
        .unwrap();
    assert_eq!(plaintext, SECRET);
    // Without the purpose in the associated data the tag does not verify.
    assert!(cipher
        .decrypt(
            &nonce,
            Payload {
                msg: body,
                aad: header
            }
        )
        .is_err());
}

#[test]
fn roundtrip_default_params() {
    let params = Params::default();
    assert_eq!(
        params,
        Params {
            m_cost_kib: 19456,
            t_cost: 2,
            p_cost: 1
        }
    );
    let file = seal(PURPOSE, SECRET, PASS, params, &mut rng()).unwrap();
    assert_eq!(&file[PARAMS_AT..PARAMS_AT + 4], &19456u32.to_be_bytes());
    assert_eq!(&open(PURPOSE, &file, PASS).unwrap()[..], SECRET);
}

#[test]
fn roundtrip_empty_plaintext_and_binary_passphrase() {
    let pass = [0u8, 0xff, b'\n', 0x80];
    let file = seal("", b"", &pass, Params::TEST, &mut rng()).unwrap();
    assert_eq!(file.len(), HEADER_LEN + 16);
    assert!(open("", &file, &pass).unwrap().is_empty());
}

#[test]
fn wrong_passphrase() {
    let file = sealed();
    for wrong in [
        &b"correct horse battery stapl"[..],
        b"Correct horse battery staple",
        b"x",
    ] {
        let err = open(PURPOSE, &file, wrong).unwrap_err();
        assert!(matches!(err, Error::WrongPassphrase), "{err:?}");
    }
    assert_eq!(
        Error::WrongPassphrase.to_string(),
        "wrong passphrase (or the file's header was modified)"
    );
}

#[test]
fn purpose_mismatch_is_tampered() {
    let file = sealed();
    for other in ["alibi mpc share", "alibi identit", "alibi identity ", ""] {
        let err = open(other, &file, PASS).unwrap_err();
        assert!(matches!(err, Error::Tampered), "{other:?}: {err:?}");
    }
}

#[test]
fn every_byte_flip_is_refused() {
    let file = sealed();
    for at in 0..file.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut bad = file.clone();
            bad[at] ^= mask;
            let err = match open(PURPOSE, &bad, PASS) {
                Ok(_) => panic!("flip {mask:#04x} at {at} opened"),
                Err(e) => e,
            };
            let expected = match at {
                _ if at < PARAMS_AT => matches!(err, Error::NotAKeyfile),
                // A changed cost either leaves the bounds or derives another key and check value.
                _ if at < SALT_AT => {
                    matches!(err, Error::Parameters(_) | Error::WrongPassphrase)
                }
                _ if at < NONCE_AT => matches!(err, Error::WrongPassphrase),
                // The check value does not depend on the nonce; the AEAD catches it.
                _ if at < CHECK_AT => matches!(err, Error::Tampered),
                _ if at < HEADER_LEN => matches!(err, Error::WrongPassphrase),
                _ => matches!(err, Error::Tampered),
            };
            assert!(expected, "flip {mask:#04x} at {at}: {err:?}");
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    let file = sealed();
    for len in 0..file.len() {
        let err = match open(PURPOSE, &file[..len], PASS) {
            Ok(_) => panic!("truncation to {len} bytes opened"),
            Err(e) => e,
        };
        if len < HEADER_LEN + 16 {
            assert!(matches!(err, Error::NotAKeyfile), "{len}: {err:?}");
        } else {
            assert!(matches!(err, Error::Tampered), "{len}: {err:?}");
        }
    }
}

#[test]
fn appended_bytes_are_refused() {
    let mut file = sealed();
    file.push(0);
    assert!(matches!(open(PURPOSE, &file, PASS), Err(Error::Tampered)));
}

#[test]
fn not_a_keyfile() {
    assert!(!is_keyfile(b""));
    assert!(!is_keyfile(b"alibi-keyfile"));
    assert!(is_keyfile(MAGIC));
    for junk in [&b""[..], b"hello", &[0u8; 200]] {
        assert!(matches!(open(PURPOSE, junk, PASS), Err(Error::NotAKeyfile)));
    }
    let mut future = sealed();
    future[VERSION_AT] = 2;
    assert!(is_keyfile(&future));
    assert!(matches!(
        open(PURPOSE, &future, PASS),
        Err(Error::NotAKeyfile)
    ));
}

#[test]
fn params_out_of_bounds_refused_before_argon2() {
    let max = Params {
        m_cost_kib: Params::MAX_M_COST_KIB,
        t_cost: Params::MAX_T_COST,
        p_cost: Params::MAX_P_COST,
    };
    assert!(max.check().is_ok());
    assert!(Params::TEST.check().is_ok());
    assert!(Params::default().check().is_ok());
    // Each is one step past a bound while the other costs sit at their maximum, so running
    // Argon2id on any of them would take many seconds (or fail to allocate).
    let over = [
        Params {
            m_cost_kib: Params::MAX_M_COST_KIB + 1,
            ..max
        },
        Params {
            m_cost_kib: u32::MAX,
            ..max
        },
        Params { t_cost: 17, ..max },
        Params {
            t_cost: u32::MAX,
            ..max
        },
        Params { p_cost: 17, ..max },
        Params {
            p_cost: u32::MAX,
            ..max
        },
        Params {
            m_cost_kib: 0,
            ..max
        },
        Params { t_cost: 0, ..max },
        Params { p_cost: 0, ..max },
        // Below Argon2's 8 KiB per lane.
        Params {
            m_cost_kib: 8 * 16 - 1,
            ..max
        },
    ];
    let start = Instant::now();
    for params in over {
        assert!(
            matches!(params.check(), Err(Error::Parameters(p)) if p == params),
            "{params}"
        );
        let err = open(PURPOSE, &crafted(params), PASS).unwrap_err();
        assert!(
            matches!(err, Error::Parameters(p) if p == params),
            "{params}: {err:?}"
        );
        let err = seal(PURPOSE, SECRET, PASS, params, &mut rng()).unwrap_err();
        assert!(
            matches!(err, Error::Parameters(p) if p == params),
            "{params}: {err:?}"
        );
    }
    // Sealing the `crafted` files above ran Argon2id with `Params::TEST` only.
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn error_messages_are_one_line() {
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
    let errors = [
        Error::NotAKeyfile,
        Error::Parameters(Params::TEST),
        Error::WrongPassphrase,
        Error::Tampered,
        Error::Kdf("out of memory".into()),
        Error::TooLarge,
        Error::NoPassphrase,
        Error::EmptyPassphrase,
        Error::PassphraseEncoding,
        Error::PassphraseFile {
            path: "/x/pass".into(),
            source: io,
        },
    ];
    for e in errors {
        let msg = e.to_string();
        assert!(!msg.is_empty() && !msg.contains('\n'), "{msg:?}");
    }
    assert_eq!(
        Error::Tampered.to_string(),
        "the file was modified after it was sealed (or was sealed for another purpose)"
    );
}

#[test]
fn empty_passphrase_not_sealed() {
    assert!(matches!(
        seal(PURPOSE, SECRET, b"", Params::TEST, &mut rng()),
        Err(Error::EmptyPassphrase)
    ));
}

#[test]
fn two_seals_differ() {
    let a = sealed();
    let b = sealed();
    assert_ne!(a, b);
    assert_ne!(a[SALT_AT..NONCE_AT], b[SALT_AT..NONCE_AT]);
    assert_ne!(a[NONCE_AT..CHECK_AT], b[NONCE_AT..CHECK_AT]);
    assert_ne!(a[HEADER_LEN..], b[HEADER_LEN..]);
    assert_eq!(
        open(PURPOSE, &a, PASS).unwrap(),
        open(PURPOSE, &b, PASS).unwrap()
    );
}

#[test]
fn passphrase_file_strips_one_newline() {
    for (content, expected) in [
        (&b"hunter2"[..], &b"hunter2"[..]),
        (b"hunter2\n", b"hunter2"),
        (b"hunter2\r\n", b"hunter2"),
        (b"hunter2\n\n", b"hunter2\n"),
        (b" hunter2 \r", b" hunter2 \r"),
    ] {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(content).unwrap();
        let got = passphrase(Some(file.path())).unwrap();
        assert_eq!(&got[..], expected, "{content:?}");
    }
}

#[test]
fn passphrase_file_empty_refused() {
    for content in [&b""[..], b"\n", b"\r\n"] {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(content).unwrap();
        assert!(
            matches!(passphrase(Some(file.path())), Err(Error::EmptyPassphrase)),
            "{content:?}"
        );
    }
}

#[test]
fn passphrase_file_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing");
    let err = passphrase(Some(&path)).unwrap_err();
    assert!(matches!(&err, Error::PassphraseFile { path: p, .. } if *p == path));
    assert!(err.to_string().contains("missing"), "{err}");
}

proptest! {
    #[test]
    fn roundtrip_any_plaintext(
        plaintext in proptest::collection::vec(any::<u8>(), 0..600),
        pass in proptest::collection::vec(any::<u8>(), 1..40),
        purpose in ".{0,20}",
    ) {
        let file = seal(&purpose, &plaintext, &pass, Params::TEST, &mut rng()).unwrap();
        prop_assert_eq!(file.len(), HEADER_LEN + plaintext.len() + 16);
        prop_assert_eq!(&open(&purpose, &file, &pass).unwrap()[..], &plaintext[..]);
    }

    #[test]
    fn open_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        // Behind a valid magic and version, so the parser gets past the first check.
        let data = [&MAGIC[..], &[1], &tail].concat();
        prop_assert!(open(PURPOSE, &data, PASS).is_err());
    }
}
