//! Folding named host tensors into inference layers: each batch norm folded
//! into the convolution before it (exact up to float rounding), fully
//! connected layers as [`BurnDense`].

use crate::desc::{BATCH_NORM_EPSILON, ConvBnDesc, ConvDesc, LinearDesc};
use crate::error::NetError;
use crate::weights::{NamedTensor, TensorMap};
use burn::tensor::module::linear;
use burn::tensor::{Device, Tensor, TensorData};
use shashki_tensor::transpose;

/// A fully connected layer as burn tensors on the device, weight `[in, out]`.
#[derive(Clone, Debug)]
pub(crate) struct BurnDense {
    weight: Tensor<2>,
    bias: Tensor<1>,
}

impl BurnDense {
    pub(crate) fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        linear(x, self.weight.clone(), Some(self.bias.clone()))
    }
}

/// Takes named host tensors (checked by name and shape) and turns them
/// into folded device tensors.
pub(crate) struct Folder<'a> {
    tensors: TensorMap,
    device: &'a Device,
}

impl<'a> Folder<'a> {
    pub(crate) fn new(tensors: Vec<NamedTensor>, device: &'a Device) -> Folder<'a> {
        Folder {
            tensors: TensorMap::new(tensors),
            device,
        }
    }

    /// The device the folded layers go to.
    pub(crate) fn device(&self) -> &'a Device {
        self.device
    }

    /// Fails if some tensor was not used.
    pub(crate) fn finish(self) -> Result<(), NetError> {
        self.tensors.finish()
    }

    /// Host values as a device tensor of `shape`.
    pub(crate) fn tensor<const D: usize>(&self, data: Vec<f32>, shape: [usize; D]) -> Tensor<D> {
        Tensor::from_data(TensorData::new(data, shape), self.device)
    }

    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        Ok(self.tensors.take(name, shape)?.data)
    }

    /// Convolution `conv`'s weight (exported layout) and its own bias.
    pub(crate) fn conv(&mut self, conv: &ConvDesc) -> Result<(Vec<f32>, Vec<f32>), NetError> {
        let weight = self.take(&format!("{}.weight", conv.name), &conv.weight)?;
        let bias = self.take(&format!("{}.bias", conv.name), &[conv.cout])?;
        Ok((weight, bias))
    }

    /// A convolution's weight (exported layout) with its batch norm folded
    /// in, and the bias that leaves: `w' = w * s`, `b' = beta - mean * s`
    /// with `s = gamma / sqrt(var + eps)`.
    pub(crate) fn conv_bn(&mut self, desc: &ConvBnDesc) -> Result<(Vec<f32>, Vec<f32>), NetError> {
        let conv = &desc.conv;
        let mut weight = self.take(&format!("{}.weight", conv.name), &conv.weight)?;
        let bias = self.fold_batch_norm(&desc.bn, &mut weight, conv.cout)?;
        Ok((weight, bias))
    }

    /// Folds batch norm `bn` into `weight` (output channel outermost,
    /// `cout` of them) and returns the bias it leaves.
    fn fold_batch_norm(
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

    /// A fully connected layer's host weight `[in, out]` and bias.
    pub(crate) fn dense_host(
        &mut self,
        desc: &LinearDesc,
    ) -> Result<(Vec<f32>, Vec<f32>), NetError> {
        let (name, din, dout) = (&desc.name, desc.din, desc.dout);
        let weight = self.take(&format!("{name}.weight"), &[dout, din])?;
        let weight = transpose(&weight, dout, din);
        let bias = self.take(&format!("{name}.bias"), &[dout])?;
        Ok((weight, bias))
    }

    pub(crate) fn dense(&mut self, desc: &LinearDesc) -> Result<BurnDense, NetError> {
        let (din, dout) = (desc.din, desc.dout);
        let (weight, bias) = self.dense_host(desc)?;
        Ok(BurnDense {
            weight: self.tensor(weight, [din, dout]),
            bias: self.tensor(bias, [dout]),
        })
    }
}
