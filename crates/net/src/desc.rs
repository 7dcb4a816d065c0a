//! The description of a network's layers, said once for every kind and
//! every form (after KataGo's `desc.h`): a [`ModelDesc`] is the trunk (stem
//! convolution and residual blocks) and the policy and value heads, each
//! layer with its stable tensor names and sizes. The trainable net, the
//! folded inference net, the exported tensor list, the weight checks and
//! the parameter count all read it; only the layout of a convolution weight
//! comes from the kind (`[out, in, 3, 3]` on the 8x8 board, `[out, in, taps]`
//! on the 32 squares).

use crate::config::{NetConfig, NetKind};
use crate::encoding::INPUT_PLANES;
use crate::weights::Init;

/// Batch norm epsilon of every layer (also written to `model.json`).
pub const BATCH_NORM_EPSILON: f64 = 1e-5;
/// Output channels of the policy head's last convolution: one per end
/// square (the logit of `from * 32 + to` sits at square `from`, channel `to`).
pub const POLICY_OUT_CHANNELS: usize = 32;

/// How far a convolution reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// A tower convolution: 3x3 on the board, the diagonal taps on the squares.
    Wide,
    /// A per-cell linear map (1x1), as in the heads.
    Point,
}

/// The file layout of a convolution weight of `cout` outputs and `cin`
/// inputs: what a kind says about its convolutions.
pub type WeightShape = fn(&NetConfig, usize, usize, Span) -> Vec<usize>;

/// A convolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvDesc {
    /// Stable name, e.g. `blocks.0.conv1`.
    pub name: String,
    /// Input channels.
    pub cin: usize,
    /// Output channels.
    pub cout: usize,
    /// Weight shape in the exported layout (outputs first).
    pub weight: Vec<usize>,
    /// Whether it has its own bias (only where no batch norm follows).
    pub bias: bool,
}

impl ConvDesc {
    /// Inputs feeding one output (the weight's size per output channel).
    pub fn fan_in(&self) -> usize {
        self.weight[1..].iter().product()
    }

    fn tensors(&self, out: &mut Vec<(String, Vec<usize>)>) {
        out.push((format!("{}.weight", self.name), self.weight.clone()));
        if self.bias {
            out.push((format!("{}.bias", self.name), vec![self.cout]));
        }
    }
}

/// A convolution without bias and the batch norm after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvBnDesc {
    /// The convolution.
    pub conv: ConvDesc,
    /// Stable name of the batch norm, e.g. `blocks.0.bn1`.
    pub bn: String,
}

impl ConvBnDesc {
    fn tensors(&self, out: &mut Vec<(String, Vec<usize>)>) {
        self.conv.tensors(out);
        for part in ["gamma", "beta", "running_mean", "running_var"] {
            out.push((format!("{}.{part}", self.bn), vec![self.conv.cout]));
        }
    }
}

/// A fully connected layer (weight `[out, in]` in the exported layout).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearDesc {
    /// Stable name, e.g. `value.fc`.
    pub name: String,
    /// Inputs.
    pub din: usize,
    /// Outputs.
    pub dout: usize,
    /// How a fresh weight is drawn.
    pub init: Init,
}

impl LinearDesc {
    fn new(name: impl Into<String>, din: usize, dout: usize, init: Init) -> LinearDesc {
        LinearDesc {
            name: name.into(),
            din,
            dout,
            init,
        }
    }

    fn tensors(&self, out: &mut Vec<(String, Vec<usize>)>) {
        out.push((format!("{}.weight", self.name), vec![self.dout, self.din]));
        out.push((format!("{}.bias", self.name), vec![self.dout]));
    }
}

/// One residual block: conv-BN-ReLU, optional global pooling bias (a
/// linear map from the first activation's `[mean, max]`, 2C, to a
/// per-channel bias, C), conv-BN, skip connection, ReLU.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockDesc {
    /// First convolution and batch norm.
    pub conv1: ConvBnDesc,
    /// The KataGo global pooling bias, in every `global_pool_every`-th block.
    pub pool: Option<LinearDesc>,
    /// Second convolution and batch norm.
    pub conv2: ConvBnDesc,
}

/// The residual tower.
#[derive(Clone, Debug, PartialEq)]
pub struct TrunkDesc {
    /// Input planes to the tower's channels.
    pub stem: ConvBnDesc,
    /// The residual blocks, in order.
    pub blocks: Vec<BlockDesc>,
}

