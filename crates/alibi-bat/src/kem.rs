//! The KEM (the paper's Encapsulate and Decapsulate, Algorithm 4.3: the Fujisaki-Okamoto transform
//! with implicit rejection, as `kem_api.c` implements it), the key types and their encodings, and
//! the RustCrypto `kem` traits.

use crate::codec::{decode_c1, decode_h, encode_c1, encode_h, trim_decode, trim_encode, trim_len};
use crate::decrypt::{decrypt, Basis, DecryptKey};
use crate::encrypt::encrypt;
use crate::hash::{expand_b, hash_m, kdf_seed_bad, LABEL_S, LABEL_SECRET_BAD};
use crate::keygen::{self, check_basis, compute_w, make_fg, make_rr, KeyParts, BIG_FG_LIMIT};
use crate::modq::{Ntt257, Poly};
use crate::{
    Error, CIPHERTEXT_LEN, MESSAGE_LEN, N, PUBLIC_KEY_LEN, SECRET_KEY_LEN, SEED_LEN,
    SHORT_SECRET_KEY_LEN, TAG_CIPHERTEXT, TAG_PUBLIC_KEY, TAG_SECRET_KEY, TAG_SECRET_KEY_SHORT,
};
use alibi_encoding::LengthChecked;
use core::fmt;
use hybrid_array::sizes::{U473, U521};
use kem::consts::U32;
use kem::{
    Decapsulator, Encapsulate, Generate, InvalidKey, Key, KeyExport, KeySizeUser, SharedKey,
    TryDecapsulate, TryKeyInit,
};
use rand_core::{CryptoRng, TryCryptoRng};
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Bits per coefficient of f, g (`bat_max_fg_bits[9]`), F, G and w in the secret-key encoding.
const FG_BITS: u32 = 4;
const BIG_FG_BITS: u32 = 6;
const W_BITS: u32 = 17;

/// A BAT-257 public key: h = g / f mod (257, x^512 + 1).
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    h: [u16; N],
    /// h in the NTT domain mod 257, kept for encryption.
    pub(crate) h_ntt: Poly,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey(BAT-257, h[0..4] = {:?})", &self.h[..4])
    }
}

impl PublicKey {
    pub(crate) fn from_h(h: [u16; N]) -> Self {
        PublicKey {
            h_ntt: keygen::h_ntt(&h),
            h,
        }
    }

    /// Decodes the artifact's 521-byte public key: tag 0x99, then h (65-bit blocks of eight
    /// values). Fails on a wrong length or tag and on any value of h not below 257.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Error::check_len("BAT-257 public key", PUBLIC_KEY_LEN, bytes.len())?;
        check_tag("BAT-257 public key", TAG_PUBLIC_KEY, bytes[0])?;
        let h = decode_h(&bytes[1..]).ok_or(Error::Malformed("BAT-257 public key"))?;
        Ok(Self::from_h(h))
    }

    /// The 521-byte encoding (tag 0x99, then h).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PUBLIC_KEY_LEN);
        out.push(TAG_PUBLIC_KEY);
        out.extend_from_slice(&encode_h(&self.h));
        out
    }

    /// The coefficients of h, in 0..257.
    pub fn h(&self) -> &[u16; N] {
        &self.h
    }
}

/// A BAT-257 secret key: the key seed, the rejection secret rr, the basis (f, g, F, G), w, and
/// the public key. Zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SecretKey {
    pub(crate) seed: [u8; SEED_LEN],
    pub(crate) rr: [u8; 32],
    pub(crate) f: [i8; N],
    pub(crate) g: [i8; N],
    pub(crate) big_f: [i8; N],
    pub(crate) big_g: [i8; N],
    pub(crate) w: [i32; N],
    #[zeroize(skip)]
    pub(crate) pk: PublicKey,
    /// The key's share of decryption, precomputed ([`DecryptKey`]).
    pub(crate) dec: Box<DecryptKey>,
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretKey(BAT-257, {:?})", self.pk)
    }
}

