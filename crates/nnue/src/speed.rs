//! The speed of each network layout against the hand evaluation, measured
//! in one run so the figures share the machine's load (issue 24: every
//! layout at least 0.4x the hand evaluation's nodes per second).
//!
//! Two measures, rounds interleaved (hand, layout 1, layout 2, ..., then
//! again) and the best round kept, which is what a noisy shared machine
//! allows:
//! - nodes per second of fixed-depth single-threaded searches from a few
//!   positions (an untrained net of the layout: it costs what a trained one
//!   costs, though its trees differ);
//! - nanoseconds per incremental evaluation (a move pushed, evaluated and
//!   popped) with each kernel, with a checksum of the outputs that must be
//!   equal across kernels.

use crate::{Architecture, FloatNet, Kernels, NnueEval, QuantNet};
use shashki_rules::{Game, Position};
use shashki_search::alphabeta::{AbConfig, AlphaBeta, StaticEval};
use shashki_search::limits::SearchLimits;
use std::sync::Arc;
use std::time::Instant;

/// Positions searched: the start and a symmetrical middlegame.
pub fn speed_positions() -> Vec<(&'static str, Position)> {
    vec![
        ("start", Position::startpos()),
        (
            "middlegame",
            Position::from_fen(
                "W:Wa1,c1,e1,b2,d2,h2,c3,e3,g3,d4,f4:Ba7,c7,e7,g7,b6,d6,f6,h6,a5,c5,g5",
            )
            .expect("a valid FEN"),
        ),
    ]
}

/// One evaluator to measure: `None` is the hand evaluation.
pub struct Contender {
    /// Its name in the table.
    pub name: String,
    /// The network, or `None` for the hand evaluation.
    pub net: Option<Arc<QuantNet>>,
}

impl Contender {
    /// The hand evaluation.
    pub fn hand() -> Contender {
        Contender {
            name: "hand".into(),
            net: None,
        }
    }

    /// An untrained net of `arch` (seed 1).
    pub fn layout(arch: &Architecture) -> Result<Contender, crate::NnueError> {
        let net = QuantNet::quantize(&FloatNet::random(arch, 1)?);
        Ok(Contender {
            name: format!("ft {} {:?} {}", arch.ft, arch.hidden, arch.stacks),
            net: Some(Arc::new(net)),
        })
    }

    fn engine(&self) -> AlphaBeta {
        let config = AbConfig::default();
        match &self.net {
            None => AlphaBeta::new(config),
            Some(net) => AlphaBeta::with_eval(
                config,
                Box::new(NnueEval::new(Arc::clone(net), self.name.clone())),
            ),
        }
    }
}

/// Best nodes per second of each contender on each position, over
/// `rounds` interleaved rounds of depth-`depth` searches:
/// `result[contender][position]`.
pub fn search_speed(contenders: &[Contender], depth: u32, rounds: usize) -> Vec<Vec<f64>> {
    let positions = speed_positions();
    let mut best = vec![vec![0.0f64; positions.len()]; contenders.len()];
    for _ in 0..rounds.max(1) {
        for (c, contender) in contenders.iter().enumerate() {
            let mut engine = contender.engine();
            for (p, (_, pos)) in positions.iter().enumerate() {
                let start = Instant::now();
                let result = engine.search(&Game::new(*pos), &SearchLimits::depth(depth));
                let nps = result.nodes as f64 / start.elapsed().as_secs_f64();
                best[c][p] = best[c][p].max(nps);
            }
        }
    }
    best
}

/// Best nanoseconds per incremental evaluation of `net` with `kernels`
/// over `rounds` rounds of `evals` evaluations, and the checksum (wrapping
/// sum) of the outputs.
pub fn eval_cost(net: &Arc<QuantNet>, kernels: Kernels, evals: usize, rounds: usize) -> (f64, i64) {
    let pos = Position::from_fen("W:Wa1,c1,e1,b2,f2,c3,e3,g3,d4:Bb6,d6,f6,h6,a7,e7,g7,d8,h8")
        .expect("a valid FEN");
    let moves = pos.legal_moves();
    let mut eval = NnueEval::with_kernels(Arc::clone(net), "speed", kernels);
    eval.reset(&pos);
    let mut best = f64::MAX;
    let mut checksum = 0i64;
    for _ in 0..rounds.max(1) {
        checksum = 0;
        let start = Instant::now();
        for i in 0..evals {
            let mv = moves[i % moves.len()];
            let after = pos.make_move(&mv);
            eval.push(&pos, &mv, &after);
            checksum = checksum.wrapping_add(i64::from(eval.output(&after)));
            eval.pop();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / evals.max(1) as f64);
    }
    (best, checksum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stacks;

    #[test]
    fn every_kernel_gives_the_same_checksum_for_every_layout() {
        for stacks in Stacks::ALL {
            let arch = Architecture {
                ft: 256,
                stacks,
                ..Architecture::default()
            };
            let contender = Contender::layout(&arch).unwrap();
            let net = contender.net.unwrap();
            let sums: Vec<i64> = Kernels::available()
                .into_iter()
                .map(|k| eval_cost(&net, k, 200, 1).1)
                .collect();
            assert!(sums.windows(2).all(|w| w[0] == w[1]), "{stacks}: {sums:?}");
        }
        let speeds = search_speed(&[Contender::hand()], 3, 1);
        assert!(speeds[0].iter().all(|&nps| nps > 0.0));
    }
}
