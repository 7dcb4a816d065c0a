//! Positions and moves as Hub writes them for the 8x8 Russian board.
//!
//! Hub defines them for the 10x10 board only; for Russian we follow what
//! pydraughts (the client lidraughts-bot drives engines with) sends and
//! expects, which uses two numberings:
//!
//! - a **position** is the side to move (`W` or `B`) and one character per
//!   square (`w`, `b`, `W`, `B` kings, `e` empty) in the order of the PDN
//!   numeric notation: square 1 is b8, 4 is h8, 5 is a7, ..., 32 is g1
//!   ([`Square::number`]), so the start is `W` + 12 `b` + 8 `e` + 12 `w`;
//! - a **move** numbers the squares from White's side: 1 is a1, 2 c1, 3 e1,
//!   4 g1, 5 b2, ..., 32 h8 ([`move_square_number`]). A quiet move is
//!   `9-13` (a3-b4); a capture is `from x to x captured x captured ...`
//!   (`22x13x18`: c5 takes d6 ... ), the captured pieces in any order.

use crate::ProtocolError;
use shashki_rules::{Color, Move, Piece, Position, Square};

/// The number of `square` in Hub move text: a1 = 1, c1 = 2, ..., h8 = 32.
pub fn move_square_number(square: Square) -> u8 {
    square.index() as u8 + 1
}

/// The square numbered `number` in Hub move text (1..=32).
pub fn move_square(number: u8) -> Option<Square> {
    number.checked_sub(1).and_then(Square::new)
}

/// `move` in Hub text: `9-13`, or `22x13x18x...` with the captured pieces in
/// increasing order.
pub fn format_move(mv: &Move) -> String {
    let from = move_square_number(mv.from());
    let to = move_square_number(mv.to());
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let mut captured: Vec<u8> = mv.captured_squares().map(move_square_number).collect();
    captured.sort_unstable();
    let mut text = format!("{from}x{to}");
    for square in captured {
        text.push_str(&format!("x{square}"));
    }
    text
}

/// Reads Hub move text against `position` and returns the legal move it
/// names. A capture may leave out its captured pieces when only one capture
/// goes from its start to its end.
pub fn parse_move(position: &Position, text: &str) -> Result<Move, ProtocolError> {
    let bad = |why: &str| ProtocolError::new(format!("move {text:?}: {why}"));
    let capture = text.contains('x');
    let parts: Vec<&str> = text.split(if capture { 'x' } else { '-' }).collect();
    if parts.len() < 2 || (!capture && parts.len() != 2) {
        return Err(bad(
            "expected from-to or from x to x captured ... (squares 1 to 32)",
        ));
    }
    let mut squares = Vec::with_capacity(parts.len());
    for part in &parts {
        let square = part
            .parse::<u8>()
            .ok()
            .and_then(move_square)
            .ok_or_else(|| bad(&format!("{part:?} is not a square number from 1 to 32")))?;
        squares.push(square);
    }
    let (from, to) = (squares[0], squares[1]);
    let captured: Option<u32> =
        (squares.len() > 2).then(|| squares[2..].iter().fold(0, |mask, s| mask | s.bit()));
    if let Some(mask) = captured
        && mask.count_ones() as usize != squares.len() - 2
    {
        return Err(bad("a captured square is named twice"));
    }
    let matching: Vec<Move> = position
        .legal_moves()
        .iter()
        .filter(|mv| mv.from() == from && mv.to() == to && mv.is_capture() == capture)
        .filter(|mv| captured.is_none_or(|mask| mv.captured() == mask))
        .copied()
        .collect();
    match matching.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(bad("not a legal move in this position")),
        _ => Err(bad(
            "several captures go from there to there: name the captured pieces",
        )),
    }
}

/// The position in Hub text: side to move, then squares 1 (b8) to 32 (g1).
pub fn format_position(position: &Position) -> String {
    let mut text = String::with_capacity(33);
    text.push(match position.side_to_move() {
        Color::White => 'W',
        Color::Black => 'B',
    });
    for number in 1..=32 {
        let square = Square::from_number(number).expect("1..=32 are squares");
        text.push(match position.piece_at(square) {
            None => 'e',
            Some(Piece { color, king }) => match (color, king) {
                (Color::White, false) => 'w',
                (Color::White, true) => 'W',
                (Color::Black, false) => 'b',
                (Color::Black, true) => 'B',
            },
        });
    }
    text
}

