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
//! With output stacks ([`Stacks`](crate::stacks::Stacks)) the three dense layers come in one copy
//! per bucket, stored bucket after bucket in the same tensors (`l1.weight`
//! is `[buckets * hidden[0], 2 ft]`, `out.bias` `[buckets]`); a position
//! runs its bucket's copy. One bucket is exactly the layout above.

use crate::error::NnueError;
use crate::features::{PERSPECTIVES, active_features, perspective_index};
pub use crate::layers::Architecture;
use crate::layers::{BiasInit, LAYERS, Layer, LayerId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::Position;

/// Centi-men per unit of the output logit: an output of 1.0 (expected score
/// 0.73) reads as 200, two men up is about 0.88 expected score.
pub const EVAL_CP_PER_UNIT: i32 = 200;

/// The float weights, row-major in the shapes of [`LayerId`].
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// Layer sizes.
    pub arch: Architecture,
    /// The feature transformer.
    pub ft: Layer<f32, f32>,
    /// The first dense layer.
    pub l1: Layer<f32, f32>,
    /// The second dense layer.
    pub l2: Layer<f32, f32>,
    /// The output layer.
    pub out: Layer<f32, f32>,
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
    /// A freshly initialised net (seeded), each layer as [`LayerId`]
    /// says.
    pub fn random(arch: &Architecture, seed: u64) -> Result<FloatNet, NnueError> {
        arch.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut uniform = |len: usize, bound: f32, offset: f32| -> Vec<f32> {
            (0..len)
                .map(|_| rng.random_range(-bound..=bound) + offset)
                .collect()
        };
        let layers = LAYERS.map(|id| {
            let len = id.weight_shape(arch).iter().product();
            let weight = uniform(len, id.weight_bound(arch), 0.0);
            let bias = match id.bias_init() {
                BiasInit::Uniform { bound, offset } => uniform(id.bias_len(arch), bound, offset),
                BiasInit::Zero => vec![0.0; id.bias_len(arch)],
            };
            Layer { weight, bias }
        });
        Ok(FloatNet::from_layers(arch, layers))
    }

    /// The net of `layers`, in [`LAYERS`]' order.
    pub(crate) fn from_layers(arch: &Architecture, layers: [Layer<f32, f32>; 4]) -> FloatNet {
        let [ft, l1, l2, out] = layers;
        FloatNet {
            arch: arch.clone(),
            ft,
            l1,
            l2,
            out,
        }
    }

    /// The layer `id`.
    pub fn layer(&self, id: LayerId) -> &Layer<f32, f32> {
        match id {
            LayerId::Ft => &self.ft,
            LayerId::L1 => &self.l1,
            LayerId::L2 => &self.l2,
            LayerId::Out => &self.out,
        }
    }

    /// The tensors as `(name, shape, values)` in file order.
    pub fn tensors(&self) -> Vec<(&'static str, Vec<usize>, &[f32])> {
        LAYERS
            .iter()
            .flat_map(|&id| {
                let layer = self.layer(id);
                [
                    (
                        id.weight_name(),
                        id.weight_shape(&self.arch),
                        layer.weight.as_slice(),
                    ),
                    (
                        id.bias_name(),
                        vec![id.bias_len(&self.arch)],
                        layer.bias.as_slice(),
                    ),
                ]
            })
            .collect()
    }

    /// Builds a net from tensors looked up by name; every tensor must be
    /// present with its shape.
    pub fn from_tensors(
        arch: &Architecture,
        mut take: impl FnMut(&str, &[usize]) -> Result<Vec<f32>, NnueError>,
    ) -> Result<FloatNet, NnueError> {
        arch.validate()?;
        let mut layers = Vec::with_capacity(LAYERS.len());
        for id in LAYERS {
            layers.push(Layer {
                weight: take(id.weight_name(), &id.weight_shape(arch))?,
                bias: take(id.bias_name(), &[id.bias_len(arch)])?,
            });
        }
        let layers = layers.try_into().expect("one per layer");
        Ok(FloatNet::from_layers(arch, layers))
    }

    /// The float accumulator of one perspective.
    fn accumulator(&self, pos: &Position, perspective: shashki_rules::Color) -> Vec<f32> {
        let ft = self.arch.ft;
        let mut acc = self.ft.bias.clone();
        for f in active_features(pos, perspective) {
            for (a, w) in acc.iter_mut().zip(&self.ft.weight[f * ft..(f + 1) * ft]) {
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
            bucket_rows(&self.l1.weight, b, h1 * 2 * self.arch.ft),
            bucket_rows(&self.l1.bias, b, h1),
            &input,
        )
        .into_iter()
        .map(crelu)
        .collect();
        let a2: Vec<f32> = dense(
            bucket_rows(&self.l2.weight, b, h2 * h1),
            bucket_rows(&self.l2.bias, b, h2),
            &a1,
        )
        .into_iter()
        .map(crelu)
        .collect();
        dense(
            bucket_rows(&self.out.weight, b, h2),
            bucket_rows(&self.out.bias, b, 1),
            &a2,
        )[0]
    }
}
