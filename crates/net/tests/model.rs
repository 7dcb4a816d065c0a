//! The network: shapes, folding, evaluator, losses and a few training steps.

mod common;

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use common::{
    evaluate_all, evaluate_with, inputs, max_abs, max_diff, net_with_random_batch_norm,
    overfit_fixed_batch, random_positions, tiny, values,
};
use shashki_net::kinds::tensor_shapes;
use shashki_net::{
    Device, InferenceNet, LossWeights, Net, NetConfig, NetEvaluator, NetOutput, POLICY_LEN,
    TrainBatch, compute_losses, parameter_count,
};
use shashki_rules::DrawState;
use shashki_search::Evaluator;

#[test]
fn output_shapes_and_tensor_list() {
    let device = Device::flex();
    let net = Net::init(&tiny(), 1, &device).unwrap();
    let out = net.forward(inputs(&random_positions(1, 5), &device));
    assert_eq!(out.policy.dims(), [5, POLICY_LEN]);
    assert_eq!(out.wdl.dims(), [5, 3]);
    assert_eq!(out.plies_left.unwrap().dims(), [5, 1]);
    let tensors = net.to_tensors().unwrap();
    let listed: Vec<(String, Vec<usize>)> = tensors
        .iter()
        .map(|t| (t.name.clone(), t.shape.clone()))
        .collect();
    assert_eq!(listed, tensor_shapes(&tiny()));
    // burn counts the batch norm running statistics too.
    let all: usize = listed
        .iter()
        .map(|(_, s)| s.iter().product::<usize>())
        .sum();
    assert_eq!(all, net.num_params());
    assert_eq!(all - parameter_count(&tiny()), 2 * (16 + 4 * 16 + 8 + 8));
    // The default CPU net's size, for the docs.
    assert_eq!(parameter_count(&NetConfig::default()), 478_692);
}

#[test]
fn same_seed_same_weights_other_seed_other_weights() {
    let device = Device::flex();
    let a = Net::init(&tiny(), 7, &device)
        .unwrap()
        .to_tensors()
        .unwrap();
    let b = Net::init(&tiny(), 7, &device)
        .unwrap()
        .to_tensors()
        .unwrap();
    let c = Net::init(&tiny(), 8, &device)
        .unwrap()
        .to_tensors()
        .unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn folded_inference_net_matches_batch_norm_inference() {
    let device = Device::flex();
    let net = net_with_random_batch_norm(3, &device);
    let positions = random_positions(3, 40);
    let plain = net.valid().forward(inputs(&positions, &device));
    let folded = InferenceNet::from_net(&net, &device)
        .unwrap()
        .forward(inputs(&positions, &device));
    let diff = |a: Tensor<2>, b: Tensor<2>| max_abs(&values(a), &values(b));
    assert!(diff(plain.policy, folded.policy) < 1e-4);
    assert!(diff(plain.wdl, folded.wdl) < 1e-5);
    assert!(diff(plain.plies_left.unwrap(), folded.plies_left.unwrap()) < 1e-5);
}

#[test]
fn evaluator_gives_priors_over_the_legal_moves_and_probabilities() {
    let device = Device::flex();
    let net = net_with_random_batch_norm(4, &device);
    let evaluator = NetEvaluator::from_net(&net, &device, 32).unwrap();
    assert_eq!(evaluator.preferred_batch(), 32);
    let positions = random_positions(4, 100);
    let evals = evaluate_all(&evaluator, &positions);
    for (position, eval) in positions.iter().zip(&evals) {
        let moves = position.legal_moves();
        assert_eq!(eval.priors.len(), moves.len());
        if !moves.is_empty() {
            assert!((eval.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        let wdl = eval.wdl;
        assert!((wdl.win + wdl.draw + wdl.loss - 1.0).abs() < 1e-5);
        assert!(eval.plies_left.unwrap() >= 0.0);
    }
    // Batching does not change the answer.
    let singles: Vec<_> = positions
        .iter()
        .map(|p| evaluate_all(&evaluator, std::slice::from_ref(p)).remove(0))
        .collect();
    assert!(max_diff(&evals, &singles) < 1e-5);
    // The draw planes reach the output.
    let drawish = evaluate_with(
        &evaluator,
        &positions,
        DrawState {
            repetitions: 2,
            plies_to_draw: Some(4),
        },
    );
    assert!(max_diff(&evals, &drawish) > 1e-6);
}

#[test]
fn losses_have_the_textbook_values() {
    let device = Device::flex();
    let n = 2;
    let zeros = |w: usize| Tensor::<2>::zeros([n, w], &device);
    let output = NetOutput {
        policy: zeros(POLICY_LEN),
        wdl: zeros(3),
        plies_left: Some(Tensor::from_data(
            TensorData::new(vec![0.5f32, 0.5], [n, 1]),
            &device,
        )),
    };
    // Four legal moves, all weight on one: ln 4. W/D/L one-hot: ln 3.
    let mut mask = vec![0.0f32; n * POLICY_LEN];
    let mut target = vec![0.0f32; n * POLICY_LEN];
    for row in 0..n {
        for i in [3, 70, 500, 1000] {
            mask[row * POLICY_LEN + i] = 1.0;
        }
        target[row * POLICY_LEN + 70] = 1.0;
    }
    let t =
        |data: Vec<f32>, w: usize| Tensor::<2>::from_data(TensorData::new(data, [n, w]), &device);
    let batch = TrainBatch {
        inputs: Tensor::zeros([n, 7, 8, 8], &device),
        policy_target: t(target, POLICY_LEN),
        legal_mask: t(mask, POLICY_LEN),
        wdl_target: t(vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0], 3),
        plies_left_target: t(vec![0.3, 0.7], 1),
    };
    let weights = LossWeights {
        policy: 1.0,
        value: 2.0,
        plies_left: 10.0,
    };
    let losses = compute_losses(&output, &batch, &weights);
    let scalar = |t: Tensor<1>| values(t)[0];
    assert!((scalar(losses.policy) - 4f32.ln()).abs() < 1e-5);
    assert!((scalar(losses.value) - 3f32.ln()).abs() < 1e-5);
    let plies = scalar(losses.plies_left.unwrap());
    assert!((plies - 0.04).abs() < 1e-6);
    let total = 4f32.ln() + 2.0 * 3f32.ln() + 10.0 * 0.04;
    assert!((scalar(losses.total) - total).abs() < 1e-4);
}

#[test]
fn training_steps_lower_the_loss_on_a_fixed_batch() {
    let run = overfit_fixed_batch(&tiny(), 15);
    let (first, last) = (run.first, run.last);
    assert!(last < 0.8 * first, "loss {first} -> {last}");
}
