//! # alibi-keyfile
//!
//! Secrets at rest (identity keys, MPC key shares, ...) sealed under a passphrase: Argon2id turns
//! the passphrase into a key, XChaCha20-Poly1305 encrypts and authenticates the secret.
//!
//! ```
//! use alibi_keyfile::{open, seal, Error, Params};
//!
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! // Params::TEST keeps the example fast; real secrets use Params::default().
//! let file = seal("alibi identity", b"secret key bytes", b"hunter2", Params::TEST, &mut rng)?;
//! assert!(alibi_keyfile::is_keyfile(&file));
//! assert_eq!(&open("alibi identity", &file, b"hunter2")?[..], b"secret key bytes");
//! assert!(matches!(open("alibi identity", &file, b"hunter3"), Err(Error::WrongPassphrase)));
//! assert!(matches!(open("alibi mpc share", &file, b"hunter2"), Err(Error::Tampered)));
//! # Ok::<(), Error>(())
//! ```
//!
//! ## File format (version 1)
//!
//! All integers are big-endian.
//!
//! | offset | length | field                                                        |
//! |-------:|-------:|--------------------------------------------------------------|
//! |      0 |     14 | magic `b"alibi-keyfile\0"`                                   |
//! |     14 |      1 | version, `0x01`                                              |
//! |     15 |      4 | Argon2id memory cost `m_cost` in KiB (u32)                   |
//! |     19 |      4 | Argon2id passes `t_cost` (u32)                               |
//! |     23 |      4 | Argon2id lanes `p_cost` (u32)                                |
//! |     27 |     16 | salt, random per file                                        |
//! |     43 |     24 | XChaCha20-Poly1305 nonce, random per file                    |
//! |     67 |     16 | passphrase check value                                       |
//! |     83 |      n | ciphertext (`n` = plaintext length)                          |
//! | 83 + n |     16 | Poly1305 tag                                                 |
//!
//! The 83 bytes before the ciphertext are the *header*; a file is at least 99 bytes long.
//!
//! **Key derivation.** Argon2id (version 0x13) with the header's parameters derives 48 bytes
//! from the passphrase and the salt (no secret key, no Argon2 associated data). The first 32 are
//! the XChaCha20-Poly1305 key, the last 16 are the check value stored in the header.
//!
//! **Opening** compares the check value in constant time before decrypting, which tells a wrong
//! passphrase ([`Error::WrongPassphrase`]) apart from a file modified after it was sealed
//! ([`Error::Tampered`]). The check value reveals nothing an attacker could not learn by trying
//! the passphrase against the AEAD anyway: each guess still costs one Argon2id run.
//!
//! **Associated data** is the whole header followed by the caller's `purpose` label (such as
//! `"alibi identity"` or `"alibi mpc share"`). The header has a fixed length, so the
//! concatenation is unambiguous. Binding the header means parameters, salt, nonce and check value
//! cannot be swapped; binding the purpose means a file sealed for one use (an MPC share) cannot be
//! passed off as another (an identity) even under the same passphrase: opening it with the wrong
//! purpose fails as [`Error::Tampered`], which cannot be told apart from a modified body.
//!
//! **Cost limits.** A file names its own Argon2id parameters, so a crafted file could demand
//! terabytes of memory or hours of CPU. [`open`] refuses, before running Argon2id, any memory cost
//! above 1 GiB, more than 16 passes or lanes, and any zero ([`Error::Parameters`]).

#![deny(missing_docs)]
#![deny(unsafe_code)]
#![deny(clippy::unwrap_used)]

use std::fmt;
use std::path::{Path, PathBuf};

use argon2::{Algorithm, Argon2, Version};
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// The first bytes of every keyfile.
pub const MAGIC: &[u8; 14] = b"alibi-keyfile\0";

/// The format version this crate writes and reads.
pub const VERSION: u8 = 1;

/// The environment variable [`passphrase`] reads when no passphrase file is given.
pub const ENV: &str = "ALIBI_PASSPHRASE";