/// The policy head: a point convolution with batch norm, then one with a
/// bias giving each start square its [`POLICY_OUT_CHANNELS`] logits.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyHeadDesc {
    /// Hidden point convolution and batch norm.
    pub conv: ConvBnDesc,
    /// Output point convolution (with its bias).
    pub out: ConvDesc,
}

/// The value head: a point convolution with batch norm, pooled `[mean,
/// max]`, a hidden layer, the W/D/L logits and the optional plies left.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueHeadDesc {
    /// Point convolution and batch norm.
    pub conv: ConvBnDesc,
    /// Hidden fully connected layer on the pooled features.
    pub fc: LinearDesc,
    /// Win/draw/loss logits.
    pub wdl: LinearDesc,
    /// Plies left (scaled), if the head exists.
    pub plies: Option<LinearDesc>,
}

/// Every layer of a network, in build order.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelDesc {
    /// The kind of net.
    pub kind: NetKind,
    /// The residual tower.
    pub trunk: TrunkDesc,
    /// The policy head.
    pub policy: PolicyHeadDesc,
    /// The value head.
    pub value: ValueHeadDesc,
}

impl ModelDesc {
    /// The layers of `config`, convolution weights laid out by `weight`
    /// (the kind's [`WeightShape`]).
    pub fn new(config: &NetConfig, weight: WeightShape) -> ModelDesc {
        let conv = |name: &str, cin, cout, span, bias| ConvDesc {
            name: name.to_string(),
            cin,
            cout,
            weight: weight(config, cout, cin, span),
            bias,
        };
        let conv_bn = |name: &str, bn: &str, cin, cout, span| ConvBnDesc {
            conv: conv(name, cin, cout, span, false),
            bn: bn.to_string(),
        };
        let c = config.channels;
        let blocks = (0..config.blocks)
            .map(|i| {
                let name = |part: &str| format!("blocks.{i}.{part}");
                let pool = config.block_has_global_pool(i).then(|| {
                    LinearDesc::new(name("pool"), 2 * c, c, Init::Small { fan_in: 2 * c })
                });
                BlockDesc {
                    conv1: conv_bn(&name("conv1"), &name("bn1"), c, c, Span::Wide),
                    pool,
                    conv2: conv_bn(&name("conv2"), &name("bn2"), c, c, Span::Wide),
                }
            })
            .collect();
        let (pc, vc, vh) = (
            config.policy_channels,
            config.value_channels,
            config.value_hidden,
        );
        let small = Init::Small { fan_in: vh };
        ModelDesc {
            kind: config.kind,
            trunk: TrunkDesc {
                stem: conv_bn("stem.conv", "stem.bn", INPUT_PLANES, c, Span::Wide),
                blocks,
            },
            policy: PolicyHeadDesc {
                conv: conv_bn("policy.conv", "policy.bn", c, pc, Span::Point),
                out: conv("policy.out", pc, POLICY_OUT_CHANNELS, Span::Point, true),
            },
            value: ValueHeadDesc {
                conv: conv_bn("value.conv", "value.bn", c, vc, Span::Point),
                fc: LinearDesc::new("value.fc", 2 * vc, vh, Init::He { fan_in: 2 * vc }),
                wdl: LinearDesc::new("value.wdl", vh, 3, small),
                plies: config
                    .plies_left_head
                    .then(|| LinearDesc::new("value.plies", vh, 1, small)),
            },
        }
    }

    /// Names and shapes of every tensor, in build order (what
    /// [`Net::to_tensors`](crate::Net::to_tensors) writes).
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let mut out = Vec::new();
        self.trunk.stem.tensors(&mut out);
        for block in &self.trunk.blocks {
            block.conv1.tensors(&mut out);
            if let Some(pool) = &block.pool {
                pool.tensors(&mut out);
            }
            block.conv2.tensors(&mut out);
        }
        self.policy.conv.tensors(&mut out);
        self.policy.out.tensors(&mut out);
        self.value.conv.tensors(&mut out);
        for linear in [&self.value.fc, &self.value.wdl] {
            linear.tensors(&mut out);
        }
        if let Some(plies) = &self.value.plies {
            plies.tensors(&mut out);
        }
        out
    }

    /// Number of scalar parameters (trainable ones only, batch norm
    /// running statistics excluded).
    pub fn parameter_count(&self) -> usize {
        self.tensors()
            .iter()
            .filter(|(name, _)| !name.ends_with("running_mean") && !name.ends_with("running_var"))
            .map(|(_, shape)| shape.iter().product::<usize>())
            .sum()
    }
}
