//! Where a book's positions come from: every line of the first plies from
//! the standard start, and positions of recorded games (PDN files) and of
//! self-play chunks at chosen plies. Each candidate is an [`Opening`] whose
//! name says its source; [`distinct`] keeps one candidate per position.

use super::{BookError, PlyRange, book_key};
use crate::openings::Opening;
use shashki_rules::{DrawRules, Game, Move, Position, read_pdn};
use shashki_selfplay::chunk::{list_chunks, read_chunk};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The distinct positions (side to move included) at `plies` along every
/// line from the standard start, each with the first line (in move
/// generation order) that reaches it, in order of ply. Positions where the
/// game is over are left out.
pub fn line_candidates(plies: PlyRange) -> Vec<Opening> {
    let mut layer: Vec<(Position, Vec<Move>)> = vec![(Position::startpos(), Vec::new())];
    let mut out = Vec::new();
    for ply in 0..=plies.last {
        if ply >= plies.first {
            out.extend(layer.iter().filter_map(|(pos, moves)| {
                let opening = Opening {
                    name: format!("line ply {ply}"),
                    start: Position::startpos(),
                    moves: moves.clone(),
                };
                (!pos.legal_moves().is_empty()).then_some(opening)
            }));
        }
        if ply == plies.last {
            break;
        }
        // No king can appear in the first plies, so no draw rule applies:
        // the position alone is the state of the game.
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for (pos, moves) in &layer {
            for mv in pos.legal_moves().iter() {
                let child = pos.make_move(mv);
                if seen.insert(child) {
                    let mut line = moves.clone();
                    line.push(*mv);
                    next.push((child, line));
                }
            }
        }
        layer = next;
    }
    out
}

