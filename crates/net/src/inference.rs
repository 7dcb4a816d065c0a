//! The inference network: the same function as [`Net`] with
//! every batch norm folded into the convolution before it (exact up to
//! float rounding, and cheaper: one fewer pass over each activation), for
//! either kind (the diagonal net's folding is in `crate::diag_inference`).
//!
//! Built from host tensors (a trained [`Net`], a checkpoint or
//! an exported `model.safetensors`), on any device.

use crate::config::{NetConfig, NetKind};
use crate::diag_inference::FoldedDiag;
use crate::encoding::{BOARD, INPUT_LEN, INPUT_PLANES};
use crate::error::NetError;
use crate::model::{
    BATCH_NORM_EPSILON, Net, NetOutput, check_kind, gather_policy, global_pool, host, transpose,
};
use crate::weights::NamedTensor;
use burn::tensor::activation::relu;
use burn::tensor::module::{conv2d, linear};
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Tensor, TensorData};
use std::collections::HashMap;

/// A convolution with its batch norm folded in (weights and bias).
#[derive(Clone, Debug)]
struct FoldedConv {
    weight: Tensor<4>,
    bias: Tensor<1>,
    padding: usize,
}

impl FoldedConv {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let p = self.padding;
        conv2d(
            x,
            self.weight.clone(),
            Some(self.bias.clone()),
            ConvOptions::new([1, 1], [p, p], [1, 1], 1),
        )
    }
}

/// A fully connected layer, weight `[in, out]`.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    weight: Tensor<2>,
    bias: Tensor<1>,
}

impl Dense {
    pub(crate) fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        linear(x, self.weight.clone(), Some(self.bias.clone()))
    }
}

/// [`ValueMlp`](crate::model::ValueMlp) for inference (nothing to fold:
/// it has no batch norm).
#[derive(Clone, Debug)]
pub(crate) struct FoldedValueMlp {
    fc: Dense,
    wdl: Dense,
    plies: Option<Dense>,
}

impl FoldedValueMlp {
    pub(crate) fn build(
        config: &NetConfig,
        t: &mut Tensors<'_>,
    ) -> Result<FoldedValueMlp, NetError> {
        let (vc, vh) = (config.value_channels, config.value_hidden);
        let fc = t.dense("value.fc", 2 * vc, vh)?;
        let wdl = t.dense("value.wdl", vh, 3)?;
        let plies = if config.plies_left_head {
            Some(t.dense("value.plies", vh, 1)?)
        } else {
            None
        };
        Ok(FoldedValueMlp { fc, wdl, plies })
    }

    /// Pooled features -> (W/D/L logits, plies left).
    pub(crate) fn forward(&self, pooled: Tensor<2>) -> (Tensor<2>, Option<Tensor<2>>) {
        let hidden = relu(self.fc.forward(pooled));
        let plies_left = self.plies.as_ref().map(|head| head.forward(hidden.clone()));
        (self.wdl.forward(hidden), plies_left)
    }
}

#[derive(Clone, Debug)]
struct FoldedBlock {
    conv1: FoldedConv,
    pool: Option<Dense>,
    conv2: FoldedConv,
}

/// The folded 8x8 net.
#[derive(Clone, Debug)]
struct FoldedBoard {
    stem: FoldedConv,
    blocks: Vec<FoldedBlock>,
    policy_conv: FoldedConv,
    policy_out: FoldedConv,
    value_conv: FoldedConv,
    value_mlp: FoldedValueMlp,
}

