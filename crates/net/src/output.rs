//! What a network gives for a batch of positions, either kind, either form.

use burn::tensor::Tensor;

/// Scale of the plies-left head: the head predicts `plies_left / 100`.
pub const PLIES_LEFT_SCALE: f32 = 100.0;

/// The network's raw outputs for a batch of `n` positions.
#[derive(Clone, Debug)]
pub struct NetOutput {
    /// Policy logits `[n, 1024]`, index `from * 32 + to` (relative squares).
    pub policy: Tensor<2>,
    /// Win/draw/loss logits `[n, 3]` from the side to move's view.
    pub wdl: Tensor<2>,
    /// Plies left divided by [`PLIES_LEFT_SCALE`], `[n, 1]`, if the head exists.
    pub plies_left: Option<Tensor<2>>,
}

/// Network outputs copied to the host, row-major.
#[derive(Clone, Debug, Default)]
pub struct HostOutput {
    /// `n * 1024` policy logits.
    pub policy: Vec<f32>,
    /// `n * 3` W/D/L logits.
    pub wdl: Vec<f32>,
    /// `n` scaled plies-left predictions, if the head exists.
    pub plies_left: Option<Vec<f32>>,
}
