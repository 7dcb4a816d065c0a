//! The endgame tablebases of self-play: opened (generated on first use)
//! as the configuration asks, and the exact result of a game in them.

use crate::config::SelfPlayConfig;
use crate::error::SelfPlayError;
use shashki_rules::{DrawRules, Game, GameResult};
use shashki_tablebase::{Tablebases, Wdl};
use std::sync::Arc;

/// The tables `[selfplay] tablebase_dir` asks for (none when unset),
/// generated there on first use.
pub(crate) fn configured_tablebases(
    config: &SelfPlayConfig,
    rules: &DrawRules,
    progress: &mut dyn FnMut(&str),
) -> Result<Option<Arc<Tablebases>>, SelfPlayError> {
    match &config.tablebase_dir {
        Some(dir) => Ok(Some(Arc::new(open_tablebases(
            std::path::Path::new(dir),
            config.tablebase_pieces,
            rules,
            progress,
        )?))),
        None => Ok(None),
    }
}

/// Loads the tables up to `pieces` in `dir`, generating what is missing
/// (resumable, atomic files), under the games' draw rules.
pub(crate) fn open_tablebases(
    dir: &std::path::Path,
    pieces: u8,
    rules: &DrawRules,
    progress: &mut dyn FnMut(&str),
) -> Result<Tablebases, SelfPlayError> {
    let fail = |e: String| SelfPlayError::Tablebase(format!("{}: {e}", dir.display()));
    let (tb, errors) = Tablebases::load(dir, *rules, pieces);
    let expected = shashki_tablebase::Material::all_up_to(pieces).len();
    if errors.is_empty() && tb.len() == expected {
        return Ok(tb);
    }
    progress(&format!(
        "tablebases {}: generating the missing tables up to {pieces} pieces (first use; resumable)",
        dir.display()
    ));
    let start = std::time::Instant::now();
    let tb = shashki_tablebase::generate(dir, pieces, rules, &mut |p| {
        if let shashki_tablebase::Progress::Start {
            pair,
            pairs,
            materials,
            ..
        } = p
        {
            let names: Vec<String> = materials.iter().map(|m| m.file_name()).collect();
            progress(&format!(
                "tablebases: pair {}/{pairs} {}",
                pair + 1,
                names.join(" ")
            ));
        }
    })
    .map_err(|e| fail(e.to_string()))?;
    progress(&format!(
        "tablebases {}: {} tables ready in {:.1} s",
        dir.display(),
        tb.len(),
        start.elapsed().as_secs_f64()
    ));
    Ok(tb)
}

/// The exact result of `game` from the tablebases, if its position is in
/// them (repetition aside: a game over by it has already ended).
pub(crate) fn tablebase_result(tb: &Tablebases, game: &Game) -> Option<GameResult> {
    let probe = tb.probe(game.position(), game.counters())?;
    let side = game.side_to_move();
    Some(match probe.wdl {
        Wdl::Win => GameResult::win_for(side),
        Wdl::Loss => GameResult::win_for(side.opponent()),
        Wdl::Draw => GameResult::Draw,
    })
}
