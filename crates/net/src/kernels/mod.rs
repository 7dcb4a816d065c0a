//! Hand-written CPU inference of the folded diagonal net (issue 25, part 4),
//! outside burn: for the small `diag32` nets the search plays with, burn's
//! per-operation cost (tensor creation, index selects, dispatch) outweighs
//! the arithmetic. The same folded weights, read through the same
//! [`ModelDesc`](crate::desc::ModelDesc) and `Folder`, run here as:
//!
//! - [`InferenceKernels::F32`]: plain f32 buffers and an f32 diagonal
//!   convolution kernel (AVX2 + FMA, scalar fallback, bit-identical);
//! - [`InferenceKernels::Int8`]: the tower's and heads' convolutions in
//!   int8 (per-output-channel weight scales, activations quantized per
//!   position and layer), i32 sums, AVX2 `maddubs` (scalar fallback with the
//!   same integers); the stem, the pooling bias and the value MLP stay f32.
//!
//! `simd` holds the kernels, `conv` one convolution in either form, `net`
//! the layers. Training stays in burn; [`InferenceKernels::Burn`] is the
//! folded burn net of [`InferenceNet`](crate::InferenceNet).

mod conv;
mod net;
mod simd;

pub use net::KernelNet;
pub use simd::Isa;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which code runs a folded network on the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InferenceKernels {
    /// burn's folded net (every kind, every device); what training uses.
    #[default]
    Burn,
    /// Hand-written f32 kernels (`diag32` on the CPU).
    F32,
    /// Hand-written int8 kernels (`diag32` on the CPU).
    Int8,
}

impl InferenceKernels {
    /// Every choice, in order.
    pub const ALL: [InferenceKernels; 3] = [
        InferenceKernels::Burn,
        InferenceKernels::F32,
        InferenceKernels::Int8,
    ];

    /// The default of the playing commands (`engine`, `play`, `analyse`,
    /// `bench-search`, arena `net:` players).
    pub const PLAY: InferenceKernels = InferenceKernels::Int8;

    /// The name on the command line and in configs.
    pub fn name(self) -> &'static str {
        match self {
            InferenceKernels::Burn => "burn",
            InferenceKernels::F32 => "f32",
            InferenceKernels::Int8 => "int8",
        }
    }
}

impl fmt::Display for InferenceKernels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InferenceKernels {
    type Err = String;

    fn from_str(text: &str) -> Result<InferenceKernels, String> {
        InferenceKernels::ALL
            .into_iter()
            .find(|k| k.name() == text)
            .ok_or_else(|| format!("unknown kernels {text:?}: expected burn, f32 or int8"))
    }
}
