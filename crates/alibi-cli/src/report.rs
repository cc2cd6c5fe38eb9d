//! What a command prints on stdout: text, or one JSON object with `--json`. Writes are checked, so
//! a full disk behind stdout is a one-line failure (exit 2), never a panic.

use std::fmt::Display;
use std::io::Write;

use serde_json::{json, Map, Value};

use crate::failure::{CmdResult, Failure};

/// The progress bar of the long commands (`bench`, `mpc bench`): elapsed time, bar, count and
/// what is being measured, on stderr.
pub fn progress_bar(len: u64) -> Result<indicatif::ProgressBar, Failure> {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .map_err(|e| Failure::Usage(e.to_string()))?
            .progress_chars("=> "),
    );
    Ok(bar)
}

/// Tells what a long command is doing: on the progress `bar`, or where there is none (stderr not
/// a terminal) as a line on stderr, and with `--json` as `event`, one JSON line on stderr. So a
/// wait of minutes never prints nothing.
pub fn progress_note(bar: &indicatif::ProgressBar, text: String, event: Value, format: Format) {
    if !bar.is_hidden() && !format.json {
        return bar.set_message(text);
    }
    let line = if format.json {
        event.to_string()
    } else {
        format!("alibi: {text}")
    };
    bar.suspend(|| eprintln!("{line}"));
}

/// Set once a report went to stdout: a failure after it (an invalid verdict, with `--json` its
/// object) prints no second JSON object.
static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints one line on stdout.
pub fn say(line: impl Display) -> CmdResult {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Usage(format!("cannot write to stdout: {e}")))?;
    SAID.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// Whether a report went to stdout already.
pub fn said() -> bool {
    SAID.load(std::sync::atomic::Ordering::Relaxed)
}

/// A failure as the one JSON object a `--json` command prints on stdout: `error` (the line
/// stderr shows, without `alibi: `), `exit` (its code) and `kind` (`invalid`, `usage` or
/// `transport`, as docs/cli.md says).
pub fn failure_json(f: &Failure) -> Value {
    let kind = match f {
        Failure::Invalid(_) => "invalid",
        Failure::Usage(_) => "usage",
        Failure::Transport(_) => "transport",
    };
    json!({"error": f.line(), "exit": f.code(), "kind": kind})
}

/// `say!("...", args)`: [`say`] with `format!` arguments.
#[macro_export]
macro_rules! say {
    ($($t:tt)*) => {
        $crate::report::say(format_args!($($t)*))
    };
}

/// The size of a file a command has just written, for [`file_json`] (0 if it cannot be read).
pub fn file_len(path: &std::path::Path) -> usize {
    std::fs::metadata(path).map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX))
}

/// A written file in a JSON report: its path (`-` for stdout) and size.
pub fn file_json(path: &std::path::Path, bytes: usize) -> Value {
    json!({"path": path.to_string_lossy(), "bytes": bytes})
}

/// The `--json` switch of every verb that reports something.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Format {
    /// Print the report as one JSON object on stdout instead of text
    #[arg(long)]
    pub json: bool,
}

impl Format {
    /// Prints the report: `text` (any number of lines), or `value` as JSON.
    pub fn report(&self, text: impl Display, value: Value) -> CmdResult {
        if self.json {
            say(value)
        } else {
            say(text)
        }
    }

    /// Reports, with `--json` only, what a command wrote (a verb whose text mode prints nothing,
    /// so that `--out -` leaves stdout to the bytes).
    pub fn wrote(&self, value: Value) -> CmdResult {
        if self.json {
            say(value)
        } else {
            Ok(())
        }
    }

    /// Reports a verification. Valid: `valid` (or `{"valid": true, ...}`), exit 0. Invalid:
    /// `{"valid": false, "reason": ...}` on stdout with `--json`, the reason on stderr, exit 1.
    /// `note` qualifies a valid result (what was not checked), `fields` add JSON members.
    pub fn verdict(&self, outcome: Result<Option<String>, String>, fields: Value) -> CmdResult {
        let mut obj = match fields {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        match outcome {
            Ok(note) => {
                obj.insert("valid".into(), json!(true));
                if let Some(n) = &note {
                    obj.insert("note".into(), json!(n));
                }
                let text = match note {
                    Some(n) => format!("valid ({n})"),
                    None => "valid".into(),
                };
                self.report(text, Value::Object(obj))
            }
            Err(reason) => {
                if self.json {
                    obj.insert("valid".into(), json!(false));
                    obj.insert("reason".into(), json!(reason));
                    say(Value::Object(obj))?;
                }
                Err(Failure::Invalid(reason))
            }
        }
    }
}
