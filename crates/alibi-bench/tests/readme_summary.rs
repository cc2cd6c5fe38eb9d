//! The README's figures come from files the bench writes (issue 66): its summary block is
//! exactly what `alibi_bench::summary` makes of the CSVs committed in docs/bench/, so a figure
//! typed into it by hand, or CSVs regenerated without the README, fail here.

use std::path::Path;

#[test]
fn the_readme_summary_is_generated_from_the_committed_csvs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut csvs = vec![];
    for entry in std::fs::read_dir(root.join("docs/bench")).expect("docs/bench") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "csv") {
            let id = path.file_stem().unwrap().to_string_lossy().into_owned();
            csvs.push((id, std::fs::read_to_string(&path).expect("csv")));
        }
    }
    assert!(csvs.len() >= 4, "the seed CSVs are in docs/bench");
    let summary = alibi_bench::summary::markdown(&csvs).expect("summary");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let expected = alibi_bench::summary::replace_block(&readme, &summary).expect("the block");
    assert!(
        readme == expected,
        "README.md's summary block differs from what docs/bench/*.csv give \
         (`alibi bench --quick --out docs/bench --doc docs/BENCHMARKS.md --readme README.md` \
         writes both); expected:\n{summary}"
    );
}
