//! The players of a rating run from text: comma-separated lists of specs,
//! checkpoint wildcards, players files and the ladder of anchors, each
//! reading the table of player kinds ([`crate::kinds::KINDS`]).

use crate::kinds::options::path_and_options;
use crate::kinds::{KINDS, split_kind};
use crate::spec::{PlayerSpec, SpecError};
use crate::tournament::LADDER;
use std::path::{Path, PathBuf};

/// The players named by `list` (comma-separated specs; with `ladder`, the
/// ladder of anchors first) and by the players file at `file`, wildcards
/// expanded, each name once (the first spec of a name wins).
pub fn read_players(
    list: &str,
    ladder: bool,
    file: Option<&Path>,
) -> Result<Vec<PlayerSpec>, String> {
    let mut texts: Vec<String> = if ladder {
        LADDER.iter().map(|s| s.to_string()).collect()
    } else {
        Vec::new()
    };
    texts.extend(split_spec_list(list));
    let mut specs: Vec<PlayerSpec> = Vec::new();
    for text in expand_wildcards(&texts)? {
        add_new(
            &mut specs,
            text.parse().map_err(|e: SpecError| e.to_string())?,
        );
    }
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        for spec in
            parse_players_file(&text, &path.display().to_string()).map_err(|e| e.to_string())?
        {
            add_new(&mut specs, spec);
        }
    }
    Ok(specs)
}

/// Adds `spec` unless a player of its name is there already.
fn add_new(specs: &mut Vec<PlayerSpec>, spec: PlayerSpec) {
    if !specs.iter().any(|s| s.name == spec.name) {
        specs.push(spec);
    }
}

/// Splits a comma-separated list of specs, keeping commas inside quotes and
/// in a spec's options together with their spec (`ab:depth=2,movetime=50`
/// stays one spec): a new spec starts only where a kind's prefix follows
/// the comma (then `:`, `,` or the end).
pub fn split_spec_list(text: &str) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    for (i, c) in text.char_indices() {
        if c == '"' {
            in_quotes = !in_quotes;
        }
        if c == ',' && !in_quotes && starts_spec(&text[i + 1..]) {
            specs.push(std::mem::take(&mut current));
            continue;
        }
        current.push(c);
    }
    specs.push(current);
    specs
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// True if `text` begins with a spec: a kind's prefix, then `:`, `,` or
/// the end.
fn starts_spec(text: &str) -> bool {
    let text = text.trim_start();
    KINDS.iter().any(|kind| {
        text.strip_prefix(kind.prefix)
            .is_some_and(|after| after.is_empty() || after.starts_with([':', ',']))
    })
}

/// Expands a `*` in the last path component of the specs whose kind takes
/// a network path (`net:`, `nnue:`) into every matching checkpoint (`net:runs/a/ckpt-*@sims=64`), in
/// natural order (`ckpt-9` before `ckpt-10`). Other specs pass through.
pub fn expand_wildcards(specs: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for spec in specs {
        let Some((kind, Some(rest))) = split_kind(spec).filter(|(k, _)| k.takes_path) else {
            out.push(spec.clone());
            continue;
        };
        let prefix = kind.prefix;
        let (path, opts) = path_and_options(rest);
        let path_buf = PathBuf::from(path);
        let pattern = path_buf
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !pattern.contains('*') {
            out.push(spec.clone());
            continue;
        }
        let dir = path_buf
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("{spec}: cannot list {}: {e}", dir.display()))?;
        let mut matches: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().is_some_and(|f| {
                    glob_match(&pattern, &f.to_string_lossy())
                        && !f.to_string_lossy().starts_with('.')
                })
            })
            .collect();
        matches.sort_by_key(|p| natural_key(p));
        if matches.is_empty() {
            return Err(format!(
                "{spec}: no file matches {pattern:?} in {}",
                dir.display()
            ));
        }
        for m in matches {
            out.push(match opts {
                Some(o) => format!("{prefix}:{}@{o}", m.display()),
                None => format!("{prefix}:{}", m.display()),
            });
        }
    }
    Ok(out)
}

/// `*` matches any run of characters; everything else literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text.ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Sort key putting embedded numbers in numeric order.
fn natural_key(path: &Path) -> (String, u64, String) {
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digits_at = name
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let number = name[digits_at..].parse().unwrap_or(0);
    (name[..digits_at].to_string(), number, name)
}

