//! Trainable burn layers to and from named host tensors: [`Builder`] makes
//! parameters (values from a [`WeightSource`], fixed ids in build order, so
//! an optimizer state saved with a checkpoint finds its parameters again
//! after loading), the `export_*` functions write them back in the exported
//! layouts.

use crate::desc::{BATCH_NORM_EPSILON, ConvDesc, LinearDesc};
use crate::error::NetError;
use crate::weights::{Init, NamedTensor, WeightSource};
use burn::module::{Module, Param, RunningState};
use burn::nn::{BatchNorm, BatchNormConfig, Linear};
use burn::tensor::{Device, Tensor, TensorData};
use shashki_tensor::transpose;

/// First parameter id; the rest follow in build order.
const PARAM_ID_BASE: u64 = 0x5348_4B5A_0000_0000;

/// Builds layers with parameters from a [`WeightSource`].
pub(crate) struct Builder<'a> {
    source: &'a mut dyn WeightSource,
    device: &'a Device,
    next_id: u64,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(source: &'a mut dyn WeightSource, device: &'a Device) -> Builder<'a> {
        Builder {
            source,
            device,
            next_id: 0,
        }
    }

    /// The values of `name` in the exported layout, on the host.
    pub(crate) fn host_values(
        &mut self,
        name: &str,
        shape: &[usize],
        init: Init,
    ) -> Result<Vec<f32>, NetError> {
        self.source.take(name, shape, init)
    }

    /// The values of `name` as a device tensor of `shape`.
    pub(crate) fn values<const D: usize>(
        &mut self,
        name: &str,
        shape: [usize; D],
        init: Init,
    ) -> Result<Tensor<D>, NetError> {
        let data = self.source.take(name, &shape, init)?;
        Ok(self.tensor(data, shape))
    }

    /// Host values as a device tensor of `shape`.
    pub(crate) fn tensor<const D: usize>(&self, data: Vec<f32>, shape: [usize; D]) -> Tensor<D> {
        Tensor::from_data(TensorData::new(data, shape), self.device)
    }

    /// A trainable parameter with the next fixed id.
    pub(crate) fn param<const D: usize>(&mut self, value: Tensor<D>) -> Param<Tensor<D>> {
        let id = PARAM_ID_BASE + self.next_id;
        self.next_id += 1;
        shashki_tensor::param(id, value)
    }

    /// A convolution's weight in the exported layout: He init without a
    /// bias (a batch norm follows), small with one.
    pub(crate) fn conv_weight(&mut self, conv: &ConvDesc) -> Result<Vec<f32>, NetError> {
        let fan_in = conv.fan_in();
        let init = if conv.bias {
            Init::Small { fan_in }
        } else {
            Init::He { fan_in }
        };
        self.host_values(&format!("{}.weight", conv.name), &conv.weight, init)
    }

    /// A convolution's own bias (none when a batch norm follows).
    pub(crate) fn conv_bias(
        &mut self,
        conv: &ConvDesc,
    ) -> Result<Option<Param<Tensor<1>>>, NetError> {
        if !conv.bias {
            return Ok(None);
        }
        let bias = self.values(&format!("{}.bias", conv.name), [conv.cout], Init::Zeros)?;
        Ok(Some(self.param(bias)))
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
    pub(crate) fn linear(&mut self, desc: &LinearDesc) -> Result<Linear, NetError> {
        let (name, din, dout) = (&desc.name, desc.din, desc.dout);
        let weight = self
            .source
            .take(&format!("{name}.weight"), &[dout, din], desc.init)?;
        let weight = self.tensor(transpose(&weight, dout, din), [din, dout]);
        let weight = self.param(weight);
        let bias = self.values(&format!("{name}.bias"), [dout], Init::Zeros)?;
        let bias = Some(self.param(bias));
        Ok(Linear { weight, bias })
    }
}

/// A device tensor's values on the host.
pub(crate) fn host<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, NetError> {
    shashki_tensor::host(tensor).map_err(NetError::Tensor)
}

/// Appends `tensor` under `name`, shape as it is.
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

/// Appends a convolution's bias, if it has one.
pub(crate) fn export_bias(
    out: &mut Vec<NamedTensor>,
    name: &str,
    bias: &Option<Param<Tensor<1>>>,
) -> Result<(), NetError> {
    match bias {
        Some(bias) => push(out, format!("{name}.bias"), bias.val()),
        None => Ok(()),
    }
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
