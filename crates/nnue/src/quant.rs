//! Integer quantization and the integer forward pass.
//!
//! | tensor | type | scale |
//! |---|---|---|
//! | `ft.weight`, `ft.bias` | i16 | x 127 (`FT_SCALE`): an accumulator of 127 is an activation of 1.0 |
//! | `l1.weight`, `l2.weight` | i8 | x 64 (`WEIGHT_SCALE`), clipped to +-127 (float +-1.98) |
//! | `l1.bias`, `l2.bias`, `out.bias` | i32 | x 127 x 64 |
//! | `out.weight` | i16 | x 64 |
//!
//! Activations are u8 in `0..=127` (clipped ReLU). A dense layer sums
//! `bias + sum(w * a)` in i32 (scale 127 x 64), shifts right by 6 and
//! clips to `0..=127`. The output i32 (scale 127 x 64 per logit unit) becomes
//! centi-men as `floor(out * EVAL_CP_PER_UNIT / (127 * 64))`. All of it is
//! exact integer arithmetic, so every implementation (scalar, AVX2, numpy)
//! gives the same numbers; accumulator sums wrap in i16 like the SIMD lanes
//! (the quantization clip keeps real positions far from wrapping).

use crate::features::{NUM_FEATURES, PERSPECTIVES, active_features, perspective_index};
use crate::network::{Architecture, EVAL_CP_PER_UNIT, FloatNet, bucket_rows};
use crate::simd::Kernels;
use shashki_rules::Position;

/// Accumulator units per float unit.
pub const FT_SCALE: f32 = 127.0;
/// Dense-weight units per float unit.
pub const WEIGHT_SCALE: f32 = 64.0;
/// Right shift taking a dense sum (127 x 64) back to activation units (127).
pub const DENSE_SHIFT: u32 = 6;
/// Largest activation.
pub const ACTIVATION_MAX: i32 = 127;
/// Output units per logit unit.
pub const OUTPUT_SCALE: i32 = 127 * 64;
/// Largest |feature transformer value| after quantization: 25 of them (24
/// pieces and the bias) stay inside i16.
pub const FT_CLIP: i16 = 1300;
/// Largest |dense weight| after quantization (u8 x i8 pair sums stay in i16).
pub const WEIGHT_CLIP: i8 = 127;
/// The float clip training applies to the hidden dense weights so that
/// quantization never saturates them.
pub const FLOAT_WEIGHT_CLIP: f32 = 127.0 / 64.0;

/// The quantized network.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantNet {
    /// Layer sizes.
    pub arch: Architecture,
    /// `[NUM_FEATURES][ft]`.
    pub ft_weight: Vec<i16>,
    /// `[ft]`.
    pub ft_bias: Vec<i16>,
    /// `[buckets * hidden0][2 ft]`.
    pub l1_weight: Vec<i8>,
    /// `[buckets * hidden0]`.
    pub l1_bias: Vec<i32>,
    /// `[buckets * hidden1][hidden0]`.
    pub l2_weight: Vec<i8>,
    /// `[buckets * hidden1]`.
    pub l2_bias: Vec<i32>,
    /// `[buckets][hidden1]`.
    pub out_weight: Vec<i16>,
    /// `[buckets]`.
    pub out_bias: Vec<i32>,
}

fn round_clip(x: f32, scale: f32, clip: f32) -> f32 {
    (x * scale).round().clamp(-clip, clip)
}

/// Output units to centi-men (floor division, as numpy's `//`).
#[inline]
pub fn output_to_cp(out: i32) -> i32 {
    (i64::from(out) * i64::from(EVAL_CP_PER_UNIT)).div_euclid(i64::from(OUTPUT_SCALE)) as i32
}

impl QuantNet {
    /// Quantizes float weights (round to nearest, then clip).
    pub fn quantize(net: &FloatNet) -> QuantNet {
        let ft = |v: &[f32]| -> Vec<i16> {
            v.iter()
                .map(|&x| round_clip(x, FT_SCALE, f32::from(FT_CLIP)) as i16)
                .collect()
        };
        let w8 = |v: &[f32]| -> Vec<i8> {
            v.iter()
                .map(|&x| round_clip(x, WEIGHT_SCALE, f32::from(WEIGHT_CLIP)) as i8)
                .collect()
        };
        let bias = |v: &[f32]| -> Vec<i32> {
            let scale = FT_SCALE * WEIGHT_SCALE;
            v.iter()
                .map(|&x| round_clip(x, scale, 1.0e9) as i32)
                .collect()
        };
        QuantNet {
            arch: net.arch.clone(),
            ft_weight: ft(&net.ft_weight),
            ft_bias: ft(&net.ft_bias),
            l1_weight: w8(&net.l1_weight),
            l1_bias: bias(&net.l1_bias),
            l2_weight: w8(&net.l2_weight),
            l2_bias: bias(&net.l2_bias),
            out_weight: net
                .out_weight
                .iter()
                .map(|&x| round_clip(x, WEIGHT_SCALE, f32::from(i16::MAX)) as i16)
                .collect(),
            out_bias: bias(&net.out_bias),
        }
    }

