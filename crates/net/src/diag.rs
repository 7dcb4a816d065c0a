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
//! Weights are stored `[out, in, taps]` in files and `[taps, in, out]` (the
//! matrix-product layout) on the device; the folded form keeps the gather
//! index of its device.

use crate::config::NetConfig;
use crate::desc::{ConvDesc, Span};
use crate::encoding::{CELL_OF_SQUARE, POLICY_LEN};
use crate::error::NetError;
use crate::fold::Folder;
use crate::layers::{Builder, export_bias, host};
use crate::layout::{FoldedConv, Layout, TrainConv};
use crate::tower::Tower;
use crate::weights::NamedTensor;
use burn::module::{Module, Param};
use burn::tensor::module::linear;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// The trainable diagonal net.
pub type DiagNet = Tower<DiagConv>;

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
    /// [`tap_index`] on the host: the gather index of a batch is built from
    /// it (see [`Geometry::gather`]).
    taps: Vec<i64>,
    tap_count: usize,
}

impl Geometry {
    pub(crate) fn new(tap_count: usize, device: &Device) -> Geometry {
        let cells: Vec<i64> = CELL_OF_SQUARE.iter().map(|&c| c as i64).collect();
        Geometry {
            cells: Tensor::from_data(TensorData::new(cells, [SQUARES]), device),
            taps: tap_index(tap_count),
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
    ///
    /// One select of whole rows of a 2-D tensor (a zero row appended for the
    /// off-board taps): its backward, a row-wise add, is several times
    /// faster on the CPU backend than that of a select along the middle axis
    /// of `[n, 33, c]`, which adds element by element (a quarter of a
    /// training step's time went there).
    pub(crate) fn gather(&self, x: Tensor<2>) -> Tensor<2> {
        let [rows, c] = x.dims();
        let device = x.device();
        let zero_row = rows as i64;
        let index: Vec<i64> = (0..rows / SQUARES)
            .flat_map(|position| {
                let base = (position * SQUARES) as i64;
                self.taps.iter().map(move |&square| {
                    if square == OFF_BOARD as i64 {
                        zero_row
                    } else {
                        base + square
                    }
                })
            })
            .collect();
        let len = index.len();
        Tensor::cat(vec![x, Tensor::zeros([1, c], &device)], 0)
            .select(0, Tensor::from_data(TensorData::new(index, [len]), &device))
            .reshape([rows, self.tap_count * c])
    }
}

/// The 32 squares' [`Layout`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Diagonal;

impl Layout for Diagonal {
    type Act = Tensor<2>;
    type Context = Geometry;

    fn weight_shape(config: &NetConfig, cout: usize, cin: usize, span: Span) -> Vec<usize> {
        let taps = match span {
            Span::Wide => config.diagonal_taps(),
            Span::Point => 1,
        };
        vec![cout, cin, taps]
    }

    fn context(config: &NetConfig, device: &Device) -> Geometry {
        Geometry::new(config.diagonal_taps(), device)
    }

    fn enter(geometry: &Geometry, input: Tensor<4>) -> Tensor<2> {
        geometry.squares(input)
    }

    /// `[n * 32, c]` -> `[n, 2c]`: per-channel mean then max over the squares.
    fn pool(x: Tensor<2>) -> Tensor<2> {
        let [rows, c] = x.dims();
        let n = rows / SQUARES;
        let x = x.reshape([n, SQUARES, c]);
        let mean = x.clone().mean_dim(1);
        let max = x.max_dim(1);
        Tensor::cat(vec![mean, max], 2).reshape([n, 2 * c])
    }

    /// Adds a per-position bias `[n, c]` to every square of `x` `[n * 32, c]`.
    fn add_bias(x: Tensor<2>, bias: Tensor<2>) -> Tensor<2> {
        let [rows, c] = x.dims();
        let n = rows / SQUARES;
        (x.reshape([n, SQUARES, c]) + bias.reshape([n, 1, c])).reshape([rows, c])
    }

    /// Row = start square, column = end square: `from * 32 + to`.
    fn policy(_geometry: &Geometry, logits: Tensor<2>) -> Tensor<2> {
        let [rows, _] = logits.dims();
        logits.reshape([rows / SQUARES, POLICY_LEN])
    }
}

/// `conv`'s weight shape as an array, `[out, in, taps]`.
fn shape(conv: &ConvDesc) -> Result<[usize; 3], NetError> {
    conv.weight.as_slice().try_into().map_err(|_| {
        NetError::Config(format!(
            "{}: a diag32 convolution weight has 3 dimensions, not {:?}",
            conv.name, conv.weight
        ))
    })
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

impl TrainConv for DiagConv {
    type Layout = Diagonal;

    fn build(b: &mut Builder<'_>, conv: &ConvDesc) -> Result<DiagConv, NetError> {
        let [cout, cin, taps] = shape(conv)?;
        let weight = to_tap_major(&b.conv_weight(conv)?, cout, cin, taps);
        let weight = b.param(b.tensor(weight, [taps, cin, cout]));
        let bias = b.conv_bias(conv)?;
        Ok(DiagConv { weight, bias })
    }

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
        export_bias(out, name, &self.bias)
    }
}

/// A diagonal convolution with its batch norm (or its own bias) folded in.
#[derive(Clone, Debug)]
pub(crate) struct FoldedDiagConv {
    /// `[taps * in, out]`.
    weight: Tensor<2>,
    bias: Tensor<1>,
    taps: usize,
}

impl FoldedConv for FoldedDiagConv {
    type Layout = Diagonal;

    fn new(
        f: &Folder<'_>,
        conv: &ConvDesc,
        weight: Vec<f32>,
        bias: Vec<f32>,
    ) -> Result<FoldedDiagConv, NetError> {
        let [cout, cin, taps] = shape(conv)?;
        let weight = to_tap_major(&weight, cout, cin, taps);
        Ok(FoldedDiagConv {
            weight: f.tensor(weight, [taps * cin, cout]),
            bias: f.tensor(bias, [cout]),
            taps,
        })
    }

    fn forward(&self, x: Tensor<2>, geometry: &Geometry) -> Tensor<2> {
        let columns = if self.taps == 1 {
            x
        } else {
            geometry.gather(x)
        };
        linear(columns, self.weight.clone(), Some(self.bias.clone()))
    }
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
    fn the_gather_and_its_gradient_follow_the_taps() {
        let device = Device::flex().autodiff();
        let (n, c, taps) = (2, 3, 9);
        let values: Vec<f32> = (0..n * SQUARES * c).map(|v| v as f32 * 0.5 - 7.0).collect();
        let x = Tensor::<2>::from_data(TensorData::new(values.clone(), [n * SQUARES, c]), &device)
            .require_grad();
        let gathered = Geometry::new(taps, &device).gather(x.clone());
        assert_eq!(gathered.dims(), [n * SQUARES, taps * c]);
        let got: Vec<f32> = gathered.clone().into_data().try_to_vec().unwrap();
        // Every gathered value is its tap's row (zero off the board), and
        // each row's gradient counts the taps that read it.
        let mut readers = vec![0.0f32; n * SQUARES];
        for p in 0..n {
            for s in 0..SQUARES {
                for t in 0..taps {
                    let tap = tap_square(s, t);
                    for k in 0..c {
                        let want = if tap == OFF_BOARD {
                            0.0
                        } else {
                            values[(p * SQUARES + tap) * c + k]
                        };
                        assert_eq!(got[(p * SQUARES + s) * taps * c + t * c + k], want);
                    }
                    if tap != OFF_BOARD {
                        readers[p * SQUARES + tap] += 1.0;
                    }
                }
            }
        }
        let grads = gathered.sum().backward();
        let grad: Vec<f32> = x.grad(&grads).unwrap().into_data().try_to_vec().unwrap();
        for (row, &count) in readers.iter().enumerate() {
            assert!(
                grad[row * c..(row + 1) * c].iter().all(|&g| g == count),
                "row {row}"
            );
        }
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