const SALT_LEN: usize = 16;
const NONCE_LEN: usize = 24;
const CHECK_LEN: usize = 16;
const KEY_LEN: usize = 32;
const TAG_LEN: usize = 16;

/// Length of the header: everything before the ciphertext (83 bytes).
pub const HEADER_LEN: usize = MAGIC.len() + 1 + 3 * 4 + SALT_LEN + NONCE_LEN + CHECK_LEN;

/// Why a keyfile could not be sealed or opened, or a passphrase not read.
///
/// Each message is one line a command-line tool can print as is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a keyfile this version understands: wrong magic, unknown version, or
    /// shorter than a header and a tag.
    #[error("not an alibi keyfile (wrong magic, unsupported version or truncated)")]
    NotAKeyfile,
    /// Argon2id parameters outside the accepted bounds (see [`Params::check`]); a file carrying
    /// them is refused before any key derivation is attempted.
    #[error(
        "refusing Argon2id parameters {0}: allowed are at most 1048576 KiB (1 GiB) of memory and \
         at least 8 KiB per lane, 1 to 16 passes, 1 to 16 lanes"
    )]
    Parameters(Params),
    /// The passphrase check value differs: the passphrase is wrong, or the header's parameters,
    /// salt or check value were changed.
    #[error("wrong passphrase (or the file's header was modified)")]
    WrongPassphrase,
    /// The passphrase is right but authentication failed: the nonce, ciphertext or tag were
    /// changed, or the file was sealed for another purpose label.
    #[error("the file was modified after it was sealed (or was sealed for another purpose)")]
    Tampered,
    /// Argon2id could not run (for instance it could not allocate its memory).
    #[error("Argon2id key derivation failed: {0}")]
    Kdf(String),
    /// The plaintext is too long for XChaCha20-Poly1305 (256 GiB) or for memory.
    #[error("the secret is too large to seal")]
    TooLarge,
    /// [`passphrase`] found neither a passphrase file nor the environment variable.
    #[error("no passphrase: set ALIBI_PASSPHRASE or pass --passphrase-file")]
    NoPassphrase,
    /// The passphrase is empty (after stripping a passphrase file's trailing newline); an empty
    /// passphrase would leave the secret unprotected.
    #[error("the passphrase is empty")]
    EmptyPassphrase,
    /// `ALIBI_PASSPHRASE` is not valid Unicode on a platform without byte-string environment
    /// variables (never returned on Unix, where the raw bytes are used).
    #[error("ALIBI_PASSPHRASE is not valid Unicode")]
    PassphraseEncoding,
    /// The passphrase file could not be read.
    #[error("cannot read passphrase file {}: {source}", path.display())]
    PassphraseFile {
        /// The file that was asked for.
        path: PathBuf,
        /// Why reading it failed.
        source: std::io::Error,
    },
}

/// Argon2id cost parameters, stored in each keyfile's header.
///
/// [`Params::default`] is OWASP's recommended Argon2id configuration (Password Storage Cheat
/// Sheet): 19 MiB, two passes, one lane. [`Params::TEST`] is for tests only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Params {
    /// Memory in KiB.
    pub m_cost_kib: u32,
    /// Number of passes over the memory.
    pub t_cost: u32,
    /// Degree of parallelism (lanes).
    pub p_cost: u32,
}

impl Params {
    /// Largest accepted memory cost: 1 GiB.
    pub const MAX_M_COST_KIB: u32 = 1 << 20;
    /// Largest accepted number of passes.
    pub const MAX_T_COST: u32 = 16;
    /// Largest accepted number of lanes.
    pub const MAX_P_COST: u32 = 16;

    /// Cheap parameters (256 KiB, one pass, one lane) for tests of this and other crates.
    ///
    /// **Not for real secrets**: a passphrase sealed with these can be guessed thousands of times
    /// faster than with [`Params::default`].
    pub const TEST: Params = Params {
        m_cost_kib: 256,
        t_cost: 1,
        p_cost: 1,
    };

