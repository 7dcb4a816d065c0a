//! Legal move generation for Russian checkers.
//!
//! Captures are mandatory with free choice among them (no majority rule).
//! A capture is a depth-first walk over landing squares in which the jumped
//! pieces stay on the board until the move ends (Turkish strike): they block
//! and cannot be jumped twice, while the mover's start square counts as empty.
//! A man that reaches the last rank mid-capture goes on as a king. A king
//! must land where its capture can continue, if such a landing exists.
//!
//! Speed: the pieces that can capture are found with whole-board shifts (men)
//! and one ray scan per direction (kings), so the walk starts only from them
//! and positions without captures never walk at all. The same walk either
//! fills a [`MoveList`] or only counts (perft's last ply), through [`Sink`].

use crate::bitboard::{Direction, NEIGHBOUR, NONE, RAY, jump_shift, nearest, shift, slide};
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

/// The direction pointing back the way we came.
#[inline(always)]
const fn reverse(dir: Direction) -> Direction {
    Direction::ALL[3 - dir as usize]
}

/// `STEP[sq][dir]`: the bit of the adjacent square (0 off the board).
const STEP: [[u32; 4]; 32] = {
    let mut table = [[0u32; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let mut d = 0;
        while d < 4 {
            let n = NEIGHBOUR[sq][d];
            if n != NONE {
                table[sq][d] = 1 << n;
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// `JUMP[sq][dir]`: the square two steps away (a man's landing), or [`NONE`].
const JUMP: [[u8; 4]; 32] = {
    let mut table = [[NONE; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let mut d = 0;
        while d < 4 {
            let n = NEIGHBOUR[sq][d];
            if n != NONE {
                table[sq][d] = NEIGHBOUR[n as usize][d];
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// `JUMP_BIT[sq][dir]`: the bit of [`JUMP`] (0 off the board).
const JUMP_BIT: [[u32; 4]; 32] = {
    let mut table = [[0u32; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let mut d = 0;
        while d < 4 {
            if JUMP[sq][d] != NONE {
                table[sq][d] = 1 << JUMP[sq][d];
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// Squares adjacent to `sq` in any direction.
const ADJACENT: [u32; 32] = {
    let mut table = [0u32; 32];
    let mut sq = 0;
    while sq < 32 {
        table[sq] = STEP[sq][0] | STEP[sq][1] | STEP[sq][2] | STEP[sq][3];
        sq += 1;
    }
    table
};

/// The side-to-move view of a position that generation works on.
#[derive(Clone, Copy)]
struct Sides {
    us: u32,
    them: u32,
    kings: u32,
    empty: u32,
    side: Color,
}

impl Sides {
    /// The view from the side to move.
    #[inline(always)]
    fn of(pos: &Position) -> Sides {
        let side = pos.side_to_move();
        Sides {
            us: pos.pieces(side),
            them: pos.pieces(side.opponent()),
            kings: pos.kings(),
            empty: pos.empty(),
            side,
        }
    }

    /// For each direction, the squares from which a man could jump an
    /// enemy piece in that direction (an enemy next to it, an empty square
    /// behind), whatever stands on the square itself.
    #[inline(always)]
    fn jump_sources(&self) -> [u32; 4] {
        // Written out so every shift has a constant direction.
        let source = |back: Direction| shift(self.them, back) & jump_shift(self.empty, back);
        [
            source(reverse(Direction::UpLeft)),
            source(reverse(Direction::UpRight)),
            source(reverse(Direction::DownLeft)),
            source(reverse(Direction::DownRight)),
        ]
    }

    /// Our men that can capture.
    #[inline(always)]
    fn man_capturers(&self) -> u32 {
        let [a, b, c, d] = self.jump_sources();
        self.us & !self.kings & (a | b | c | d)
    }

    /// Our kings that can capture.
    #[inline(always)]
    fn king_capturers(&self) -> u32 {
        let mut from = 0;
        for king in Squares(self.us & self.kings) {
            if king_can_capture(king.index() as u8, NO_DIRECTION, self.them, !self.empty, 0) {
                from |= king.bit();
            }
        }
        from
    }

    /// For each forward direction, our men that can step that way.
    #[inline(always)]
    fn men_steps(&self) -> [(Direction, u32); 2] {
        let men = self.us & !self.kings;
        // Matched per side so every shift has a constant direction.
        let step = |dir: Direction| (dir, men & shift(self.empty, reverse(dir)));
        match self.side {
            Color::White => [step(Direction::UpLeft), step(Direction::UpRight)],
            Color::Black => [step(Direction::DownLeft), step(Direction::DownRight)],
        }
    }

    /// Number of quiet moves (the caller knows there is no capture).
    #[inline(always)]
    fn count_quiet(&self) -> usize {
        let [(_, left), (_, right)] = self.men_steps();
        let mut count = left.count_ones() + right.count_ones();
        let occupied = !self.empty;
        for king in Squares(self.us & self.kings) {
            let sq = king.index() as u8;
            for dir in Direction::ALL {
                count += slide(sq, dir, occupied).0.count_ones();
            }
        }
        count as usize
    }

    fn generate_quiet(&self, list: &mut MoveList) {
        let promotion = self.side.promotion_rank();
        for (dir, movers) in self.men_steps() {
            for from in Squares(movers) {
                let to = NEIGHBOUR[from.index()][dir as usize];
                list.push(Move::quiet(
                    from.index() as u8,
                    to,
                    promotion & (1 << to) != 0,
                ));
            }
        }
        let occupied = !self.empty;
        for king in Squares(self.us & self.kings) {
            let from = king.index() as u8;
            for dir in Direction::ALL {
                for to in Squares(slide(from, dir, occupied).0) {
                    list.push(Move::quiet(from, to.index() as u8, false));
                }
            }
        }
    }

    /// Walks every capture of the pieces in `men` and `kings` into `sink`.
    #[inline(always)]
    fn walk_captures<S: Sink>(&self, men: u32, kings: u32, sink: &mut S) {
        let mut walk = CaptureWalk {
            sink,
            enemy: self.them,
            occupied: 0,
            promotion: self.side.promotion_rank(),
            path: [0; MAX_PATH],
        };
        let all = !self.empty;
        for from in Squares(men | kings) {
            let sq = from.index() as u8;
            walk.occupied = all & !from.bit();
            walk.path[0] = sq;
            walk.sink.begin_piece();
            if kings & from.bit() != 0 {
                walk.king(sq, 0, 1, false);
            } else {
                walk.man(sq, 0, 1);
            }
        }
    }
}

/// `skip` value of [`king_can_capture`] that skips no direction.
const NO_DIRECTION: usize = 4;

/// Can a king on `sq` capture, looking in every direction but `skip` (a
/// direction index, or [`NO_DIRECTION`]), with `occupied` blocking and the
/// `captured` pieces not jumpable?
#[inline(always)]
fn king_can_capture(sq: u8, skip: usize, enemy: u32, occupied: u32, captured: u32) -> bool {
    let free = !occupied;
    let targets = enemy & !captured;
    for d in 0..4 {
        if d == skip {
            continue;
        }
        let blockers = RAY[sq as usize][d] & occupied;
        if blockers == 0 {
            continue;
        }
        let hit = nearest(blockers, Direction::ALL[d]);
        if targets & (1 << hit) != 0 && free & STEP[hit as usize][d] != 0 {
            return true;
        }
    }
    false
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
        let sides = Sides::of(self);
        let men = sides.man_capturers();
        let kings = sides.king_capturers();
        if men | kings == 0 {
            sides.generate_quiet(list);
        } else {
            let mut sink = ListSink {
                list,
                dedup: mode == PathMode::Distinct,
                first_of_piece: 0,
            };
            sides.walk_captures(men, kings, &mut sink);
        }
    }

    /// True if the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        let sides = Sides::of(self);
        sides.man_capturers() != 0 || sides.king_capturers() != 0
    }

    /// True if the opponent could capture were it to move: a threat the
    /// side to move must meet (a search looks further at such a position).
    #[inline]
    pub fn threatened(&self) -> bool {
        let side = self.side_to_move().opponent();
        let sides = Sides {
            us: self.pieces(side),
            them: self.pieces(side.opponent()),
            kings: self.kings(),
            empty: self.empty(),
            side,
        };
        sides.man_capturers() != 0 || sides.king_capturers() != 0
    }

    /// Number of legal moves (rule 9), without building the list (perft's
    /// bulk counting at the last ply).
    #[inline]
    pub fn count_moves(&self) -> usize {
        let sides = Sides::of(self);
        let sources = sides.jump_sources();
        let any_source = sources[0] | sources[1] | sources[2] | sources[3];
        let men = sides.us & !sides.kings;
        let capturing_men = men & any_source;
        let kings = sides.king_capturers();
        if capturing_men | kings == 0 {
            return sides.count_quiet();
        }
        // A man's single jump that lands where no further jump is possible
        // and not on the last rank is one move, counted from the bitboards.
        // Men with any other jump are walked. (From the landing square the
        // way back is over the piece just taken; every other direction is
        // judged on the board as it was, since only the start square was
        // vacated and it lies in the way back.)
        let promotion = sides.side.promotion_rank();
        let mut walked_men = 0;
        for dir in Direction::ALL {
            let movers = men & sources[dir as usize];
            let back = reverse(dir);
            let mut further = 0;
            for other in Direction::ALL {
                if other != back {
                    further |= sources[other as usize];
                }
            }
            let landings = jump_shift(movers, dir);
            walked_men |= jump_shift(landings & (further | promotion), back);
        }
        let simple_men = capturing_men & !walked_men;
        let mut count = 0;
        for source in sources {
            count += (simple_men & source).count_ones() as usize;
        }
        if walked_men | kings != 0 {
            let mut sink = CountSink::default();
            sides.walk_captures(walked_men, kings, &mut sink);
            if sink.overflow {
                // More multi-captures of one piece than the counter tracks:
                // count them the slow way (never seen in real positions).
                return self.legal_moves().len();
            }
            count += sink.count;
        }
        count
    }
}

impl Position {
    /// The sum over every legal move of the number of legal replies: perft
    /// at depth 2 with bulk counting. Quiet moves are made straight from
    /// the bitboards, without building a [`Move`].
    pub(crate) fn count_replies(&self) -> u64 {
        let sides = Sides::of(self);
        let men = sides.man_capturers();
        let kings = sides.king_capturers();
        if men | kings != 0 {
            let mut list = MoveList::new();
            let mut sink = ListSink {
                list: &mut list,
                dedup: true,
                first_of_piece: 0,
            };
            sides.walk_captures(men, kings, &mut sink);
            return list
                .iter()
                .map(|mv| self.make_move(mv).count_moves() as u64)
                .sum();
        }
        let mut total = 0;
        let promotion = sides.side.promotion_rank();
        for (dir, movers) in sides.men_steps() {
            for from in Squares(movers) {
                let to = NEIGHBOUR[from.index()][dir as usize];
                let child = self.make_quiet(from.index() as u8, to, promotion & (1 << to) != 0);
                total += child.count_moves() as u64;
            }
        }
        let occupied = !sides.empty;
        for king in Squares(sides.us & sides.kings) {
            let from = king.index() as u8;
            for dir in Direction::ALL {
                for to in Squares(slide(from, dir, occupied).0) {
                    let child = self.make_quiet(from, to.index() as u8, false);
                    total += child.count_moves() as u64;
                }
            }
        }
        total
    }
}

/// Receives the finished capture paths of a walk.
trait Sink {
    /// A new moving piece starts (duplicates only share a start square).
    fn begin_piece(&mut self);
    /// One complete capture path, start first.
    fn emit(&mut self, path: &[u8], captured: u32, promoted: bool);
}

/// Collects moves, optionally dropping paths that repeat an earlier move's
/// (start, end, captured set).
struct ListSink<'a> {
    list: &'a mut MoveList,
    dedup: bool,
    first_of_piece: usize,
}

impl Sink for ListSink<'_> {
    #[inline(always)]
    fn begin_piece(&mut self) {
        self.first_of_piece = self.list.len();
    }

    #[inline(always)]
    fn emit(&mut self, path: &[u8], captured: u32, promoted: bool) {
        // A single capture has one path only; duplicates need two or more.
        if self.dedup && captured & (captured - 1) != 0 {
            let to = path[path.len() - 1];
            for i in self.first_of_piece..self.list.len() {
                let other = self.list.get(i);
                if other.captured() == captured && other.to().index() as u8 == to {
                    return;
                }
            }
        }
        self.list.push(Move::capture(path, captured, promoted));
    }
}

/// How many distinct multi-captures of one piece [`CountSink`] remembers.
const COUNT_SEEN: usize = 16;

/// Counts distinct moves without building them.
struct CountSink {
    count: usize,
    /// (end << 32 | captured) of this piece's multi-captures so far.
    seen: [u64; COUNT_SEEN],
    seen_len: usize,
    overflow: bool,
}

impl Default for CountSink {
    #[inline(always)]
    fn default() -> Self {
        CountSink {
            count: 0,
            seen: [0; COUNT_SEEN],
            seen_len: 0,
            overflow: false,
        }
    }
}

impl Sink for CountSink {
    #[inline(always)]
    fn begin_piece(&mut self) {
        self.seen_len = 0;
    }

    #[inline(always)]
    fn emit(&mut self, path: &[u8], captured: u32, _promoted: bool) {
        if captured & (captured - 1) != 0 {
            let key = (u64::from(path[path.len() - 1]) << 32) | u64::from(captured);
            if self.seen[..self.seen_len].contains(&key) {
                return;
            }
            if self.seen_len == COUNT_SEEN {
                self.overflow = true;
            } else {
                self.seen[self.seen_len] = key;
                self.seen_len += 1;
            }
        }
        self.count += 1;
    }
}

/// State of the depth-first capture search for one moving piece.
struct CaptureWalk<'a, S> {
    sink: &'a mut S,
    enemy: u32,
    /// Occupied squares minus the mover's start; jumped pieces stay in.
    occupied: u32,
    promotion: u32,
    path: [u8; MAX_PATH],
}

impl<S: Sink> CaptureWalk<'_, S> {
    fn man(&mut self, sq: u8, captured: u32, depth: usize) {
        let s = sq as usize;
        let targets = self.enemy & !captured & ADJACENT[s];
        let mut continued = false;
        if targets != 0 {
            let free = !self.occupied;
            for d in 0..4 {
                if targets & STEP[s][d] == 0 || free & JUMP_BIT[s][d] == 0 {
                    continue;
                }
                continued = true;
                let land = JUMP[s][d];
                let captured = captured | STEP[s][d];
                self.path[depth] = land;
                if self.promotion & (1 << land) != 0 {
                    // Promoted mid-capture: continue by the king's rules.
                    self.king(land, captured, depth + 1, true);
                } else {
                    self.man(land, captured, depth + 1);
                }
            }
        }
        if !continued && depth > 1 {
            self.sink.emit(&self.path[..depth], captured, false);
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
            let back = reverse(dir) as usize;
            let mut going_on = 0u32;
            for land in Squares(landings) {
                let l = land.index() as u8;
                if king_can_capture(l, back, self.enemy, self.occupied, captured) {
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
                    self.sink.emit(&self.path[..depth + 1], captured, promoted);
                }
            }
        }
        if !continued && depth > 1 {
            self.sink.emit(&self.path[..depth], captured, promoted);
        }
    }

    /// A king on `sq` jumping in `dir`: the victim and the landing squares.
    #[inline(always)]
    fn king_jump(&self, sq: u8, dir: Direction, captured: u32) -> Option<(u8, u32)> {
        let blockers = RAY[sq as usize][dir as usize] & self.occupied;
        if blockers == 0 {
            return None;
        }
        let victim = nearest(blockers, dir);
        let victim_bit = 1u32 << victim;
        if self.enemy & !captured & victim_bit == 0 {
            return None;
        }
        let (landings, _) = slide(victim, dir, self.occupied);
        if landings == 0 {
            None
        } else {
            Some((victim, landings))
        }
    }
}
