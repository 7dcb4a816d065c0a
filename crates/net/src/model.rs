//! The trainable policy/value network of either kind ([`NetKind`]): the
//! 8x8 ResNet ([`BoardNet`]) or the 32-square diagonal net
//! ([`DiagNet`]), both a [`Tower`] built from the
//! kind's description ([`describe`]).
//!
//! It is a burn [`Module`], so it lives on any device: `Device::flex()` for
//! CPU inference, `Device::flex().autodiff()` for training, a wgpu device
//! with the `wgpu` feature. For fast inference fold it into an
//! [`InferenceNet`](crate::InferenceNet) (batch norm folded into the
//! convolutions).
//!
//! Parameters get fixed ids (in build order), so an optimizer state saved
//! with a checkpoint finds its parameters again after loading.

use crate::board::BoardNet;
use crate::config::{NetConfig, NetKind};
use crate::diag::DiagNet;
use crate::error::NetError;
use crate::kinds::{check_kind, describe};
use crate::layers::Builder;
use crate::output::NetOutput;
use crate::tower::Tower;
use crate::weights::{LoadedWeights, NamedTensor, RandomInit, WeightSource};
use burn::module::Module;
use burn::tensor::{Device, Tensor};

/// The trainable network of either kind. Build with [`Net::init`] (seeded)
/// or [`Net::from_tensors`] (weights from a file).
// The variants differ in size, but a process holds a net or two: no boxing.
#[allow(clippy::large_enum_variant)]
#[derive(Module, Debug)]
pub enum Net {
    /// `kind = "resnet8x8"`.
    Resnet8x8(BoardNet),
    /// `kind = "diag32"`.
    Diag32(DiagNet),
}

/// `$body` with `$net` bound to the tower inside any [`Net`] variant.
macro_rules! each_kind {
    ($value:expr, $net:ident => $body:expr) => {
        match $value {
            Net::Resnet8x8($net) => $body,
            Net::Diag32($net) => $body,
        }
    };
}

impl Net {
    /// A randomly initialised network (He init from a ChaCha8 stream seeded
    /// with `seed`: the same seed gives the same weights on every device).
    pub fn init(config: &NetConfig, seed: u64, device: &Device) -> Result<Net, NetError> {
        Net::build(config, &mut RandomInit::new(seed), device)
    }

    /// A network with the given weights (names and shapes as in
    /// [`Net::to_tensors`]); fails on weights of the other kind or a
    /// missing, extra or misshapen tensor.
    pub fn from_tensors(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        device: &Device,
    ) -> Result<Net, NetError> {
        check_kind(config, &tensors)?;
        let mut weights = LoadedWeights::new(tensors);
        let net = Net::build(config, &mut weights, device)?;
        weights.finish()?;
        Ok(net)
    }

    /// Builds the network of `config.kind`, taking every parameter from
    /// `source` in a fixed order (which also fixes the parameter ids).
    pub fn build(
        config: &NetConfig,
        source: &mut dyn WeightSource,
        device: &Device,
    ) -> Result<Net, NetError> {
        config.validate()?;
        let desc = describe(config);
        let b = &mut Builder::new(source, device);
        Ok(match config.kind {
            NetKind::Resnet8x8 => Net::Resnet8x8(Tower::build(config, &desc, b)?),
            NetKind::Diag32 => Net::Diag32(Tower::build(config, &desc, b)?),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        each_kind!(self, net => net.config())
    }

    /// Runs the network on `input` of shape `[n, 7, 8, 8]` (both kinds take
    /// the same planes; the diagonal net reads the 32 dark cells only). On
    /// an autodiff device batch norm uses batch statistics (training);
    /// elsewhere, or on a [`Module::valid`] copy, the running statistics.
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        each_kind!(self, net => net.forward(input))
    }

    /// Every parameter and batch norm statistic as host tensors with their
    /// stable names and exported layouts, in build order.
    pub fn to_tensors(&self) -> Result<Vec<NamedTensor>, NetError> {
        each_kind!(self, net => net.to_tensors(&describe(net.config())))
    }
}
