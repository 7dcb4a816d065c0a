//! Rating tournaments: round-robin or gauntlet pairings, the ladder of
//! fixed anchors, checkpoint wildcards, anchors, and the Elo-against-steps
//! plot data. `shashki rate` and `shashki match` are thin layers over this.

use crate::plot::{PlotPoint, ReferenceLine};
use crate::ratings::RatingsTable;
use crate::spec::{PlayerKind, PlayerSpec};
use std::path::{Path, PathBuf};

/// The ladder of fixed anchors that makes Elo comparable across runs.
pub const LADDER: [&str; 5] = [
    "random",
    "ab:depth=1",
    "ab:depth=2",
    "ab:depth=4",
    "ab:depth=6",
];

/// Every pair of players once (`i < j`).
pub fn round_robin(players: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..players {
        for j in i + 1..players {
            out.push((i, j));
        }
    }
    out
}

/// `hero` against every other player.
pub fn gauntlet(players: usize, hero: usize) -> Vec<(usize, usize)> {
    (0..players)
        .filter(|&p| p != hero)
        .map(|p| (hero, p))
        .collect()
}

/// Parses `NAME=ELO` (the name may itself contain `=`: the last one splits).
pub fn parse_anchor(text: &str) -> Result<(String, f64), String> {
    let (name, elo) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("anchor {text:?}: expected NAME=ELO"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .map_err(|_| format!("anchor {text:?}: {elo:?} is not a number"))?;
    if name.trim().is_empty() || !elo.is_finite() {
        return Err(format!("anchor {text:?}: expected NAME=ELO"));
    }
    Ok((name.trim().to_string(), elo))
}

/// The default anchor among `names`: `random` = 0 if present, else
/// `ab:depth=1` = 0, else the first name = 0.
pub fn default_anchor(names: &[String]) -> Option<(String, f64)> {
    ["random", "ab:depth=1"]
        .iter()
        .find(|a| names.iter().any(|n| n == *a))
        .map(|a| (a.to_string(), 0.0))
        .or_else(|| names.first().map(|n| (n.clone(), 0.0)))
}

/// Expands a `*` in the last path component of `net:` and `nnue:` specs
/// into every matching checkpoint (`net:runs/a/ckpt-*@sims=64`), in
/// natural order (`ckpt-9` before `ckpt-10`). Other specs pass through.
pub fn expand_wildcards(specs: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for spec in specs {
        let Some((prefix, rest)) = ["net:", "nnue:"]
            .into_iter()
            .find_map(|p| spec.strip_prefix(p).map(|rest| (p, rest)))
        else {
            out.push(spec.clone());
            continue;
        };
        let (path, opts) = match rest.rsplit_once('@') {
            Some((p, o)) => (p, Some(o)),
            None => (rest, None),
        };
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
                Some(o) => format!("{prefix}{}@{o}", m.display()),
                None => format!("{prefix}{}", m.display()),
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

/// Training steps of a player: for a network (MCTS or NNUE), the step
/// recorded in its checkpoint or model; `None` for other players.
pub fn training_steps(spec: &PlayerSpec) -> Option<u64> {
    let (recorded, path) = match &spec.kind {
        PlayerKind::Net { path, .. } => (crate::net::checkpoint_steps(path).ok(), path),
        PlayerKind::Nnue { path, .. } => (shashki_nnue::training_step(path).ok(), path),
        _ => return None,
    };
    recorded.or_else(|| {
        // Fall back to the number ending the file name (`ckpt-120`).
        let name = path.file_stem()?.to_string_lossy().into_owned();
        let digits_at = name.rfind(|c: char| !c.is_ascii_digit())? + 1;
        name[digits_at..].parse().ok()
    })
}

/// The training run every network player comes from, if they share one:
/// the players are checkpoints in `RUN/checkpoints/` and `RUN/config.toml`
/// exists (where the Elo plot goes by default). Exported models and
/// checkpoints elsewhere have none, so rating them writes no plot unless
/// one is asked for.
pub fn common_run_dir(specs: &[PlayerSpec]) -> Option<PathBuf> {
    let mut dirs = specs.iter().filter_map(|s| match &s.kind {
        PlayerKind::Net { path, .. } | PlayerKind::Nnue { path, .. } => {
            Some(path.parent().unwrap_or(Path::new(".")).to_path_buf())
        }
        _ => None,
    });
    let first = dirs.next()?;
    if !dirs.all(|d| d == first) || first.file_name()? != "checkpoints" {
        return None;
    }
    let run = first.parent()?;
    run.join("config.toml").is_file().then(|| run.to_path_buf())
}

/// Plot data from a ratings table: players with known steps become points,
/// the others (the anchors) reference lines.
pub fn plot_data(table: &RatingsTable) -> (Vec<PlotPoint>, Vec<ReferenceLine>) {
    let mut points = Vec::new();
    let mut refs = Vec::new();
    for p in &table.players {
        match p.steps {
            Some(steps) => points.push(PlotPoint {
                steps,
                elo: p.elo,
                ci95: p.ci95,
            }),
            None => refs.push(ReferenceLine {
                name: p.name.clone(),
                elo: p.elo,
            }),
        }
    }
    (points, refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings() {
        assert_eq!(round_robin(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(gauntlet(4, 2), vec![(2, 0), (2, 1), (2, 3)]);
    }

    #[test]
    fn anchors() {
        assert_eq!(
            parse_anchor("ab:depth=1=100").unwrap(),
            ("ab:depth=1".into(), 100.0)
        );
        assert_eq!(parse_anchor("random=0").unwrap(), ("random".into(), 0.0));
        assert!(parse_anchor("random").is_err() && parse_anchor("x=y").is_err());
        let names: Vec<String> = ["ab:depth=2", "ab:depth=1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(default_anchor(&names), Some(("ab:depth=1".into(), 0.0)));
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
    fn the_plot_goes_into_the_run_directory_of_the_checkpoints_only() {
        let root = std::env::temp_dir().join(format!("arena-rundir-{}", std::process::id()));
        let run = root.join("run");
        std::fs::create_dir_all(run.join("checkpoints")).unwrap();
        std::fs::create_dir_all(root.join("models/m")).unwrap();
        std::fs::write(run.join("config.toml"), "").unwrap();
        let net = |path: PathBuf| -> PlayerSpec {
            format!("net:{}@sims=1", path.display()).parse().unwrap()
        };
        let a = net(run.join("checkpoints/ckpt-000000001.shzk"));
        let b = net(run.join("checkpoints/ckpt-000000002.shzk"));
        let random: PlayerSpec = "random".parse().unwrap();
        assert_eq!(
            common_run_dir(&[a.clone(), random.clone(), b.clone()]),
            Some(run.clone())
        );
        // An exported model's folder is no run: no plot beside it.
        assert_eq!(common_run_dir(&[net(root.join("models/m")), random]), None);
        assert_eq!(
            common_run_dir(&[a.clone(), net(root.join("models/m"))]),
            None
        );
        std::fs::remove_file(run.join("config.toml")).unwrap();
        assert_eq!(common_run_dir(&[a, b]), None);
        std::fs::remove_dir_all(root).unwrap();
    }
}
