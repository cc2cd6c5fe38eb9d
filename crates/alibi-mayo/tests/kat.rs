//! The round-2 known-answer files, reproduced: NIST's AES-256 CTR_DRBG (the one in NIST's
//! PQCgenKAT_sign.c harness) drives our key generation and signing exactly as the harness drives
//! the reference code, the .rsp text is rebuilt byte for byte, and its SHA-256 is compared with
//! the digests of the published files (vectors/mayo-kat/README.md), and line by line with the
//! files themselves, kept in the repository (the first differing line is reported).

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use alibi_mayo::{Params, SigningKey};
use rand_core::{Infallible, TryCryptoRng, TryRng};
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// NIST SP 800-90A CTR_DRBG with AES-256, no derivation function, as in NIST's rng.c.
struct NistDrbg {
    key: [u8; 32],
    v: [u8; 16],
}

impl NistDrbg {
    fn new(entropy: &[u8; 48]) -> Self {
        let mut d = NistDrbg {
            key: [0; 32],
            v: [0; 16],
        };
        d.update(Some(entropy));
        d
    }

    fn increment_v(&mut self) {
        for b in self.v.iter_mut().rev() {
            *b = b.wrapping_add(1);
            if *b != 0 {
                break;
            }
        }
    }

    fn block(&self) -> [u8; 16] {
        let mut b = self.v.into();
        aes::Aes256::new(&self.key.into()).encrypt_block(&mut b);
        b.into()
    }

    /// CTR_DRBG_Update: three blocks of the current stream, XORed with the provided data, become
    /// the new key and V.
    fn update(&mut self, provided: Option<&[u8; 48]>) {
        let mut temp = [0u8; 48];
        for chunk in temp.chunks_exact_mut(16) {
            self.increment_v();
            chunk.copy_from_slice(&self.block());
        }
        if let Some(p) = provided {
            for (t, x) in temp.iter_mut().zip(p) {
                *t ^= x;
            }
        }
        self.key.copy_from_slice(&temp[..32]);
        self.v.copy_from_slice(&temp[32..]);
    }
}

impl NistDrbg {
    /// randombytes(): whole blocks, the last one truncated, then one update.
    fn randombytes(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(16) {
            self.increment_v();
            let b = self.block();
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
        self.update(None);
    }
}

impl TryRng for NistDrbg {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.randombytes(&mut b);
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.randombytes(&mut b);
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, out: &mut [u8]) -> Result<(), Infallible> {
        self.randombytes(out);
        Ok(())
    }
}

impl TryCryptoRng for NistDrbg {}

/// Uppercase hex, as the .rsp files write it.
fn hex(b: &[u8]) -> String {
    hex::encode_upper(b)
}

/// The .rsp file PQCgenKAT_sign.c writes for this parameter set.
fn known_answers(p: Params) -> String {
    let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
    let mut outer = NistDrbg::new(&entropy);
    let records: Vec<([u8; 48], Vec<u8>)> = (0..100)
        .map(|i| {
            let mut seed = [0u8; 48];
            outer.randombytes(&mut seed);
            let mut msg = vec![0u8; 33 * (i + 1)];
            outer.randombytes(&mut msg);
            (seed, msg)
        })
        .collect();
    let mut out = format!("# {}\n\n", p.name());
    for (count, (seed, msg)) in records.iter().enumerate() {
        let mut rng = NistDrbg::new(seed);
        let sk = SigningKey::generate(p, &mut rng);
        let pk = sk.verifying_key();
        let sig = sk.sign(msg, &mut rng);
        let sm = [sig.to_bytes(), msg.clone()].concat();
        let _ = write!(
            out,
            "count = {count}\nseed = {}\nmlen = {}\nmsg = {}\npk = {}\nsk = {}\nsmlen = {}\nsm = {}\n\n",
            hex(seed),
            msg.len(),
            hex(msg),
            hex(pk.as_bytes()),
            hex(&sk.to_bytes()),
            sm.len(),
            hex(&sm)
        );
        assert!(
            pk.verify(msg, &sig).is_ok(),
            "{p} record {count}: own signature rejected"
        );
    }
    out
}

fn check(p: Params, file: &str, digest: &str) {
    let ours = known_answers(p);
    let path = alibi_testkit::vectors_dir().join("mayo-kat").join(file);
    let theirs = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (the repository's vectors/)", path.display()));
    // Point at the first differing line before comparing digests.
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "{p}: line {} of {file} differs", i + 1);
    }
    assert_eq!(ours.len(), theirs.len(), "{p}: {file} has another length");
    let got: String = Sha256::digest(ours.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(got, digest, "{p}: SHA-256 of the reproduced {file}");
}

#[test]
fn mayo_1_known_answers() {
    check(
        Params::Mayo1,
        "PQCsignKAT_24_MAYO_1.rsp",
        "4e56d600d7c0027952dd40725cb9ff05c0b5b10550dcdd72b17ce904f70e86de",
    );
}

#[test]
fn mayo_2_known_answers() {
    check(
        Params::Mayo2,
        "PQCsignKAT_24_MAYO_2.rsp",
        "a68435c4f30e4b0ed64ce8c82eb1d732fbad91399accf3416409542e57bdc966",
    );
}
