//! Legal move generation for Russian checkers.
//!
//! Captures are mandatory with free choice among them (no majority rule).
//! A capture is a depth-first walk over landing squares in which the jumped
//! pieces stay on the board until the move ends (Turkish strike): they block
//! and cannot be jumped twice, while the mover's start square counts as empty.
//! A man that reaches the last rank mid-capture goes on as a king. A king
//! must land where its capture can continue, if such a landing exists.

use crate::bitboard::{Direction, NEIGHBOUR, NONE, shift, slide};
use crate::moves::{MAX_PATH, Move, MoveList};
use crate::position::{Color, Position};
use crate::square::Squares;

/// Which capture paths count as distinct moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PathMode {
    /// One move per (start, end, captured set): the official rule 9.
    Distinct,
    /// Every distinct sequence of landing squares (for `perft --paths`).
    AllPaths,
}

/// The two forward directions of a side's men.
#[inline(always)]
fn forward(color: Color) -> [Direction; 2] {
    match color {
        Color::White => [Direction::UpLeft, Direction::UpRight],
        Color::Black => [Direction::DownLeft, Direction::DownRight],
    }
}

/// The direction pointing back the way we came.
#[inline(always)]
fn reverse(dir: Direction) -> Direction {
    Direction::ALL[3 - dir as usize]
}

