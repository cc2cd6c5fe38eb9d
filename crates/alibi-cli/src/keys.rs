//! The options and the report of every `keygen` that writes a key pair to two files.

use std::path::PathBuf;

use serde_json::json;

use crate::failure::CmdResult;
use crate::files::{check_outputs, write_outputs, Kind, Output};
use crate::report::Format;

/// `--pk FILE --sk FILE [--force]`.
#[derive(clap::Args, Debug)]
pub struct KeyPairOut {
    /// Where to write the public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// Where to write the secret key (created with mode 0600)
    #[arg(long, value_name = "FILE")]
    pub sk: PathBuf,
    /// Replace key files that already exist
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
            self.force,
        )
    }

    /// Writes both files (the secret first, both or neither) and reports them.
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
        write_outputs(
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
        let at = suite.map_or(String::new(), |s| format!(" ({s})"));
        let mut report = json!({
            "scheme": scheme,
            "public_key": {"path": self.pk.to_string_lossy(), "bytes": pk.len()},
            "secret_key": {"path": self.sk.to_string_lossy(), "bytes": sk.len()},
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
        )
    }
}

/// `--sk FILE --msg FILE --out FILE` of every `sign` that signs a file with one secret key.
#[derive(clap::Args, Debug)]
pub struct SignFiles {
    /// The secret key
    #[arg(long, value_name = "FILE")]
    pub sk: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// Where to write the signature
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `--pk FILE --msg FILE --sig FILE` of every `verify` under one public key.
#[derive(clap::Args, Debug)]
pub struct VerifyFiles {
    /// The public key
    #[arg(long, value_name = "FILE")]
    pub pk: PathBuf,
    /// The message
    #[arg(long, value_name = "FILE")]
    pub msg: PathBuf,
    /// The signature
    #[arg(long, value_name = "FILE")]
    pub sig: PathBuf,
}