impl SecretKey {
    /// A fresh key: 32 bytes from `rng` as the artifact's OS seed, then
    /// [`Self::generate_from_seed`].
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut seed[..]);
        Self::generate_from_seed(&seed)
    }

    /// The artifact's `kem_keygen` with `rng_seed` in place of its 32 bytes of OS randomness: key
    /// seeds are drawn from the BLAKE2s PRNG keyed by `rng_seed` until one passes every check
    /// ([`Self::from_key_seed`]). When both implementations accept the same seed, f, g, h, the
    /// seed and rr match the artifact byte for byte, and so does the whole key whenever our
    /// NTRUSolve returns the artifact's F. The artifact's solver gives up on some (f, g) that ours
    /// solves (its `SOLVE_ERR_REDUCE`), and then this key comes from an earlier seed.
    pub fn generate_from_seed(rng_seed: &[u8; 32]) -> Self {
        Self::from_parts(keygen::keygen(rng_seed))
    }

    /// The key of one 32-byte key seed (the seed stored in the secret key), or `None` when key
    /// generation rejects the seed and moves on to the next one: f or g of even parity or too
    /// long, f not invertible mod q, no NTRUSolve solution within the bounds, or a decoding basis
    /// (w) too long. The artifact's solver can reject a seed ours accepts (and rarely the
    /// reverse), so [`Self::generate_from_seed`] may settle on an earlier seed than the artifact.
    pub fn from_key_seed(seed: &[u8; SEED_LEN]) -> Option<Self> {
        keygen::from_key_seed(seed).map(Self::from_parts)
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.pk
    }

    /// The 32-byte key seed from which f and g were sampled (bytes 1..33 of either encoding).
    /// As secret as the key itself: f, g and h follow from it.
    pub fn key_seed(&self) -> &[u8; SEED_LEN] {
        &self.seed
    }

    /// Decodes a secret key in the artifact's long format (2,953 bytes, tag 0x19: seed, rr, f, g,
    /// F, G in trim encoding of 4, 4, 6, 6 bits, w in 17 bits, h) or short format (417 bytes, tag
    /// 0x59: seed and F; f, g and h are resampled from the seed, G = g F / f mod q, w and rr are
    /// recomputed). Both are checked: h = g / f, g F - f G = q exactly, and the norm bound that
    /// makes decryption correct.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        const WHAT: &str = "BAT-257 secret key";
        let tag = *bytes
            .first()
            .ok_or(Error::length(WHAT, SECRET_KEY_LEN, 0))?;
        match tag {
            TAG_SECRET_KEY => Self::from_long(bytes),
            TAG_SECRET_KEY_SHORT => Self::from_short(bytes),
            _ => Err(Error::Tag {
                what: WHAT,
                expected: TAG_SECRET_KEY,
                got: tag,
            }),
        }
    }

    fn from_long(bytes: &[u8]) -> Result<Self, Error> {
        const WHAT: &str = "BAT-257 secret key";
        Error::check_len(WHAT, SECRET_KEY_LEN, bytes.len())?;
        let mut rest = &bytes[1..];
        let mut take = |len: usize| {
            let (a, b) = rest.split_at(len);
            rest = b;
            a
        };
        let seed: [u8; 32] = take(SEED_LEN)
            .try_into()
            .map_err(|_| Error::Malformed(WHAT))?;
        let rr: [u8; 32] = take(32).try_into().map_err(|_| Error::Malformed(WHAT))?;
        let small = |b: &[u8], bits| -> Result<[i8; N], Error> {
            let mut v = trim_decode(b, bits).ok_or(Error::Malformed(WHAT))?;
            let out = core::array::from_fn(|i| v[i] as i8);
            v.zeroize();
            Ok(out)
        };
        let f = small(take(trim_len(FG_BITS)), FG_BITS)?;
        let g = small(take(trim_len(FG_BITS)), FG_BITS)?;
        let big_f = small(take(trim_len(BIG_FG_BITS)), BIG_FG_BITS)?;
        let big_g = small(take(trim_len(BIG_FG_BITS)), BIG_FG_BITS)?;
        let w = trim_decode(take(trim_len(W_BITS)), W_BITS).ok_or(Error::Malformed(WHAT))?;
        let h = decode_h(take(crate::codec::H_LEN)).ok_or(Error::Malformed(WHAT))?;
        check_basis(&f, &g, &big_f, &big_g, &w, &h).map_err(Error::InvalidKey)?;
        Ok(SecretKey::assemble(seed, rr, f, g, big_f, big_g, w, h))
    }

    fn from_short(bytes: &[u8]) -> Result<Self, Error> {
        const WHAT: &str = "BAT-257 short secret key";
        Error::check_len(WHAT, SHORT_SECRET_KEY_LEN, bytes.len())?;
        let seed: [u8; 32] = bytes[1..1 + SEED_LEN]
            .try_into()
            .map_err(|_| Error::Malformed(WHAT))?;
        let mut big_f32 =
            trim_decode(&bytes[1 + SEED_LEN..], BIG_FG_BITS).ok_or(Error::Malformed(WHAT))?;
        let big_f: [i8; N] = core::array::from_fn(|i| big_f32[i] as i8);
        big_f32.zeroize();
        let (f, g, h) = make_fg(&seed).ok_or(Error::InvalidKey("the seed gives no valid f, g"))?;
        let big_g =
            rebuild_g(&f, &g, &big_f).ok_or(Error::InvalidKey("G = g F / f is too large"))?;
        let w = compute_w(&f, &g, &big_f, &big_g).ok_or(Error::InvalidKey("w is out of range"))?;
        check_basis(&f, &g, &big_f, &big_g, &w, &h).map_err(Error::InvalidKey)?;
        Ok(SecretKey::assemble(
            seed,
            make_rr(&seed),
            *f,
            *g,
            big_f,
            big_g,
            *w,
            h,
        ))
    }

    /// The key of a key seed that key generation accepted (see [`Self::assemble`]).
    fn from_parts(p: KeyParts) -> SecretKey {
        Self::assemble(p.seed, p.rr, *p.f, *p.g, *p.big_f, *p.big_g, *p.w, p.h)
    }

    /// The key from its parts, already checked, with its decryption precomputation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assemble(
        seed: [u8; SEED_LEN],
        rr: [u8; 32],
        f: [i8; N],
        g: [i8; N],
        big_f: [i8; N],
        big_g: [i8; N],
        w: [i32; N],
        h: [u16; N],
    ) -> SecretKey {
        let dec = DecryptKey::new(&Basis {
            f: &f,
            g: &g,
            big_f: &big_f,
            big_g: &big_g,
            w: &w,
        });
        SecretKey {
            seed,
            rr,
            f,
            g,
            big_f,
            big_g,
            w,
            pk: PublicKey::from_h(h),
            dec,
        }
    }

    /// The 2,953-byte long format (tag 0x19), the artifact's `kem_sk`.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(SECRET_KEY_LEN));
        out.push(TAG_SECRET_KEY);
        out.extend_from_slice(&self.seed);
        out.extend_from_slice(&self.rr);
        let wide = |p: &[i8; N]| Zeroizing::new(p.map(|x| x as i32));
        trim_encode(&wide(&self.f)[..], FG_BITS, &mut out);
        trim_encode(&wide(&self.g)[..], FG_BITS, &mut out);
        trim_encode(&wide(&self.big_f)[..], BIG_FG_BITS, &mut out);
        trim_encode(&wide(&self.big_g)[..], BIG_FG_BITS, &mut out);
        trim_encode(&self.w, W_BITS, &mut out);
        out.extend_from_slice(&encode_h(&self.pk.h));
        debug_assert_eq!(out.len(), SECRET_KEY_LEN);
        out
    }

    /// The 417-byte short format (tag 0x59: seed and F), from which [`Self::from_bytes`] rebuilds
    /// the rest.
    pub fn to_short_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(SHORT_SECRET_KEY_LEN));
        out.push(TAG_SECRET_KEY_SHORT);
        out.extend_from_slice(&self.seed);
        trim_encode(
            &Zeroizing::new(self.big_f.map(|x| x as i32))[..],
            BIG_FG_BITS,
            &mut out,
        );
        out
    }
}

