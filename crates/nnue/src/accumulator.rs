//! The accumulator stack: one frame per ply of the searched line, updated
//! lazily. `push` only records the move's feature changes; `evaluate`
//! brings the stack up to date from the last computed frame, so nodes that
//! are never evaluated (cut off first, or found in the [`EvalCache`]) cost
//! nothing but the record.

use crate::aligned::AlignedVec;
use crate::dense::KernelNet;
use crate::eval_cache::EvalCache;
use crate::features::{MAX_REMOVED, MoveDelta, PERSPECTIVES, PieceSquare, perspective_index};
use crate::quant::{QuantNet, output_to_cp};
use crate::simd::{Activations, Kernels};
use shashki_rules::{Move, Position};
use shashki_search::alphabeta::StaticEval;
use std::sync::Arc;

/// One ply of the line: its accumulators (both perspectives, `2 * ft` i16
/// in the flat buffer) and, until computed, the move that leads to it.
#[derive(Clone, Copy)]
struct Frame {
    computed: bool,
    delta: Option<MoveDelta>,
}

/// The network as a [`StaticEval`]: incremental accumulators, quantized
/// inference with the fastest kernels the CPU has.
pub struct NnueEval {
    net: Arc<QuantNet>,
    /// The weights in the kernels' layout (shared by forks).
    kernel_net: Arc<KernelNet>,
    activations: Activations,
    kernels: Kernels,
    name: String,
    frames: Vec<Frame>,
    /// `frames.len() * 2 * ft` values; frame `i` at `i * 2 * ft`.
    accs: AlignedVec<i16>,
    top: usize,
    /// What [`StaticEval::evaluate`] answered before (this evaluator's own:
    /// each search thread has one).
    cache: EvalCache,
}

impl NnueEval {
    /// An evaluator over `net` with the detected kernels.
    pub fn new(net: Arc<QuantNet>, name: impl Into<String>) -> NnueEval {
        NnueEval::with_kernels(net, name, Kernels::detect())
    }

    /// An evaluator with chosen kernels (tests and benchmarks).
    pub fn with_kernels(net: Arc<QuantNet>, name: impl Into<String>, kernels: Kernels) -> NnueEval {
        let kernel_net = Arc::new(KernelNet::new(&net));
        NnueEval::sharing(net, kernel_net, name.into(), kernels)
    }

    /// An evaluator over `net` whose weights as the kernels read them are
    /// `kernel_net`.
    fn sharing(
        net: Arc<QuantNet>,
        kernel_net: Arc<KernelNet>,
        name: String,
        kernels: Kernels,
    ) -> NnueEval {
        NnueEval {
            activations: Activations::new(net.arch.ft, net.arch.hidden),
            net,
            kernel_net,
            kernels,
            name,
            frames: Vec::new(),
            accs: AlignedVec::zeroed(0),
            top: 0,
            cache: EvalCache::default(),
        }
    }

    /// The network.
    pub fn net(&self) -> &Arc<QuantNet> {
        &self.net
    }

    fn width(&self) -> usize {
        2 * self.net.arch.ft
    }

    /// Computes frames up to the top from the last computed one.
    fn bring_up_to_date(&mut self) {
        let mut first = self.top;
        while !self.frames[first].computed {
            first -= 1; // frame 0 is always computed (reset).
        }
        let width = self.width();
        let ft = self.net.arch.ft;
        let weights = self.kernel_net.ft.as_slice();
        for i in first + 1..=self.top {
            let delta = self.frames[i].delta.expect("uncomputed frames hold a move");
            let (before, after) = self.accs.as_mut_slice().split_at_mut(i * width);
            let prev = &before[(i - 1) * width..];
            let next = &mut after[..width];
            if delta.is_quiet() {
                let feature = |piece: PieceSquare| PERSPECTIVES.map(|p| piece.feature(p));
                let (added, removed) = (feature(delta.added()), feature(delta.moving()));
                self.kernels
                    .update_quiet(next, prev, weights, added, removed);
            } else {
                for perspective in PERSPECTIVES {
                    let half = perspective_index(perspective) * ft;
                    let (next, prev) = (&mut next[half..half + ft], &prev[half..half + ft]);
                    let added = [delta.added().feature(perspective)];
                    let mut removed = [0usize; MAX_REMOVED];
                    let mut len = 0;
                    for (slot, piece) in removed.iter_mut().zip(delta.removed()) {
                        *slot = piece.feature(perspective);
                        len += 1;
                    }
                    self.kernels
                        .update(next, prev, weights, &added, &removed[..len]);
                }
            }
            self.frames[i].computed = true;
        }
    }

    /// The output units of the current node (side to move's view).
    pub fn output(&mut self, pos: &Position) -> i32 {
        if self.frames.is_empty() {
            self.reset(pos);
        }
        self.bring_up_to_date();
        let ft = self.net.arch.ft;
        let frame = &self.accs.as_slice()[self.top * 2 * ft..(self.top + 1) * 2 * ft];
        let stm = perspective_index(pos.side_to_move());
        let own = &frame[stm * ft..(stm + 1) * ft];
        let opp = &frame[(1 - stm) * ft..(2 - stm) * ft];
        let bucket = self.net.arch.stacks.bucket(pos);
        let kernels = self.kernels;
        self.kernel_net.propagate(
            &self.net,
            kernels,
            bucket,
            [own, opp],
            &mut self.activations,
        )
    }

    /// The current node's accumulators (White's perspective, then Black's),
    /// brought up to date (tests compare them with a full refresh).
    pub fn accumulators(&mut self) -> &[i16] {
        self.bring_up_to_date();
        let width = self.width();
        &self.accs.as_slice()[self.top * width..(self.top + 1) * width]
    }
}

impl StaticEval for NnueEval {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reset(&mut self, root: &Position) {
        let ft = self.net.arch.ft;
        if self.frames.is_empty() {
            self.frames.push(Frame {
                computed: true,
                delta: None,
            });
            self.accs.resize_zeroed(2 * ft);
        }
        self.top = 0;
        self.frames[0] = Frame {
            computed: true,
            delta: None,
        };
        for perspective in PERSPECTIVES {
            let half = perspective_index(perspective) * ft;
            let net = Arc::clone(&self.net);
            net.refresh(
                root,
                perspective,
                &mut self.accs.as_mut_slice()[half..half + ft],
            );
        }
    }

    fn push(&mut self, before: &Position, mv: &Move, _after: &Position) {
        if self.frames.is_empty() {
            self.reset(before);
        }
        self.top += 1;
        let frame = Frame {
            computed: false,
            delta: Some(MoveDelta::new(before, mv)),
        };
        if self.top == self.frames.len() {
            self.frames.push(frame);
            self.accs.resize_zeroed(self.frames.len() * self.width());
        } else {
            self.frames[self.top] = frame;
        }
    }

    fn pop(&mut self) {
        debug_assert!(self.top > 0, "pop without a push");
        self.top = self.top.saturating_sub(1);
    }

    fn evaluate(&mut self, pos: &Position) -> i32 {
        if let Some(value) = self.cache.get(pos) {
            return value;
        }
        let value = output_to_cp(self.output(pos));
        self.cache.put(pos, value);
        value
    }

    fn fork(&self) -> Box<dyn StaticEval> {
        Box::new(NnueEval::sharing(
            Arc::clone(&self.net),
            Arc::clone(&self.kernel_net),
            self.name.clone(),
            self.kernels,
        ))
    }
}
