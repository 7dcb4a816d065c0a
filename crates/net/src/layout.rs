//! What a kind of net does its own way, as traits: the shared tower and
//! heads ([`crate::tower`], [`crate::folded`]) are generic over them, and a
//! kind is one file that implements them (`board.rs`, `diag.rs`).
//!
//! A kind chooses how activations are laid out ([`Layout::Act`]), how a
//! convolution's weight is stored and applied (its [`TrainConv`] and
//! [`FoldedConv`]), how the board is pooled and how the policy logits are
//! read out. Everything else (layer list, names, order, batch norm, residual
//! sums, the value MLP) is said once.

use crate::config::NetConfig;
use crate::desc::{ConvDesc, Span};
use crate::error::NetError;
use crate::fold::Folder;
use crate::layers::Builder;
use crate::rows_norm::batch_norm_rows;
use crate::weights::NamedTensor;
use burn::module::{Module, ModuleDisplay};
use burn::nn::BatchNorm;
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use std::fmt::Debug;
use std::ops::Add;

/// The tower's activations: the operations the shared code applies to them.
pub(crate) trait Activation: Clone + Add<Output = Self> {
    /// `max(x, 0)`.
    fn relu(self) -> Self;
    /// Batch norm over the channel dimension.
    fn batch_norm(self, bn: &BatchNorm) -> Self;
}

/// The 8x8 board's `[n, c, 8, 8]`: burn's batch norm.
impl Activation for Tensor<4> {
    fn relu(self) -> Self {
        relu(self)
    }

    fn batch_norm(self, bn: &BatchNorm) -> Self {
        bn.forward(self)
    }
}

/// The squares' `[n * 32, c]`: statistics over the rows, no transposes.
impl Activation for Tensor<2> {
    fn relu(self) -> Self {
        relu(self)
    }

    fn batch_norm(self, bn: &BatchNorm) -> Self {
        batch_norm_rows(self, bn)
    }
}

/// The geometry of a kind: activation layout, pooling, policy read-out.
pub(crate) trait Layout {
    /// Tower activations (`[n, c, 8, 8]` on the board, `[n * 32, c]` on
    /// the squares).
    type Act: Activation;
    /// Index tensors a forward pass needs, on one device.
    type Context: Clone + Debug + Send + Sync;

    /// Convolution weight shape in the exported layout.
    fn weight_shape(config: &NetConfig, cout: usize, cin: usize, span: Span) -> Vec<usize>;
    /// The index tensors of `config` on `device`.
    fn context(config: &NetConfig, device: &Device) -> Self::Context;
    /// `[n, 7, 8, 8]` input planes -> activations.
    fn enter(context: &Self::Context, input: Tensor<4>) -> Self::Act;
    /// Activations -> `[n, 2c]`: per-channel mean then max over the board.
    fn pool(x: Self::Act) -> Tensor<2>;
    /// Adds a per-position bias `[n, c]` to every cell of `x`.
    fn add_bias(x: Self::Act, bias: Tensor<2>) -> Self::Act;
    /// The policy output convolution's activations -> `[n, 1024]` logits at
    /// `from * 32 + to`.
    fn policy(context: &Self::Context, logits: Self::Act) -> Tensor<2>;
}

/// A kind's trainable convolution (a burn module).
pub(crate) trait TrainConv: Module + ModuleDisplay + Sized {
    /// The kind it belongs to.
    type Layout: Layout;
    /// Builds `conv` (weight, and its bias if it has one) from `b`.
    fn build(b: &mut Builder<'_>, conv: &ConvDesc) -> Result<Self, NetError>;
    /// Applies the convolution.
    fn forward(&self, x: Act<Self>, context: &Context<Self>) -> Act<Self>;
    /// Appends the weight (exported layout) and bias under `name`.
    fn export(&self, out: &mut Vec<NamedTensor>, name: &str) -> Result<(), NetError>;
}

/// A kind's convolution with its batch norm folded in, for inference.
pub(crate) trait FoldedConv: Clone + Debug + Send + Sync + Sized {
    /// The kind it belongs to.
    type Layout: Layout;
    /// The folded convolution `conv` of `weight` (exported layout, batch
    /// norm folded in) and `bias`, on `f`'s device.
    fn new(
        f: &Folder<'_>,
        conv: &ConvDesc,
        weight: Vec<f32>,
        bias: Vec<f32>,
    ) -> Result<Self, NetError>;
    /// Applies the convolution.
    fn forward(&self, x: FoldedAct<Self>, context: &FoldedContext<Self>) -> FoldedAct<Self>;
}

/// The activations of a trainable convolution's kind.
pub(crate) type Act<C> = <<C as TrainConv>::Layout as Layout>::Act;
/// The index tensors of a trainable convolution's kind.
pub(crate) type Context<C> = <<C as TrainConv>::Layout as Layout>::Context;
/// The activations of a folded convolution's kind.
pub(crate) type FoldedAct<F> = <<F as FoldedConv>::Layout as Layout>::Act;
/// The index tensors of a folded convolution's kind.
pub(crate) type FoldedContext<F> = <<F as FoldedConv>::Layout as Layout>::Context;
