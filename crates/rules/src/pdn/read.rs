//! Reading PDN files of many games.
//!
//! Accepted: tags `[Name "value"]` (with `\"` and `\\` escapes), move
//! numbers `1.` / `1...` (also glued to the move), moves in long or short,
//! algebraic or numeric notation (`c3-d4`, `a3:g5`, `22-18`, `22x15`),
//! comments `{...}` and `; ...`, `%` escape lines, nested variations `(...)`
//! (skipped), NAGs `$12` and move suffixes `!`/`?` (ignored), and the results
//! `2-0`, `1-1`, `0-2`, `*` (also `1-0`, `0-1`, `1/2-1/2`).
//!
//! A game ends at its result, or where the next game's tags begin.

use super::PdnGame;
use crate::outcome::GameResult;
use crate::position::{Color, Position};
use std::fmt;
use thiserror::Error;

/// A move number as PDN writes it: `7.` for White's half-move, `7...` for
/// Black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveNumber {
    /// The number.
    pub number: u32,
    /// Whose half-move.
    pub side: Color,
}

impl fmt::Display for MoveNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.side {
            Color::White => write!(f, "{}.", self.number),
            Color::Black => write!(f, "{}...", self.number),
        }
    }
}

/// Why one game of a PDN file could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("game {game}, line {line}{}: {text:?}: {reason}", .move_number.map_or(String::new(), |m| format!(", move {m}")))]
pub struct PdnError {
    /// Which game of the file (1 = the first).
    pub game: usize,
    /// The line (1 = the first) of the offending text.
    pub line: usize,
    /// The move number, when a move was at fault: the number written in the
    /// file before it if any, else counted from the start position.
    pub move_number: Option<MoveNumber>,
    /// The offending text (a move, a tag, ...).
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads every game of `text`. Each game yields its record or the first
/// error found in it; an error in one game never stops the others.
pub fn read_pdn(text: &str) -> Vec<Result<PdnGame, PdnError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    split_games(tokenize(text))
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| build_game(i + 1, chunk))
        .collect()
}

/// One lexical item of PDN text.
#[derive(Clone, Debug)]
enum Token {
    /// `[Name "value"]`.
    Tag {
        name: String,
        value: String,
        line: usize,
    },
    /// A move, move number, result or annotation.
    Word { text: String, line: usize },
    /// Text that cannot be read (unterminated comment, broken tag, ...).
    Bad {
        text: String,
        reason: String,
        line: usize,
    },
}

/// Splits PDN text into tokens, dropping comments, variations and NAGs.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let snippet = |from: usize, to: usize| -> String {
        chars[from..to.min(chars.len())]
            .iter()
            .take(40)
            .collect::<String>()
    };
    while i < chars.len() {
        let c = chars[i];
        let at_line_start = i == 0 || chars[i - 1] == '\n';
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '%' if at_line_start => i = skip_line(&chars, i),
            ';' => i = skip_line(&chars, i),
            '{' => {
                let start_line = line;
                match skip_comment(&chars, i, &mut line) {
                    Some(next) => i = next,
                    None => {
                        tokens.push(Token::Bad {
                            text: snippet(i, chars.len()),
                            reason: "comment '{' is never closed".into(),
                            line: start_line,
                        });
                        i = chars.len();
                    }
                }
            }
            '(' => {
                let start_line = line;
                match skip_variation(&chars, i, &mut line) {
                    Some(next) => i = next,
                    None => {
                        tokens.push(Token::Bad {
                            text: snippet(i, chars.len()),
                            reason: "variation '(' is never closed".into(),
                            line: start_line,
                        });
                        i = chars.len();
                    }
                }
            }
            ')' | '}' | ']' => {
                tokens.push(Token::Bad {
                    text: c.to_string(),
                    reason: format!("'{c}' without a matching opening bracket"),
                    line,
                });
                i += 1;
            }
            '[' => {
                let (token, next) = read_tag(&chars, i, line);
                tokens.push(token);
                i = next;
            }
            '$' => {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"{}()[];".contains(chars[i])
                {
                    i += 1;
                }
                tokens.push(Token::Word {
                    text: chars[start..i].iter().collect(),
                    line,
                });
            }
        }
    }
    tokens
}

/// The index of the newline ending the line at `i` (or the end).
fn skip_line(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        i += 1;
    }
    i
}

