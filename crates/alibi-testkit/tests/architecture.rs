//! docs/architecture.md against the manifests: its crate table must list every crate under
//! `crates/` with exactly the alibi crates among its normal dependencies, and every such
//! dependency must stand on a strictly lower floor unless the table marks it `(exception)`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use toml_edit::{Document, Item, TableLike};

/// The header of the table this test reads, cell by cell.
const HEADER: [&str; 5] = [
    "crate",
    "floor",
    "layer",
    "owns",
    "depends on (alibi crates)",
];

/// What marks a dependency that is known not to point down.
const EXCEPTION: &str = "(exception)";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    floor: u32,
    layer: String,
    /// Each listed dependency, and whether it is marked as an exception.
    deps: BTreeMap<String, bool>,
}

/// The cells of a markdown table line, trimmed, or `None` if the line is not a table row.
fn cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(|c| c.trim().to_string()).collect())
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('`')
}

/// A crate name as the table writes it: `alibi-…` in backticks.
fn crate_name(cell: &str) -> Result<String, String> {
    let name = unquote(cell);
    let ok = name.strip_prefix("alibi-").is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    });
    if ok {
        Ok(name.to_string())
    } else {
        Err(format!("`{cell}` is not an alibi crate name"))
    }
}

/// The `depends on` cell: `-` for none, or comma-separated names, each optionally followed by
/// the exception mark.
fn parse_deps(cell: &str) -> Result<BTreeMap<String, bool>, String> {
    let mut deps = BTreeMap::new();
    if matches!(cell.trim(), "-" | "" | "—") {
        return Ok(deps);
    }
    for entry in cell.split(',') {
        let entry = entry.trim();
        let (name, exception) = match entry.strip_suffix(EXCEPTION) {
            Some(rest) => (rest.trim(), true),
            None => (entry, false),
        };
        let name = crate_name(name)?;
        if deps.insert(name.clone(), exception).is_some() {
            return Err(format!("{name} is listed twice"));
        }
    }
    Ok(deps)
}

/// The crate table of the document, by crate; panics, saying why, if it cannot be read.
fn read_table(doc: &str) -> BTreeMap<String, Row> {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines
        .iter()
        .position(|l| cells(l).is_some_and(|c| c == HEADER))
        .unwrap_or_else(|| {
            panic!(
                "docs/architecture.md: no table with the header `| {} |`",
                HEADER.join(" | ")
            )
        });
    let mut rows = BTreeMap::new();
    let mut problems = vec![];
    // The header, then the separator line, then rows until the first line that is not one.
    for (n, line) in lines.iter().enumerate().skip(start + 2) {
        let Some(c) = cells(line) else { break };
        let at = format!("docs/architecture.md line {}", n + 1);
        if c.len() != HEADER.len() {
            problems.push(format!(
                "{at}: {} cells, the header has {}",
                c.len(),
                HEADER.len()
            ));
            continue;
        }
        let name = match crate_name(&c[0]) {
            Ok(n) => n,
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        let floor = match c[1].parse::<u32>() {
            Ok(f) => f,
            Err(_) => {
                problems.push(format!("{at}: floor `{}` is not a number", c[1]));
                continue;
            }
        };
        let deps = match parse_deps(&c[4]) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!("{at} ({name}): depends on: {e}"));
                continue;
            }
        };
        let row = Row {
            floor,
            layer: c[2].clone(),
            deps,
        };
        if rows.insert(name.clone(), row).is_some() {
            problems.push(format!("{at}: {name} has a second row"));
        }
    }
    assert!(
        problems.is_empty(),
        "the crate table of docs/architecture.md cannot be read:\n  {}",
        problems.join("\n  ")
    );
    rows
}

/// The alibi packages a dependency table names (a renamed dependency by its `package`; one taken
/// from the workspace by the workspace entry's `package`, if that renames it).
fn alibi_deps(table: &dyn TableLike, workspace: &dyn TableLike, into: &mut BTreeSet<String>) {
    for (key, item) in table.iter() {
        let package = |item: &Item| item.get("package").and_then(Item::as_str).map(String::from);
        let mut name = package(item).unwrap_or_else(|| key.to_string());
        if item.get("workspace").and_then(Item::as_bool) == Some(true) {
            if let Some(renamed) = workspace.get(key).and_then(package) {
                name = renamed;
            }
        }
        if name.starts_with("alibi-") {
            into.insert(name);
        }
    }
}

