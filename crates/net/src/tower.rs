//! The trainable network of any kind: the residual tower with batch norm,
//! the convolutional policy head and the W/D/L value head (plus the
//! optional plies-left head), built from a [`ModelDesc`] and generic over
//! the kind's convolution (`layout::TrainConv`). A burn [`Module`], so it lives on
//! any device and trains on an autodiff one.

use crate::config::NetConfig;
use crate::desc::{BlockDesc, ConvBnDesc, ModelDesc, ValueHeadDesc};
use crate::error::NetError;
use crate::layers::{Builder, export_bn, export_linear};
use crate::layout::{Act, Activation, Context, Layout, TrainConv};
use crate::output::NetOutput;
use crate::weights::NamedTensor;
use burn::module::Module;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::Tensor;
use burn::tensor::activation::relu;

/// Builds convolution and batch norm `desc`.
fn build_conv_bn<C: TrainConv>(
    b: &mut Builder<'_>,
    desc: &ConvBnDesc,
) -> Result<(C, BatchNorm), NetError> {
    let conv = C::build(b, &desc.conv)?;
    let bn = b.batch_norm(&desc.bn, desc.conv.cout)?;
    Ok((conv, bn))
}

/// `bn(conv(x))`, before the ReLU.
fn conv_bn<C: TrainConv>(conv: &C, bn: &BatchNorm, x: Act<C>, context: &Context<C>) -> Act<C> {
    conv.forward(x, context).batch_norm(bn)
}

fn export_conv_bn<C: TrainConv>(
    out: &mut Vec<NamedTensor>,
    desc: &ConvBnDesc,
    conv: &C,
    bn: &BatchNorm,
) -> Result<(), NetError> {
    conv.export(out, &desc.conv.name)?;
    export_bn(out, &desc.bn, bn)
}

/// One residual block (see [`BlockDesc`]). The fields keep their names
/// (module paths, which optimizer states record) from the first nets.
#[derive(Module, Debug)]
pub(crate) struct ResBlock<C: Module> {
    conv1: C,
    bn1: BatchNorm,
    /// Maps `[mean, max]` of the first activation (2C) to a per-channel bias (C).
    pool: Option<Linear>,
    conv2: C,
    bn2: BatchNorm,
}

impl<C: TrainConv + Module> ResBlock<C> {
    fn build(b: &mut Builder<'_>, desc: &BlockDesc) -> Result<ResBlock<C>, NetError> {
        let (conv1, bn1) = build_conv_bn(b, &desc.conv1)?;
        let pool = desc.pool.as_ref().map(|pool| b.linear(pool)).transpose()?;
        let (conv2, bn2) = build_conv_bn(b, &desc.conv2)?;
        Ok(ResBlock {
            conv1,
            bn1,
            pool,
            conv2,
            bn2,
        })
    }

    fn forward(&self, x: Act<C>, context: &Context<C>) -> Act<C> {
        let mut h = conv_bn(&self.conv1, &self.bn1, x.clone(), context).relu();
        if let Some(pool) = &self.pool {
            h = C::Layout::add_bias(h.clone(), pool.forward(C::Layout::pool(h)));
        }
        (conv_bn(&self.conv2, &self.bn2, h, context) + x).relu()
    }

    fn export(&self, out: &mut Vec<NamedTensor>, desc: &BlockDesc) -> Result<(), NetError> {
        export_conv_bn(out, &desc.conv1, &self.conv1, &self.bn1)?;
        if let (Some(pool), Some(pool_desc)) = (&self.pool, &desc.pool) {
            export_linear(out, &pool_desc.name, pool)?;
        }
        export_conv_bn(out, &desc.conv2, &self.conv2, &self.bn2)
    }
}

/// The value head's layers after pooling, the same in every kind: a hidden
/// layer, the W/D/L logits and the optional plies-left output.
#[derive(Module, Debug)]
pub(crate) struct ValueMlp {
    fc: Linear,
    wdl: Linear,
    plies: Option<Linear>,
}

impl ValueMlp {
    fn build(b: &mut Builder<'_>, desc: &ValueHeadDesc) -> Result<ValueMlp, NetError> {
        Ok(ValueMlp {
            fc: b.linear(&desc.fc)?,
            wdl: b.linear(&desc.wdl)?,
            plies: desc.plies.as_ref().map(|d| b.linear(d)).transpose()?,
        })
    }

