//! The network's layers, described once: the sizes ([`Architecture`]) and,
//! for each entry of [`LAYERS`], its tensor names, its weight's shape and
//! storage order, its widths and how it is initialised. The float net, the
//! quantized net (which adds each layer's integer types and scales,
//! [`crate::quant`]), the model files, the burn model and the ONNX graph
//! all walk this table, and a quantized [`Layer`] reads and writes its own
//! parameters.
//!
//! A new layer is a [`LayerId`] variant with its arms here and in
//! `LayerId::quant`, its field in [`crate::FloatNet`] and
//! [`crate::QuantNet`] (whose integer types it picks) and its place in the
//! forward passes (float, integer with its SIMD kernel, burn, ONNX).

use crate::error::NnueError;
use crate::features::NUM_FEATURES;
use crate::stacks::Stacks;
use serde::{Deserialize, Serialize};

/// The accumulator width is a multiple of this (the SIMD kernels' lanes).
pub const FT_MULTIPLE: usize = 16;
/// The widest accumulator.
pub const FT_MAX: usize = 2048;
/// The first hidden width is a multiple of this (the dense kernel's
/// blocks); the second may be any width.
pub const HIDDEN_MULTIPLE: usize = 32;
/// The widest hidden layer.
pub const HIDDEN_MAX: usize = 1024;

/// Layer sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    /// Accumulator width per perspective (a multiple of 16).
    pub ft: usize,
    /// Widths of the two hidden dense layers (the first a multiple of 32).
    pub hidden: [usize; 2],
    /// Output layer stacks by phase (absent in files: one stack).
    #[serde(default, skip_serializing_if = "Stacks::is_single")]
    pub stacks: Stacks,
}

impl Default for Architecture {
    fn default() -> Self {
        Architecture {
            ft: 128,
            hidden: [32, 32],
            stacks: Stacks::Single,
        }
    }
}

impl Architecture {
    /// Checks the sizes the SIMD kernels need ([`FT_MULTIPLE`],
    /// [`FT_MAX`], [`HIDDEN_MULTIPLE`], [`HIDDEN_MAX`]).
    pub fn validate(&self) -> Result<(), NnueError> {
        let fail = |what: String| Err(NnueError::Architecture(what));
        if self.ft == 0 || !self.ft.is_multiple_of(FT_MULTIPLE) || self.ft > FT_MAX {
            return fail(format!(
                "ft = {} must be a multiple of {FT_MULTIPLE} in {FT_MULTIPLE}..={FT_MAX}",
                self.ft
            ));
        }
        let h1 = self.hidden[0];
        if h1 == 0 || !h1.is_multiple_of(HIDDEN_MULTIPLE) || h1 > HIDDEN_MAX {
            return fail(format!(
                "hidden[0] = {h1} must be a multiple of {HIDDEN_MULTIPLE} in {HIDDEN_MULTIPLE}..={HIDDEN_MAX}"
            ));
        }
        if self.hidden[1] == 0 || self.hidden[1] > HIDDEN_MAX {
            return fail(format!(
                "hidden[1] = {} must be in 1..={HIDDEN_MAX}",
                self.hidden[1]
            ));
        }
        Ok(())
    }

    /// Every tensor as `(name, shape)`, in file order ([`LAYERS`]: each
    /// layer's weight, then its bias).
    pub fn tensor_shapes(&self) -> Vec<(&'static str, Vec<usize>)> {
        LAYERS
            .iter()
            .flat_map(|&id| {
                [
                    (id.weight_name(), id.weight_shape(self)),
                    (id.bias_name(), vec![id.bias_len(self)]),
                ]
            })
            .collect()
    }

    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.stacks.count()
    }
}

/// One layer's parameters, row-major in the shapes of [`LayerId`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layer<W, B> {
    /// The weight.
    pub weight: Vec<W>,
    /// The bias.
    pub bias: Vec<B>,
}

/// A layer of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerId {
    /// The feature transformer: 128 sparse features -> `ft`, one copy per
    /// perspective (shared weights).
    Ft,
    /// Dense `2 ft -> hidden[0]`, per output stack.
    L1,
    /// Dense `hidden[0] -> hidden[1]`, per output stack.
    L2,
    /// Dense `hidden[1] -> 1`, per output stack: the output logit.
    Out,
}

/// Every layer, in file order.
pub const LAYERS: [LayerId; 4] = [LayerId::Ft, LayerId::L1, LayerId::L2, LayerId::Out];

/// How a layer's bias starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BiasInit {
    /// Uniform in `offset +- bound`.
    Uniform {
        /// Half-width.
        bound: f32,
        /// Centre.
        offset: f32,
    },
    /// All zero (no random draws).
    Zero,
}

impl LayerId {
    /// The weight tensor's name in files (`l1.weight`).
    pub fn weight_name(self) -> &'static str {
        match self {
            LayerId::Ft => "ft.weight",
            LayerId::L1 => "l1.weight",
            LayerId::L2 => "l2.weight",
            LayerId::Out => "out.weight",
        }
    }

    /// The bias tensor's name in files (`l1.bias`).
    pub fn bias_name(self) -> &'static str {
        match self {
            LayerId::Ft => "ft.bias",
            LayerId::L1 => "l1.bias",
            LayerId::L2 => "l2.bias",
            LayerId::Out => "out.bias",
        }
    }

    /// Inputs and outputs of one copy (one stack) of the layer.
    pub fn widths(self, arch: &Architecture) -> (usize, usize) {
        let [h1, h2] = arch.hidden;
        match self {
            LayerId::Ft => (NUM_FEATURES, arch.ft),
            LayerId::L1 => (2 * arch.ft, h1),
            LayerId::L2 => (h1, h2),
            LayerId::Out => (h2, 1),
        }
    }

    /// Copies of the layer: one per output stack for the dense layers.
    pub fn copies(self, arch: &Architecture) -> usize {
        match self {
            LayerId::Ft => 1,
            _ => arch.buckets(),
        }
    }

    /// True if the weight is stored input-major (`[in, out]`: the feature
    /// transformer, one row per feature as the accumulator adds them);
    /// dense weights are `[out, in]`, stacks one after another.
    pub fn input_major(self) -> bool {
        self == LayerId::Ft
    }

    /// The weight's shape as stored.
    pub fn weight_shape(self, arch: &Architecture) -> Vec<usize> {
        let (input, output) = self.widths(arch);
        if self.input_major() {
            vec![input, output]
        } else {
            vec![self.copies(arch) * output, input]
        }
    }

    /// The bias's length: the outputs of every copy.
    pub fn bias_len(self, arch: &Architecture) -> usize {
        self.copies(arch) * self.widths(arch).1
    }

    /// The fresh net's weights: uniform in `+-bound` (the feature
    /// transformer small enough that a full board stays inside the clipped
    /// range, dense layers `1/sqrt(fan_in)`, within the quantization clip).
    pub fn weight_bound(self, arch: &Architecture) -> f32 {
        match self {
            LayerId::Ft => 0.1,
            _ => 1.0 / (self.widths(arch).0 as f32).sqrt(),
        }
    }

    /// The fresh net's biases.
    pub fn bias_init(self) -> BiasInit {
        match self {
            LayerId::Ft => BiasInit::Uniform {
                bound: 0.1,
                offset: 0.3,
            },
            LayerId::Out => BiasInit::Zero,
            _ => BiasInit::Uniform {
                bound: 0.1,
                offset: 0.0,
            },
        }
    }
}