    /// Checks the bounds [`open`] enforces on a file's parameters: memory at most 1 GiB and at
    /// least 8 KiB per lane (Argon2's own minimum), 1 to 16 passes, 1 to 16 lanes.
    ///
    /// # Errors
    ///
    /// [`Error::Parameters`] if any bound is violated.
    pub fn check(&self) -> Result<(), Error> {
        let ok = (1..=Self::MAX_T_COST).contains(&self.t_cost)
            && (1..=Self::MAX_P_COST).contains(&self.p_cost)
            // p_cost <= 16, so the product cannot overflow.
            && (8 * self.p_cost..=Self::MAX_M_COST_KIB).contains(&self.m_cost_kib);
        if ok {
            Ok(())
        } else {
            Err(Error::Parameters(*self))
        }
    }
}

impl Default for Params {
    /// OWASP's recommended Argon2id configuration (Password Storage Cheat Sheet): 19 MiB of
    /// memory (19456 KiB), two passes, one lane.
    fn default() -> Self {
        Params {
            m_cost_kib: 19 * 1024,
            t_cost: 2,
            p_cost: 1,
        }
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "m={} KiB, t={}, p={}",
            self.m_cost_kib, self.t_cost, self.p_cost
        )
    }
}

/// Is `bytes` (the start of) a keyfile? Checks only the magic, so it also recognises files of a
/// later version that [`open`] refuses.
pub fn is_keyfile(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Seals `plaintext` under `passphrase` for the use named by `purpose`.
///
/// Draws a fresh salt and nonce from `rng`, so sealing the same secret twice gives two different
/// files. `params` should be [`Params::default`] (or stronger) for real secrets.
///
/// # Errors
///
/// [`Error::Parameters`] if `params` fails [`Params::check`] (a file [`open`] would refuse),
/// [`Error::EmptyPassphrase`] for an empty passphrase, [`Error::Kdf`] if Argon2id cannot run,
/// [`Error::TooLarge`] for a plaintext beyond XChaCha20-Poly1305's limit.
pub fn seal<R: rand_core::CryptoRng + ?Sized>(
    purpose: &str,
    plaintext: &[u8],
    passphrase: &[u8],
    params: Params,
    rng: &mut R,
) -> Result<Vec<u8>, Error> {
    params.check()?;
    if passphrase.is_empty() {
        return Err(Error::EmptyPassphrase);
    }
    let mut salt = [0u8; SALT_LEN];
    rng.fill_bytes(&mut salt);
    let mut nonce = [0u8; NONCE_LEN];
    rng.fill_bytes(&mut nonce);
    let derived = derive(passphrase, &salt, params)?;

    let len = (HEADER_LEN + TAG_LEN)
        .checked_add(plaintext.len())
        .ok_or(Error::TooLarge)?;
    // Exact capacity: the plaintext is encrypted in place, and a reallocation would leave a
    // plaintext copy behind in freed memory.
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&params.m_cost_kib.to_be_bytes());
    out.extend_from_slice(&params.t_cost.to_be_bytes());
    out.extend_from_slice(&params.p_cost.to_be_bytes());
    out.extend_from_slice(&salt);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&derived.check);
    let aad = associated_data(&out, purpose);

    out.extend_from_slice(plaintext);
    let cipher = XChaCha20Poly1305::new((&derived.key).into());
    let tag = cipher
        .encrypt_inout_detached(&XNonce::from(nonce), &aad, (&mut out[HEADER_LEN..]).into())
        .map_err(|_| Error::TooLarge)?;
    out.extend_from_slice(&tag);
    Ok(out)
}