    /// Pooled value features `[n, 2 * value_channels]` -> (W/D/L logits,
    /// plies left).
    fn forward(&self, pooled: Tensor<2>) -> (Tensor<2>, Option<Tensor<2>>) {
        let hidden = relu(self.fc.forward(pooled));
        let plies_left = self.plies.as_ref().map(|head| head.forward(hidden.clone()));
        (self.wdl.forward(hidden), plies_left)
    }

    fn export(&self, out: &mut Vec<NamedTensor>, desc: &ValueHeadDesc) -> Result<(), NetError> {
        export_linear(out, &desc.fc.name, &self.fc)?;
        export_linear(out, &desc.wdl.name, &self.wdl)?;
        if let (Some(head), Some(head_desc)) = (&self.plies, &desc.plies) {
            export_linear(out, &head_desc.name, head)?;
        }
        Ok(())
    }
}

/// The trainable network of the kind whose convolution is `C`.
#[derive(Module, Debug)]
pub struct Tower<C: Module> {
    stem_conv: C,
    stem_bn: BatchNorm,
    blocks: Vec<ResBlock<C>>,
    policy_conv: C,
    policy_bn: BatchNorm,
    policy_out: C,
    value_conv: C,
    value_bn: BatchNorm,
    value_mlp: ValueMlp,
    #[module(skip)]
    config: NetConfig,
}

impl<C: Module> Tower<C> {
    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }
}

// The kind traits are the crate's own (a kind is added here, not by users);
// the public nets are `BoardNet` and `DiagNet`, used through `Net`.
#[allow(private_bounds)]
impl<C: TrainConv + Module> Tower<C> {
    /// Builds the net of `desc`, taking every parameter from `b` in the
    /// description's order (which also fixes the parameter ids).
    pub(crate) fn build(
        config: &NetConfig,
        desc: &ModelDesc,
        b: &mut Builder<'_>,
    ) -> Result<Tower<C>, NetError> {
        let (stem_conv, stem_bn) = build_conv_bn(b, &desc.trunk.stem)?;
        let blocks = desc
            .trunk
            .blocks
            .iter()
            .map(|block| ResBlock::build(b, block))
            .collect::<Result<_, _>>()?;
        let (policy_conv, policy_bn) = build_conv_bn(b, &desc.policy.conv)?;
        let policy_out = C::build(b, &desc.policy.out)?;
        let (value_conv, value_bn) = build_conv_bn(b, &desc.value.conv)?;
        Ok(Tower {
            stem_conv,
            stem_bn,
            blocks,
            policy_conv,
            policy_bn,
            policy_out,
            value_conv,
            value_bn,
            value_mlp: ValueMlp::build(b, &desc.value)?,
            config: config.clone(),
        })
    }

    /// Runs the network on `[n, 7, 8, 8]` input planes.
    pub(crate) fn forward(&self, input: Tensor<4>) -> NetOutput {
        let context = &C::Layout::context(&self.config, &input.device());
        let x = C::Layout::enter(context, input);
        let x = conv_bn(&self.stem_conv, &self.stem_bn, x, context).relu();
        let x = self
            .blocks
            .iter()
            .fold(x, |x, block| block.forward(x, context));
        let p = conv_bn(&self.policy_conv, &self.policy_bn, x.clone(), context).relu();
        let policy = C::Layout::policy(context, self.policy_out.forward(p, context));
        let v = conv_bn(&self.value_conv, &self.value_bn, x, context).relu();
        let (wdl, plies_left) = self.value_mlp.forward(C::Layout::pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }

    /// Every tensor with its stable name and exported layout, in the order
    /// of `desc` (the description this net was built from).
    pub(crate) fn to_tensors(&self, desc: &ModelDesc) -> Result<Vec<NamedTensor>, NetError> {
        let mut out = Vec::new();
        let stem = &desc.trunk.stem;
        export_conv_bn(&mut out, stem, &self.stem_conv, &self.stem_bn)?;
        for (block, block_desc) in self.blocks.iter().zip(&desc.trunk.blocks) {
            block.export(&mut out, block_desc)?;
        }
        let policy = &desc.policy.conv;
        export_conv_bn(&mut out, policy, &self.policy_conv, &self.policy_bn)?;
        self.policy_out.export(&mut out, &desc.policy.out.name)?;
        let value = &desc.value.conv;
        export_conv_bn(&mut out, value, &self.value_conv, &self.value_bn)?;
        self.value_mlp.export(&mut out, &desc.value)?;
        Ok(out)
    }
}