/// A players file (TOML): a list of specs, and/or tables that give a spec
/// its own display name:
///
/// ```toml
/// players = ["random", "ab:depth=4"]
///
/// [[player]]
/// name = "my-engine"
/// spec = 'ext:"/opt/engine --fast"@movetime=100'
/// ```
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayersFile {
    #[serde(default)]
    players: Vec<String>,
    #[serde(default)]
    player: Vec<NamedPlayer>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedPlayer {
    name: Option<String>,
    spec: String,
}

/// Reads the players of a TOML players file: `players = [...]` and/or
/// `[[player]]` tables with `spec` and an optional display `name`.
pub fn parse_players_file(text: &str, source: &str) -> Result<Vec<PlayerSpec>, SpecError> {
    let file: PlayersFile = toml::from_str(text).map_err(|e| SpecError {
        spec: source.to_string(),
        reason: format!("not a players file: {e}"),
    })?;
    let mut out = Vec::new();
    for text in &file.players {
        out.push(text.parse()?);
    }
    for named in &file.player {
        let mut spec: PlayerSpec = named.spec.parse()?;
        if let Some(name) = named
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            spec.name = name.to_string();
        }
        out.push(spec);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::PlayerKind;

    #[test]
    fn players_files_list_specs_and_named_players() {
        let text = "players = [\"random\", \"ab:depth=2\"]\n\n[[player]]\nname = \"engine\"\nspec = 'ext:\"/bin/eng --x\"@movetime=50'\n";
        let specs = parse_players_file(text, "p.toml").unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["random", "ab:depth=2", "engine"]);
        assert!(matches!(specs[2].kind, PlayerKind::External { .. }));
        let e = parse_players_file("players = 3", "p.toml").unwrap_err();
        assert!(e.to_string().contains("p.toml"), "{e}");
        assert!(parse_players_file("players = [\"ab:depth=q\"]", "p.toml").is_err());
    }

    #[test]
    fn spec_lists_split_at_spec_starts_only() {
        assert_eq!(
            split_spec_list(
                "random,ab:depth=2,movetime=50,mcts:sims=8,gumbel,ext:\"a, b\"@depth=1,net:x@sims=4"
            ),
            vec![
                "random",
                "ab:depth=2,movetime=50",
                "mcts:sims=8,gumbel",
                "ext:\"a, b\"@depth=1",
                "net:x@sims=4"
            ]
        );
        assert_eq!(
            split_spec_list("ab:depth=1, ab:depth=2"),
            vec!["ab:depth=1", "ab:depth=2"]
        );
    }

    #[test]
    fn wildcards_expand_in_natural_order() {
        let dir = std::env::temp_dir().join(format!("arena-glob-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in ["ckpt-10", "ckpt-9", "ckpt-100", "other"] {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
        let spec = format!("net:{}/ckpt-*@sims=4", dir.display());
        let out = expand_wildcards(&[spec, "random".into()]).unwrap();
        let tails: Vec<&str> = out.iter().map(|s| s.rsplit('/').next().unwrap()).collect();
        assert_eq!(
            tails,
            [
                "ckpt-9@sims=4",
                "ckpt-10@sims=4",
                "ckpt-100@sims=4",
                "random"
            ]
        );
        let nnue = expand_wildcards(&[format!("nnue:{}/ckpt-1*@depth=2", dir.display())]).unwrap();
        assert_eq!(nnue.len(), 2);
        assert!(nnue[0].starts_with("nnue:") && nnue[0].ends_with("ckpt-10@depth=2"));
        assert!(expand_wildcards(&[format!("net:{}/zzz*", dir.display())]).is_err());
        assert!(glob_match("a*b*c", "aXbYc") && !glob_match("a*b", "ab-"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_kind_round_trips_through_a_players_list() {
        // Each kind's example (options with commas, a quoted command with a
        // comma) in one list, in every order: the list splits back into the
        // examples, and each reads as its own kind.
        let examples: Vec<&str> = KINDS.iter().map(|k| k.example).collect();
        for shift in 0..examples.len() {
            let mut order = examples.clone();
            order.rotate_left(shift);
            for separator in [",", ", "] {
                let list = order.join(separator);
                assert_eq!(split_spec_list(&list), order, "{list}");
            }
        }
        for kind in &KINDS {
            let spec: PlayerSpec = kind.example.parse().unwrap();
            assert_eq!(spec.name, kind.example);
            assert_eq!(split_kind(kind.example).unwrap().0.prefix, kind.prefix);
        }
    }

    #[test]
    fn an_nnue_player_after_an_ab_player_is_a_player_of_its_own() {
        // `rate --players "ab:depth=2,nnue:models/nnue-2h@depth=6"` once read
        // as one ab spec: unknown ab option "nnue:models/nnue-2h@depth".
        let specs = read_players("ab:depth=2,nnue:models/nnue-2h@depth=6", false, None).unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ab:depth=2", "nnue:models/nnue-2h@depth=6"]);
        assert!(matches!(
            &specs[1].kind,
            PlayerKind::Nnue { path, .. } if path == Path::new("models/nnue-2h")
        ));
    }
}