/// G = g F / f mod (q, x^n + 1), if all its centred coefficients are within +-31
/// (`bat_rebuild_G_257`).
fn rebuild_g(f: &[i8; N], g: &[i8; N], big_f: &[i8; N]) -> Option<[i8; N]> {
    let (finv, ok) = Ntt257::inv_ntt(&Ntt257::ntt(&Ntt257::from_signed(f)));
    if !ok {
        return None;
    }
    let gf = Ntt257::mul_ntt(
        &Ntt257::ntt(&Ntt257::from_signed(g)),
        &Ntt257::ntt(&Ntt257::from_signed(big_f)),
    );
    let mut big_g = Ntt257::mul_ntt(&gf, &finv);
    Ntt257::inverse(&mut big_g);
    let mut out = [0i8; N];
    for (o, &x) in out.iter_mut().zip(&big_g) {
        let v = Ntt257::centered(x);
        if v.abs() > BIG_FG_LIMIT {
            return None;
        }
        *o = v as i8;
    }
    Some(out)
}

fn check_tag(what: &'static str, expected: u8, got: u8) -> Result<(), Error> {
    if got == expected {
        Ok(())
    } else {
        Err(Error::Tag {
            what,
            expected,
            got,
        })
    }
}

/// Hash_s + Sample_s: the 512 bits of s from m (`hash_and_sample_s`).
fn sample_s(m: &[u8; MESSAGE_LEN]) -> Zeroizing<[u8; N / 8]> {
    let mut s = Zeroizing::new([0u8; N / 8]);
    expand_b(&mut s[..], m, LABEL_S);
    s
}