/// Opens a file made by [`seal`] with the same `purpose` and `passphrase`.
///
/// Never panics, whatever `sealed` contains; the Argon2id cost a file can demand is bounded
/// (see [`Params::check`]).
///
/// # Errors
///
/// In the order they are checked: [`Error::NotAKeyfile`] (wrong magic or version, truncated),
/// [`Error::Parameters`] (costs out of bounds), [`Error::Kdf`] (Argon2id could not run),
/// [`Error::WrongPassphrase`] (check value differs), [`Error::Tampered`] (authentication failed:
/// body modified or wrong `purpose`).
pub fn open(purpose: &str, sealed: &[u8], passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
    let Header {
        params,
        salt,
        nonce,
        check,
    } = Header::parse(sealed)?;
    params.check()?;
    let (header, body) = sealed
        .split_at_checked(HEADER_LEN)
        .ok_or(Error::NotAKeyfile)?;
    let (ciphertext, tag) = body
        .split_last_chunk::<TAG_LEN>()
        .ok_or(Error::NotAKeyfile)?;

    let derived = derive(passphrase, salt, params)?;
    if !bool::from(derived.check.ct_eq(check)) {
        return Err(Error::WrongPassphrase);
    }
    let mut plaintext = Zeroizing::new(ciphertext.to_vec());
    let cipher = XChaCha20Poly1305::new((&derived.key).into());
    cipher
        .decrypt_inout_detached(
            &XNonce::from(*nonce),
            &associated_data(header, purpose),
            plaintext.as_mut_slice().into(),
            tag.into(),
        )
        .map_err(|_| Error::Tampered)?;
    Ok(plaintext)
}

/// Reads the passphrase the command-line tool and other crates use: from `file` if given (`-`:
/// stdin), else from the environment variable [`ENV`] (`ALIBI_PASSPHRASE`).
///
/// One trailing `"\n"` or `"\r\n"` is stripped from a file (editors and `echo` add one); the
/// rest is kept as is, so passphrases sealed before stay the same. The environment variable is
/// taken as is, as raw bytes on Unix.
///
/// # Errors
///
/// [`Error::PassphraseFile`] if the file cannot be read, [`Error::NoPassphrase`] if there is no
/// file and the variable is unset, [`Error::EmptyPassphrase`] if the passphrase is empty,
/// [`Error::PassphraseEncoding`] for a non-Unicode variable on non-Unix platforms.
pub fn passphrase(file: Option<&Path>) -> Result<Zeroizing<Vec<u8>>, Error> {
    match file {
        Some(path) => passphrase_from_file(path),
        None => passphrase_from_env(std::env::var_os(ENV)),
    }
}

fn passphrase_from_file(path: &Path) -> Result<Zeroizing<Vec<u8>>, Error> {
    let read = if path.as_os_str() == "-" {
        // `-` is stdin, as for every file the command line reads; room for any sane passphrase
        // up front, so that reading does not leave reallocated copies behind.
        let mut all = Zeroizing::new(Vec::with_capacity(4096));
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut all).map(|_| all)
    } else {
        std::fs::read(path).map(Zeroizing::new)
    };
    let mut bytes = read.map_err(|source| Error::PassphraseFile {
        path: path.to_path_buf(),
        source,
    })?;
    let keep = bytes
        .strip_suffix(b"\r\n")
        .or_else(|| bytes.strip_suffix(b"\n"))
        .map_or(bytes.len(), <[u8]>::len);
    // Truncation keeps the capacity, which Zeroizing<Vec> wipes in full on drop.
    bytes.truncate(keep);
    non_empty(bytes)
}

/// The environment path of [`passphrase`], with the variable's value passed in so tests need not
/// touch the process environment.
fn passphrase_from_env(value: Option<std::ffi::OsString>) -> Result<Zeroizing<Vec<u8>>, Error> {
    let value = value.ok_or(Error::NoPassphrase)?;
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStringExt;
        Zeroizing::new(value.into_vec())
    };
    #[cfg(not(unix))]
    let bytes = Zeroizing::new(
        value
            .into_string()
            .map_err(|_| Error::PassphraseEncoding)?
            .into_bytes(),
    );
    non_empty(bytes)
}

fn non_empty(bytes: Zeroizing<Vec<u8>>) -> Result<Zeroizing<Vec<u8>>, Error> {
    if bytes.is_empty() {
        Err(Error::EmptyPassphrase)
    } else {
        Ok(bytes)
    }
}

/// The fixed-size fields of a header, borrowed from the file.
struct Header<'a> {
    params: Params,
    salt: &'a [u8; SALT_LEN],
    nonce: &'a [u8; NONCE_LEN],
    check: &'a [u8; CHECK_LEN],
}

