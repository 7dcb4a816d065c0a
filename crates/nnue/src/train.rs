//! The float network in burn, for training: the same layers as
//! [`FloatNet`] (feature transformer on dense 0/1 feature vectors of both
//! perspectives, clipped ReLU, three dense layers), a loss on the expected
//! score, one Adam step with the quantization clip applied after it, and
//! conversion to and from [`FloatNet`] (what is saved and quantized).
//!
//! Output stacks ([`crate::Stacks`]): each dense layer computes every
//! bucket's outputs at once and a one-hot mask of the batch keeps the
//! position's bucket, so only that bucket's weights get a gradient.

use crate::features::{NUM_FEATURES, PERSPECTIVES, active_features};
use crate::layers::{LAYERS, Layer, LayerId};
use crate::network::{Architecture, FloatNet};
use crate::quant::FLOAT_WEIGHT_CLIP;
use crate::stacks::Stacks;
use burn::module::Module;
use burn::nn::Linear;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use shashki_rules::Position;
use shashki_tensor::{param, transpose};

/// First parameter id; fixed ids let a saved optimizer state find its
/// parameters again.
const PARAM_ID_BASE: u64 = 0x4E4E_5545_0000_0000;

/// The trainable network.
#[derive(Module, Debug)]
pub struct NnueModel {
    ft: Linear,
    l1: Linear,
    l2: Linear,
    out: Linear,
}

/// A batch: both perspectives' feature vectors (side to move's first) and
/// the targets (expected score of the side to move in [0, 1]).
#[derive(Clone, Debug)]
pub struct NnueBatch {
    /// `[n, 128]` 0/1 features of the side to move.
    pub own: Tensor<2>,
    /// `[n, 128]` 0/1 features of the opponent.
    pub opp: Tensor<2>,
    /// `[n, 1]` targets.
    pub target: Tensor<2>,
    /// `[n, buckets]` one-hot output bucket of each position (`None`: one stack).
    pub bucket: Option<Tensor<2>>,
}

impl NnueBatch {
    /// Encodes positions and their targets on `device` for a single-stack net.
    pub fn new(positions: &[Position], targets: &[f32], device: &Device) -> NnueBatch {
        NnueBatch::for_stacks(Stacks::Single, positions, targets, device)
    }

    /// Encodes positions, their targets and their output buckets under
    /// `stacks` on `device`.
    pub fn for_stacks(
        stacks: Stacks,
        positions: &[Position],
        targets: &[f32],
        device: &Device,
    ) -> NnueBatch {
        assert_eq!(positions.len(), targets.len());
        let n = positions.len();
        let mut own = vec![0.0f32; n * NUM_FEATURES];
        let mut opp = vec![0.0f32; n * NUM_FEATURES];
        for (i, pos) in positions.iter().enumerate() {
            let stm = pos.side_to_move();
            for p in PERSPECTIVES {
                let rows = if p == stm { &mut own } else { &mut opp };
                for f in active_features(pos, p) {
                    rows[i * NUM_FEATURES + f] = 1.0;
                }
            }
        }
        let tensor = |data: Vec<f32>, cols: usize| {
            Tensor::from_data(TensorData::new(data, [n, cols]), device)
        };
        let b = stacks.count();
        let bucket = (b > 1).then(|| {
            let mut mask = vec![0.0f32; n * b];
            for (i, pos) in positions.iter().enumerate() {
                mask[i * b + stacks.bucket(pos)] = 1.0;
            }
            tensor(mask, b)
        });
        NnueBatch {
            own: tensor(own, NUM_FEATURES),
            opp: tensor(opp, NUM_FEATURES),
            target: tensor(targets.to_vec(), 1),
            bucket,
        }
    }
}

/// Inputs and outputs of layer `id` as one burn `Linear` (its stacks side
/// by side).
fn burn_shape(id: LayerId, arch: &Architecture) -> (usize, usize) {
    let (input, output) = id.widths(arch);
    (input, id.copies(arch) * output)
}

/// A tensor of the float model on the host (its data is always `f32`).
fn host<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    shashki_tensor::host(tensor).expect("float tensor data")
}

impl NnueModel {
    /// The model holding `net`'s weights on `device` (an autodiff device to train).
    pub fn from_float(net: &FloatNet, device: &Device) -> NnueModel {
        let mut next = 0;
        let [ft, l1, l2, out] = LAYERS.map(|id| {
            let layer = net.layer(id);
            let (din, dout) = burn_shape(id, &net.arch);
            // burn's Linear is [in, out]; stacked layers: output column
            // `bucket * width + j`.
            let weight = if id.input_major() {
                layer.weight.clone()
            } else {
                transpose(&layer.weight, dout, din)
            };
            let weight = Tensor::from_data(TensorData::new(weight, [din, dout]), device);
            let bias = Tensor::from_data(TensorData::new(layer.bias.clone(), [dout]), device);
            next += 2;
            Linear {
                weight: param(PARAM_ID_BASE + next - 2, weight),
                bias: Some(param(PARAM_ID_BASE + next - 1, bias)),
            }
        });
        NnueModel { ft, l1, l2, out }
    }

    /// The weights back on the host.
    pub fn to_float(&self, arch: &Architecture) -> FloatNet {
        let linears = [&self.ft, &self.l1, &self.l2, &self.out];
        let layers = std::array::from_fn(|i| {
            let (id, linear) = (LAYERS[i], linears[i]);
            let (din, dout) = burn_shape(id, arch);
            let weight = host(linear.weight.val());
            Layer {
                weight: if id.input_major() {
                    weight
                } else {
                    transpose(&weight, din, dout)
                },
                bias: host(linear.bias.as_ref().expect("layers have biases").val()),
            }
        });
        FloatNet::from_layers(arch, layers)
    }

