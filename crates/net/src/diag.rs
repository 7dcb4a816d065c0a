//! The checkers-native network (`kind = "diag32"`): a residual tower over
//! the 32 playable squares whose convolutions mix each square with its
//! diagonal neighbours only.
//!
//! Activations are `[n * 32, channels]` (position-major, then square
//! `0..32` in the side to move's numbering). A diagonal convolution gathers,
//! for every square, the features of its taps (itself, the four squares one
//! diagonal step away and, with `jump_taps`, the four two steps away; zero
//! where a tap is off the board) into one row of `taps * channels` values,
//! and multiplies by a `[taps * in, out]` weight: one index select and one
//! matrix product, both differentiable on every burn backend. Against the
//! 8x8 net's 3x3 convolution that is 32 instead of 64 cells and 5 (or 9)
//! instead of 9 taps, and no work on light squares.
//!
//! Heads and pooling follow the 8x8 net: the KataGo pooling bias and the
//! value head pool `[mean, max]` over the 32 squares; the policy head gives
//! each start square 32 logits, one per end square (`from * 32 + to`).

use crate::config::NetConfig;
use crate::encoding::{CELL_OF_SQUARE, INPUT_PLANES, POLICY_LEN};
use crate::error::NetError;
use crate::model::{Builder, NetOutput, ValueMlp, export_bn, export_linear, host, push};
use crate::weights::{Init, NamedTensor};
use burn::module::{Module, Param};
use burn::nn::{BatchNorm, Linear};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// Playable squares.
pub const SQUARES: usize = 32;
/// The index of the all-zero row that stands for an off-board tap.
pub const OFF_BOARD: usize = SQUARES;
/// Tap offsets as (file, rank) steps, in tap order: the square itself, the
/// four one-step diagonals (up-left, up-right, down-left, down-right), then
/// the four two-step diagonals in the same order.
pub const TAP_STEPS: [(i32, i32); 9] = [
    (0, 0),
    (-1, 1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (-2, 2),
    (2, 2),
    (-2, -2),
    (2, -2),
];

/// The square at tap `tap` of square `square` (relative numbering,
/// `4 * rank + file / 2`), or [`OFF_BOARD`].
pub const fn tap_square(square: usize, tap: usize) -> usize {
    let rank = (square / 4) as i32;
    let file = (2 * (square % 4) + (square / 4) % 2) as i32;
    let (df, dr) = TAP_STEPS[tap];
    let (f, r) = (file + df, rank + dr);
    if f < 0 || f > 7 || r < 0 || r > 7 {
        OFF_BOARD
    } else {
        (4 * r + f / 2) as usize
    }
}

/// The gather index of a diagonal convolution with `taps` taps: entry
/// `square * taps + tap` is [`tap_square`]`(square, tap)`.
pub fn tap_index(taps: usize) -> Vec<i64> {
    (0..SQUARES)
        .flat_map(|square| (0..taps).map(move |tap| tap_square(square, tap) as i64))
        .collect()
}

/// The index tensors of one device: which cells of the 8x8 input are the
/// squares, and where each square's taps are.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    cells: Tensor<1, Int>,
    taps: Tensor<1, Int>,
    tap_count: usize,
}

impl Geometry {
    pub(crate) fn new(tap_count: usize, device: &Device) -> Geometry {
        let cells: Vec<i64> = CELL_OF_SQUARE.iter().map(|&c| c as i64).collect();
        let taps = tap_index(tap_count);
        let len = taps.len();
        Geometry {
            cells: Tensor::from_data(TensorData::new(cells, [SQUARES]), device),
            taps: Tensor::from_data(TensorData::new(taps, [len]), device),
            tap_count,
        }
    }

    /// `[n, 7, 8, 8]` planes -> `[n * 32, 7]`: the dark cells, square-major.
    pub(crate) fn squares(&self, input: Tensor<4>) -> Tensor<2> {
        let [n, planes, h, w] = input.dims();
        input
            .reshape([n, planes, h * w])
            .select(2, self.cells.clone())
            .swap_dims(1, 2)
            .reshape([n * SQUARES, planes])
    }

    /// `[n * 32, c]` -> `[n * 32, taps * c]`: each square's row followed by
    /// its neighbours' rows (zeros off the board).
    pub(crate) fn gather(&self, x: Tensor<2>) -> Tensor<2> {
        let [rows, c] = x.dims();
        let n = rows / SQUARES;
        let x = x.reshape([n, SQUARES, c]);
        let padded = Tensor::cat(vec![x.clone(), Tensor::zeros([n, 1, c], &x.device())], 1);
        padded
            .select(1, self.taps.clone())
            .reshape([rows, self.tap_count * c])
    }
}