/// Past the `}` closing the comment that opens at `i`, or `None`.
fn skip_comment(chars: &[char], mut i: usize, line: &mut usize) -> Option<usize> {
    i += 1;
    while i < chars.len() {
        match chars[i] {
            '}' => return Some(i + 1),
            '\n' => *line += 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Past the `)` closing the (possibly nested) variation that opens at `i`,
/// or `None`. Comments inside may hold brackets of their own.
fn skip_variation(chars: &[char], mut i: usize, line: &mut usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < chars.len() {
        match chars[i] {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            '{' => {
                i = skip_comment(chars, i, line)?;
                continue;
            }
            ';' => {
                i = skip_line(chars, i);
                continue;
            }
            '\n' => *line += 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Reads the tag opening at `i`: `[Name "value"]`. Returns the token and the
/// index after it; a broken tag becomes `Token::Bad` and reading resumes
/// after its line.
fn read_tag(chars: &[char], start: usize, line: usize) -> (Token, usize) {
    let bad = |reason: &str| {
        let end = skip_line(chars, start);
        let text: String = chars[start..end].iter().take(80).collect();
        (
            Token::Bad {
                text,
                reason: reason.to_string(),
                line,
            },
            end,
        )
    };
    let mut i = start + 1;
    let skip_spaces = |mut i: usize| {
        while i < chars.len() && chars[i] != '\n' && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    i = skip_spaces(i);
    let name_start = i;
    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    if i == name_start {
        return bad("a tag must start with its name: [Name \"value\"]");
    }
    let name: String = chars[name_start..i].iter().collect();
    i = skip_spaces(i);
    if i >= chars.len() || chars[i] != '"' {
        return bad("the tag value must be in double quotes");
    }
    i += 1;
    let mut value = String::new();
    loop {
        match chars.get(i) {
            None | Some('\n') => return bad("the tag value's quote is never closed"),
            Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                value.push(chars[i + 1]);
                i += 2;
            }
            Some('"') => {
                i += 1;
                break;
            }
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    i = skip_spaces(i);
    if chars.get(i) != Some(&']') {
        return bad("the tag must end with ']' after its value");
    }
    (Token::Tag { name, value, line }, i + 1)
}

/// The tokens of one game.
#[derive(Default)]
struct Chunk {
    tokens: Vec<Token>,
    /// The result token that ended the movetext, if any.
    terminator: Option<String>,
    has_movetext: bool,
}

/// Groups tokens into games: a game ends at a result token, or when a tag
/// follows its movetext.
fn split_games(tokens: Vec<Token>) -> Vec<Chunk> {
    let mut games = Vec::new();
    let mut current: Option<Chunk> = None;
    for token in tokens {
        match &token {
            Token::Tag { .. } => {
                if current.as_ref().is_some_and(|c| c.has_movetext) {
                    games.extend(current.take());
                }
                current
                    .get_or_insert_with(Chunk::default)
                    .tokens
                    .push(token);
            }
            Token::Word { text, .. } if is_result(text) => {
                let mut chunk = current.take().unwrap_or_default();
                chunk.terminator = Some(text.clone());
                games.push(chunk);
            }
            Token::Word { .. } => {
                let chunk = current.get_or_insert_with(Chunk::default);
                chunk.has_movetext = true;
                chunk.tokens.push(token);
            }
            Token::Bad { .. } => {
                current
                    .get_or_insert_with(Chunk::default)
                    .tokens
                    .push(token);
            }
        }
    }
    games.extend(current);
    games
}

/// A game-termination token.
fn is_result(text: &str) -> bool {
    matches!(
        text,
        "*" | "2-0" | "0-2" | "1-1" | "1-0" | "0-1" | "1/2-1/2" | "0-0"
    )
}

/// Builds game number `game` from its tokens.
fn build_game(game: usize, chunk: Chunk) -> Result<PdnGame, PdnError> {
    let error = |line: usize, move_number: Option<MoveNumber>, text: &str, reason: &str| PdnError {
        game,
        line,
        move_number,
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let mut tags = Vec::new();
    let mut result_tag = None;
    let mut start = Position::startpos();
    let mut words = Vec::new();
    for token in chunk.tokens {
        match token {
            Token::Bad { text, reason, line } => return Err(error(line, None, &text, &reason)),
            Token::Tag { name, value, line } => {
                if name.eq_ignore_ascii_case("Result") {
                    result_tag = Some(value);
                } else if name.eq_ignore_ascii_case("FEN") {
                    start = Position::from_fen(&value).map_err(|e| {
                        error(line, None, &value, &format!("FEN tag: {}", e.reason))
                    })?;
                } else {
                    if name.eq_ignore_ascii_case("GameType") {
                        let kind = value.split(',').next().unwrap_or("").trim();
                        if kind != "25" {
                            return Err(error(
                                line,
                                None,
                                &value,
                                "GameType is not 25 (Russian checkers)",
                            ));
                        }
                    }
                    tags.push((name, value));
                }
            }
            Token::Word { text, line } => words.push((text, line)),
        }
    }

    let mut moves = Vec::new();
    let mut position = start;
    let mut written_number: Option<u32> = None;
    let mut counted_number = 1u32;
    for (word, line) in &words {
        let (number, rest) = split_move_number(word);
        if let Some(n) = number {
            written_number = Some(n);
        }
        let text = rest.trim_end_matches(['!', '?', '+', '#']);
        // Annotations alone (`!?`) and a detached `...` carry no move.
        if text.chars().all(|c| c == '.' || c == '…') {
            continue;
        }
        let side = position.side_to_move();
        let move_number = MoveNumber {
            number: written_number.unwrap_or(counted_number),
            side,
        };
        let mv = position
            .parse_move(&text.to_ascii_lowercase())
            .map_err(|e| error(*line, Some(move_number), text, &e.to_string()))?;
        position = position.make_move(&mv);
        moves.push(mv);
        if side == Color::Black {
            counted_number += 1;
            written_number = written_number.map(|n| n.saturating_add(1));
        }
    }

    let from_tag = result_tag.as_deref().and_then(GameResult::from_pdn);
    let from_terminator = chunk.terminator.as_deref().and_then(GameResult::from_pdn);
    Ok(PdnGame {
        tags,
        start,
        moves,
        result: from_tag.or(from_terminator),
    })
}

/// Splits a leading move number (`12.`, `12...`, `12…`) from a word; the
/// rest may hold a move glued to it.
fn split_move_number(word: &str) -> (Option<u32>, &str) {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &word[digits..];
    if digits == 0 || !(rest.starts_with('.') || rest.starts_with('…')) {
        return (None, word);
    }
    let rest = rest.trim_start_matches(['.', '…']);
    (word[..digits].parse().ok(), rest)
}
