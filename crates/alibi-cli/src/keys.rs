//! The options and the report of every `keygen` that writes a key pair to two files.

use std::path::PathBuf;

use serde_json::json;

use crate::failure::CmdResult;
use crate::files::{check_json, check_outputs, is_std, place_outputs, Kind, Output};
use crate::report::{file_json, Format};

/// `--pk FILE --sk FILE [--force]`.
#[derive(clap::Args, Debug)]
pub struct KeyPairOut {
    /// Where to write the public key (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// Where to write the secret key (created with mode 0600; never stdout)
    #[arg(long, value_name = "FILE")]
    pub sk: PathBuf,
    /// Replace a key pair that already exists (never a store, a group manager's or a party's
    /// state, nor an input)
    #[arg(long)]
    pub force: bool,
}

impl KeyPairOut {
    /// Refuses, before any key is generated, the same file twice or a key file that exists.
    pub fn check(&self) -> CmdResult {
        check_outputs(
            &[
                ("--pk", &self.pk, Kind::PublicKey),
                ("--sk", &self.sk, Kind::Secret),
            ],
            &[],
            self.force,
        )
    }

    /// Writes both files (the secret first, both or neither) and reports them; if the report
    /// cannot be written, neither file is kept.
    pub fn write(&self, scheme: &str, pk: &[u8], sk: &[u8], format: Format) -> CmdResult {
        self.write_suite(scheme, None, pk, sk, format)
    }

    /// [`Self::write`] for a scheme at a suite (an AKEM's KEM and ring), which the report names
    /// apart from the scheme: `"scheme": "pq", "suite": "mlkem512-falcon512"`.
    pub fn write_suite(
        &self,
        scheme: &str,
        suite: Option<&str>,
        pk: &[u8],
        sk: &[u8],
        format: Format,
    ) -> CmdResult {
        check_json(format.json, &[("--pk", &self.pk)])?;
        let written = place_outputs(
            &[
                Output {
                    flag: "--sk",
                    path: &self.sk,
                    kind: Kind::Secret,
                    data: sk,
                },
                Output {
                    flag: "--pk",
                    path: &self.pk,
                    kind: Kind::PublicKey,
                    data: pk,
                },
            ],
            self.force,
        )?;
        // With the public key on stdout, its bytes are all stdout holds.
        if !is_std(&self.pk) {
            let at = suite.map_or(String::new(), |s| format!(" ({s})"));
            let mut report = json!({
                "scheme": scheme,
                "public_key": file_json(&self.pk, pk.len()),
                "secret_key": file_json(&self.sk, sk.len()),
            });
            if let Some(s) = suite {
                report["suite"] = json!(s);
            }
            format.report(
                format!(
                    "{scheme}{at} key pair: public key {} ({} bytes), secret key {} ({} bytes, mode 0600)",
                    self.pk.display(),
                    pk.len(),
                    self.sk.display(),
                    sk.len()
                ),
                report,
            )?;
        }
        written.keep();
        Ok(())
    }
}

/// `--sk FILE --msg FILE --out FILE [--force] [--json]` of every `sign` that signs a file with
/// one secret key.
#[derive(clap::Args, Debug)]
pub struct SignFiles {
    /// The secret key
    #[arg(long, value_name = "FILE")]
    pub sk: PathBuf,
    /// The message (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// Where to write the signature (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace a file that already exists at --out (never one that holds a secret key, a
    /// keyfile, a store or a manager's or party's state, nor an input)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub format: Format,
}

impl SignFiles {
    /// Refuses, before the key is read, an `--out` that is an input, holds a secret or exists
    /// without `--force`, and `--json` beside `--out -`.
    pub fn check(&self) -> CmdResult {
        check_json(self.format.json, &[("--out", &self.out)])?;
        check_outputs(
            &[("--out", &self.out, SIGNATURE)],
            &[("--sk", &self.sk), ("--msg", &self.msg)],
            self.force,
        )
    }

    /// Writes the signature and, with `--json`, reports it; if the report cannot be written,
    /// the signature is not kept.
    pub fn write(&self, scheme: &str, sig: &[u8]) -> CmdResult {
        let written = place_outputs(
            &[Output {
                flag: "--out",
                path: &self.out,
                kind: SIGNATURE,
                data: sig,
            }],
            self.force,
        )?;
        self.format.wrote(json!({
            "scheme": scheme,
            "signature": file_json(&self.out, sig.len()),
        }))?;
        written.keep();
        Ok(())
    }
}

/// What every `sign` writes.
pub const SIGNATURE: Kind = Kind::Data("a signature");

/// `--pk FILE --msg FILE --sig FILE` of every `verify` under one public key.
#[derive(clap::Args, Debug)]
pub struct VerifyFiles {
    /// The public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The signature (- for stdin)
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
}
