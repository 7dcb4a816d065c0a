//! The folded diagonal net, layer by layer, on plain host buffers: the same
//! layers as [`FoldedTower`](crate::folded::FoldedTower), read from the same
//! [`ModelDesc`](crate::desc::ModelDesc) through the same
//! [`Folder`], one position at a time (its 32 squares are one small matrix
//! product per tap).

use super::conv::{Conv, Form, Scratch, pad8};
use super::simd::Isa;
use crate::config::{NetConfig, NetKind};
use crate::desc::{ConvBnDesc, LinearDesc};
use crate::diag::SQUARES;
use crate::encoding::{CELL_OF_SQUARE, INPUT_LEN, INPUT_PLANES, PLANE_LEN, POLICY_LEN};
use crate::error::NetError;
use crate::fold::Folder;
use crate::kinds::{check_kind, describe};
use crate::output::HostOutput;
use crate::weights::NamedTensor;
use burn::tensor::Device;

/// A fully connected layer in host f32 buffers (the value MLP and the pooling bias are
/// small next to the convolutions).
#[derive(Clone, Debug)]
struct HostDense {
    /// `[in][out]`.
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl HostDense {
    fn new(f: &mut Folder<'_>, desc: &LinearDesc) -> Result<HostDense, NetError> {
        let (weight, bias) = f.dense_host(desc)?;
        Ok(HostDense { weight, bias })
    }

    #[inline(always)]
    fn forward(&self, x: &[f32], y: &mut Vec<f32>) {
        y.clear();
        y.extend_from_slice(&self.bias);
        for (&xv, row) in x.iter().zip(self.weight.chunks_exact(self.bias.len())) {
            for (acc, &w) in y.iter_mut().zip(row) {
                *acc += xv * w;
            }
        }
    }
}

/// Convolution and batch norm `desc` folded into one [`Conv`].
fn conv_bn(f: &mut Folder<'_>, desc: &ConvBnDesc, form: Form) -> Result<Conv, NetError> {
    let (weight, bias) = f.conv_bn(desc)?;
    let taps = desc.conv.weight[2];
    Ok(Conv::new(&weight, &bias, desc.conv.cin, taps, form))
}

#[derive(Clone, Debug)]
struct Block {
    conv1: Conv,
    pool: Option<HostDense>,
    conv2: Conv,
}

/// `[32][stride]` -> `[mean of channels 0..c, max of channels 0..c]`.
#[inline(always)]
fn pool(x: &[f32], stride: usize, c: usize, out: &mut Vec<f32>) {
    out.clear();
    out.resize(2 * c, 0.0);
    let (mean, max) = out.split_at_mut(c);
    max.fill(f32::NEG_INFINITY);
    for row in x.chunks_exact(stride) {
        for ch in 0..c {
            mean[ch] += row[ch];
            max[ch] = max[ch].max(row[ch]);
        }
    }
    for m in mean {
        *m /= SQUARES as f32;
    }
}

#[inline(always)]
fn relu(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

/// The hand-written folded diagonal net.
#[derive(Clone, Debug)]
pub struct KernelNet {
    isa: Isa,
    /// Tower channels (real, then padded).
    channels: usize,
    value_channels: usize,
    stem: Conv,
    blocks: Vec<Block>,
    policy_conv: Conv,
    policy_out: Conv,
    value_conv: Conv,
    fc: HostDense,
    wdl: HostDense,
    plies: Option<HostDense>,
}

/// Per-call buffers.
#[derive(Default)]
struct Buffers {
    input: Vec<f32>,
    h: Vec<f32>,
    a: Vec<f32>,
    t: Vec<f32>,
    head: Vec<f32>,
    pooled: Vec<f32>,
    bias: Vec<f32>,
    hidden: Vec<f32>,
    small: Vec<f32>,
    scratch: Scratch,
}

impl KernelNet {
    /// Builds the net of a `diag32` `config` from its stable named tensors;
    /// `int8` quantizes the tower's and heads' convolutions (the stem, whose
    /// 7 input planes cost little, stays f32).
    pub fn from_tensors(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        int8: bool,
    ) -> Result<KernelNet, NetError> {
        KernelNet::with_isa(config, tensors, int8, Isa::detect())
    }

    /// [`KernelNet::from_tensors`] with the kernels of `isa` (tests and
    /// benchmarks compare them).
    pub fn with_isa(
        config: &NetConfig,
        tensors: Vec<NamedTensor>,
        int8: bool,
        isa: Isa,
    ) -> Result<KernelNet, NetError> {
        config.validate()?;
        if config.kind != NetKind::Diag32 {
            return Err(NetError::Config(format!(
                "the hand-written kernels run diag32 nets, not {}",
                config.kind
            )));
        }
        check_kind(config, &tensors)?;
        let desc = describe(config);
        let device = Device::flex();
        let mut f = Folder::new(tensors, &device);
        let form = if int8 { Form::Int8 } else { Form::F32 };
        let stem = conv_bn(&mut f, &desc.trunk.stem, Form::F32)?;
        let mut blocks = Vec::new();
        for block in &desc.trunk.blocks {
            blocks.push(Block {
                conv1: conv_bn(&mut f, &block.conv1, form)?,
                pool: match &block.pool {
                    Some(pool) => Some(HostDense::new(&mut f, pool)?),
                    None => None,
                },
                conv2: conv_bn(&mut f, &block.conv2, form)?,
            });
        }
        let policy_conv = conv_bn(&mut f, &desc.policy.conv, form)?;
        let (weight, bias) = f.conv(&desc.policy.out)?;
        let out = &desc.policy.out;
        let policy_out = Conv::new(&weight, &bias, out.cin, out.weight[2], form);
        assert_eq!(
            policy_out.cout(),
            POLICY_LEN / SQUARES,
            "one logit per end square"
        );
        let value_conv = conv_bn(&mut f, &desc.value.conv, form)?;
        let fc = HostDense::new(&mut f, &desc.value.fc)?;
        let wdl = HostDense::new(&mut f, &desc.value.wdl)?;
        let plies = match &desc.value.plies {
            Some(plies) => Some(HostDense::new(&mut f, plies)?),
            None => None,
        };
        f.finish()?;
        Ok(KernelNet {
            isa,
            channels: config.channels,
            value_channels: config.value_channels,
            stem,
            blocks,
            policy_conv,
            policy_out,
            value_conv,
            fc,
            wdl,
            plies,
        })
    }

    /// The kernels it runs.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Runs the net on `n` encoded positions (`inputs.len() == n * INPUT_LEN`).
    pub fn forward_host(&self, inputs: &[f32], n: usize) -> HostOutput {
        assert_eq!(inputs.len(), n * INPUT_LEN, "one encoded position per slot");
        let mut out = HostOutput {
            policy: vec![0.0; n * POLICY_LEN],
            wdl: vec![0.0; n * 3],
            plies_left: self.plies.as_ref().map(|_| vec![0.0; n]),
        };
        let mut b = Buffers::default();
        for (i, planes) in inputs.chunks_exact(INPUT_LEN).enumerate() {
            let policy = &mut out.policy[i * POLICY_LEN..(i + 1) * POLICY_LEN];
            let wdl = &mut out.wdl[i * 3..i * 3 + 3];
            let plies = out.plies_left.as_mut().map(|p| &mut p[i]);
            match self.isa {
                Isa::Scalar => self.forward_one(planes, &mut b, policy, wdl, plies),
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `Avx2` is only constructed when the CPU has it.
                Isa::Avx2 => unsafe { self.forward_one_avx2(planes, &mut b, policy, wdl, plies) },
            }
        }
        out
    }

    /// [`KernelNet::forward_one`] compiled for AVX2, so that the loops
    /// between the kernels (ReLU, residual sums, pooling, the value MLP)
    /// use it too; the same operations in the same order, so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_one_avx2(
        &self,
        planes: &[f32],
        b: &mut Buffers,
        policy: &mut [f32],
        wdl: &mut [f32],
        plies: Option<&mut f32>,
    ) {
        self.forward_one(planes, b, policy, wdl, plies);
    }

    #[inline(always)]
    fn forward_one(
        &self,
        planes: &[f32],
        b: &mut Buffers,
        policy: &mut [f32],
        wdl: &mut [f32],
        plies: Option<&mut f32>,
    ) {
        let isa = self.isa;
        // The dark cells, square-major, planes padded to 8.
        let stride = pad8(INPUT_PLANES);
        b.input.clear();
        b.input.resize(SQUARES * stride, 0.0);
        for (s, row) in b.input.chunks_exact_mut(stride).enumerate() {
            for (p, v) in row.iter_mut().take(INPUT_PLANES).enumerate() {
                *v = planes[p * PLANE_LEN + CELL_OF_SQUARE[s]];
            }
        }
        let cp = self.stem.cout();
        for buf in [&mut b.h, &mut b.a, &mut b.t] {
            buf.resize(SQUARES * cp, 0.0);
        }
        self.stem.forward(isa, &b.input, &mut b.h, &mut b.scratch);
        relu(&mut b.h);
        for block in &self.blocks {
            block.conv1.forward(isa, &b.h, &mut b.a, &mut b.scratch);
            relu(&mut b.a);
            if let Some(dense) = &block.pool {
                pool(&b.a, cp, self.channels, &mut b.pooled);
                dense.forward(&b.pooled, &mut b.bias);
                for row in b.a.chunks_exact_mut(cp) {
                    for (v, bias) in row.iter_mut().zip(&b.bias) {
                        *v += bias;
                    }
                }
            }
            block.conv2.forward(isa, &b.a, &mut b.t, &mut b.scratch);
            for (h, t) in b.h.iter_mut().zip(&b.t) {
                *h = (*h + t).max(0.0);
            }
        }
        // Policy: row = start square, column = end square.
        b.head.resize(SQUARES * self.policy_conv.cout(), 0.0);
        self.policy_conv
            .forward(isa, &b.h, &mut b.head, &mut b.scratch);
        relu(&mut b.head);
        self.policy_out
            .forward(isa, &b.head, policy, &mut b.scratch);
        // Value.
        let vp = self.value_conv.cout();
        b.head.resize(SQUARES * vp, 0.0);
        self.value_conv
            .forward(isa, &b.h, &mut b.head, &mut b.scratch);
        relu(&mut b.head);
        pool(&b.head, vp, self.value_channels, &mut b.pooled);
        self.fc.forward(&b.pooled, &mut b.hidden);
        relu(&mut b.hidden);
        self.wdl.forward(&b.hidden, &mut b.small);
        wdl.copy_from_slice(&b.small);
        if let (Some(head), Some(plies)) = (&self.plies, plies) {
            head.forward(&b.hidden, &mut b.small);
            *plies = b.small[0];
        }
    }
}
