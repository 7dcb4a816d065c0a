//! The trainable policy/value network: a residual tower with batch norm,
//! a convolutional policy head and a W/D/L value head (plus an optional
//! plies-left head), of one of two kinds ([`NetKind`]): the 8x8 ResNet
//! ([`BoardNet`], here) or the 32-square diagonal net
//! ([`DiagNet`]). [`Net`] holds either.
//!
//! It is a burn [`Module`], so it lives on any device: `Device::flex()` for
//! CPU inference, `Device::flex().autodiff()` for training, a wgpu device
//! with the `wgpu` feature. For fast inference fold it into an
//! [`InferenceNet`](crate::InferenceNet) (batch norm folded into the
//! convolutions).
//!
//! Parameters get fixed ids (in build order), so an optimizer state saved
//! with a checkpoint finds its parameters again after loading.

use crate::config::{NetConfig, NetKind};
use crate::diag::{DiagNet, diag_tensor_shapes};
use crate::encoding::{CELL_OF_SQUARE, INPUT_PLANES, POLICY_LEN};
use crate::error::NetError;
use crate::weights::{Init, LoadedWeights, NamedTensor, RandomInit, WeightSource};
use burn::module::{Module, Param, ParamId, RunningState};
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, BatchNormConfig, Linear, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// Batch norm epsilon of every layer (also written to `model.json`).
pub const BATCH_NORM_EPSILON: f64 = 1e-5;
/// Scale of the plies-left head: the head predicts `plies_left / 100`.
pub const PLIES_LEFT_SCALE: f32 = 100.0;
/// First parameter id; the rest follow in build order.
const PARAM_ID_BASE: u64 = 0x5348_4B5A_0000_0000;

/// The network's raw outputs for a batch of `n` positions.
#[derive(Clone, Debug)]
pub struct NetOutput {
    /// Policy logits `[n, 1024]`, index `from * 32 + to` (relative squares).
    pub policy: Tensor<2>,
    /// Win/draw/loss logits `[n, 3]` from the side to move's view.
    pub wdl: Tensor<2>,
    /// Plies left divided by [`PLIES_LEFT_SCALE`], `[n, 1]`, if the head exists.
    pub plies_left: Option<Tensor<2>>,
}

/// One residual block: conv-BN-ReLU, optional global pooling bias,
/// conv-BN, skip connection, ReLU.
#[derive(Module, Debug)]
pub struct ResBlock {
    conv1: Conv2d,
    bn1: BatchNorm,
    /// Maps `[mean, max]` of the first activation (2C) to a per-channel bias (C).
    pool: Option<Linear>,
    conv2: Conv2d,
    bn2: BatchNorm,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut h = relu(self.bn1.forward(self.conv1.forward(x.clone())));
        if let Some(pool) = &self.pool {
            let [n, c, _, _] = h.dims();
            let bias = pool.forward(global_pool(h.clone())).reshape([n, c, 1, 1]);
            h = h + bias;
        }
        relu(self.bn2.forward(self.conv2.forward(h)) + x)
    }
}

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
        let mut builder = Builder::new(source, device);
        Ok(match config.kind {
            NetKind::Resnet8x8 => Net::Resnet8x8(BoardNet::build(config, &mut builder)?),
            NetKind::Diag32 => Net::Diag32(DiagNet::build(config, &mut builder)?),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        match self {
            Net::Resnet8x8(net) => &net.config,
            Net::Diag32(net) => net.config(),
        }
    }

    /// Runs the network on `input` of shape `[n, 7, 8, 8]` (both kinds take
    /// the same planes; the diagonal net reads the 32 dark cells only). On
    /// an autodiff device batch norm uses batch statistics (training);
    /// elsewhere, or on a [`Module::valid`] copy, the running statistics.
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        match self {
            Net::Resnet8x8(net) => net.forward(input),
            Net::Diag32(net) => net.forward(input),
        }
    }

    /// Every parameter and batch norm statistic as host tensors with their
    /// stable names and exported layouts, in build order.
    pub fn to_tensors(&self) -> Result<Vec<NamedTensor>, NetError> {
        match self {
            Net::Resnet8x8(net) => net.to_tensors(),
            Net::Diag32(net) => net.to_tensors(),
        }
    }
}

