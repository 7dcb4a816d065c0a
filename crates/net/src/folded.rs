//! The network of any kind folded for inference: the same layers as
//! [`Tower`](crate::tower::Tower), read from the same [`ModelDesc`], with
//! each batch norm folded into the convolution before it and the kind's
//! index tensors made once.

use crate::config::NetConfig;
use crate::desc::{BlockDesc, ConvBnDesc, ModelDesc, ValueHeadDesc};
use crate::error::NetError;
use crate::fold::{BurnDense, Folder};
use crate::layout::{Activation, FoldedAct, FoldedContext, FoldedConv, Layout};
use crate::output::NetOutput;
use burn::tensor::Tensor;
use burn::tensor::activation::relu;

/// Convolution and batch norm `desc` folded into one `F`.
fn conv_bn<F: FoldedConv>(f: &mut Folder<'_>, desc: &ConvBnDesc) -> Result<F, NetError> {
    let (weight, bias) = f.conv_bn(desc)?;
    F::new(f, &desc.conv, weight, bias)
}

#[derive(Clone, Debug)]
struct FoldedBlock<F> {
    conv1: F,
    pool: Option<BurnDense>,
    conv2: F,
}

impl<F: FoldedConv> FoldedBlock<F> {
    fn fold(f: &mut Folder<'_>, desc: &BlockDesc) -> Result<FoldedBlock<F>, NetError> {
        Ok(FoldedBlock {
            conv1: conv_bn(f, &desc.conv1)?,
            pool: desc.pool.as_ref().map(|pool| f.dense(pool)).transpose()?,
            conv2: conv_bn(f, &desc.conv2)?,
        })
    }

    fn forward(&self, x: FoldedAct<F>, context: &FoldedContext<F>) -> FoldedAct<F> {
        let mut h = self.conv1.forward(x.clone(), context).relu();
        if let Some(pool) = &self.pool {
            h = F::Layout::add_bias(h.clone(), pool.forward(F::Layout::pool(h)));
        }
        (self.conv2.forward(h, context) + x).relu()
    }
}

/// The value head's layers after pooling (nothing to fold: no batch norm).
#[derive(Clone, Debug)]
struct FoldedValueMlp {
    fc: BurnDense,
    wdl: BurnDense,
    plies: Option<BurnDense>,
}

impl FoldedValueMlp {
    fn fold(f: &mut Folder<'_>, desc: &ValueHeadDesc) -> Result<FoldedValueMlp, NetError> {
        Ok(FoldedValueMlp {
            fc: f.dense(&desc.fc)?,
            wdl: f.dense(&desc.wdl)?,
            plies: desc.plies.as_ref().map(|d| f.dense(d)).transpose()?,
        })
    }

    /// Pooled features -> (W/D/L logits, plies left).
    fn forward(&self, pooled: Tensor<2>) -> (Tensor<2>, Option<Tensor<2>>) {
        let hidden = relu(self.fc.forward(pooled));
        let plies_left = self.plies.as_ref().map(|head| head.forward(hidden.clone()));
        (self.wdl.forward(hidden), plies_left)
    }
}

/// The folded network of the kind whose folded convolution is `F`.
#[derive(Clone, Debug)]
pub(crate) struct FoldedTower<F: FoldedConv> {
    context: FoldedContext<F>,
    stem: F,
    blocks: Vec<FoldedBlock<F>>,
    policy_conv: F,
    policy_out: F,
    value_conv: F,
    value_mlp: FoldedValueMlp,
}

impl<F: FoldedConv> FoldedTower<F> {
    /// Folds the layers of `desc`, taking their tensors from `f`.
    pub(crate) fn fold(
        config: &NetConfig,
        desc: &ModelDesc,
        f: &mut Folder<'_>,
    ) -> Result<FoldedTower<F>, NetError> {
        let stem = conv_bn(f, &desc.trunk.stem)?;
        let blocks = desc
            .trunk
            .blocks
            .iter()
            .map(|block| FoldedBlock::fold(f, block))
            .collect::<Result<_, _>>()?;
        let policy_conv = conv_bn(f, &desc.policy.conv)?;
        let (weight, bias) = f.conv(&desc.policy.out)?;
        let policy_out = F::new(f, &desc.policy.out, weight, bias)?;
        Ok(FoldedTower {
            context: F::Layout::context(config, f.device()),
            stem,
            blocks,
            policy_conv,
            policy_out,
            value_conv: conv_bn(f, &desc.value.conv)?,
            value_mlp: FoldedValueMlp::fold(f, &desc.value)?,
        })
    }

    /// Runs the network on `[n, 7, 8, 8]` input planes.
    pub(crate) fn forward(&self, input: Tensor<4>) -> NetOutput {
        let context = &self.context;
        let x = F::Layout::enter(context, input);
        let x = self.stem.forward(x, context).relu();
        let x = self
            .blocks
            .iter()
            .fold(x, |x, block| block.forward(x, context));
        let p = self.policy_conv.forward(x.clone(), context).relu();
        let policy = F::Layout::policy(context, self.policy_out.forward(p, context));
        let v = self.value_conv.forward(x, context).relu();
        let (wdl, plies_left) = self.value_mlp.forward(F::Layout::pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }
}