/// `[n * 32, c]` -> `[n, 2c]`: per-channel mean then max over the squares.
pub(crate) fn square_pool(x: Tensor<2>) -> Tensor<2> {
    let [rows, c] = x.dims();
    let n = rows / SQUARES;
    let x = x.reshape([n, SQUARES, c]);
    let mean = x.clone().mean_dim(1);
    let max = x.max_dim(1);
    Tensor::cat(vec![mean, max], 2).reshape([n, 2 * c])
}

/// Adds a per-position bias `[n, c]` to every square of `x` `[n * 32, c]`.
pub(crate) fn add_per_position(x: Tensor<2>, bias: Tensor<2>) -> Tensor<2> {
    let [rows, c] = x.dims();
    let n = rows / SQUARES;
    (x.reshape([n, SQUARES, c]) + bias.reshape([n, 1, c])).reshape([rows, c])
}

/// `[cout, cin, taps]` (the file layout) -> `[taps, cin, cout]` (the
/// matrix-product layout), or back with the arguments swapped.
pub(crate) fn to_tap_major(data: &[f32], cout: usize, cin: usize, taps: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..taps {
                out[(t * cin + i) * cout + o] = data[(o * cin + i) * taps + t];
            }
        }
    }
    out
}

/// `[taps, cin, cout]` -> `[cout, cin, taps]`.
fn to_out_major(data: &[f32], taps: usize, cin: usize, cout: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for t in 0..taps {
        for i in 0..cin {
            for o in 0..cout {
                out[(o * cin + i) * taps + t] = data[(t * cin + i) * cout + o];
            }
        }
    }
    out
}

/// A diagonal convolution: weight `[taps, in, out]`, optional bias. One
/// tap is a per-square linear map (the 8x8 net's 1x1 convolution).
#[derive(Module, Debug)]
pub struct DiagConv {
    weight: Param<Tensor<3>>,
    bias: Option<Param<Tensor<1>>>,
}

impl DiagConv {
    fn forward(&self, x: Tensor<2>, geometry: &Geometry) -> Tensor<2> {
        let [taps, cin, cout] = self.weight.dims();
        let weight = self.weight.val().reshape([taps * cin, cout]);
        let columns = if taps == 1 { x } else { geometry.gather(x) };
        let y = columns.matmul(weight);
        match &self.bias {
            Some(bias) => y + bias.val().reshape([1, cout]),
            None => y,
        }
    }