    /// Output logits `[n, 1]`; `bucket` is the batch's one-hot bucket mask
    /// (`None` for a single-stack net).
    pub fn forward(&self, own: Tensor<2>, opp: Tensor<2>, bucket: Option<&Tensor<2>>) -> Tensor<2> {
        let acc = Tensor::cat(vec![self.ft.forward(own), self.ft.forward(opp)], 1);
        let x = acc.clamp(0.0, 1.0);
        let x = select_bucket(self.l1.forward(x).clamp(0.0, 1.0), bucket);
        let x = select_bucket(self.l2.forward(x).clamp(0.0, 1.0), bucket);
        select_bucket(self.out.forward(x), bucket)
    }

    /// Mean squared error between the predicted expected score
    /// (`sigmoid(logit)`) and the target, as Stockfish's trainer does.
    pub fn loss(&self, batch: &NnueBatch) -> Tensor<1> {
        let predicted =
            sigmoid(self.forward(batch.own.clone(), batch.opp.clone(), batch.bucket.as_ref()));
        let diff = predicted - batch.target.clone();
        (diff.clone() * diff).mean()
    }

    /// Clips the hidden dense weights to what i8 quantization represents.
    fn clip(self) -> NnueModel {
        let clip = |l: Linear| Linear {
            weight: l.weight.map(|w| {
                let require_grad = w.is_require_grad();
                w.clamp(-FLOAT_WEIGHT_CLIP, FLOAT_WEIGHT_CLIP)
                    .detach()
                    .set_require_grad(require_grad)
            }),
            bias: l.bias,
        };
        NnueModel {
            ft: self.ft,
            l1: clip(self.l1),
            l2: clip(self.l2),
            out: self.out,
        }
    }
}

/// Keeps each row's bucket of a stacked layer's output: `[n, buckets * w]`
/// -> `[n, w]` by the one-hot `mask` `[n, buckets]` (no mask: unchanged).
fn select_bucket(x: Tensor<2>, mask: Option<&Tensor<2>>) -> Tensor<2> {
    let Some(mask) = mask else {
        return x;
    };
    let [n, width] = x.dims();
    let buckets = mask.dims()[1];
    let w = width / buckets;
    let x: Tensor<3> = x.reshape([n, buckets, w]);
    let mask: Tensor<3> = mask.clone().reshape([n, buckets, 1]);
    (x * mask).sum_dim(1).reshape([n, w])
}

/// Adam with burn's defaults.
pub fn adam() -> ModuleOptimizer {
    AdamConfig::new().init()
}

/// One training step on an autodiff device: returns the updated model
/// (hidden weights clipped for quantization) and the loss before the update.
pub fn train_step(
    model: NnueModel,
    optimizer: &mut ModuleOptimizer,
    batch: &NnueBatch,
    learning_rate: f64,
) -> (NnueModel, f32) {
    let loss = model.loss(batch);
    let value = host(loss.clone())[0];
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    let model = optimizer.step(learning_rate, model, grads);
    (model.clip(), value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use shashki_rules::Game;

    fn positions(count: usize) -> Vec<Position> {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut out = Vec::new();
        while out.len() < count {
            let mut game = Game::new(Position::startpos());
            while !game.is_over() && out.len() < count {
                let moves = game.legal_moves();
                game.play(&moves[rng.random_range(0..moves.len())]);
                out.push(*game.position());
            }
        }
        out
    }

    #[test]
    fn burn_model_matches_the_host_float_net() {
        for stacks in Stacks::ALL {
            let arch = Architecture {
                stacks,
                ..Architecture::default()
            };
            let net = FloatNet::random(&arch, 3).unwrap();
            let device = Device::flex();
            let model = NnueModel::from_float(&net, &device);
            assert_eq!(model.to_float(&net.arch), net);
            let positions = positions(64);
            let batch = NnueBatch::for_stacks(stacks, &positions, &vec![0.5; 64], &device);
            let out = host(model.forward(batch.own, batch.opp, batch.bucket.as_ref()));
            for (pos, value) in positions.iter().zip(out) {
                let expected = net.forward(pos);
                assert!(
                    (value - expected).abs() < 1e-4,
                    "{stacks}: {value} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn training_lowers_the_loss_and_respects_the_clip() {
        let net = FloatNet::random(&Architecture::default(), 4).unwrap();
        let device = Device::flex().autodiff();
        let mut model = NnueModel::from_float(&net, &device);
        let mut optimizer = adam();
        // Target: the material balance of the side to move, squashed.
        let positions = positions(256);
        let targets: Vec<f32> = positions
            .iter()
            .map(|p| {
                let own = p.pieces(p.side_to_move()).count_ones() as f32;
                let opp = p.pieces(p.side_to_move().opponent()).count_ones() as f32;
                1.0 / (1.0 + (-(own - opp) / 2.0).exp())
            })
            .collect();
        let batch = NnueBatch::new(&positions, &targets, &device);
        let mut first = None;
        let mut last = 0.0;
        for _ in 0..60 {
            let (next, loss) = train_step(model, &mut optimizer, &batch, 1e-2);
            model = next;
            first.get_or_insert(loss);
            last = loss;
        }
        let first = first.unwrap();
        assert!(last < first * 0.5, "loss {first} -> {last}");
        let trained = model.to_float(&net.arch);
        let max = trained
            .l1
            .weight
            .iter()
            .chain(&trained.l2.weight)
            .fold(0.0f32, |m, w| m.max(w.abs()));
        assert!(max <= FLOAT_WEIGHT_CLIP, "{max}");
    }
}
