//! docs/SECURITY.md: a secret key's `Debug` names the type and the parameter set, never key bytes.
//! Every secret type of the scheme crates that has a `Debug` is generated here and its `{:?}`
//! searched for the key's encoding; every one without a `Debug` is checked, at compile time, to
//! still have none (so a later `#[derive(Debug)]` cannot print its fields unnoticed).
//!
//! Not covered, as they are not types of ours: BLS secret keys (`alibi_bls::keygen` returns
//! bytes), shared secrets (`Zeroizing<[u8; 32]>` or the `kem` crate's `SharedKey`) and what
//! `alibi_keyfile::open` returns. The keyfile crate holds its derived key in a private type.

use std::fmt::Debug;

use alibi_falcon::Level as FalconLevel;
use alibi_mlkem::{DecapsulationKey, Kyber1024, MlKem1024, MlKem512, MlKem768};
use alibi_ringsig::{AnySigningKey, Scheme};
use alibi_tachyon::Level as TachyonLevel;

/// A window this long of a secret's encoding, found in any rendering, is a leak.
const WINDOW: usize = 8;
/// Room for a type name and a parameter set; a rendering of key material would not fit.
const MAX_LEN: usize = 200;

/// The operating system's generator (rand_core 0.10 has no OsRng).
fn rng() -> rand_core::UnwrapErr<getrandom::SysRng> {
    rand_core::UnwrapErr(getrandom::SysRng)
}

/// The ways `Debug` or `hex` would print bytes: contiguous hex in either case, and the slice
/// renderings `{:?}`, `{:x?}`, `{:02x?}` and `{:02X?}` (brackets dropped, to match inside a
/// longer list).
fn renderings(window: &[u8]) -> [String; 6] {
    let list = |s: String| s.trim_matches(['[', ']']).to_string();
    [
        hex::encode(window),
        hex::encode_upper(window),
        list(format!("{window:?}")),
        list(format!("{window:x?}")),
        list(format!("{window:02x?}")),
        list(format!("{window:02X?}")),
    ]
}

/// Why `text` is not an acceptable `Debug` of a secret of type `name` whose encodings are
/// `secrets`, or `None` if it is.
fn problem(text: &str, name: &str, secrets: &[&[u8]]) -> Option<String> {
    if text.len() >= MAX_LEN {
        return Some(format!("{} chars, limit {MAX_LEN}", text.len()));
    }
    if !text.contains(name) {
        return Some(format!("does not name `{name}`"));
    }
    for secret in secrets {
        assert!(
            secret.len() >= WINDOW,
            "{name}: encoding too short to search"
        );
        for (at, window) in secret.windows(WINDOW).enumerate() {
            if let Some(r) = renderings(window)
                .iter()
                .find(|r| text.contains(r.as_str()))
            {
                return Some(format!("holds bytes {at}..{} as `{r}`", at + WINDOW));
            }
        }
    }
    None
}

/// Asserts that `value`'s `Debug` names `name` and shows none of `secrets`.
fn check(value: &impl Debug, name: &str, secrets: &[&[u8]]) {
    let text = format!("{value:?}");
    if let Some(p) = problem(&text, name, secrets) {
        panic!("Debug of {name} is `{text}`: {p}");
    }
}

/// Has an impl for every type, and a second for types with `Debug`; naming `probe` through it
/// with the marker left to inference compiles only when exactly one applies.
trait NoDebug<Marker> {
    fn probe() {}
}
impl<T: ?Sized> NoDebug<()> for T {}
struct WithDebug;
impl<T: ?Sized + Debug> NoDebug<WithDebug> for T {}

/// Fails to compile ("type annotations needed") if any of the types implements `Debug`.
macro_rules! assert_no_debug {
    ($($t:ty),+ $(,)?) => {
        $(let _ = <$t as NoDebug<_>>::probe;)+
    };
}

