//! A small, strict parser for `--flag value` options, and file helpers that map I/O errors to usage
//! failures.

use crate::Failure;
use std::collections::BTreeMap;

/// Parsed `--flag value` pairs of one command.
pub struct Opts {
    verb: String,
    map: BTreeMap<String, String>,
}

impl Opts {
    /// Parses `args` (after the verb), allowing only the flags in `allowed`.
    pub fn parse(verb: &str, args: &[String], allowed: &[&str]) -> Result<Opts, Failure> {
        let mut map = BTreeMap::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let name = a
                .strip_prefix("--")
                .filter(|n| allowed.contains(n))
                .ok_or_else(|| Failure::Usage(format!("{verb}: unexpected argument '{a}'")))?;
            let v = it
                .next()
                .ok_or_else(|| Failure::Usage(format!("{verb}: --{name} needs a value")))?;
            if map.insert(name.to_string(), v.clone()).is_some() {
                return Err(Failure::Usage(format!("{verb}: --{name} given twice")));
            }
        }
        Ok(Opts {
            verb: verb.to_string(),
            map,
        })
    }

    /// The value of a required flag.
    pub fn req(&self, name: &str) -> Result<&str, Failure> {
        self.map
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| Failure::Usage(format!("{}: missing --{name}", self.verb)))
    }

    /// The value of an optional flag.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }
}

/// Reads a whole file.
pub fn read(path: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Usage(format!("cannot read {path}: {e}")))
}

/// Writes a whole file.
pub fn write(path: &str, data: &[u8]) -> Result<(), Failure> {
    std::fs::write(path, data).map_err(|e| Failure::Usage(format!("cannot write {path}: {e}")))
}

/// Any error as a usage failure (exit 2), its message kept.
pub fn usage(e: impl std::fmt::Display) -> Failure {
    Failure::Usage(e.to_string())
}

/// A multi-threaded Tokio runtime for the commands that talk to a relay.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(usage)
}
