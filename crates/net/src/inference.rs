//! The inference network: the same function as [`Net`] with
//! every batch norm folded into the convolution before it (exact up to
//! float rounding, and cheaper: one fewer pass over each activation), for
//! either kind: a `FoldedTower` of the kind's folded convolution.
//!
//! Built from host tensors (a trained [`Net`], a checkpoint or
//! an exported `model.safetensors`), on any device.

use crate::board::FoldedBoardConv;
use crate::config::{NetConfig, NetKind};
use crate::diag::FoldedDiagConv;
use crate::encoding::{BOARD, INPUT_LEN, INPUT_PLANES};
use crate::error::NetError;
use crate::fold::Folder;
use crate::folded::FoldedTower;
use crate::kernels::{InferenceKernels, KernelNet};
use crate::kinds::{check_kind, describe};
use crate::layers::host;
use crate::model::Net;
use crate::output::{HostOutput, NetOutput};
use crate::weights::NamedTensor;
use burn::tensor::{Device, Tensor, TensorData};
use std::sync::Arc;

/// The folded layers of either kind.
#[allow(clippy::large_enum_variant)] // one per evaluator, never in bulk
#[derive(Clone, Debug)]
enum Folded {
    Resnet8x8(FoldedTower<FoldedBoardConv>),
    Diag32(FoldedTower<FoldedDiagConv>),
}

/// The folded network, ready for batched inference.
#[derive(Clone, Debug)]
pub struct InferenceNet {
    folded: Folded,
    /// The hand-written kernels [`InferenceNet::forward_host`] runs instead
    /// of burn, if chosen (`diag32` on the CPU only).
    kernels: Option<(InferenceKernels, Arc<KernelNet>)>,
    config: NetConfig,
    device: Device,
}

impl InferenceNet {
    /// Folds a trained network onto `device`.
    pub fn from_net(net: &Net, device: &Device) -> Result<InferenceNet, NetError> {
        InferenceNet::from_net_with(net, device, InferenceKernels::Burn)
    }

    /// Like [`InferenceNet::from_net`], run by `kernels` where they apply
    /// (see [`InferenceNet::from_tensors_with`]).
    pub fn from_net_with(
        net: &Net,
        device: &Device,
        kernels: InferenceKernels,
    ) -> Result<InferenceNet, NetError> {
        InferenceNet::from_tensors_with(net.config(), net.to_tensors()?, device, kernels)
    }

    /// Builds the folded network from the stable named tensors (as
    /// [`Net::to_tensors`] or `model.safetensors` hold them); fails on
    /// weights of the other kind or a missing, extra or misshapen tensor.
    pub fn from_tensors(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        device: &Device,
    ) -> Result<InferenceNet, NetError> {
        InferenceNet::from_tensors_with(config, tensors, device, InferenceKernels::Burn)
    }

    /// [`InferenceNet::from_tensors`], with [`InferenceNet::forward_host`]
    /// run by `kernels` where they apply (a `diag32` net on the CPU; burn
    /// otherwise, see [`InferenceNet::kernels`]).
    pub fn from_tensors_with(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        device: &Device,
        kernels: InferenceKernels,
    ) -> Result<InferenceNet, NetError> {
        config.validate()?;
        let hand_written = kernels != InferenceKernels::Burn
            && config.kind == NetKind::Diag32
            && *device == Device::flex();
        let kernels = if hand_written {
            let int8 = kernels == InferenceKernels::Int8;
            let net = KernelNet::from_tensors(config, tensors.clone(), int8)?;
            Some((kernels, Arc::new(net)))
        } else {
            None
        };
        check_kind(config, &tensors)?;
        let desc = describe(config);
        let mut f = Folder::new(tensors, device);
        let folded = match config.kind {
            NetKind::Resnet8x8 => Folded::Resnet8x8(FoldedTower::fold(config, &desc, &mut f)?),
            NetKind::Diag32 => Folded::Diag32(FoldedTower::fold(config, &desc, &mut f)?),
        };
        f.finish()?;
        Ok(InferenceNet {
            folded,
            kernels,
            config: config.clone(),
            device: device.clone(),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The kernels [`InferenceNet::forward_host`] runs.
    pub fn kernels(&self) -> InferenceKernels {
        self.kernels
            .as_ref()
            .map_or(InferenceKernels::Burn, |(kind, _)| *kind)
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Runs the network on `[n, 7, 8, 8]` inputs (always burn's folded net).
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        match &self.folded {
            Folded::Resnet8x8(net) => net.forward(input),
            Folded::Diag32(net) => net.forward(input),
        }
    }

    /// Runs the network on `n` encoded positions (`inputs.len() == n * INPUT_LEN`)
    /// and copies the outputs to the host.
    pub fn forward_host(&self, inputs: Vec<f32>, n: usize) -> Result<HostOutput, NetError> {
        debug_assert_eq!(inputs.len(), n * INPUT_LEN);
        if let Some((_, net)) = &self.kernels {
            return Ok(net.forward_host(&inputs, n));
        }
        let input = Tensor::<4>::from_data(
            TensorData::new(inputs, [n, INPUT_PLANES, BOARD, BOARD]),
            &self.device,
        );
        let out = self.forward(input);
        Ok(HostOutput {
            policy: host(out.policy)?,
            wdl: host(out.wdl)?,
            plies_left: out.plies_left.map(host).transpose()?,
        })
    }
}
