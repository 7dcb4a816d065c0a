//! Rating tournaments: round-robin or gauntlet pairings, the ladder of
//! fixed anchors, anchors, training steps, and the Elo-against-steps plot
//! data.

use crate::plot::{PlotPoint, ReferenceLine};
use crate::ratings_file::RatingsTable;
use crate::spec::{PlayerKind, PlayerSpec};
use std::path::{Path, PathBuf};

/// The ladder of fixed anchors that makes Elo comparable across runs; its
/// first two rungs are the default anchors ([`default_anchor`]).
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

/// The default anchor among `names`: the ladder's lowest rung present
/// (`random`, else `ab:depth=1`) = 0, else the first name = 0.
pub fn default_anchor(names: &[String]) -> Option<(String, f64)> {
    LADDER[..2]
        .iter()
        .find(|a| names.iter().any(|n| n == *a))
        .map(|a| (a.to_string(), 0.0))
        .or_else(|| names.first().map(|n| (n.clone(), 0.0)))
}

/// Training steps of a player: for a network (MCTS or NNUE), the step
/// recorded in its checkpoint or model; `None` for other players.
pub fn training_steps(spec: &PlayerSpec) -> Option<u64> {
    let (recorded, path) = match &spec.kind {
        PlayerKind::Net { path, .. } => (crate::load_network::checkpoint_steps(path).ok(), path),
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
    let mut dirs = specs.iter().filter_map(|s| {
        let path = s.kind.network_path()?;
        Some(path.parent().unwrap_or(Path::new(".")).to_path_buf())
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