impl Position {
    /// All legal moves (rule 9: one per start, end and captured set).
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list, PathMode::Distinct);
        list
    }

    /// Legal moves into `list` (cleared first) under the given path mode.
    pub fn generate(&self, list: &mut MoveList, mode: PathMode) {
        list.truncate(0);
        if self.has_capture() {
            self.generate_captures(list, mode);
        } else {
            self.generate_quiet(list);
        }
    }

    /// True if the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        let side = self.side_to_move();
        let us = self.pieces(side);
        let them = self.pieces(side.opponent());
        let empty = self.empty();
        let men = us & !self.kings();
        for dir in Direction::ALL {
            if shift(shift(men, dir) & them, dir) & empty != 0 {
                return true;
            }
        }
        let occupied = self.occupied();
        for king in Squares(us & self.kings()) {
            for dir in Direction::ALL {
                let (_, blocker) = slide(king.index() as u8, dir, occupied);
                if blocker != NONE && them & (1 << blocker) != 0 {
                    let beyond = NEIGHBOUR[blocker as usize][dir as usize];
                    if beyond != NONE && empty & (1 << beyond) != 0 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Number of legal moves without building the list where possible
    /// (perft's bulk counting at the last ply).
    #[inline]
    pub fn count_moves(&self) -> usize {
        if self.has_capture() {
            let mut list = MoveList::new();
            self.generate_captures(&mut list, PathMode::Distinct);
            return list.len();
        }
        let side = self.side_to_move();
        let us = self.pieces(side);
        let empty = self.empty();
        let occupied = self.occupied();
        let men = us & !self.kings();
        let mut count = 0;
        for dir in forward(side) {
            count += (shift(men, dir) & empty).count_ones();
        }
        for king in Squares(us & self.kings()) {
            for dir in Direction::ALL {
                count += slide(king.index() as u8, dir, occupied).0.count_ones();
            }
        }
        count as usize
    }

    fn generate_quiet(&self, list: &mut MoveList) {
        let side = self.side_to_move();
        let us = self.pieces(side);
        let empty = self.empty();
        let occupied = self.occupied();
        let men = us & !self.kings();
        let promotion = side.promotion_rank();
        for dir in forward(side) {
            let movers = men & shift(empty, reverse(dir));
            for from in Squares(movers) {
                let to = NEIGHBOUR[from.index()][dir as usize];
                list.push(Move::quiet(
                    from.index() as u8,
                    to,
                    promotion & (1 << to) != 0,
                ));
            }
        }
        for king in Squares(us & self.kings()) {
            let from = king.index() as u8;
            for dir in Direction::ALL {
                for to in Squares(slide(from, dir, occupied).0) {
                    list.push(Move::quiet(from, to.index() as u8, false));
                }
            }
        }
    }

    fn generate_captures(&self, list: &mut MoveList, mode: PathMode) {
        let side = self.side_to_move();
        let us = self.pieces(side);
        let mut walk = CaptureWalk {
            list,
            enemy: self.pieces(side.opponent()),
            occupied: 0,
            promotion: side.promotion_rank(),
            dedup: mode == PathMode::Distinct,
            first_of_piece: 0,
            path: [0; MAX_PATH],
        };
        for from in Squares(us) {
            let sq = from.index() as u8;
            walk.occupied = self.occupied() & !from.bit();
            walk.first_of_piece = walk.list.len();
            walk.path[0] = sq;
            if self.kings() & from.bit() != 0 {
                walk.king(sq, 0, 1, false);
            } else {
                walk.man(sq, 0, 1);
            }
        }
    }
}

/// State of the depth-first capture search for one moving piece.
struct CaptureWalk<'a> {
    list: &'a mut MoveList,
    enemy: u32,
    /// Occupied squares minus the mover's start; jumped pieces stay in.
    occupied: u32,
    promotion: u32,
    dedup: bool,
    /// Index in `list` of this piece's first move (duplicates share a start).
    first_of_piece: usize,
    path: [u8; MAX_PATH],
}

impl CaptureWalk<'_> {
    fn man(&mut self, sq: u8, captured: u32, depth: usize) {
        let mut continued = false;
        for dir in Direction::ALL {
            let over = NEIGHBOUR[sq as usize][dir as usize];
            if over == NONE {
                continue;
            }
            let over_bit = 1u32 << over;
            if self.enemy & over_bit == 0 || captured & over_bit != 0 {
                continue;
            }
            let land = NEIGHBOUR[over as usize][dir as usize];
            if land == NONE || self.occupied & (1 << land) != 0 {
                continue;
            }
            continued = true;
            self.path[depth] = land;
            if self.promotion & (1 << land) != 0 {
                // Promoted mid-capture: continue by the king's rules.
                self.king(land, captured | over_bit, depth + 1, true);
            } else {
                self.man(land, captured | over_bit, depth + 1);
            }
        }
        if !continued && depth > 1 {
            self.emit(depth, captured, false);
        }
    }

    fn king(&mut self, sq: u8, captured: u32, depth: usize, promoted: bool) {
        let mut continued = false;
        for dir in Direction::ALL {
            let Some((victim, landings)) = self.king_jump(sq, dir, captured) else {
                continue;
            };
            continued = true;
            let captured = captured | (1 << victim);
            // Rule: land where the capture goes on, if any such square exists.
            let mut going_on = 0u32;
            for land in Squares(landings) {
                if self.king_can_continue(land.index() as u8, dir, captured) {
                    going_on |= land.bit();
                }
            }
            if going_on != 0 {
                for land in Squares(going_on) {
                    self.path[depth] = land.index() as u8;
                    self.king(land.index() as u8, captured, depth + 1, promoted);
                }
            } else {
                for land in Squares(landings) {
                    self.path[depth] = land.index() as u8;
                    self.emit(depth + 1, captured, promoted);
                }
            }
        }
        if !continued && depth > 1 {
            self.emit(depth, captured, promoted);
        }
    }

    /// A king on `sq` jumping in `dir`: the victim and the landing squares.
    #[inline(always)]
    fn king_jump(&self, sq: u8, dir: Direction, captured: u32) -> Option<(u8, u32)> {
        let (_, victim) = slide(sq, dir, self.occupied);
        if victim == NONE {
            return None;
        }
        let victim_bit = 1u32 << victim;
        if self.enemy & victim_bit == 0 || captured & victim_bit != 0 {
            return None;
        }
        let (landings, _) = slide(victim, dir, self.occupied);
        if landings == 0 {
            None
        } else {
            Some((victim, landings))
        }
    }

    /// Can a king that arrived on `sq` moving in `arrived` capture again?
    /// (Back the way it came the piece it just jumped blocks it.)
    #[inline(always)]
    fn king_can_continue(&self, sq: u8, arrived: Direction, captured: u32) -> bool {
        let back = reverse(arrived);
        Direction::ALL.into_iter().any(|dir| {
            dir != back && {
                let ray_hit = slide(sq, dir, self.occupied).1;
                ray_hit != NONE && {
                    let bit = 1u32 << ray_hit;
                    self.enemy & bit != 0
                        && captured & bit == 0
                        && NEIGHBOUR[ray_hit as usize][dir as usize] != NONE
                        && self.occupied & (1 << NEIGHBOUR[ray_hit as usize][dir as usize]) == 0
                }
            }
        })
    }

    fn emit(&mut self, len: usize, captured: u32, promoted: bool) {
        let to = self.path[len - 1];
        if self.dedup {
            for i in self.first_of_piece..self.list.len() {
                let other = self.list.get(i);
                if other.captured() == captured && other.to().index() as u8 == to {
                    return;
                }
            }
        }
        self.list
            .push(Move::capture(&self.path[..len], captured, promoted));
    }
}
