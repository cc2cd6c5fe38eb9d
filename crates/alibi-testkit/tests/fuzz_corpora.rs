//! Every fuzz target keeps up (issue 65, item 10): it has a committed corpus of seeds under
//! `fuzz/corpus/<target>`, and a recorded campaign in docs/SECURITY.md's table ("Fuzz
//! campaigns"). A target added without either fails here.

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The fuzz targets, by the file names of `fuzz/fuzz_targets`.
fn targets() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn every_target_has_a_committed_corpus() {
    let targets = targets();
    assert!(targets.len() > 20, "found the targets: {targets:?}");
    let bare: Vec<&String> = targets
        .iter()
        .filter(|t| {
            let seeds = std::fs::read_dir(repo().join("fuzz/corpus").join(t));
            seeds.map_or(true, |mut s| s.next().is_none())
        })
        .collect();
    assert!(bare.is_empty(), "fuzz targets without a corpus: {bare:?}");
}

#[test]
fn every_target_has_a_recorded_campaign() {
    let security = std::fs::read_to_string(repo().join("docs/SECURITY.md")).expect("SECURITY.md");
    let table = security
        .split("## Fuzz campaigns")
        .nth(1)
        .expect("a Fuzz campaigns section");
    let table = table.split("\n## ").next().unwrap_or(table);
    let missing: Vec<String> = targets()
        .into_iter()
        .filter(|t| !table.contains(&format!("| `{t}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "fuzz targets with no campaign in docs/SECURITY.md: {missing:?}"
    );
}
