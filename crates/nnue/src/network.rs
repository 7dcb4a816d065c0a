//! The architecture, the float weights (what training produces and the
//! export stores) and their plain float forward pass.
//!
//! ```text
//! 128 sparse features per perspective
//!   -> feature transformer (128 -> ft), one accumulator per perspective
//!   -> [side to move's | opponent's] (2 ft), clipped ReLU to [0, 1]
//!   -> dense 2 ft -> hidden[0], clipped ReLU
//!   -> dense hidden[0] -> hidden[1], clipped ReLU
//!   -> dense hidden[1] -> 1: the evaluation as a logit of the expected
//!      score; times EVAL_CP_PER_UNIT it is centi-men (a man is 100)
//! ```
//!
//! With output stacks ([`Stacks`]) the three dense layers come in one copy
//! per bucket, stored bucket after bucket in the same tensors (`l1.weight`
//! is `[buckets * hidden[0], 2 ft]`, `out.bias` `[buckets]`); a position
//! runs its bucket's copy. One bucket is exactly the layout above.

use crate::error::NnueError;
use crate::features::{NUM_FEATURES, PERSPECTIVES, active_features, perspective_index};
use crate::stacks::Stacks;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shashki_rules::Position;

/// Centi-men per unit of the output logit: an output of 1.0 (expected score
/// 0.73) reads as 200, two men up is about 0.88 expected score.
pub const EVAL_CP_PER_UNIT: i32 = 200;

/// Layer sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    /// Accumulator width per perspective (a multiple of 16).
    pub ft: usize,
    /// Widths of the two hidden dense layers (the first a multiple of 32).
    pub hidden: [usize; 2],
    /// Output layer stacks by phase (absent in files: one stack).
    #[serde(default, skip_serializing_if = "Stacks::is_single")]
    pub stacks: Stacks,
}

impl Default for Architecture {
    fn default() -> Self {
        Architecture {
            ft: 128,
            hidden: [32, 32],
            stacks: Stacks::Single,
        }
    }
}

impl Architecture {
    /// Checks the sizes the SIMD kernels need.
    pub fn validate(&self) -> Result<(), NnueError> {
        let fail = |what: String| Err(NnueError::Architecture(what));
        if self.ft == 0 || !self.ft.is_multiple_of(16) || self.ft > 2048 {
            return fail(format!(
                "ft = {} must be a multiple of 16 in 16..=2048",
                self.ft
            ));
        }
        if self.hidden[0] == 0 || !self.hidden[0].is_multiple_of(32) || self.hidden[0] > 1024 {
            return fail(format!(
                "hidden[0] = {} must be a multiple of 32 in 32..=1024",
                self.hidden[0]
            ));
        }
        if self.hidden[1] == 0 || self.hidden[1] > 1024 {
            return fail(format!(
                "hidden[1] = {} must be in 1..=1024",
                self.hidden[1]
            ));
        }
        Ok(())
    }

    /// Every tensor as `(name, shape)`, in file order. The feature
    /// transformer's weight is feature-major (`[features, ft]`, one row per
    /// feature, as the accumulator adds them); dense weights are `[out, in]`.
    pub fn tensor_shapes(&self) -> Vec<(&'static str, Vec<usize>)> {
        let [h1, h2] = self.hidden;
        let b = self.stacks.count();
        vec![
            ("ft.weight", vec![NUM_FEATURES, self.ft]),
            ("ft.bias", vec![self.ft]),
            ("l1.weight", vec![b * h1, 2 * self.ft]),
            ("l1.bias", vec![b * h1]),
            ("l2.weight", vec![b * h2, h1]),
            ("l2.bias", vec![b * h2]),
            ("out.weight", vec![b, h2]),
            ("out.bias", vec![b]),
        ]
    }

    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.stacks.count()
    }
}

/// The float weights, row-major in the shapes of
/// [`Architecture::tensor_shapes`].
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// Layer sizes.
    pub arch: Architecture,
    /// `[NUM_FEATURES][ft]`.
    pub ft_weight: Vec<f32>,
    /// `[ft]`.
    pub ft_bias: Vec<f32>,
    /// `[buckets * hidden0][2 ft]`.
    pub l1_weight: Vec<f32>,
    /// `[buckets * hidden0]`.
    pub l1_bias: Vec<f32>,
    /// `[buckets * hidden1][hidden0]`.
    pub l2_weight: Vec<f32>,
    /// `[buckets * hidden1]`.
    pub l2_bias: Vec<f32>,
    /// `[buckets][hidden1]`.
    pub out_weight: Vec<f32>,
    /// `[buckets]`.
    pub out_bias: Vec<f32>,
}

/// `[0, 1]` clipped ReLU.
fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// `out[o] = bias[o] + sum_i weight[o][i] * input[i]`.
fn dense(weight: &[f32], bias: &[f32], input: &[f32]) -> Vec<f32> {
    bias.iter()
        .enumerate()
        .map(|(o, b)| {
            let row = &weight[o * input.len()..(o + 1) * input.len()];
            b + row.iter().zip(input).map(|(w, x)| w * x).sum::<f32>()
        })
        .collect()
}

