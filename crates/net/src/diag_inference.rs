//! The `diag32` net folded for inference: each batch norm folded into the
//! diagonal convolution before it, weights kept in the matrix-product
//! layout `[taps * in, out]`, the gather index built once per device.

use crate::config::NetConfig;
use crate::diag::{Geometry, SQUARES, add_per_position, square_pool, to_tap_major};
use crate::encoding::{INPUT_PLANES, POLICY_LEN};
use crate::error::NetError;
use crate::inference::{Dense, FoldedValueMlp, Tensors};
use crate::model::NetOutput;
use burn::tensor::activation::relu;
use burn::tensor::module::linear;
use burn::tensor::{Tensor, TensorData};

/// A diagonal convolution with its batch norm (or its own bias) folded in.
#[derive(Clone, Debug)]
struct FoldedDiagConv {
    /// `[taps * in, out]`.
    weight: Tensor<2>,
    bias: Tensor<1>,
    taps: usize,
}

impl FoldedDiagConv {
    fn forward(&self, x: Tensor<2>, geometry: &Geometry) -> Tensor<2> {
        let columns = if self.taps == 1 {
            x
        } else {
            geometry.gather(x)
        };
        linear(columns, self.weight.clone(), Some(self.bias.clone()))
    }
}

#[derive(Clone, Debug)]
struct FoldedDiagBlock {
    conv1: FoldedDiagConv,
    pool: Option<Dense>,
    conv2: FoldedDiagConv,
}

/// The folded diagonal net.
#[derive(Clone, Debug)]
pub(crate) struct FoldedDiag {
    geometry: Geometry,
    stem: FoldedDiagConv,
    blocks: Vec<FoldedDiagBlock>,
    policy_conv: FoldedDiagConv,
    policy_out: FoldedDiagConv,
    value_conv: FoldedDiagConv,
    value_mlp: FoldedValueMlp,
}

impl Tensors<'_> {
    /// Diagonal convolution `conv` (`[out, in, taps]`, no bias) folded
    /// with batch norm `bn`, or with its own bias when `bn` is `None`.
    fn folded_diag_conv(
        &mut self,
        conv: &str,
        bn: Option<&str>,
        cout: usize,
        cin: usize,
        taps: usize,
    ) -> Result<FoldedDiagConv, NetError> {
        let mut weight = self.take(&format!("{conv}.weight"), &[cout, cin, taps])?;
        let bias = match bn {
            Some(bn) => self.fold_batch_norm(bn, &mut weight, cout)?,
            None => self.take(&format!("{conv}.bias"), &[cout])?,
        };
        let weight = to_tap_major(&weight, cout, cin, taps);
        Ok(FoldedDiagConv {
            weight: Tensor::from_data(TensorData::new(weight, [taps * cin, cout]), self.device),
            bias: Tensor::from_data(TensorData::new(bias, [cout]), self.device),
            taps,
        })
    }
}

impl FoldedDiag {
    pub(crate) fn build(config: &NetConfig, t: &mut Tensors<'_>) -> Result<FoldedDiag, NetError> {
        let (c, taps) = (config.channels, config.diagonal_taps());
        let stem = t.folded_diag_conv("stem.conv", Some("stem.bn"), c, INPUT_PLANES, taps)?;
        let mut blocks = Vec::with_capacity(config.blocks);
        for i in 0..config.blocks {
            let name = |part: &str| format!("blocks.{i}.{part}");
            let conv1 = t.folded_diag_conv(&name("conv1"), Some(&name("bn1")), c, c, taps)?;
            let pool = if config.block_has_global_pool(i) {
                Some(t.dense(&name("pool"), 2 * c, c)?)
            } else {
                None
            };
            let conv2 = t.folded_diag_conv(&name("conv2"), Some(&name("bn2")), c, c, taps)?;
            blocks.push(FoldedDiagBlock { conv1, pool, conv2 });
        }
        let (pc, vc) = (config.policy_channels, config.value_channels);
        let policy_conv = t.folded_diag_conv("policy.conv", Some("policy.bn"), pc, c, 1)?;
        let policy_out = t.folded_diag_conv("policy.out", None, SQUARES, pc, 1)?;
        let value_conv = t.folded_diag_conv("value.conv", Some("value.bn"), vc, c, 1)?;
        let value_mlp = FoldedValueMlp::build(config, t)?;
        Ok(FoldedDiag {
            geometry: Geometry::new(taps, t.device),
            stem,
            blocks,
            policy_conv,
            policy_out,
            value_conv,
            value_mlp,
        })
    }

    pub(crate) fn forward(&self, input: Tensor<4>) -> NetOutput {
        let g = &self.geometry;
        let n = input.dims()[0];
        let x = relu(self.stem.forward(g.squares(input), g));
        let x = self.blocks.iter().fold(x, |x, block| {
            let mut h = relu(block.conv1.forward(x.clone(), g));
            if let Some(pool) = &block.pool {
                h = add_per_position(h.clone(), pool.forward(square_pool(h)));
            }
            relu(block.conv2.forward(h, g) + x)
        });
        let p = relu(self.policy_conv.forward(x.clone(), g));
        let policy = self.policy_out.forward(p, g).reshape([n, POLICY_LEN]);
        let v = relu(self.value_conv.forward(x, g));
        let (wdl, plies_left) = self.value_mlp.forward(square_pool(v));
        NetOutput {
            policy,
            wdl,
            plies_left,
        }
    }
}
