//! Docs that run (issue 66, item 3): every shell block of README.md and docs/*.md whose fence
//! reads ```` ```sh run ```` is run as written, by `bash -euo pipefail`, in an empty directory,
//! with the built `alibi` first on the PATH. A block that fails as written fails this test.
//!
//! A block marked to run makes what it reads (a message file, the other members' keys) itself;
//! blocks that only list commands (the catalogue of every verb, a relay that runs until stopped,
//! parties on several machines) are plain ```` ```sh ```` and are not run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A block to run: where it is (file and line of its fence) and its text.
struct Block {
    file: PathBuf,
    line: usize,
    text: String,
}

/// The workspace root (this crate is `crates/alibi-cli`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The blocks of one Markdown file whose fence's info string is `sh run`.
fn blocks_of(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = vec![];
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) if line.trim() == "```sh run" => open = Some((i + 1, String::new())),
            (Some(_), true) => {
                let (at, body) = open.take().unwrap();
                out.push(Block {
                    file: file.to_path_buf(),
                    line: at,
                    text: body,
                });
            }
            (Some((_, body)), false) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(open.is_none(), "{}: a block never closed", file.display());
    out
}

/// Every marked block of README.md and docs/*.md.
fn all_blocks() -> Vec<Block> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files.iter().flat_map(|f| blocks_of(f)).collect()
}

/// Runs one block in a directory of its own; `Err` says how it failed.
fn run(block: &Block) -> Result<Duration, String> {
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_alibi")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    // The README's relay tour listens where the README says, 127.0.0.1:8080: a port another
    // program holds would fail it with the relay's own error, which reads like a broken doc.
    if block.text.contains("127.0.0.1:8080") {
        std::net::TcpListener::bind("127.0.0.1:8080").map_err(|e| {
            format!(
                "{}:{}: needs 127.0.0.1:8080 free for its relay: {e}",
                block.file.display(),
                block.line
            )
        })?;
    }
    let start = Instant::now();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &block.text])
        .current_dir(dir.path())
        .env("PATH", path)
        .env_remove("ALIBI_PASSPHRASE")
        .output()
        .map_err(|e| format!("bash: {e}"))?;
    if out.status.success() {
        Ok(start.elapsed())
    } else {
        Err(format!(
            "{}:{}: exit {:?}\n--- block\n{}--- stdout\n{}--- stderr\n{}",
            block.file.display(),
            block.line,
            out.status.code(),
            block.text,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn every_block_marked_to_run_runs_as_written() {
    let blocks = all_blocks();
    // The README's own single-process tours are among them: a marker lost in an edit would
    // otherwise make this test pass by running nothing.
    let in_readme = blocks
        .iter()
        .filter(|b| b.file.ends_with("README.md"))
        .count();
    assert!(
        in_readme >= 5,
        "only {in_readme} README blocks marked `sh run`"
    );
    let failures: Vec<String> = blocks
        .iter()
        .filter_map(|b| match run(b) {
            Ok(took) => {
                println!("{}:{} ran in {took:.1?}", b.file.display(), b.line);
                None
            }
            Err(e) => Some(e),
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_failing_block_fails() {
    let block = Block {
        file: "example.md".into(),
        line: 1,
        text: "alibi falcon verify --pk missing.pk --msg m --sig s\necho never\n".into(),
    };
    let e = run(&block).unwrap_err();
    assert!(
        e.contains("exit Some(2)") && !e.contains("--- stdout\nnever"),
        "{e}"
    );
}