    /// Checks that every vector has its architecture's length.
    pub fn check_lengths(&self) -> Result<(), String> {
        let [h1, h2] = self.arch.hidden;
        let (ft, b) = (self.arch.ft, self.arch.buckets());
        let lens = [
            ("ft.weight", self.ft_weight.len(), NUM_FEATURES * ft),
            ("ft.bias", self.ft_bias.len(), ft),
            ("l1.weight", self.l1_weight.len(), b * h1 * 2 * ft),
            ("l1.bias", self.l1_bias.len(), b * h1),
            ("l2.weight", self.l2_weight.len(), b * h2 * h1),
            ("l2.bias", self.l2_bias.len(), b * h2),
            ("out.weight", self.out_weight.len(), b * h2),
            ("out.bias", self.out_bias.len(), b),
        ];
        for (name, found, expected) in lens {
            if found != expected {
                return Err(format!("{name} has {found} values, expected {expected}"));
            }
        }
        Ok(())
    }

    /// The integer accumulator of one perspective, computed from scratch.
    pub fn refresh(&self, pos: &Position, perspective: shashki_rules::Color, acc: &mut [i16]) {
        let ft = self.arch.ft;
        acc.copy_from_slice(&self.ft_bias);
        for f in active_features(pos, perspective) {
            for (a, w) in acc.iter_mut().zip(&self.ft_weight[f * ft..(f + 1) * ft]) {
                *a = a.wrapping_add(*w);
            }
        }
    }

    /// The dense layers of output bucket `bucket` on the two accumulators
    /// (side to move's first), with `kernels`; returns output units.
    pub fn propagate(&self, kernels: Kernels, bucket: usize, own: &[i16], opp: &[i16]) -> i32 {
        let [h1, h2] = self.arch.hidden;
        let ft = self.arch.ft;
        let b = bucket;
        let mut input = [0u8; 2 * 2048];
        let input = &mut input[..2 * ft];
        kernels.crelu16(own, &mut input[..ft]);
        kernels.crelu16(opp, &mut input[ft..]);
        let mut a1 = [0u8; 1024];
        let a1 = &mut a1[..h1];
        kernels.dense_crelu(
            bucket_rows(&self.l1_weight, b, h1 * 2 * ft),
            bucket_rows(&self.l1_bias, b, h1),
            input,
            a1,
        );
        let mut a2 = [0u8; 1024];
        let a2 = &mut a2[..h2];
        kernels.dense_crelu(
            bucket_rows(&self.l2_weight, b, h2 * h1),
            bucket_rows(&self.l2_bias, b, h2),
            a1,
            a2,
        );
        self.out_bias[b]
            + bucket_rows(&self.out_weight, b, h2)
                .iter()
                .zip(a2.iter())
                .map(|(&w, &a)| i32::from(w) * i32::from(a))
                .sum::<i32>()
    }

    /// The integer reference: full refresh, plain loops, no SIMD. Output
    /// units from the side to move's view.
    pub fn reference_output(&self, pos: &Position) -> i32 {
        let ft = self.arch.ft;
        let mut accs = [vec![0i16; ft], vec![0i16; ft]];
        for (p, acc) in PERSPECTIVES.iter().zip(accs.iter_mut()) {
            self.refresh(pos, *p, acc);
        }
        let stm = pos.side_to_move();
        let own = &accs[perspective_index(stm)];
        let opp = &accs[perspective_index(stm.opponent())];
        let input: Vec<i32> = own
            .iter()
            .chain(opp)
            .map(|&x| i32::from(x).clamp(0, ACTIVATION_MAX))
            .collect();
        let layer = |weight: &[i8], bias: &[i32], input: &[i32]| -> Vec<i32> {
            bias.iter()
                .enumerate()
                .map(|(o, b)| {
                    let row = &weight[o * input.len()..(o + 1) * input.len()];
                    let sum = b + row
                        .iter()
                        .zip(input)
                        .map(|(&w, &a)| i32::from(w) * a)
                        .sum::<i32>();
                    (sum >> DENSE_SHIFT).clamp(0, ACTIVATION_MAX)
                })
                .collect()
        };
        let [h1, h2] = self.arch.hidden;
        let b = self.arch.stacks.bucket(pos);
        let a1 = layer(
            bucket_rows(&self.l1_weight, b, h1 * 2 * ft),
            bucket_rows(&self.l1_bias, b, h1),
            &input,
        );
        let a2 = layer(
            bucket_rows(&self.l2_weight, b, h2 * h1),
            bucket_rows(&self.l2_bias, b, h2),
            &a1,
        );
        self.out_bias[b]
            + bucket_rows(&self.out_weight, b, h2)
                .iter()
                .zip(&a2)
                .map(|(&w, &a)| i32::from(w) * a)
                .sum::<i32>()
    }
}
