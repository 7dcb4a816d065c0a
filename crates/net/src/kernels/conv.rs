//! One folded diagonal convolution of the hand-written net, in f32 or int8.
//!
//! Channels are padded with zeros to a multiple of 8 (inputs and outputs),
//! which the kernels need; padded outputs stay 0 (zero weights and bias).
//!
//! int8: weights are quantized once, per output channel, to `-127..=127`
//! (scale `max |w| / 127`); the activations entering the convolution are
//! quantized per position and layer from their own range (dynamic, so no
//! calibration set is needed and a position with small activations keeps
//! its resolution): to `0..=127` (scale `max / 127`) when none is negative,
//! which is every layer's case but a pooling block's second convolution
//! (ReLU, then the pooling bias); otherwise to `-63..=63` stored as `q + 64`
//! (scale `max |x| / 63`), the `64 * sum(w)` the shift adds taken off
//! again from a table made once per square and output. The i32 sums are
//! scaled back to f32, the bias added in f32.

use super::simd::{Isa, TapPlan, conv_f32, conv_i8, dequantize, min_max, quantize};
use crate::diag::SQUARES;

/// `n` rounded up to a multiple of 8.
pub(crate) fn pad8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// How a convolution's weights are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// f32 weights.
    F32,
    /// int8 weights and activations.
    Int8,
}

#[derive(Clone, Debug)]
enum Weights {
    /// `[taps][cin][cout]`.
    F32(Vec<f32>),
    Int8 {
        /// Packed `[taps][cin / 4][cout][4]`.
        weight: Vec<i8>,
        /// Per output channel.
        scale: Vec<f32>,
        /// `[32][cout]`: `64 * sum` of the weights on square `s`'s on-board
        /// taps, what the `+ 64` shift of signed activations adds.
        shift: Vec<i32>,
    },
}

/// A folded diagonal convolution (padded sizes `cin`, `cout`).
#[derive(Clone, Debug)]
pub(crate) struct Conv {
    plan: TapPlan,
    cin: usize,
    cout: usize,
    bias: Vec<f32>,
    weights: Weights,
}

/// Scratch buffers of the int8 form.
#[derive(Default)]
pub(crate) struct Scratch {
    x: Vec<u8>,
    acc: Vec<i32>,
    scale: Vec<f32>,
}

impl Conv {
    /// The convolution of `weight` in the file layout `[cout][cin][taps]`
    /// (batch norm folded in) and `bias` `[cout]`.
    pub(crate) fn new(weight: &[f32], bias: &[f32], cin: usize, taps: usize, form: Form) -> Conv {
        let cout = bias.len();
        assert_eq!(weight.len(), cout * cin * taps);
        let (pin, pout) = (pad8(cin), pad8(cout));
        let at = |o: usize, i: usize, t: usize| weight[(o * cin + i) * taps + t];
        let mut padded_bias = vec![0.0; pout];
        padded_bias[..cout].copy_from_slice(bias);
        let plan = TapPlan::new(taps);
        let weights = match form {
            Form::F32 => {
                let mut w = vec![0.0; taps * pin * pout];
                for t in 0..taps {
                    for i in 0..cin {
                        for o in 0..cout {
                            w[(t * pin + i) * pout + o] = at(o, i, t);
                        }
                    }
                }
                Weights::F32(w)
            }
            Form::Int8 => {
                let mut scale = vec![1.0f32; pout];
                let mut packed = vec![0i8; taps * pin * pout];
                for (o, scale) in scale.iter_mut().enumerate().take(cout) {
                    let max = weight[o * cin * taps..(o + 1) * cin * taps]
                        .iter()
                        .fold(0.0f32, |m, w| m.max(w.abs()));
                    if max > 0.0 {
                        *scale = max / 127.0;
                    }
                    for t in 0..taps {
                        for i in 0..cin {
                            let q = (at(o, i, t) / *scale).round().clamp(-127.0, 127.0);
                            packed[t * pin * pout + (i / 4) * 4 * pout + 4 * o + i % 4] = q as i8;
                        }
                    }
                }
                let mut shift = vec![0i32; SQUARES * pout];
                for s in 0..SQUARES {
                    for &(t, _) in plan.of(s) {
                        for i in 0..pin {
                            for o in 0..pout {
                                let q = packed[t * pin * pout + (i / 4) * 4 * pout + 4 * o + i % 4];
                                shift[s * pout + o] += 64 * i32::from(q);
                            }
                        }
                    }
                }
                Weights::Int8 {
                    weight: packed,
                    scale,
                    shift,
                }
            }
        };
        Conv {
            plan,
            cin: pin,
            cout: pout,
            bias: padded_bias,
            weights,
        }
    }

    /// Padded outputs.
    pub(crate) fn cout(&self) -> usize {
        self.cout
    }

    /// `x` `[32][cin]` (padded) -> `y` `[32][cout]` (padded).
    pub(crate) fn forward(&self, isa: Isa, x: &[f32], y: &mut [f32], scratch: &mut Scratch) {
        debug_assert_eq!(x.len(), SQUARES * self.cin);
        match &self.weights {
            Weights::F32(w) => conv_f32(isa, &self.plan, x, self.cin, w, &self.bias, y),
            Weights::Int8 {
                weight,
                scale,
                shift,
            } => {
                let (min, max) = min_max(isa, x);
                let signed = min < 0.0;
                let range = if signed { max.max(-min) } else { max };
                if range <= 0.0 || range.is_nan() {
                    for row in y.chunks_exact_mut(self.cout) {
                        row.copy_from_slice(&self.bias);
                    }
                    return;
                }
                let (levels, offset) = if signed { (63.0, 64.0) } else { (127.0, 0.0) };
                let x_scale = range / levels;
                // Round half up by truncation (the sum is never negative):
                // no call to `roundf` on baseline x86_64.
                quantize(isa, x, levels / range, offset + 0.5, &mut scratch.x);
                scratch.acc.resize(y.len(), 0);
                conv_i8(
                    isa,
                    &self.plan,
                    &scratch.x,
                    self.cin,
                    weight,
                    &mut scratch.acc,
                );
                scratch.scale.clear();
                scratch.scale.extend(scale.iter().map(|&s| s * x_scale));
                let shift = signed.then_some(shift.as_slice());
                dequantize(isa, &scratch.acc, shift, &scratch.scale, &self.bias, y);
            }
        }
    }
}
