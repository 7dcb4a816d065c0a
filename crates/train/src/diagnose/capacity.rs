//! The capacity check: fit one fixed set of self-play samples for many
//! epochs with a given layout and see how low the loss goes. If the net
//! fits a fixed set far better than the training run's loss, capacity is
//! not what stops it (the data is); if it cannot, the layout is too small.
//!
//! The targets are the training run's (`lambda` blend of stored score and
//! result), the optimiser Adam (its rate fixed, or falling linearly to an
//! end rate over the fit), batches drawn by a shuffle seeded per epoch, so
//! a fit is reproducible from its seed. The same fit from a trained net
//! over all of a run's chunks is the offline test of issue 69: does a net
//! that learns from every sample the run wrote beat the run's own?

use crate::nnue_family::target;
use burn::tensor::Device;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use shashki_nnue::train::{NnueBatch, NnueModel, adam, train_step};
use shashki_nnue::{Architecture, FloatNet, NnueError};
use shashki_rules::Position;
use shashki_selfplay::Sample;

/// Settings of a capacity fit.
#[derive(Clone, Debug, PartialEq)]
pub struct CapacityFit {
    /// The layout to fit.
    pub arch: Architecture,
    /// Target blend (`[nnue] lambda`).
    pub lambda: f32,
    /// Passes over the set.
    pub epochs: usize,
    /// Samples per step.
    pub batch_size: usize,
    /// Adam's learning rate at the first step.
    pub learning_rate: f64,
    /// Its rate at the last step (linear in between; equal to
    /// `learning_rate` for a fixed rate).
    pub learning_rate_end: f64,
    /// Seed of the initial weights and the batch order.
    pub seed: u64,
    /// The net to start from (`None`: a fresh one from `seed`); its
    /// layout must be `arch`.
    pub init: Option<FloatNet>,
}

/// One epoch's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochLoss {
    /// 1-based epoch.
    pub epoch: usize,
    /// Mean of the step losses during the epoch.
    pub train: f32,
    /// Loss of the float net on the whole set after the epoch.
    pub full: f32,
}

/// The loss of `net` on `positions` against `targets` (float forward pass).
pub fn float_loss(net: &FloatNet, positions: &[Position], targets: &[f32]) -> f32 {
    let sum: f64 = positions
        .iter()
        .zip(targets)
        .map(|(p, t)| f64::from((super::loss::sigmoid(net.forward(p)) - t).powi(2)))
        .sum();
    (sum / positions.len().max(1) as f64) as f32
}

/// The positions of `samples` and their targets at `lambda` (the run's
/// blend), the inputs of [`CapacityFit::run`].
pub fn fit_inputs(samples: &[Sample], lambda: f32) -> (Vec<Position>, Vec<f32>) {
    samples
        .iter()
        .map(|s| (s.position, target(s, lambda)))
        .unzip()
}

impl CapacityFit {
    /// Fits the net to `positions` and their `targets` (see
    /// [`fit_inputs`]), calling `on_epoch` after each epoch (return `false`
    /// to stop early); returns the fitted float net.
    pub fn run(
        &self,
        positions: &[Position],
        targets: &[f32],
        mut on_epoch: impl FnMut(EpochLoss, &FloatNet) -> bool,
    ) -> Result<FloatNet, NnueError> {
        let net = match &self.init {
            Some(net) if net.arch != self.arch => {
                return Err(NnueError::Architecture(format!(
                    "the starting net is {:?}, the fit asks for {:?}",
                    net.arch, self.arch
                )));
            }
            Some(net) => net.clone(),
            None => FloatNet::random(&self.arch, self.seed)?,
        };
        let device = Device::flex().autodiff();
        let mut model = NnueModel::from_float(&net, &device);
        let mut optimizer = adam();
        let batch_size = self.batch_size.max(1);
        let total_steps = (self.epochs * positions.len().div_ceil(batch_size)).max(1);
        let mut step = 0;
        let mut order: Vec<usize> = (0..positions.len()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0xCAFA);
        let mut fitted = net;
        for epoch in 1..=self.epochs {
            order.shuffle(&mut rng);
            let mut sum = 0.0f64;
            let mut steps = 0;
            for batch in order.chunks(batch_size) {
                let pos: Vec<Position> = batch.iter().map(|&i| positions[i]).collect();
                let tgt: Vec<f32> = batch.iter().map(|&i| targets[i]).collect();
                let batch = NnueBatch::for_stacks(self.arch.stacks, &pos, &tgt, &device);
                let progress = step as f64 / total_steps as f64;
                let rate =
                    self.learning_rate + (self.learning_rate_end - self.learning_rate) * progress;
                step += 1;
                let (next, loss) = train_step(model, &mut optimizer, &batch, rate);
                model = next;
                sum += f64::from(loss);
                steps += 1;
            }
            fitted = model.to_float(&self.arch);
            let report = EpochLoss {
                epoch,
                train: (sum / f64::from(steps.max(1))) as f32,
                full: float_loss(&fitted, positions, targets),
            };
            if !on_epoch(report, &fitted) {
                break;
            }
        }
        Ok(fitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::{DrawState, Game};

    #[test]
    fn a_fit_drives_the_loss_on_its_own_set_down() {
        // Positions of one game labelled by their material (a learnable target).
        let mut game = Game::new(Position::startpos());
        let mut samples = Vec::new();
        while !game.is_over() && samples.len() < 64 {
            let pos = *game.position();
            let mut s = Sample::new(pos, DrawState::default());
            let own = pos.pieces(pos.side_to_move()).count_ones() as f32;
            let opp = pos.pieces(pos.side_to_move().opponent()).count_ones() as f32;
            let score = 1.0 / (1.0 + (-(own - opp)).exp());
            s.root_wdl = [score, 0.0, 1.0 - score];
            samples.push(s);
            game.play(&game.legal_moves()[samples.len() % game.legal_moves().len()]);
        }
        let fit = CapacityFit {
            arch: Architecture {
                ft: 32,
                hidden: [32, 8],
                stacks: shashki_nnue::Stacks::Phase4,
            },
            lambda: 1.0,
            epochs: 30,
            batch_size: 16,
            learning_rate: 1e-2,
            learning_rate_end: 1e-2,
            seed: 1,
            init: None,
        };
        let (positions, targets) = fit_inputs(&samples, fit.lambda);
        let mut losses = Vec::new();
        fit.run(&positions, &targets, |e, _| {
            losses.push(e.full);
            true
        })
        .unwrap();
        assert_eq!(losses.len(), 30);
        assert!(losses[29] < losses[0] * 0.5, "{losses:?}");
    }
}
