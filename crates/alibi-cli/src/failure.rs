//! How a command fails: the variant fixes the exit code (1 for an invalid signature or
//! ciphertext, or an MPC run stopped by a named cheater; 2 for bad usage or malformed input; 3 for
//! a transport fault of an MPC run), the text is the one line printed on stderr.

use std::fmt::Display;

/// How a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A signature or ciphertext did not verify (exit 1).
    Invalid(String),
    /// Bad usage, an unreadable or unwritable file, or malformed input (exit 2).
    Usage(String),
    /// The relay or the network failed an MPC run, or a contact's identity did not match its
    /// card: no party is blamed (exit 3).
    Transport(String),
}

impl Failure {
    /// The process exit code of this failure.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Invalid(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Transport(_) => 3,
        }
    }

    /// The message, on one line whatever the underlying error held.
    pub fn line(&self) -> String {
        let (Failure::Invalid(m) | Failure::Usage(m) | Failure::Transport(m)) = self;
        m.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The result of a command.
pub type CmdResult = Result<(), Failure>;

/// Any error as a usage failure (exit 2), its message kept.
pub fn usage(e: impl Display) -> Failure {
    Failure::Usage(e.to_string())
}

/// Input that does not decode (exit 2), named by what it was meant to be.
pub fn malformed(what: &str, e: impl Display) -> Failure {
    Failure::Usage(format!("malformed {what}: {e}"))
}

/// A store file another process holds (exit 2): busy, not broken.
pub fn busy(path: &std::path::Path) -> Failure {
    Failure::Usage(format!(
        "busy: another alibi process is using {}",
        path.display()
    ))
}
