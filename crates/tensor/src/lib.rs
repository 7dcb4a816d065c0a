//! # shashki-tensor
//!
//! What both burn models (`shashki-net`'s policy/value network and
//! `shashki-nnue`'s float model) need of tensors, said once: a trainable
//! parameter with a fixed id (so an optimizer's record names the same
//! parameter in every process), a device tensor's values on the host, and
//! the transpose between a layer's stored order and the one burn or ONNX
//! wants.

use burn::module::{Param, ParamId};
use burn::tensor::Tensor;

/// A trainable parameter holding `value`, with the fixed id `id`.
pub fn param<const D: usize>(id: u64, value: Tensor<D>) -> Param<Tensor<D>> {
    let shape = value.shape();
    let device = value.device();
    Param::uninitialized(
        ParamId::from(id),
        move |device, require_grad| {
            let value = value.to_device(device);
            if require_grad {
                value.require_grad()
            } else {
                value
            }
        },
        device,
        true,
        shape,
    )
}

/// A device tensor's values on the host, as `f32`; the error says why the
/// data could not be read back.
pub fn host<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, String> {
    tensor
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| format!("{e:?}"))
}

/// Row-major `[rows, cols]` -> `[cols, rows]`.
pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(transpose(&data, 2, 3), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(transpose(&transpose(&data, 2, 3), 3, 2), data);
    }
}