#[test]
fn the_check_catches_printed_bytes() {
    let secret: Vec<u8> = (0u8..32)
        .map(|i| i.wrapping_mul(37).wrapping_add(200))
        .collect();
    let part = &secret[10..22];
    for leak in [
        format!("Key({})", hex::encode(part)),
        format!("Key({})", hex::encode_upper(part)),
        format!("Key({part:?})"),
        format!("Key({part:x?})"),
        format!("Key({part:02x?})"),
        format!("Key({part:02X?})"),
    ] {
        assert!(
            problem(&leak, "Key", &[&secret]).is_some(),
            "missed `{leak}`"
        );
    }
    assert!(problem("Key(..)", "Key", &[&secret]).is_none());
    assert!(problem("Other(..)", "Key", &[&secret]).is_some());
    assert!(problem(&format!("Key({})", "x".repeat(MAX_LEN)), "Key", &[&secret]).is_some());
}

#[test]
fn falcon() {
    for level in FalconLevel::ALL {
        let sk = alibi_falcon::SigningKey::generate(level, &mut rng());
        let bytes = sk.to_bytes();
        check(&sk, "SigningKey", &[&bytes]);
        check(&sk.expand(), "ExpandedSigningKey", &[&bytes]);
    }
}

#[test]
fn mitaka() {
    let sk = alibi_mitaka::SigningKey::generate(&mut rng());
    let bytes = sk.to_bytes();
    check(&sk, "SigningKey", &[&bytes]);
    check(&sk.expand(), "ExpandedSigningKey", &[&bytes]);
}

#[test]
fn mayo() {
    for p in alibi_mayo::Params::ALL {
        let sk = alibi_mayo::SigningKey::generate(p, &mut rng());
        // Signing builds the expanded secret map the key keeps; it must not show either.
        let _ = sk.sign(b"m", &mut rng());
        check(&sk, "SigningKey", &[&sk.to_bytes()]);
    }
}

#[test]
fn tachyon() {
    for level in TachyonLevel::ALL {
        let sk = alibi_tachyon::SigningKey::generate(level, &mut rng());
        let bytes = sk.to_bytes();
        check(&sk, "SigningKey", &[&bytes]);
        if level == TachyonLevel::T128 {
            // The pre-computation is secret too (every x_i).
            check(&sk.with_precomputation(), "SigningKey", &[&bytes]);
        }
    }
}

#[test]
fn bat() {
    let sk = alibi_bat::SecretKey::generate(&mut rng());
    check(&sk, "SecretKey", &[&sk.to_bytes(), &sk.to_short_bytes()]);
}

#[test]
fn mlkem() {
    fn one<P: alibi_mlkem::ParameterSet>() {
        let dk = DecapsulationKey::<P>::generate(&mut rng());
        check(
            &dk,
            "DecapsulationKey",
            &[&*dk.to_bytes(), dk.expanded_bytes()],
        );
    }
    one::<MlKem512>();
    one::<MlKem768>();
    one::<MlKem1024>();
    one::<Kyber1024>();
}

#[test]
fn ringsig() {
    for scheme in Scheme::ALL {
        let (_, bytes) = scheme.generate(&mut rng());
        let sk = AnySigningKey::from_bytes(scheme, &bytes).expect("its own encoding");
        check(&sk, "AnySigningKey", &[&bytes]);
    }
}

#[test]
fn secret_types_without_debug_stay_without() {
    use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
    assert_no_debug!(
        alibi_x25519::DhKeyPair,
        alibi_akem::dh::SecretKey,
        alibi_akem::pq::SecretKey,
        alibi_akem::shadowfax::SecretKey,
        alibi_akem::any::SecretKey,
        alibi_dgsp::ManagerSecretKey,
        alibi_dgsp::Manager<MemoryPlm, MemoryRevokedList>,
        alibi_dgsp::UserKey,
        alibi_dgsp::WotsSeed,
        alibi_dgsp::OneTimeKey,
        alibi_dgsp::Credential,
        alibi_dgsp::PendingKeys,
        alibi_ringsig::RingSigner<alibi_falcon::ExpandedSigningKey>,
        alibi_ringsig::RingSigner<alibi_mitaka::ExpandedSigningKey>,
    );
}
