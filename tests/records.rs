//! The records in `docs/results` stay apart from what they record: no net
//! or config there is a copy of one in `models/` or `configs/` (a record
//! points at those instead), every config there still parses as what it
//! is (a run config or a players file), and every `docs/results/...` path
//! that docs/RESULTS.md cites exists.

use sha2::{Digest, Sha256};
use shashki_arena::roster::parse_players_file;
use shashki_train::RunConfig;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn digest(path: &Path) -> [u8; 32] {
    Sha256::digest(std::fs::read(path).unwrap()).into()
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect()
}

#[test]
fn no_record_is_a_copy_of_a_shipped_net_or_config() {
    let root = root();
    let mut shipped: HashMap<[u8; 32], PathBuf> = HashMap::new();
    for path in files(&root.join("models"))
        .into_iter()
        .chain(files(&root.join("configs")))
    {
        shipped.insert(digest(&path), path);
    }
    let copies: Vec<String> = files(&root.join("docs/results"))
        .iter()
        .filter_map(|path| {
            let original = shipped.get(&digest(path))?;
            Some(format!("{} = {}", path.display(), original.display()))
        })
        .collect();
    assert!(copies.is_empty(), "copies in docs/results: {copies:#?}");

    let configs: Vec<(PathBuf, toml::Table)> = toml_files(&root.join("configs"))
        .into_iter()
        .map(|path| {
            let value = std::fs::read_to_string(&path).unwrap().parse().unwrap();
            (path, value)
        })
        .collect();
    for path in toml_files(&root.join("docs/results")) {
        let value: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        for (config, shipped) in &configs {
            assert!(
                &value != shipped,
                "{} says what {} says (point at it instead)",
                path.display(),
                config.display()
            );
        }
    }
}

#[test]
fn every_recorded_config_still_parses() {
    let root = root();
    let mut run_configs = 0;
    let mut players_files = 0;
    for path in toml_files(&root.join("docs/results")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let value: toml::Table = text.parse().unwrap();
        if value.contains_key("player") || value.contains_key("players") {
            let players = parse_players_file(&text, &path.display().to_string())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!players.is_empty(), "{}: no player", path.display());
            players_files += 1;
        } else {
            RunConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            run_configs += 1;
        }
    }
    // Today's records: 11 run configs and 7 players files.
    assert!(
        run_configs >= 10 && players_files >= 5,
        "{run_configs} {players_files}"
    );
}

#[test]
fn every_record_the_results_cite_exists() {
    let root = root();
    let results = std::fs::read_to_string(root.join("docs/RESULTS.md")).unwrap();
    let recorded = files(&root.join("docs/results"));
    let mut missing = Vec::new();
    let mut cited = 0;
    for (at, _) in results.match_indices("docs/results/") {
        let tail = &results[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_./-*".contains(c)))
            .unwrap_or(tail.len());
        let cite = tail[..end].trim_end_matches(['.', ',']);
        cited += 1;
        // A cited prefix with `*` (a set of reports) must match at least one file.
        let prefix = cite.split('*').next().unwrap();
        let found = recorded.iter().any(|path| {
            let relative = path.strip_prefix(&root).unwrap().to_string_lossy();
            if cite.contains('*') {
                relative.starts_with(prefix)
            } else {
                relative == cite
                    || relative.starts_with(&format!("{}/", cite.trim_end_matches('/')))
            }
        });
        if !found {
            missing.push(cite.to_string());
        }
    }
    assert!(cited > 40, "only {cited} citations read");
    assert!(missing.is_empty(), "cited but missing: {missing:?}");
}