impl FoldedBoard {
    fn build(config: &NetConfig, t: &mut Tensors<'_>) -> Result<FoldedBoard, NetError> {
        let c = config.channels;
        let stem = t.folded_conv("stem.conv", "stem.bn", c, INPUT_PLANES, 3)?;
        let mut blocks = Vec::with_capacity(config.blocks);
        for i in 0..config.blocks {
            let name = |part: &str| format!("blocks.{i}.{part}");
            let conv1 = t.folded_conv(&name("conv1"), &name("bn1"), c, c, 3)?;
            let pool = if config.block_has_global_pool(i) {
                Some(t.dense(&name("pool"), 2 * c, c)?)
            } else {
                None
            };
            let conv2 = t.folded_conv(&name("conv2"), &name("bn2"), c, c, 3)?;
            blocks.push(FoldedBlock { conv1, pool, conv2 });
        }
        let (pc, vc) = (config.policy_channels, config.value_channels);
        let policy_conv = t.folded_conv("policy.conv", "policy.bn", pc, c, 1)?;
        let policy_out = t.biased_conv("policy.out", 32, pc, 1)?;
        let value_conv = t.folded_conv("value.conv", "value.bn", vc, c, 1)?;
        let value_mlp = FoldedValueMlp::build(config, t)?;
        Ok(FoldedBoard {
            stem,
            blocks,
            policy_conv,
            policy_out,
            value_conv,
            value_mlp,
        })
    }

    fn forward(&self, input: Tensor<4>) -> NetOutput {
        let x = relu(self.stem.forward(input));
        let x = self.blocks.iter().fold(x, |x, block| {
            let mut h = relu(block.conv1.forward(x.clone()));
            if let Some(pool) = &block.pool {
                let [n, c, _, _] = h.dims();
                h = h.clone() + pool.forward(global_pool(h)).reshape([n, c, 1, 1]);
            }
            relu(block.conv2.forward(h) + x)
        });
        let p = relu(self.policy_conv.forward(x.clone()));
        let policy = gather_policy(self.policy_out.forward(p));
        let v = relu(self.value_conv.forward(x));
        let (wdl, plies_left) = self.value_mlp.forward(global_pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }
}

/// The folded layers of either kind.
#[allow(clippy::large_enum_variant)] // one per evaluator, never in bulk
#[derive(Clone, Debug)]
enum Folded {
    Resnet8x8(FoldedBoard),
    Diag32(FoldedDiag),
}

/// The folded network, ready for batched inference.
#[derive(Clone, Debug)]
pub struct InferenceNet {
    folded: Folded,
    config: NetConfig,
    device: Device,
}

impl InferenceNet {
    /// Folds a trained network onto `device`.
    pub fn from_net(net: &Net, device: &Device) -> Result<InferenceNet, NetError> {
        InferenceNet::from_tensors(net.config(), net.to_tensors()?, device)
    }

