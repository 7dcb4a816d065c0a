//! The PDN reader on random text and on valid files with random damage: it
//! never panics, every game it accepts replays legally, and every error
//! names its game and line.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawRules, Game, PdnGame, Position, read_pdn, write_pdn};

/// A few seeded random games as PDN text (captures, promotions and all).
fn valid_pdn() -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let games: Vec<PdnGame> = (0..3)
        .map(|_| {
            let mut game = Game::new(Position::startpos());
            while !game.is_over() && game.ply() < 60 {
                let moves = game.legal_moves();
                game.play(&moves[rng.random_range(0..moves.len())]);
            }
            PdnGame::from_game(&game)
        })
        .collect();
    write_pdn(&games)
}

/// One edit of a text: (position as a fraction, kind, character).
type Edit = (f64, u8, char);

fn damage(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(at, kind, c) in edits {
        let i = ((at * chars.len() as f64) as usize).min(chars.len());
        match kind % 4 {
            0 if i < chars.len() => {
                chars.remove(i);
            }
            1 => chars.insert(i, c),
            2 if i < chars.len() => chars[i] = c,
            // Cut the text here (a truncated file).
            3 => chars.truncate(i),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn check(text: &str) -> Result<(), TestCaseError> {
    for (i, game) in read_pdn(text).into_iter().enumerate() {
        match game {
            Ok(game) => {
                prop_assert!(
                    game.replay(DrawRules::default()).is_ok(),
                    "game {} was accepted but does not replay",
                    i + 1
                );
            }
            Err(err) => {
                let message = err.to_string();
                prop_assert!(
                    message.starts_with(&format!("game {}, line ", i + 1)),
                    "{message}"
                );
                prop_assert!(!err.reason.is_empty(), "{message}");
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: RngSeed::Fixed(0x5044_4E46_555A_5A31),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        check(&text)?;
    }

    #[test]
    fn pdn_like_text_never_panics(
        text in "(\\[[A-Za-z]{1,6} \"[^\"\\n]{0,8}\"\\]\\n){0,3}([0-9]{1,2}\\.{1,3} ?[a-h1-8x:\\-]{2,8} ?|\\{[^}]{0,6}\\}|[*]|2-0|0-2|1-1|\\$[0-9]|\\n){0,24}"
    ) {
        check(&text)?;
    }

    #[test]
    fn damaged_files_never_panic(edits in prop::collection::vec((0.0..1.0f64, 0u8..4, prop::char::any()), 1..6)) {
        let text = damage(&valid_pdn(), &edits);
        check(&text)?;
    }
}

#[test]
fn the_undamaged_file_reads_back_whole() {
    let games = read_pdn(&valid_pdn());
    assert_eq!(games.len(), 3);
    assert!(games.iter().all(Result::is_ok));
}