    fn export(&self, out: &mut Vec<NamedTensor>, name: &str) -> Result<(), NetError> {
        let [taps, cin, cout] = self.weight.dims();
        let data = host(self.weight.val())?;
        out.push(NamedTensor {
            name: format!("{name}.weight"),
            shape: vec![cout, cin, taps],
            data: to_out_major(&data, taps, cin, cout),
        });
        if let Some(bias) = &self.bias {
            push(out, format!("{name}.bias"), bias.val())?;
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// A diagonal convolution; the source holds `[out, in, taps]`.
    fn diag_conv(
        &mut self,
        name: &str,
        cin: usize,
        cout: usize,
        taps: usize,
        bias: bool,
    ) -> Result<DiagConv, NetError> {
        let fan_in = cin * taps;
        let init = if bias {
            Init::Small { fan_in }
        } else {
            Init::He { fan_in }
        };
        let weight = self
            .source
            .take(&format!("{name}.weight"), &[cout, cin, taps], init)?;
        let weight = to_tap_major(&weight, cout, cin, taps);
        let weight = Tensor::from_data(TensorData::new(weight, [taps, cin, cout]), self.device);
        let weight = self.param(weight);
        let bias = if bias {
            let b = self.values(&format!("{name}.bias"), [cout], Init::Zeros)?;
            Some(self.param(b))
        } else {
            None
        };
        Ok(DiagConv { weight, bias })
    }
}

/// One residual block, as the 8x8 net's with diagonal convolutions.
#[derive(Module, Debug)]
pub struct DiagBlock {
    conv1: DiagConv,
    bn1: BatchNorm,
    /// Maps `[mean, max]` of the first activation (2C) to a per-channel bias (C).
    pool: Option<Linear>,
    conv2: DiagConv,
    bn2: BatchNorm,
}

impl DiagBlock {
    fn forward(&self, x: Tensor<2>, geometry: &Geometry) -> Tensor<2> {
        let mut h = relu(self.bn1.forward(self.conv1.forward(x.clone(), geometry)));
        if let Some(pool) = &self.pool {
            h = add_per_position(h.clone(), pool.forward(square_pool(h)));
        }
        relu(self.bn2.forward(self.conv2.forward(h, geometry)) + x)
    }
}

/// The trainable diagonal network (`kind = "diag32"`).
#[derive(Module, Debug)]
pub struct DiagNet {
    stem_conv: DiagConv,
    stem_bn: BatchNorm,
    blocks: Vec<DiagBlock>,
    policy_conv: DiagConv,
    policy_bn: BatchNorm,
    policy_out: DiagConv,
    value_conv: DiagConv,
    value_bn: BatchNorm,
    value_mlp: ValueMlp,
    #[module(skip)]
    config: NetConfig,
}

impl DiagNet {
    /// Builds the net, parameters in [`diag_tensor_shapes`] order.
    pub(crate) fn build(config: &NetConfig, b: &mut Builder<'_>) -> Result<DiagNet, NetError> {
        let (c, taps) = (config.channels, config.diagonal_taps());
        let stem_conv = b.diag_conv("stem.conv", INPUT_PLANES, c, taps, false)?;
        let stem_bn = b.batch_norm("stem.bn", c)?;
        let mut blocks = Vec::with_capacity(config.blocks);
        for i in 0..config.blocks {
            let name = |part: &str| format!("blocks.{i}.{part}");
            let conv1 = b.diag_conv(&name("conv1"), c, c, taps, false)?;
            let bn1 = b.batch_norm(&name("bn1"), c)?;
            let pool = if config.block_has_global_pool(i) {
                Some(b.linear(&name("pool"), 2 * c, c, Init::Small { fan_in: 2 * c })?)
            } else {
                None
            };
            let conv2 = b.diag_conv(&name("conv2"), c, c, taps, false)?;
            let bn2 = b.batch_norm(&name("bn2"), c)?;
            blocks.push(DiagBlock {
                conv1,
                bn1,
                pool,
                conv2,
                bn2,
            });
        }
        let (pc, vc) = (config.policy_channels, config.value_channels);
        let policy_conv = b.diag_conv("policy.conv", c, pc, 1, false)?;
        let policy_bn = b.batch_norm("policy.bn", pc)?;
        let policy_out = b.diag_conv("policy.out", pc, SQUARES, 1, true)?;
        let value_conv = b.diag_conv("value.conv", c, vc, 1, false)?;
        let value_bn = b.batch_norm("value.bn", vc)?;
        let value_mlp = ValueMlp::build(config, b)?;
        Ok(DiagNet {
            stem_conv,
            stem_bn,
            blocks,
            policy_conv,
            policy_bn,
            policy_out,
            value_conv,
            value_bn,
            value_mlp,
            config: config.clone(),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Runs the network on `[n, 7, 8, 8]` planes (the dark cells are read).
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let geometry = Geometry::new(self.config.diagonal_taps(), &input.device());
        let n = input.dims()[0];
        let x = geometry.squares(input);
        let x = relu(self.stem_bn.forward(self.stem_conv.forward(x, &geometry)));
        let x = self
            .blocks
            .iter()
            .fold(x, |x, block| block.forward(x, &geometry));
        let p = relu(
            self.policy_bn
                .forward(self.policy_conv.forward(x.clone(), &geometry)),
        );
        // Row = start square, column = end square: `from * 32 + to`.
        let policy = self
            .policy_out
            .forward(p, &geometry)
            .reshape([n, POLICY_LEN]);
        let v = relu(self.value_bn.forward(self.value_conv.forward(x, &geometry)));
        let (wdl, plies_left) = self.value_mlp.forward(square_pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }

    /// Every tensor with its stable name and exported layout, build order.
    pub fn to_tensors(&self) -> Result<Vec<NamedTensor>, NetError> {
        let mut out = Vec::new();
        self.stem_conv.export(&mut out, "stem.conv")?;
        export_bn(&mut out, "stem.bn", &self.stem_bn)?;
        for (i, block) in self.blocks.iter().enumerate() {
            let name = |part: &str| format!("blocks.{i}.{part}");
            block.conv1.export(&mut out, &name("conv1"))?;
            export_bn(&mut out, &name("bn1"), &block.bn1)?;
            if let Some(pool) = &block.pool {
                export_linear(&mut out, &name("pool"), pool)?;
            }
            block.conv2.export(&mut out, &name("conv2"))?;
            export_bn(&mut out, &name("bn2"), &block.bn2)?;
        }
        self.policy_conv.export(&mut out, "policy.conv")?;
        export_bn(&mut out, "policy.bn", &self.policy_bn)?;
        self.policy_out.export(&mut out, "policy.out")?;
        self.value_conv.export(&mut out, "value.conv")?;
        export_bn(&mut out, "value.bn", &self.value_bn)?;
        self.value_mlp.export(&mut out)?;
        Ok(out)
    }
}

/// Names and shapes of every tensor of a `diag32` architecture, in build
/// order. Diagonal convolution weights are `[out, in, taps]`.
pub fn diag_tensor_shapes(config: &NetConfig) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    let conv = |out: &mut Vec<(String, Vec<usize>)>, name: &str, o, i, taps, bias: bool| {
        out.push((format!("{name}.weight"), vec![o, i, taps]));
        if bias {
            out.push((format!("{name}.bias"), vec![o]));
        }
    };
    let bn = |out: &mut Vec<(String, Vec<usize>)>, name: &str, c: usize| {
        for part in ["gamma", "beta", "running_mean", "running_var"] {
            out.push((format!("{name}.{part}"), vec![c]));
        }
    };
    let linear = |out: &mut Vec<(String, Vec<usize>)>, name: &str, din: usize, dout: usize| {
        out.push((format!("{name}.weight"), vec![dout, din]));
        out.push((format!("{name}.bias"), vec![dout]));
    };
    let (c, taps) = (config.channels, config.diagonal_taps());
    conv(&mut out, "stem.conv", c, INPUT_PLANES, taps, false);
    bn(&mut out, "stem.bn", c);
    for i in 0..config.blocks {
        conv(&mut out, &format!("blocks.{i}.conv1"), c, c, taps, false);
        bn(&mut out, &format!("blocks.{i}.bn1"), c);
        if config.block_has_global_pool(i) {
            linear(&mut out, &format!("blocks.{i}.pool"), 2 * c, c);
        }
        conv(&mut out, &format!("blocks.{i}.conv2"), c, c, taps, false);
        bn(&mut out, &format!("blocks.{i}.bn2"), c);
    }
    let (pc, vc, vh) = (
        config.policy_channels,
        config.value_channels,
        config.value_hidden,
    );
    conv(&mut out, "policy.conv", pc, c, 1, false);
    bn(&mut out, "policy.bn", pc);
    conv(&mut out, "policy.out", SQUARES, pc, 1, true);
    conv(&mut out, "value.conv", vc, c, 1, false);
    bn(&mut out, "value.bn", vc);
    linear(&mut out, "value.fc", 2 * vc, vh);
    linear(&mut out, "value.wdl", vh, 3);
    if config.plies_left_head {
        linear(&mut out, "value.plies", vh, 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_follow_the_diagonals() {
        // a1 (0): only up-right at one step (b2 = 4) and two (c3 = 9).
        let a1: Vec<usize> = (0..9).map(|t| tap_square(0, t)).collect();
        assert_eq!(a1, [0, 32, 4, 32, 32, 32, 9, 32, 32]);
        // d4 (13): all eight on the board: c5, e5, c3, e3, b6, f6, b2, f2.
        let d4: Vec<usize> = (0..9).map(|t| tap_square(13, t)).collect();
        assert_eq!(d4, [13, 17, 18, 9, 10, 20, 22, 4, 6]);
        // Every one-step tap is mutual: if t is up-right of s, s is down-left of t.
        for s in 0..SQUARES {
            for (tap, back) in [(1, 4), (2, 3), (5, 8), (6, 7)] {
                let t = tap_square(s, tap);
                if t != OFF_BOARD {
                    assert_eq!(tap_square(t, back), s);
                }
            }
        }
        assert_eq!(tap_index(5).len(), 160);
    }

    #[test]
    fn weight_layouts_round_trip() {
        let data: Vec<f32> = (0..2 * 3 * 5).map(|v| v as f32).collect();
        let tap_major = to_tap_major(&data, 2, 3, 5);
        // [o=1, i=2, t=4] sits at (t * 3 + i) * 2 + o.
        assert_eq!(tap_major[(4 * 3 + 2) * 2 + 1], data[(3 + 2) * 5 + 4]);
        assert_eq!(to_out_major(&tap_major, 5, 3, 2), data);
    }
}