impl<'a> Header<'a> {
    /// Parses the header and checks there is room for a tag after it; bounds only, no costs.
    fn parse(sealed: &'a [u8]) -> Result<Self, Error> {
        if sealed.len() < HEADER_LEN + TAG_LEN {
            return Err(Error::NotAKeyfile);
        }
        let mut rest = sealed;
        if take::<14>(&mut rest)? != MAGIC || take::<1>(&mut rest)? != &[VERSION] {
            return Err(Error::NotAKeyfile);
        }
        let mut u32_be = || take::<4>(&mut rest).map(|b| u32::from_be_bytes(*b));
        let params = Params {
            m_cost_kib: u32_be()?,
            t_cost: u32_be()?,
            p_cost: u32_be()?,
        };
        Ok(Header {
            params,
            salt: take(&mut rest)?,
            nonce: take(&mut rest)?,
            check: take(&mut rest)?,
        })
    }
}

/// Splits `N` bytes off the front of `rest`.
fn take<'a, const N: usize>(rest: &mut &'a [u8]) -> Result<&'a [u8; N], Error> {
    let (head, tail) = rest.split_first_chunk::<N>().ok_or(Error::NotAKeyfile)?;
    *rest = tail;
    Ok(head)
}

fn associated_data(header: &[u8], purpose: &str) -> Vec<u8> {
    [header, purpose.as_bytes()].concat()
}

/// What Argon2id derives: the AEAD key and the passphrase check value. Wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Derived {
    key: [u8; KEY_LEN],
    check: [u8; CHECK_LEN],
}

/// Runs Argon2id; `params` must already have passed [`Params::check`].
fn derive(passphrase: &[u8], salt: &[u8; SALT_LEN], params: Params) -> Result<Derived, Error> {
    let argon_params = argon2::Params::new(
        params.m_cost_kib,
        params.t_cost,
        params.p_cost,
        Some(KEY_LEN + CHECK_LEN),
    )
    .map_err(|_| Error::Parameters(params))?;
    let mut okm = Zeroizing::new([0u8; KEY_LEN + CHECK_LEN]);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, argon_params)
        .hash_password_into(passphrase, salt, okm.as_mut_slice())
        .map_err(|e| Error::Kdf(e.to_string()))?;
    let mut derived = Derived {
        key: [0; KEY_LEN],
        check: [0; CHECK_LEN],
    };
    let (key, check) = okm.split_at(KEY_LEN);
    derived.key.copy_from_slice(key);
    derived.check.copy_from_slice(check);
    Ok(derived)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn header_len_is_83() {
        assert_eq!(HEADER_LEN, 83);
    }

    #[test]
    fn env_unset_is_no_passphrase() {
        let err = passphrase_from_env(None).unwrap_err();
        assert!(matches!(err, Error::NoPassphrase));
        assert_eq!(
            err.to_string(),
            "no passphrase: set ALIBI_PASSPHRASE or pass --passphrase-file"
        );
    }

    #[test]
    fn env_value_taken_as_is() {
        let got = passphrase_from_env(Some(OsString::from("correct horse\n"))).unwrap();
        assert_eq!(&got[..], b"correct horse\n");
    }

    #[test]
    fn env_empty_is_refused() {
        assert!(matches!(
            passphrase_from_env(Some(OsString::new())),
            Err(Error::EmptyPassphrase)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn env_non_utf8_bytes_kept() {
        use std::os::unix::ffi::OsStringExt;
        let raw = vec![0xff, 0xfe, b'x'];
        let got = passphrase_from_env(Some(OsString::from_vec(raw.clone()))).unwrap();
        assert_eq!(&got[..], &raw[..]);
    }

    #[test]
    fn derive_splits_key_and_check() {
        let salt = [7u8; SALT_LEN];
        let d = derive(b"pw", &salt, Params::TEST).unwrap();
        let mut okm = [0u8; 48];
        Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            argon2::Params::new(256, 1, 1, Some(48)).unwrap(),
        )
        .hash_password_into(b"pw", &salt, &mut okm)
        .unwrap();
        assert_eq!(d.key[..], okm[..32]);
        assert_eq!(d.check[..], okm[32..]);
    }
}
