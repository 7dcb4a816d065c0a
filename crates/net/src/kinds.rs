//! The table of net kinds: which layout (`layout::Layout`) each [`NetKind`] has, and what
//! follows from a config's description alone: its tensor names and shapes,
//! the check that a set of weights fits it, its parameter count, and which
//! kind a set of weights is.
//!
//! A new kind is a file implementing `Layout` and its convolutions, a
//! [`NetKind`] variant, a row in `weight_shape` and `KINDS`, and a
//! variant in [`Net`](crate::Net) and the folded net.

use crate::board::Board;
use crate::config::{NetConfig, NetKind};
use crate::desc::{ModelDesc, Span, WeightShape};
use crate::diag::Diagonal;
use crate::encoding::INPUT_PLANES;
use crate::error::NetError;
use crate::layout::Layout;
use crate::weights::{NamedTensor, TensorMap, check_finite};

/// Every kind, for telling weights apart.
const KINDS: [NetKind; 2] = [NetKind::Resnet8x8, NetKind::Diag32];

/// How `kind` lays out a convolution weight.
fn weight_shape(kind: NetKind) -> WeightShape {
    match kind {
        NetKind::Resnet8x8 => Board::weight_shape,
        NetKind::Diag32 => Diagonal::weight_shape,
    }
}

/// The layers of `config`.
pub fn describe(config: &NetConfig) -> ModelDesc {
    ModelDesc::new(config, weight_shape(config.kind))
}

/// Names and shapes of every tensor of an architecture, in build order
/// (what [`Net::to_tensors`](crate::Net::to_tensors) writes and
/// [`Net::from_tensors`](crate::Net::from_tensors) reads).
pub fn tensor_shapes(config: &NetConfig) -> Vec<(String, Vec<usize>)> {
    describe(config).tensors()
}

/// Number of scalar parameters of an architecture (trainable ones only,
/// batch norm running statistics excluded).
pub fn parameter_count(config: &NetConfig) -> usize {
    describe(config).parameter_count()
}

/// The kind whose weights `tensors` are, told by the stem convolution's
/// rank (4 on the 8x8 board, 3 on the 32 squares); `None` without a stem.
pub fn kind_of_tensors(tensors: &[NamedTensor]) -> Option<NetKind> {
    let stem = tensors.iter().find(|t| t.name == "stem.conv.weight")?;
    let config = NetConfig::default();
    KINDS.into_iter().find(|&kind| {
        weight_shape(kind)(&config, 1, INPUT_PLANES, Span::Wide).len() == stem.shape.len()
    })
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

/// Checks that `tensors` are exactly the tensors of `config` (names,
/// shapes, finite values) and returns them in build order.
pub fn check_tensors(
    config: &NetConfig,
    tensors: Vec<NamedTensor>,
) -> Result<Vec<NamedTensor>, NetError> {
    check_kind(config, &tensors)?;
    let mut map = TensorMap::new(tensors);
    let mut ordered = Vec::new();
    for (name, shape) in tensor_shapes(config) {
        let tensor = map.take(&name, &shape)?;
        if tensor.data.len() != shape.iter().product::<usize>() {
            return Err(NetError::Weights(format!(
                "tensor {name} holds {} values for shape {shape:?}",
                tensor.data.len()
            )));
        }
        check_finite(&tensor)?;
        ordered.push(tensor);
    }
    map.finish()?;
    Ok(ordered)
}