/// The 8x8 ResNet (`kind = "resnet8x8"`).
#[derive(Module, Debug)]
pub struct BoardNet {
    stem_conv: Conv2d,
    stem_bn: BatchNorm,
    blocks: Vec<ResBlock>,
    policy_conv: Conv2d,
    policy_bn: BatchNorm,
    policy_out: Conv2d,
    value_conv: Conv2d,
    value_bn: BatchNorm,
    value_mlp: ValueMlp,
    #[module(skip)]
    config: NetConfig,
}

impl BoardNet {
    /// Builds the 8x8 net, parameters in a fixed order.
    fn build(config: &NetConfig, b: &mut Builder<'_>) -> Result<BoardNet, NetError> {
        let c = config.channels;
        let stem_conv = b.conv("stem.conv", INPUT_PLANES, c, 3, false)?;
        let stem_bn = b.batch_norm("stem.bn", c)?;
        let mut blocks = Vec::with_capacity(config.blocks);
        for i in 0..config.blocks {
            let name = |part: &str| format!("blocks.{i}.{part}");
            let conv1 = b.conv(&name("conv1"), c, c, 3, false)?;
            let bn1 = b.batch_norm(&name("bn1"), c)?;
            let pool = if config.block_has_global_pool(i) {
                Some(b.linear(&name("pool"), 2 * c, c, Init::Small { fan_in: 2 * c })?)
            } else {
                None
            };
            let conv2 = b.conv(&name("conv2"), c, c, 3, false)?;
            let bn2 = b.batch_norm(&name("bn2"), c)?;
            blocks.push(ResBlock {
                conv1,
                bn1,
                pool,
                conv2,
                bn2,
            });
        }
        let (pc, vc) = (config.policy_channels, config.value_channels);
        let policy_conv = b.conv("policy.conv", c, pc, 1, false)?;
        let policy_bn = b.batch_norm("policy.bn", pc)?;
        let policy_out = b.conv("policy.out", pc, 32, 1, true)?;
        let value_conv = b.conv("value.conv", c, vc, 1, false)?;
        let value_bn = b.batch_norm("value.bn", vc)?;
        let value_mlp = ValueMlp::build(config, b)?;
        Ok(BoardNet {
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

    fn forward(&self, input: Tensor<4>) -> NetOutput {
        let x = relu(self.stem_bn.forward(self.stem_conv.forward(input)));
        let x = self.blocks.iter().fold(x, |x, block| block.forward(x));
        let p = relu(self.policy_bn.forward(self.policy_conv.forward(x.clone())));
        let policy = gather_policy(self.policy_out.forward(p));
        let v = relu(self.value_bn.forward(self.value_conv.forward(x)));
        let (wdl, plies_left) = self.value_mlp.forward(global_pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }

    fn to_tensors(&self) -> Result<Vec<NamedTensor>, NetError> {
        let mut out = Vec::new();
        export_conv(&mut out, "stem.conv", &self.stem_conv)?;
        export_bn(&mut out, "stem.bn", &self.stem_bn)?;
        for (i, block) in self.blocks.iter().enumerate() {
            let name = |part: &str| format!("blocks.{i}.{part}");
            export_conv(&mut out, &name("conv1"), &block.conv1)?;
            export_bn(&mut out, &name("bn1"), &block.bn1)?;
            if let Some(pool) = &block.pool {
                export_linear(&mut out, &name("pool"), pool)?;
            }
            export_conv(&mut out, &name("conv2"), &block.conv2)?;
            export_bn(&mut out, &name("bn2"), &block.bn2)?;
        }
        export_conv(&mut out, "policy.conv", &self.policy_conv)?;
        export_bn(&mut out, "policy.bn", &self.policy_bn)?;
        export_conv(&mut out, "policy.out", &self.policy_out)?;
        export_conv(&mut out, "value.conv", &self.value_conv)?;
        export_bn(&mut out, "value.bn", &self.value_bn)?;
        self.value_mlp.export(&mut out)?;
        Ok(out)
    }
}

/// The value head's layers after pooling, the same in both kinds: a hidden
/// layer, the W/D/L logits and the optional plies-left output.
#[derive(Module, Debug)]
pub struct ValueMlp {
    fc: Linear,
    wdl: Linear,
    plies: Option<Linear>,
}

impl ValueMlp {
    pub(crate) fn build(config: &NetConfig, b: &mut Builder<'_>) -> Result<ValueMlp, NetError> {
        let (vc, vh) = (config.value_channels, config.value_hidden);
        let fc = b.linear("value.fc", 2 * vc, vh, Init::He { fan_in: 2 * vc })?;
        let wdl = b.linear("value.wdl", vh, 3, Init::Small { fan_in: vh })?;
        let plies = if config.plies_left_head {
            Some(b.linear("value.plies", vh, 1, Init::Small { fan_in: vh })?)
        } else {
            None
        };
        Ok(ValueMlp { fc, wdl, plies })
    }

    /// Pooled value features `[n, 2 * value_channels]` -> (W/D/L logits,
    /// plies left).
    pub(crate) fn forward(&self, pooled: Tensor<2>) -> (Tensor<2>, Option<Tensor<2>>) {
        let hidden = relu(self.fc.forward(pooled));
        let plies_left = self.plies.as_ref().map(|head| head.forward(hidden.clone()));
        (self.wdl.forward(hidden), plies_left)
    }

    pub(crate) fn export(&self, out: &mut Vec<NamedTensor>) -> Result<(), NetError> {
        export_linear(out, "value.fc", &self.fc)?;
        export_linear(out, "value.wdl", &self.wdl)?;
        if let Some(head) = &self.plies {
            export_linear(out, "value.plies", head)?;
        }
        Ok(())
    }
}

/// `[n, c, h, w]` -> `[n, 2c]`: per-channel mean then max over the board.
pub(crate) fn global_pool(x: Tensor<4>) -> Tensor<2> {
    let [n, c, h, w] = x.dims();
    let flat = x.reshape([n, c, h * w]);
    let mean = flat.clone().mean_dim(2);
    let max = flat.max_dim(2);
    Tensor::cat(vec![mean, max], 1).reshape([n, 2 * c])
}

/// `[n, 32, 8, 8]` (channel = relative end square, read at the start
/// square's cell) -> `[n, 1024]` logits at `from * 32 + to`.
pub(crate) fn gather_policy(out: Tensor<4>) -> Tensor<2> {
    let [n, to, h, w] = out.dims();
    let cells: Vec<i64> = CELL_OF_SQUARE.iter().map(|&c| c as i64).collect();
    let index = Tensor::<1, Int>::from_data(TensorData::new(cells, [32]), &out.device());
    out.reshape([n, to, h * w])
        .select(2, index)
        .swap_dims(1, 2)
        .reshape([n, POLICY_LEN])
}

/// Builds layers with parameters from a [`WeightSource`].
pub(crate) struct Builder<'a> {
    pub(crate) source: &'a mut dyn WeightSource,
    pub(crate) device: &'a Device,
    next_id: u64,
}

impl<'a> Builder<'a> {
    fn new(source: &'a mut dyn WeightSource, device: &'a Device) -> Builder<'a> {
        Builder {
            source,
            device,
            next_id: 0,
        }
    }

    pub(crate) fn values<const D: usize>(
        &mut self,
        name: &str,
        shape: [usize; D],
        init: Init,
    ) -> Result<Tensor<D>, NetError> {
        let data = self.source.take(name, &shape, init)?;
        Ok(Tensor::from_data(TensorData::new(data, shape), self.device))
    }

    /// A trainable parameter with the next fixed id.
    pub(crate) fn param<const D: usize>(&mut self, value: Tensor<D>) -> Param<Tensor<D>> {
        let id = ParamId::from(PARAM_ID_BASE + self.next_id);
        self.next_id += 1;
        let shape = value.shape();
        let device = value.device();
        Param::uninitialized(
            id,
            move |device, require_grad| {
                let value = value.to_device(device);
                if require_grad {
                    value.require_grad()
                } else {
                    value
                }
            },
            device,
            true,
            shape,
        )
    }

    fn conv(
        &mut self,
        name: &str,
        cin: usize,
        cout: usize,
        kernel: usize,
        bias: bool,
    ) -> Result<Conv2d, NetError> {
        let fan_in = cin * kernel * kernel;
        let init = if bias {
            Init::Small { fan_in }
        } else {
            Init::He { fan_in }
        };
        let weight = self.values(&format!("{name}.weight"), [cout, cin, kernel, kernel], init)?;
        let weight = self.param(weight);
        let bias = if bias {
            let b = self.values(&format!("{name}.bias"), [cout], Init::Zeros)?;
            Some(self.param(b))
        } else {
            None
        };
        let pad = kernel / 2;
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

    pub(crate) fn batch_norm(
        &mut self,
        name: &str,
        channels: usize,
    ) -> Result<BatchNorm, NetError> {
        let mut bn = BatchNormConfig::new(channels)
            .with_epsilon(BATCH_NORM_EPSILON)
            .init(self.device);
        let gamma = self.values(&format!("{name}.gamma"), [channels], Init::Ones)?;
        bn.gamma = self.param(gamma);
        let beta = self.values(&format!("{name}.beta"), [channels], Init::Zeros)?;
        bn.beta = self.param(beta);
        let mean = self.values(&format!("{name}.running_mean"), [channels], Init::Zeros)?;
        bn.running_mean = RunningState::new(mean);
        let var = self.values(&format!("{name}.running_var"), [channels], Init::Ones)?;
        bn.running_var = RunningState::new(var);
        Ok(bn)
    }

    /// A fully connected layer; the source holds `[out, in]`, burn wants `[in, out]`.
    pub(crate) fn linear(
        &mut self,
        name: &str,
        din: usize,
        dout: usize,
        init: Init,
    ) -> Result<Linear, NetError> {
        let weight = self
            .source
            .take(&format!("{name}.weight"), &[dout, din], init)?;
        let weight = transpose(&weight, dout, din);
        let weight = Tensor::from_data(TensorData::new(weight, [din, dout]), self.device);
        let weight = self.param(weight);
        let bias = self.values(&format!("{name}.bias"), [dout], Init::Zeros)?;
        let bias = Some(self.param(bias));
        Ok(Linear { weight, bias })
    }
}

/// Row-major `[rows, cols]` -> `[cols, rows]`.
pub(crate) fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}

/// A device tensor's values on the host.
pub(crate) fn host<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, NetError> {
    tensor
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| NetError::Tensor(format!("{e:?}")))
}

pub(crate) fn push<const D: usize>(
    out: &mut Vec<NamedTensor>,
    name: String,
    tensor: Tensor<D>,
) -> Result<(), NetError> {
    let shape = tensor.dims().to_vec();
    let data = host(tensor)?;
    out.push(NamedTensor { name, shape, data });
    Ok(())
}

fn export_conv(out: &mut Vec<NamedTensor>, name: &str, conv: &Conv2d) -> Result<(), NetError> {
    push(out, format!("{name}.weight"), conv.weight.val())?;
    if let Some(bias) = &conv.bias {
        push(out, format!("{name}.bias"), bias.val())?;
    }
    Ok(())
}

pub(crate) fn export_bn(
    out: &mut Vec<NamedTensor>,
    name: &str,
    bn: &BatchNorm,
) -> Result<(), NetError> {
    push(out, format!("{name}.gamma"), bn.gamma.val())?;
    push(out, format!("{name}.beta"), bn.beta.val())?;
    // `valid` folds in updates still pending on any thread (`value` may be
    // one update behind).
    push(
        out,
        format!("{name}.running_mean"),
        bn.running_mean.valid().value(),
    )?;
    push(
        out,
        format!("{name}.running_var"),
        bn.running_var.valid().value(),
    )
}

pub(crate) fn export_linear(
    out: &mut Vec<NamedTensor>,
    name: &str,
    linear: &Linear,
) -> Result<(), NetError> {
    let [din, dout] = linear.weight.dims();
    let weight = host(linear.weight.val())?;
    out.push(NamedTensor {
        name: format!("{name}.weight"),
        shape: vec![dout, din],
        data: transpose(&weight, din, dout),
    });
    if let Some(bias) = &linear.bias {
        push(out, format!("{name}.bias"), bias.val())?;
    }
    Ok(())
}

/// Names and shapes of every tensor of an architecture, in build order
/// (what [`Net::to_tensors`] writes and [`Net::from_tensors`] reads).
pub fn tensor_shapes(config: &NetConfig) -> Vec<(String, Vec<usize>)> {
    match config.kind {
        NetKind::Resnet8x8 => board_tensor_shapes(config),
        NetKind::Diag32 => diag_tensor_shapes(config),
    }
}

/// The kind whose weights `tensors` are, told by the stem convolution's
/// rank (4 on the 8x8 board, 3 on the 32 squares); `None` without a stem.
pub fn kind_of_tensors(tensors: &[NamedTensor]) -> Option<NetKind> {
    let stem = tensors.iter().find(|t| t.name == "stem.conv.weight")?;
    match stem.shape.len() {
        4 => Some(NetKind::Resnet8x8),
        3 => Some(NetKind::Diag32),
        _ => None,
    }
}

/// Fails with a clear message when `tensors` are the weights of another
/// kind of net than `config` asks for.
pub(crate) fn check_kind(config: &NetConfig, tensors: &[NamedTensor]) -> Result<(), NetError> {
    match kind_of_tensors(tensors) {
        Some(found) if found != config.kind => Err(NetError::Weights(format!(
            "the weights are of a {found} net, the architecture asks for a {} net",
            config.kind
        ))),
        _ => Ok(()),
    }
}

fn board_tensor_shapes(config: &NetConfig) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    let conv = |out: &mut Vec<(String, Vec<usize>)>, name: &str, o, i, k, bias: bool| {
        out.push((format!("{name}.weight"), vec![o, i, k, k]));
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
    let c = config.channels;
    conv(&mut out, "stem.conv", c, INPUT_PLANES, 3, false);
    bn(&mut out, "stem.bn", c);
    for i in 0..config.blocks {
        conv(&mut out, &format!("blocks.{i}.conv1"), c, c, 3, false);
        bn(&mut out, &format!("blocks.{i}.bn1"), c);
        if config.block_has_global_pool(i) {
            linear(&mut out, &format!("blocks.{i}.pool"), 2 * c, c);
        }
        conv(&mut out, &format!("blocks.{i}.conv2"), c, c, 3, false);
        bn(&mut out, &format!("blocks.{i}.bn2"), c);
    }
    let (pc, vc, vh) = (
        config.policy_channels,
        config.value_channels,
        config.value_hidden,
    );
    conv(&mut out, "policy.conv", pc, c, 1, false);
    bn(&mut out, "policy.bn", pc);
    conv(&mut out, "policy.out", 32, pc, 1, true);
    conv(&mut out, "value.conv", vc, c, 1, false);
    bn(&mut out, "value.bn", vc);
    linear(&mut out, "value.fc", 2 * vc, vh);
    linear(&mut out, "value.wdl", vh, 3);
    if config.plies_left_head {
        linear(&mut out, "value.plies", vh, 1);
    }
    out
}

/// Checks that `tensors` are exactly the tensors of `config` (names and
/// shapes) and returns them in build order.
pub fn check_tensors(
    config: &NetConfig,
    tensors: Vec<NamedTensor>,
) -> Result<Vec<NamedTensor>, NetError> {
    check_kind(config, &tensors)?;
    let mut by_name: std::collections::HashMap<String, NamedTensor> =
        tensors.into_iter().map(|t| (t.name.clone(), t)).collect();
    let mut ordered = Vec::with_capacity(by_name.len());
    for (name, shape) in tensor_shapes(config) {
        let tensor = by_name
            .remove(&name)
            .ok_or_else(|| NetError::Weights(format!("tensor {name} is missing")))?;
        if tensor.shape != shape {
            return Err(NetError::Weights(format!(
                "tensor {name} has shape {:?}, the architecture needs {shape:?}",
                tensor.shape
            )));
        }
        if tensor.data.len() != shape.iter().product::<usize>() {
            return Err(NetError::Weights(format!(
                "tensor {name} holds {} values for shape {shape:?}",
                tensor.data.len()
            )));
        }
        check_finite(&tensor)?;
        ordered.push(tensor);
    }
    if let Some(extra) = by_name.keys().min() {
        return Err(NetError::Weights(format!(
            "tensor {extra} is not part of this architecture"
        )));
    }
    Ok(ordered)
}

/// Fails if `tensor` holds a NaN or an infinity (corrupt file or a
/// diverged training run), naming the tensor, the index and the value.
pub fn check_finite(tensor: &NamedTensor) -> Result<(), NetError> {
    match tensor.data.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(NetError::NonFinite {
            tensor: tensor.name.clone(),
            index,
            value: tensor.data[index],
        }),
    }
}

/// Number of scalar parameters of an architecture (trainable ones only,
/// batch norm running statistics excluded).
pub fn parameter_count(config: &NetConfig) -> usize {
    tensor_shapes(config)
        .iter()
        .filter(|(name, _)| !name.ends_with("running_mean") && !name.ends_with("running_var"))
        .map(|(_, shape)| shape.iter().product::<usize>())
        .sum()
}