/// Every crate under `crates/`: its directory name, package name and normal alibi dependencies.
fn manifests() -> Vec<(String, String, BTreeSet<String>)> {
    let root = repo();
    let text = fs::read_to_string(root.join("Cargo.toml")).expect("the workspace Cargo.toml");
    let workspace_doc = Document::parse(text).expect("the workspace Cargo.toml parses");
    let empty = toml_edit::Table::new();
    let workspace: &dyn TableLike = workspace_doc
        .as_item()
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(Item::as_table_like)
        .unwrap_or(&empty);

    let mut out = vec![];
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let dir_name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 directory name")
            .to_string();
        let path = dir.join("Cargo.toml");
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("crates/{dir_name}: no Cargo.toml ({e})"));
        let doc = Document::parse(text)
            .unwrap_or_else(|e| panic!("crates/{dir_name}/Cargo.toml does not parse: {e}"));
        let manifest = doc.as_item();
        let package = manifest
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(Item::as_str)
            .unwrap_or_else(|| panic!("crates/{dir_name}/Cargo.toml: no package name"))
            .to_string();
        let mut deps = BTreeSet::new();
        if let Some(t) = manifest.get("dependencies").and_then(Item::as_table_like) {
            alibi_deps(t, workspace, &mut deps);
        }
        // Platform-specific normal dependencies count too: they are linked on that platform.
        if let Some(targets) = manifest.get("target").and_then(Item::as_table_like) {
            for (_, target) in targets.iter() {
                if let Some(t) = target.get("dependencies").and_then(Item::as_table_like) {
                    alibi_deps(t, workspace, &mut deps);
                }
            }
        }
        out.push((dir_name, package, deps));
    }
    out
}

