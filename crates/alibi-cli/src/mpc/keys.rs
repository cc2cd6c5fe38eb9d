//! A key's public material, as one party or anyone: `alibi mpc keys` writes it from this party's
//! share (BLS: the key set a party new to the key needs; FROST and ECDSA: the extended public
//! key), and `alibi mpc derive` gives the child key at a path from the extended key alone.

use alibi_mpc::scheme::{public_key_at, ExtendedPublicKey, Scheme};
use serde_json::json;

use super::args::{DeriveArgs, KeysArgs};
use super::party::load_share;
use super::reshare::{bls_of, own_index};
use super::setup::{passphrase, read_group};
use crate::failure::{CmdResult, Failure};
use crate::files::{check_outputs, read_input, write_outputs, Kind, Output};
use crate::report::file_json;

/// What `keys` writes for a BLS key.
const KEY_SET: Kind = Kind::Data("a key set");

/// What `keys` writes for the other schemes, and `derive` reads.
const EXTENDED_KEY: Kind = Kind::Data("an extended public key");

/// `alibi mpc keys`: the public material of this party's share: BLS's key set, the other
/// schemes' extended public key.
pub(super) fn keys(a: KeysArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    let group = read_group(&a.group)?;
    let kind = match scheme {
        Scheme::Bls => KEY_SET,
        _ => EXTENDED_KEY,
    };
    check_outputs(
        &[("--out", &a.out, kind)],
        &[("--group", &a.group)],
        a.force,
    )?;
    let passphrase = passphrase(&a.passphrase)?;
    let me = own_index(&a.dir, &group)?;
    let share = load_share(&a.dir, &group, scheme, &passphrase, me)?;
    let key_hex = hex::encode(share.public_key());
    let (text, data, mut fields) = match share.bls() {
        Some(_) => {
            let set = bls_of(&share).key_set();
            let text = format!(
                "key set of {key_hex} (t = {}, {} parties) written to {}",
                set.threshold,
                set.verification_keys.len(),
                a.out.display()
            );
            let fields = json!({"threshold": set.threshold});
            (text, set.to_json(), fields)
        }
        None => {
            let xpub = share.extended_public_key().ok_or_else(|| {
                Failure::Usage(format!(
                    "this {scheme} key was generated without a chain code (before alibi \
                     derived keys): it has no extended public key"
                ))
            })?;
            let text = format!(
                "extended public key of {key_hex} written to {}: {xpub}",
                a.out.display()
            );
            (text, format!("{xpub}\n"), json!({"xpub": xpub.to_base58()}))
        }
    };
    let out = Output {
        flag: "--out",
        path: &a.out,
        kind,
        data: data.as_bytes(),
    };
    write_outputs(&[out], a.force)?;
    let field = if scheme == Scheme::Bls {
        "key_set"
    } else {
        "extended_key"
    };
    fields["scheme"] = scheme.name().into();
    fields["public_key_hex"] = key_hex.into();
    fields[field] = file_json(&a.out, data.len());
    a.format.report(text, fields)
}

/// `alibi mpc derive`: the child public key at `--path` below an extended public key, in the
/// scheme's standard encoding (the key `mpc sign --path` signs under).
pub(super) fn derive(a: DeriveArgs) -> CmdResult {
    let scheme = Scheme::from(a.scheme);
    if let Some(out) = &a.out {
        check_outputs(
            &[("--out", out, Kind::PublicKey)],
            &[("--xpub", &a.xpub)],
            a.force,
        )?;
    }
    let bytes = read_input(&a.xpub, "an extended public key")?;
    let not_xpub = |why: String| Failure::Usage(format!("{}: {why}", a.xpub.display()));
    let text = String::from_utf8(bytes).map_err(|_| not_xpub("not text".into()))?;
    let xpub = ExtendedPublicKey::from_base58(&text).map_err(|e| not_xpub(e.to_string()))?;
    let key = public_key_at(scheme, &xpub, &a.path).map_err(|e| Failure::Usage(e.to_string()))?;
    let child = xpub
        .derive(&a.path)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let mut text = format!(
        "{scheme} key at {}: {}\nextended: {child}",
        a.path,
        hex::encode(&key)
    );
    let mut fields = json!({"scheme": scheme.name(), "path": a.path.to_string(),
        "public_key_hex": hex::encode(&key), "xpub": child.to_base58()});
    if let Some(out) = &a.out {
        let o = Output {
            flag: "--out",
            path: out,
            kind: Kind::PublicKey,
            data: &key,
        };
        write_outputs(&[o], a.force)?;
        text.push_str(&format!("\nwrote {}", out.display()));
        fields["public_key"] = file_json(out, key.len());
    }
    a.format.report(text, fields)
}