/// The shared secret from m; `good` is 1 for a genuine m and 0 for the rejection seed
/// (`make_secret`: the label's top byte is 0x66 + good).
fn make_secret(out: &mut [u8], m: &[u8; MESSAGE_LEN], good: u8) {
    expand_b(out, m, LABEL_SECRET_BAD + ((good as u64) << 24));
}

/// Encapsulation from a chosen 16-byte message m (the artifact's `kem_encap_seed`):
/// s = Sample_s(m), c1 = Encrypt(h, s), c2 = Hash_m(s) xor m, and the secret, of any length, is
/// expand(m). For tests and known-answer vectors; m must be uniformly random and secret in real
/// use.
pub fn encapsulate_with_message(
    pk: &PublicKey,
    m: &[u8; MESSAGE_LEN],
    secret: &mut [u8],
) -> Vec<u8> {
    let s = sample_s(m);
    let c = encrypt(&pk.h_ntt, &s);
    let mut c2 = hash_m(&s);
    for (x, y) in c2.iter_mut().zip(m) {
        *x ^= y;
    }
    let mut ct = Vec::with_capacity(CIPHERTEXT_LEN);
    ct.push(TAG_CIPHERTEXT);
    ct.extend_from_slice(&encode_c1(&c));
    ct.extend_from_slice(&c2);
    make_secret(secret, m, 1);
    ct
}

/// Encapsulation with a shared secret of `secret.len()` bytes (the artifact's `kem_encap`; its
/// AKEMs ask for 48 bytes, PQ-AKEM, and 64, SHADOWFAX; a shorter secret is a prefix of a longer
/// one from the same m). Returns the 473-byte ciphertext. Never fails for a decoded key; the
/// `Result` keeps the shape of the other scheme crates.
pub fn encapsulate_into<R: CryptoRng + ?Sized>(
    pk: &PublicKey,
    rng: &mut R,
    secret: &mut [u8],
) -> Result<Vec<u8>, Error> {
    let mut m = Zeroizing::new([0u8; MESSAGE_LEN]);
    rng.fill_bytes(&mut m[..]);
    Ok(encapsulate_with_message(pk, &m, secret))
}

/// Encapsulation: (473-byte ciphertext, 32-byte shared secret).
pub fn encapsulate<R: CryptoRng + ?Sized>(
    pk: &PublicKey,
    rng: &mut R,
) -> Result<(Vec<u8>, Zeroizing<[u8; 32]>), Error> {
    let mut key = Zeroizing::new([0u8; 32]);
    let ct = encapsulate_into(pk, rng, &mut key[..])?;
    Ok((ct, key))
}