fn list(names: &BTreeSet<&String>) -> String {
    names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Everything wrong with the table against the manifests, one line each.
fn differences(
    table: &BTreeMap<String, Row>,
    crates: &[(String, String, BTreeSet<String>)],
) -> Vec<String> {
    let mut problems = vec![];

    // Every crate has a row, and its row lists exactly its normal alibi dependencies.
    let mut seen = BTreeSet::new();
    for (dir, package, deps) in crates {
        if dir != package {
            problems.push(format!(
                "crates/{dir}: the package is named {package}; the table goes by package name"
            ));
        }
        seen.insert(package.clone());
        let Some(row) = table.get(package) else {
            problems.push(format!(
                "{package} (crates/{dir}) has no row in the table of docs/architecture.md"
            ));
            continue;
        };
        let listed: BTreeSet<&String> = row.deps.keys().collect();
        let actual: BTreeSet<&String> = deps.iter().collect();
        let unlisted: BTreeSet<&String> = actual.difference(&listed).copied().collect();
        let stale: BTreeSet<&String> = listed.difference(&actual).copied().collect();
        if !unlisted.is_empty() {
            problems.push(format!(
                "{package}: Cargo.toml depends on {} but the table does not list it",
                list(&unlisted)
            ));
        }
        if !stale.is_empty() {
            problems.push(format!(
                "{package}: the table lists {} but Cargo.toml has no such normal dependency",
                list(&stale)
            ));
        }
    }
    for name in table.keys().filter(|n| !seen.contains(*n)) {
        problems.push(format!(
            "{name}: the table has a row but there is no crates/{name}"
        ));
    }

    // Arrows point down: strictly lower floors, and the exception mark exactly where they do not.
    for (name, row) in table {
        for (dep, &marked) in &row.deps {
            let Some(below) = table.get(dep) else {
                problems.push(format!("{name}: depends on {dep}, which has no row"));
                continue;
            };
            let down = below.floor < row.floor;
            if !down && !marked {
                problems.push(format!(
                    "{name} (floor {}) depends on {dep} (floor {}): not a lower floor; move a \
                     crate, or mark the dependency {EXCEPTION} and say why in the doc",
                    row.floor, below.floor
                ));
            }
            if down && marked {
                problems.push(format!(
                    "{name} (floor {}) -> {dep} (floor {}) is marked {EXCEPTION} but points \
                     down; drop the mark",
                    row.floor, below.floor
                ));
            }
        }
    }

    // Layers: one per floor, and each over consecutive floors, in one order.
    let mut floors: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for row in table.values() {
        floors.entry(row.floor).or_default().insert(&row.layer);
    }
    let mut left: Vec<&str> = vec![];
    for (floor, layers) in &floors {
        if layers.len() > 1 {
            problems.push(format!(
                "floor {floor} holds crates of several layers: {}",
                layers.iter().copied().collect::<Vec<_>>().join(", ")
            ));
            continue;
        }
        let Some(&layer) = layers.first() else {
            continue;
        };
        match left.last() {
            Some(&last) if last == layer => {}
            _ if left.contains(&layer) => problems.push(format!(
                "layer {layer} comes back at floor {floor} after another layer"
            )),
            _ => left.push(layer),
        }
    }
    problems
}

#[test]
fn the_architecture_table_matches_the_manifests() {
    let doc =
        fs::read_to_string(repo().join("docs/architecture.md")).expect("docs/architecture.md");
    let table = read_table(&doc);
    let problems = differences(&table, &manifests());
    assert!(
        problems.is_empty(),
        "docs/architecture.md disagrees with the crates ({} problems):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// The check itself: each kind of disagreement is reported, naming the crate.
#[test]
fn the_check_names_each_difference() {
    let doc = "\
| crate | floor | layer | owns | depends on (alibi crates) |
|---|---|---|---|---|
| `alibi-a` | 0 | base | a | - |
| `alibi-b` | 1 | top | b | `alibi-a` |
| `alibi-c` | 1 | top | c | `alibi-b` |
| `alibi-d` | 2 | top | d | `alibi-a` (exception) |
| `alibi-gone` | 2 | top | gone | - |

after the table";
    let table = read_table(doc);
    assert_eq!(table.len(), 5);
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    let crates = vec![
        ("alibi-a".to_string(), "alibi-a".to_string(), set(&[])),
        (
            "alibi-b".into(),
            "alibi-b".into(),
            set(&["alibi-a", "alibi-new"]),
        ),
        ("alibi-c".into(), "alibi-c".into(), set(&["alibi-b"])),
        ("alibi-d".into(), "alibi-d".into(), set(&["alibi-a"])),
        ("alibi-e".into(), "alibi-e".into(), set(&[])),
    ];
    let problems = differences(&table, &crates);
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(
        has("alibi-b: Cargo.toml depends on alibi-new"),
        "{problems:#?}"
    );
    assert!(has("alibi-e (crates/alibi-e) has no row"), "{problems:#?}");
    assert!(has("alibi-gone: the table has a row"), "{problems:#?}");
    assert!(
        has("alibi-c (floor 1) depends on alibi-b (floor 1)"),
        "{problems:#?}"
    );
    assert!(
        has("alibi-d (floor 2) -> alibi-a (floor 0) is marked (exception)"),
        "{problems:#?}"
    );
    assert_eq!(problems.len(), 5, "{problems:#?}");

    // A stale entry, a layer that comes back, an unreadable cell.
    let doc = "\
| crate | floor | layer | owns | depends on (alibi crates) |
|---|---|---|---|---|
| `alibi-a` | 0 | base | a | `alibi-b` (exception) |
| `alibi-b` | 1 | top | b | - |
| `alibi-c` | 2 | base | c | `alibi-a`, `alibi-b` |
";
    let table = read_table(doc);
    let crates = vec![
        (
            "alibi-a".to_string(),
            "alibi-a".to_string(),
            set(&["alibi-b"]),
        ),
        ("alibi-b".into(), "alibi-b".into(), set(&[])),
        ("alibi-c".into(), "alibi-c".into(), set(&["alibi-b"])),
    ];
    let problems = differences(&table, &crates);
    assert_eq!(
        problems,
        [
            "alibi-c: the table lists alibi-a but Cargo.toml has no such normal dependency",
            "layer base comes back at floor 2 after another layer",
        ],
    );
    let unreadable = std::panic::catch_unwind(|| {
        read_table(
            "| crate | floor | layer | owns | depends on (alibi crates) |\n|-|-|-|-|-|\n\
             | `alibi-a` | ground | base | a | - |\n",
        )
    });
    assert!(unreadable.is_err());
}
