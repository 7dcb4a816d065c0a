//! Batch norm in training mode over `[rows, channels]` activations (the
//! diagonal net's `[n * 32, c]`), with the statistics taken over dim 0
//! directly.
//!
//! burn's `batch_norm_train` swaps dims 0 and 1 and reshapes to
//! `[channels, rows]` for every mean (forward and backward), and on the
//! CPU each of those is a transposing copy of the whole activation: a fifth
//! of a diag32 training step (docs/RESULTS.md, "The proof by play"). A
//! mean over dim 0 of a row-major `[rows, channels]` tensor needs no copy
//! (flex sums it row by row), so this computes the same batch norm out of
//! tensor operations and lets autodiff differentiate them.
//!
//! The numbers are burn's: biased variance for the normalisation and the
//! running variance, running statistics updated with the layer's momentum.
//! [`set_reference_batch_norm`] switches back to burn's own operation, the
//! reference the tests and benchmarks compare against.

use burn::nn::BatchNorm;
use burn::tensor::Tensor;
use std::sync::atomic::{AtomicBool, Ordering};

static REFERENCE: AtomicBool = AtomicBool::new(false);

/// Trains `[rows, channels]` batch norms with burn's own `batch_norm_train`
/// (`true`) or with the statistics over rows (`false`, the default), for
/// the whole process. For tests and benchmarks that compare the two.
pub fn set_reference_batch_norm(reference: bool) {
    REFERENCE.store(reference, Ordering::SeqCst);
}

/// True if burn's own batch norm trains `[rows, channels]` activations.
pub fn reference_batch_norm() -> bool {
    REFERENCE.load(Ordering::SeqCst)
}

/// `bn` applied to `x` (`[rows, channels]`): in training (autodiff device,
/// training flag on) normalised by the batch's statistics over the rows,
/// which update the running ones; otherwise by the running statistics.
pub(crate) fn batch_norm_rows(x: Tensor<2>, bn: &BatchNorm) -> Tensor<2> {
    let training = x.device().is_autodiff() && bn.training.is_enabled();
    if !training || reference_batch_norm() {
        return bn.forward(x);
    }
    let [_, channels] = x.dims();
    let mean = x.clone().mean_dim(0);
    let centered = x - mean.clone();
    let variance = centered.clone().square().mean_dim(0);
    let scale = bn.gamma.val().reshape([1, channels]) / (variance.clone() + bn.epsilon).sqrt();
    let output = centered * scale + bn.beta.val().reshape([1, channels]);
    update_running(bn, mean.reshape([channels]), variance.reshape([channels]));
    output
}

/// Moves the running statistics towards the batch's by the momentum (as
/// burn's `BatchNorm` does).
fn update_running(bn: &BatchNorm, mean: Tensor<1>, variance: Tensor<1>) {
    let device = mean.device();
    let m = bn.momentum;
    let blend = |running: Tensor<1>, batch: Tensor<1>| {
        running
            .to_device(&device)
            .mul_scalar(1.0 - m)
            .add(batch.detach().mul_scalar(m))
            .detach()
    };
    bn.running_mean
        .update(blend(bn.running_mean.value_sync(), mean));
    bn.running_var
        .update(blend(bn.running_var.value_sync(), variance));
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::nn::BatchNormConfig;
    use burn::tensor::{Device, TensorData};

    fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
        t.into_data()
            .convert::<f32>()
            .try_into_vec::<f32>()
            .unwrap()
    }

    fn assert_close(a: &[f32], b: &[f32], what: &str) {
        assert_eq!(a.len(), b.len(), "{what}");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                "{what}[{i}]: {x} vs {y}"
            );
        }
    }

    /// A `[rows, 5]` tensor of `f(row, column)`.
    fn table(rows: usize, f: impl Fn(f32, f32) -> f32, device: &Device) -> Tensor<2> {
        let data: Vec<f32> = (0..rows * 5)
            .map(|k| f((k / 5) as f32, (k % 5) as f32))
            .collect();
        Tensor::from_data(TensorData::new(data, [rows, 5]), device)
    }

    /// Output, input gradient, gamma and beta gradients, running mean and
    /// variance of a batch norm with non-trivial gamma/beta, by burn's own
    /// operation (`reference`) or the rows path.
    fn run(reference: bool) -> [Vec<f32>; 6] {
        let device = Device::flex().autodiff();
        let mut bn = BatchNormConfig::new(5).with_epsilon(1e-5).init(&device);
        let gamma = Tensor::<1>::from_floats([0.5, 1.0, 1.5, -0.7, 2.0], &device);
        bn.gamma = bn.gamma.map(|_| gamma.require_grad());
        let beta = Tensor::<1>::from_floats([0.1, -0.2, 0.0, 0.3, 1.0], &device);
        bn.beta = bn.beta.map(|_| beta.require_grad());
        let offsets = [3.0, -1.0, 0.0, 10.0, 0.1];
        let x = table(
            96,
            |i, j| 2.0 * (0.37 * i + 1.1 * j).sin() + offsets[j as usize],
            &device,
        )
        .require_grad();
        let output = if reference {
            bn.forward(x.clone())
        } else {
            batch_norm_rows(x.clone(), &bn)
        };
        // A loss that weighs every output differently.
        let weights = table(96, |i, j| (0.13 * i + 0.7 * j).cos(), &device);
        let grads = (output.clone() * weights).sum().backward();
        let grad = |t: Tensor<1>| values(t.grad(&grads).unwrap());
        [
            values(output),
            values(x.grad(&grads).unwrap()),
            grad(bn.gamma.val()),
            grad(bn.beta.val()),
            values(bn.running_mean.value_sync()),
            values(bn.running_var.value_sync()),
        ]
    }

    #[test]
    fn rows_statistics_equal_burns_batch_norm_with_gradients() {
        assert!(!reference_batch_norm(), "the rows path is the default");
        let rows = run(false);
        let reference = run(true);
        let names = [
            "output",
            "x grad",
            "gamma grad",
            "beta grad",
            "running mean",
            "running var",
        ];
        for ((a, b), name) in rows.iter().zip(&reference).zip(names) {
            assert_close(a, b, name);
        }
        // The statistics did move (the comparison is not of untouched values).
        assert!(rows[4].iter().any(|&m| m.abs() > 0.1), "{:?}", rows[4]);
    }

    #[test]
    fn inference_uses_the_running_statistics() {
        let device = Device::flex();
        let bn = BatchNormConfig::new(5).init(&device);
        let x = table(3, |i, j| i - j, &device);
        // Running mean 0 and variance 1: the output is the input.
        let out = values(batch_norm_rows(x.clone(), &bn));
        assert_close(&out, &values(x), "output");
    }
}