/// Reads a Hub position (33 characters: `W`/`B`, then squares 1 to 32).
pub fn parse_position(text: &str) -> Result<Position, ProtocolError> {
    let bad = |why: String| ProtocolError::new(format!("position {text:?}: {why}"));
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 33 {
        return Err(bad(format!(
            "expected 33 characters (W or B, then 32 squares), got {}",
            chars.len()
        )));
    }
    let side = match chars[0] {
        'W' => Color::White,
        'B' => Color::Black,
        other => return Err(bad(format!("side to move {other:?} is not W or B"))),
    };
    let (mut white, mut black, mut kings) = (0u32, 0u32, 0u32);
    for (number, &c) in (1u8..).zip(&chars[1..]) {
        let bit = Square::from_number(number).expect("1..=32").bit();
        match c {
            'w' => white |= bit,
            'W' => (white, kings) = (white | bit, kings | bit),
            'b' => black |= bit,
            'B' => (black, kings) = (black | bit, kings | bit),
            'e' => {}
            other => {
                return Err(bad(format!(
                    "square {number} holds {other:?} (expected w, b, W, B or e)"
                )));
            }
        }
    }
    Position::from_masks(white, black, kings, side).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn the_start_position_reads_and_prints_as_pydraughts_sends_it() {
        assert_eq!(format_position(&Position::startpos()), START);
        assert_eq!(parse_position(START).unwrap(), Position::startpos());
        // One piece each, to pin the square order: 1 = b8, 29 = a1.
        let pos = Position::from_fen("B:WKa1:Bb8").unwrap();
        let text = format_position(&pos);
        assert_eq!(&text[..2], "Bb");
        assert_eq!(text.chars().nth(29), Some('W'));
        assert_eq!(parse_position(&text).unwrap(), pos);
    }

    #[test]
    fn bad_positions_are_refused_with_the_reason() {
        for (text, needle) in [
            ("Wbbb", "33 characters"),
            ("Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "side to move"),
            ("Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwx", "square 32"),
            ("Wwbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "rank 8"),
        ] {
            let err = parse_position(text).unwrap_err();
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }

    #[test]
    fn quiet_moves_use_numbers_from_whites_side() {
        let start = Position::startpos();
        let mv = parse_move(&start, "9-13").unwrap();
        assert_eq!(mv.to_string(), "a3-b4");
        assert_eq!(format_move(&mv), "9-13");
        for mv in start.legal_moves().iter() {
            assert_eq!(parse_move(&start, &format_move(mv)).unwrap(), *mv);
        }
        for (text, needle) in [
            ("9-14", "not a legal move"),
            ("9-33", "1 to 32"),
            ("9", "expected"),
            ("a3-b4", "not a square number"),
            ("9-13-17", "expected"),
        ] {
            let err = parse_move(&start, text).unwrap_err();
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }

    #[test]
    fn captures_list_every_captured_piece_in_any_order() {
        // c3 takes d4 and f6: c3:e5:g7 (h8 blocks a third jump).
        let pos = Position::from_fen("W:Wc3:Bd4,f6,h8").unwrap();
        let mv = pos.legal_moves()[0];
        assert_eq!(mv.to_string(), "c3:e5:g7");
        // c3 = 10, g7 = 28, d4 = 14, f6 = 23.
        assert_eq!(format_move(&mv), "10x28x14x23");
        assert_eq!(parse_move(&pos, "10x28x23x14").unwrap(), mv);
        assert_eq!(parse_move(&pos, "10x28").unwrap(), mv);
        let err = parse_move(&pos, "10x28x14").unwrap_err();
        assert!(err.message.contains("not a legal move"), "{}", err.message);
        let err = parse_move(&pos, "10x28x14x14").unwrap_err();
        assert!(err.message.contains("twice"), "{}", err.message);
    }

    #[test]
    fn every_legal_move_round_trips_in_random_games() {
        use shashki_rules::Game;
        let mut game = Game::new(Position::startpos());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            if game.is_over() {
                game = Game::new(Position::startpos());
            }
            let moves = game.legal_moves();
            for mv in moves.iter() {
                assert_eq!(parse_move(game.position(), &format_move(mv)).unwrap(), *mv);
            }
            let position = *game.position();
            assert_eq!(
                parse_position(&format_position(&position)).unwrap(),
                position
            );
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (state >> 33) as usize % moves.len();
            game.play(&moves[pick]);
        }
    }
}