/// Decapsulation into `secret` (any length, as [`encapsulate_into`]; the artifact's `kem_decap`).
///
/// A ciphertext of the wrong length or with the wrong tag byte is an error (the artifact would
/// decrypt uninitialised memory). Every other ciphertext yields a secret: the genuine one when
/// re-encrypting the recovered m gives back the same s and c1, and otherwise expand(F(rr, ct)),
/// the implicit rejection; a c1 with a value outside -64..=64 is rejected that way too, as the
/// artifact does (its decoder's verdict is ignored, and no encryption matches such a c1). The
/// decryption, the comparison and the choice between the two are constant-time.
pub fn decapsulate_into(sk: &SecretKey, ct: &[u8], secret: &mut [u8]) -> Result<(), Error> {
    const WHAT: &str = "BAT-257 ciphertext";
    Error::check_len(WHAT, CIPHERTEXT_LEN, ct.len())?;
    check_tag(WHAT, TAG_CIPHERTEXT, ct[0])?;
    let c1_bytes = &ct[1..1 + crate::codec::C1_LEN];
    let Some(c) = decode_c1(c1_bytes) else {
        // No encryption produces a value outside -64..=64, so the artifact's comparison fails
        // whatever its decryption gives: the rejection secret. (Whether c1 decodes is public.)
        make_secret(secret, &kdf_seed_bad(&sk.rr, ct), 0);
        return Ok(());
    };
    let c2 = &ct[1 + crate::codec::C1_LEN..];

    let s = decrypt(&sk.dec, &c);
    let mut m = Zeroizing::new(hash_m(&s));
    for (x, y) in m.iter_mut().zip(c2) {
        *x ^= y;
    }
    // Re-encryption: the same s and the same c1, or reject.
    let s_alt = sample_s(&m);
    let c_alt = encrypt(&sk.pk.h_ntt, &s_alt);
    let c_bytes = c.map(|x| x as u8);
    let c_alt_bytes = c_alt.map(|x| x as u8);
    // Every byte's difference ORed together, then one comparison: the same branch-free test as
    // `subtle`'s slice `ct_eq`, without its optimisation barrier on each of the 576 bytes.
    let diff = s
        .iter()
        .zip(s_alt.iter())
        .chain(c_bytes.iter().zip(c_alt_bytes.iter()))
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    let good = diff.ct_eq(&0);

    let bad = Zeroizing::new(kdf_seed_bad(&sk.rr, ct));
    let mut chosen = Zeroizing::new([0u8; MESSAGE_LEN]);
    for ((o, &g), &b) in chosen.iter_mut().zip(m.iter()).zip(bad.iter()) {
        *o = u8::conditional_select(&b, &g, good);
    }
    make_secret(secret, &chosen, good.unwrap_u8());
    Ok(())
}

/// Decapsulation of a 32-byte shared secret.
pub fn decapsulate(sk: &SecretKey, ct: &[u8]) -> Result<Zeroizing<[u8; 32]>, Error> {
    let mut key = Zeroizing::new([0u8; 32]);
    decapsulate_into(sk, ct, &mut key[..])?;
    Ok(key)
}

/// BAT-257 for the RustCrypto `kem` traits: a 521-byte encapsulation key, a 473-byte ciphertext
/// and a 32-byte shared key. The decapsulation key is [`SecretKey`], generated from an RNG (the
/// `kem` traits' seed import/export is not offered: a BAT key is not a function of a short seed
/// alone, since its F comes from an NTRUSolve whose output is implementation-defined).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bat257;

impl kem::Kem for Bat257 {
    type DecapsulationKey = SecretKey;
    type EncapsulationKey = PublicKey;
    type SharedKeySize = U32;
    type CiphertextSize = U473;
}

impl KeySizeUser for PublicKey {
    type KeySize = U521;
}

impl TryKeyInit for PublicKey {
    fn new(key: &Key<Self>) -> Result<Self, InvalidKey> {
        Self::from_bytes(key).map_err(|_| InvalidKey)
    }
}

impl KeyExport for PublicKey {
    fn to_bytes(&self) -> Key<Self> {
        let mut out = Key::<Self>::default();
        out[0] = TAG_PUBLIC_KEY;
        out[1..].copy_from_slice(&encode_h(&self.h));
        out
    }
}

impl Encapsulate for PublicKey {
    type Kem = Bat257;

    fn encapsulate_with_rng<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> (kem::Ciphertext<Bat257>, SharedKey<Bat257>) {
        let mut m = Zeroizing::new([0u8; MESSAGE_LEN]);
        rng.fill_bytes(&mut m[..]);
        let mut key = SharedKey::<Bat257>::default();
        let ct = encapsulate_with_message(self, &m, &mut key[..]);
        let mut out = kem::Ciphertext::<Bat257>::default();
        out.copy_from_slice(&ct);
        (out, key)
    }
}

impl Generate for SecretKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.try_fill_bytes(&mut seed[..])?;
        Ok(Self::generate_from_seed(&seed))
    }
}

impl Decapsulator for SecretKey {
    type Kem = Bat257;

    fn encapsulation_key(&self) -> &PublicKey {
        &self.pk
    }
}

impl TryDecapsulate for SecretKey {
    type Error = Error;

    /// Never fails for a ciphertext of this type's length unless its tag byte is wrong; see
    /// [`decapsulate_into`].
    fn try_decapsulate(&self, ct: &kem::Ciphertext<Bat257>) -> Result<SharedKey<Bat257>, Error> {
        let mut key = SharedKey::<Bat257>::default();
        decapsulate_into(self, ct, &mut key[..])?;
        Ok(key)
    }
}