/// The `.pdn` files of `path`: the file itself, or every `.pdn` file below
/// a folder, in name order.
pub fn pdn_files(path: &Path) -> Result<Vec<PathBuf>, BookError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| BookError::io(&folder, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| BookError::io(&folder, e))?;
            let p = entry.path();
            if p.is_dir() {
                folders.push(p);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdn")) {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The positions of every game in the PDN file `path` at `plies` (counted
/// from each game's start), each as the game's start and moves up to it.
/// A broken game is an error naming the file and the game.
pub fn pdn_candidates(path: &Path, plies: PlyRange) -> Result<Vec<Opening>, BookError> {
    let text = std::fs::read_to_string(path).map_err(|e| BookError::io(path, e))?;
    let mut out = Vec::new();
    for (i, game) in read_pdn(&text).into_iter().enumerate() {
        let game = game.map_err(|e| BookError::Input {
            path: path.to_path_buf(),
            reason: format!("line {}: game {}: {}", e.line, e.game, e.reason),
        })?;
        let mut replay = Game::with_rules(game.start, DrawRules::default());
        for ply in 0..=game.moves.len() {
            if ply as u32 > plies.last || replay.is_over() {
                break;
            }
            if ply as u32 >= plies.first {
                out.push(Opening {
                    name: format!("{} game {} ply {ply}", path.display(), i + 1),
                    start: game.start,
                    moves: replay.moves().to_vec(),
                });
            }
            if let Some(mv) = game.moves.get(ply) {
                replay.play(mv);
            }
        }
    }
    Ok(out)
}

/// The positions of the self-play chunks in `dir` whose ply in their game
/// is in `plies`, each as a position alone (a chunk keeps no moves).
pub fn chunk_candidates(dir: &Path, plies: PlyRange) -> Result<Vec<Opening>, BookError> {
    let files = list_chunks(dir).map_err(|e| BookError::io(dir, e))?;
    if files.is_empty() {
        return Err(BookError::Input {
            path: dir.to_path_buf(),
            reason: "no self-play chunk (chunk-*.shzc) in this folder".into(),
        });
    }
    let mut out = Vec::new();
    for file in files {
        let chunk = read_chunk(&file).map_err(|e| BookError::Input {
            path: file.clone(),
            reason: e.to_string(),
        })?;
        let samples = chunk.samples().map_err(|reason| BookError::Input {
            path: file.clone(),
            reason,
        })?;
        for (i, sample) in samples.iter().enumerate() {
            let ply = u32::from(sample.ply);
            if plies.contains(ply) && !sample.position.legal_moves().is_empty() {
                out.push(Opening {
                    name: format!("{} record {i} ply {ply}", file.display()),
                    start: sample.position,
                    moves: Vec::new(),
                });
            }
        }
    }
    Ok(out)
}

/// The first candidate of each position, in order; a position and its
/// colour-flipped twin count as one ([`book_key`]). Candidates where the
/// game is already over are dropped.
pub fn distinct(candidates: Vec<Opening>) -> Vec<Opening> {
    let mut seen = HashSet::new();
    candidates
        .into_iter()
        .filter(|c| c.game(DrawRules::default()).outcome().is_none())
        .filter(|c| seen.insert(book_key(&c.position())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_each_position_once_with_a_line_that_reaches_it() {
        let c = line_candidates(PlyRange { first: 0, last: 3 });
        let at = |ply: usize| c.iter().filter(|o| o.moves.len() == ply).count();
        // 1 start, 7 first moves, 49 replies (all distinct); ply 3 has
        // transpositions, so fewer than its 302 perft leaves.
        assert_eq!((at(0), at(1), at(2)), (1, 7, 49));
        assert!(at(3) < 302 && at(3) > 200, "{}", at(3));
        let positions: HashSet<Position> = c.iter().map(Opening::position).collect();
        assert_eq!(positions.len(), c.len());
        // Each line replays with the rules.
        for o in &c {
            assert_eq!(*o.game(DrawRules::default()).position(), o.position());
        }
        let only_two = line_candidates(PlyRange { first: 2, last: 2 });
        assert_eq!(only_two.len(), 49);
        assert_eq!(only_two[0].name, "line ply 2");
    }

    #[test]
    fn distinct_keeps_the_first_of_a_position_and_of_its_mirror() {
        let a = Opening::from_fields("a".into(), None, "c3-d4 d6-c5").unwrap();
        let b = Opening::from_fields("b".into(), None, "c3-d4 d6-c5").unwrap();
        let mirror = Opening {
            name: "mirror".into(),
            start: a.position().flipped(),
            moves: Vec::new(),
        };
        let other = Opening::from_fields("c".into(), None, "c3-b4").unwrap();
        let kept: Vec<String> = distinct(vec![a, b, mirror, other])
            .into_iter()
            .map(|o| o.name)
            .collect();
        assert_eq!(kept, ["a", "c"]);
    }

    #[test]
    fn pdn_games_give_their_positions_at_the_plies_asked() {
        let dir = std::env::temp_dir().join(format!("book-pdn-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let path = dir.join("sub/g.pdn");
        let text = "[Event \"a\"]\n\n1. c3-d4 d6-c5 2. b2-c3 f6-g5 3. c3-b4 *\n\n\
                    [Event \"b\"]\n\n1. g3-h4 b6-a5 *\n";
        std::fs::write(&path, text).unwrap();
        assert_eq!(pdn_files(&dir).unwrap(), vec![path.clone()]);
        let c = pdn_candidates(&path, PlyRange { first: 2, last: 3 }).unwrap();
        let found: Vec<(String, usize)> =
            c.iter().map(|o| (o.name.clone(), o.moves.len())).collect();
        let name = |g: usize, p: usize| format!("{} game {g} ply {p}", path.display());
        assert_eq!(found, [(name(1, 2), 2), (name(1, 3), 3), (name(2, 2), 2)]);
        std::fs::write(&path, "1. c3-c4 *\n").unwrap();
        let e = pdn_candidates(&path, PlyRange { first: 2, last: 3 }).unwrap_err();
        assert!(e.to_string().contains("g.pdn"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
