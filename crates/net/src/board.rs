//! The 8x8 ResNet (`kind = "resnet8x8"`): activations `[n, c, 8, 8]` over
//! the whole board (light squares included), 3x3 convolutions in the tower
//! and 1x1 in the heads, weights `[out, in, k, k]` as PyTorch stores them.
//! The policy head's output channel is the end square, read at the start
//! square's cell.

use crate::config::NetConfig;
use crate::desc::{ConvDesc, Span};
use crate::encoding::{CELL_OF_SQUARE, POLICY_LEN};
use crate::error::NetError;
use crate::fold::Folder;
use crate::layers::{Builder, export_bias, push};
use crate::layout::{FoldedConv, Layout, TrainConv};
use crate::tower::Tower;
use crate::weights::NamedTensor;
use burn::nn::PaddingConfig2d;
use burn::nn::conv::Conv2d;
use burn::tensor::module::conv2d;
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// The trainable 8x8 net.
pub type BoardNet = Tower<Conv2d>;

/// The 8x8 board's [`Layout`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Board;

impl Layout for Board {
    type Act = Tensor<4>;
    type Context = ();

    fn weight_shape(_config: &NetConfig, cout: usize, cin: usize, span: Span) -> Vec<usize> {
        let kernel = match span {
            Span::Wide => 3,
            Span::Point => 1,
        };
        vec![cout, cin, kernel, kernel]
    }

    fn context(_config: &NetConfig, _device: &Device) {}

    fn enter(_context: &(), input: Tensor<4>) -> Tensor<4> {
        input
    }

    fn pool(x: Tensor<4>) -> Tensor<2> {
        let [n, c, h, w] = x.dims();
        let flat = x.reshape([n, c, h * w]);
        let mean = flat.clone().mean_dim(2);
        let max = flat.max_dim(2);
        Tensor::cat(vec![mean, max], 1).reshape([n, 2 * c])
    }

    fn add_bias(x: Tensor<4>, bias: Tensor<2>) -> Tensor<4> {
        let [n, c, _, _] = x.dims();
        x + bias.reshape([n, c, 1, 1])
    }

    /// `[n, 32, 8, 8]` (channel = relative end square, read at the start
    /// square's cell) -> `[n, 1024]` logits at `from * 32 + to`.
    fn policy(_context: &(), logits: Tensor<4>) -> Tensor<2> {
        let [n, to, h, w] = logits.dims();
        let cells: Vec<i64> = CELL_OF_SQUARE.iter().map(|&c| c as i64).collect();
        let index = Tensor::<1, Int>::from_data(TensorData::new(cells, [32]), &logits.device());
        logits
            .reshape([n, to, h * w])
            .select(2, index)
            .swap_dims(1, 2)
            .reshape([n, POLICY_LEN])
    }
}

/// `conv`'s weight shape as an array, `[out, in, k, k]`.
fn shape(conv: &ConvDesc) -> Result<[usize; 4], NetError> {
    conv.weight.as_slice().try_into().map_err(|_| {
        NetError::Config(format!(
            "{}: a resnet8x8 convolution weight has 4 dimensions, not {:?}",
            conv.name, conv.weight
        ))
    })
}

/// Explicit "same" padding of a `kernel` x `kernel` convolution.
fn padding(kernel: usize) -> usize {
    kernel / 2
}

impl TrainConv for Conv2d {
    type Layout = Board;

    fn build(b: &mut Builder<'_>, conv: &ConvDesc) -> Result<Conv2d, NetError> {
        let shape = shape(conv)?;
        let weight = b.conv_weight(conv)?;
        let weight = b.param(b.tensor(weight, shape));
        let bias = b.conv_bias(conv)?;
        let (kernel, pad) = (shape[2], padding(shape[2]));
        Ok(Conv2d {
            weight,
            bias,
            stride: [1, 1],
            kernel_size: [kernel, kernel],
            dilation: [1, 1],
            groups: 1,
            padding: PaddingConfig2d::Explicit(pad, pad, pad, pad),
        })
    }

    fn forward(&self, x: Tensor<4>, _context: &()) -> Tensor<4> {
        Conv2d::forward(self, x)
    }

    fn export(&self, out: &mut Vec<NamedTensor>, name: &str) -> Result<(), NetError> {
        push(out, format!("{name}.weight"), self.weight.val())?;
        export_bias(out, name, &self.bias)
    }
}

/// An 8x8 convolution with its batch norm (or its own bias) folded in.
#[derive(Clone, Debug)]
pub(crate) struct FoldedBoardConv {
    weight: Tensor<4>,
    bias: Tensor<1>,
    padding: usize,
}

impl FoldedConv for FoldedBoardConv {
    type Layout = Board;

    fn new(
        f: &Folder<'_>,
        conv: &ConvDesc,
        weight: Vec<f32>,
        bias: Vec<f32>,
    ) -> Result<FoldedBoardConv, NetError> {
        let shape = shape(conv)?;
        Ok(FoldedBoardConv {
            weight: f.tensor(weight, shape),
            bias: f.tensor(bias, [conv.cout]),
            padding: padding(shape[2]),
        })
    }

    fn forward(&self, x: Tensor<4>, _context: &()) -> Tensor<4> {
        let p = self.padding;
        conv2d(
            x,
            self.weight.clone(),
            Some(self.bias.clone()),
            ConvOptions::new([1, 1], [p, p], [1, 1], 1),
        )
    }
}