/// Bucket `b`'s part of a stacked tensor whose buckets hold `len` values each.
#[inline]
pub fn bucket_rows<T>(values: &[T], b: usize, len: usize) -> &[T] {
    &values[b * len..(b + 1) * len]
}

impl FloatNet {
    /// A freshly initialised net (seeded): the feature transformer small
    /// enough that a full board stays inside the clipped range, dense
    /// layers uniform in `+-1/sqrt(fan_in)` (within the quantization clip).
    pub fn random(arch: &Architecture, seed: u64) -> Result<FloatNet, NnueError> {
        arch.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut uniform = |len: usize, bound: f32| -> Vec<f32> {
            (0..len).map(|_| rng.random_range(-bound..=bound)).collect()
        };
        let [h1, h2] = arch.hidden;
        let (ft, b) = (arch.ft, arch.buckets());
        Ok(FloatNet {
            ft_weight: uniform(NUM_FEATURES * ft, 0.1),
            ft_bias: uniform(ft, 0.1).into_iter().map(|b| b + 0.3).collect(),
            l1_weight: uniform(b * h1 * 2 * ft, 1.0 / ((2 * ft) as f32).sqrt()),
            l1_bias: uniform(b * h1, 0.1),
            l2_weight: uniform(b * h2 * h1, 1.0 / (h1 as f32).sqrt()),
            l2_bias: uniform(b * h2, 0.1),
            out_weight: uniform(b * h2, 1.0 / (h2 as f32).sqrt()),
            out_bias: vec![0.0; b],
            arch: arch.clone(),
        })
    }

    /// The tensors as `(name, shape, values)` in file order.
    pub fn tensors(&self) -> Vec<(&'static str, Vec<usize>, &[f32])> {
        let data: [&[f32]; 8] = [
            &self.ft_weight,
            &self.ft_bias,
            &self.l1_weight,
            &self.l1_bias,
            &self.l2_weight,
            &self.l2_bias,
            &self.out_weight,
            &self.out_bias,
        ];
        self.arch
            .tensor_shapes()
            .into_iter()
            .zip(data)
            .map(|((name, shape), values)| (name, shape, values))
            .collect()
    }

    /// Builds a net from tensors looked up by name; every tensor must be
    /// present with its shape.
    pub fn from_tensors(
        arch: &Architecture,
        mut take: impl FnMut(&str, &[usize]) -> Result<Vec<f32>, NnueError>,
    ) -> Result<FloatNet, NnueError> {
        arch.validate()?;
        let shapes = arch.tensor_shapes();
        let mut values = Vec::with_capacity(shapes.len());
        for (name, shape) in &shapes {
            values.push(take(name, shape)?);
        }
        let mut it = values.into_iter();
        let mut next = || it.next().expect("one value per tensor");
        Ok(FloatNet {
            arch: arch.clone(),
            ft_weight: next(),
            ft_bias: next(),
            l1_weight: next(),
            l1_bias: next(),
            l2_weight: next(),
            l2_bias: next(),
            out_weight: next(),
            out_bias: next(),
        })
    }

    /// The float accumulator of one perspective.
    fn accumulator(&self, pos: &Position, perspective: shashki_rules::Color) -> Vec<f32> {
        let ft = self.arch.ft;
        let mut acc = self.ft_bias.clone();
        for f in active_features(pos, perspective) {
            for (a, w) in acc.iter_mut().zip(&self.ft_weight[f * ft..(f + 1) * ft]) {
                *a += w;
            }
        }
        acc
    }

    /// The output logit for `pos`, from the side to move's view.
    pub fn forward(&self, pos: &Position) -> f32 {
        let stm = pos.side_to_move();
        let accs = PERSPECTIVES.map(|p| self.accumulator(pos, p));
        let own = &accs[perspective_index(stm)];
        let opp = &accs[perspective_index(stm.opponent())];
        let input: Vec<f32> = own.iter().chain(opp).map(|&x| crelu(x)).collect();
        let [h1, h2] = self.arch.hidden;
        let b = self.arch.stacks.bucket(pos);
        let a1: Vec<f32> = dense(
            bucket_rows(&self.l1_weight, b, h1 * 2 * self.arch.ft),
            bucket_rows(&self.l1_bias, b, h1),
            &input,
        )
        .into_iter()
        .map(crelu)
        .collect();
        let a2: Vec<f32> = dense(
            bucket_rows(&self.l2_weight, b, h2 * h1),
            bucket_rows(&self.l2_bias, b, h2),
            &a1,
        )
        .into_iter()
        .map(crelu)
        .collect();
        dense(
            bucket_rows(&self.out_weight, b, h2),
            bucket_rows(&self.out_bias, b, 1),
            &a2,
        )[0]
    }
}