    /// Builds the folded network from the stable named tensors (as
    /// [`Net::to_tensors`] or `model.safetensors` hold them); fails on
    /// weights of the other kind or a missing, extra or misshapen tensor.
    pub fn from_tensors(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        device: &Device,
    ) -> Result<InferenceNet, NetError> {
        config.validate()?;
        check_kind(config, &tensors)?;
        let mut t = Tensors {
            map: tensors.into_iter().map(|t| (t.name.clone(), t)).collect(),
            device,
        };
        let folded = match config.kind {
            NetKind::Resnet8x8 => Folded::Resnet8x8(FoldedBoard::build(config, &mut t)?),
            NetKind::Diag32 => Folded::Diag32(FoldedDiag::build(config, &mut t)?),
        };
        if !t.map.is_empty() {
            let mut names: Vec<&String> = t.map.keys().collect();
            names.sort();
            return Err(NetError::Weights(format!(
                "tensors not used by this architecture: {names:?}"
            )));
        }
        Ok(InferenceNet {
            folded,
            config: config.clone(),
            device: device.clone(),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Runs the network on `[n, 7, 8, 8]` inputs.
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

/// Network outputs copied to the host, row-major.
#[derive(Clone, Debug, Default)]
pub struct HostOutput {
    /// `n * 1024` policy logits.
    pub policy: Vec<f32>,
    /// `n * 3` W/D/L logits.
    pub wdl: Vec<f32>,
    /// `n` scaled plies-left predictions, if the head exists.
    pub plies_left: Option<Vec<f32>>,
}

/// Takes named host tensors and turns them into folded device tensors.
pub(crate) struct Tensors<'a> {
    map: HashMap<String, NamedTensor>,
    pub(crate) device: &'a Device,
}

impl Tensors<'_> {
    pub(crate) fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        let tensor = self
            .map
            .remove(name)
            .ok_or_else(|| NetError::Weights(format!("tensor {name} is missing")))?;
        if tensor.shape != shape {
            return Err(NetError::Weights(format!(
                "tensor {name} has shape {:?}, the architecture needs {shape:?}",
                tensor.shape
            )));
        }
        Ok(tensor.data)
    }

    fn conv_tensors(&self, weight: Vec<f32>, bias: Vec<f32>, shape: [usize; 4]) -> FoldedConv {
        let cout = shape[0];
        FoldedConv {
            weight: Tensor::from_data(TensorData::new(weight, shape), self.device),
            bias: Tensor::from_data(TensorData::new(bias, [cout]), self.device),
            padding: shape[2] / 2,
        }
    }

    /// Convolution `conv` (no bias) followed by batch norm `bn`, folded:
    /// `w' = w * s`, `b' = beta - mean * s` with `s = gamma / sqrt(var + eps)`.
    fn folded_conv(
        &mut self,
        conv: &str,
        bn: &str,
        cout: usize,
        cin: usize,
        kernel: usize,
    ) -> Result<FoldedConv, NetError> {
        let shape = [cout, cin, kernel, kernel];
        let mut weight = self.take(&format!("{conv}.weight"), &shape)?;
        let bias = self.fold_batch_norm(bn, &mut weight, cout)?;
        Ok(self.conv_tensors(weight, bias, shape))
    }

    /// Folds batch norm `bn` into `weight` (output channel outermost,
    /// `cout` of them) and returns the bias it leaves.
    pub(crate) fn fold_batch_norm(
        &mut self,
        bn: &str,
        weight: &mut [f32],
        cout: usize,
    ) -> Result<Vec<f32>, NetError> {
        let gamma = self.take(&format!("{bn}.gamma"), &[cout])?;
        let beta = self.take(&format!("{bn}.beta"), &[cout])?;
        let mean = self.take(&format!("{bn}.running_mean"), &[cout])?;
        let var = self.take(&format!("{bn}.running_var"), &[cout])?;
        let per_out = weight.len() / cout;
        let mut bias = vec![0.0f32; cout];
        for o in 0..cout {
            let scale = f64::from(gamma[o]) / (f64::from(var[o]) + BATCH_NORM_EPSILON).sqrt();
            for w in &mut weight[o * per_out..(o + 1) * per_out] {
                *w = (f64::from(*w) * scale) as f32;
            }
            bias[o] = (f64::from(beta[o]) - f64::from(mean[o]) * scale) as f32;
        }
        Ok(bias)
    }

    /// A convolution with its own bias and no batch norm.
    fn biased_conv(
        &mut self,
        conv: &str,
        cout: usize,
        cin: usize,
        kernel: usize,
    ) -> Result<FoldedConv, NetError> {
        let shape = [cout, cin, kernel, kernel];
        let weight = self.take(&format!("{conv}.weight"), &shape)?;
        let bias = self.take(&format!("{conv}.bias"), &[cout])?;
        Ok(self.conv_tensors(weight, bias, shape))
    }

    pub(crate) fn dense(&mut self, name: &str, din: usize, dout: usize) -> Result<Dense, NetError> {
        let weight = self.take(&format!("{name}.weight"), &[dout, din])?;
        let weight = transpose(&weight, dout, din);
        let bias = self.take(&format!("{name}.bias"), &[dout])?;
        Ok(Dense {
            weight: Tensor::from_data(TensorData::new(weight, [din, dout]), self.device),
            bias: Tensor::from_data(TensorData::new(bias, [dout]), self.device),
        })
    }
}
