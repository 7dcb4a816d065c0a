//! Self-play with the real network: a fixed seed and one thread give the
//! same first game; chunks written by it load back.

mod common;

use shashki_net::NetConfig;
use shashki_rules::DrawRules;
use shashki_search::{Algorithm, SearchConfig};
use shashki_selfplay::{
    ChunkSink, FinishedGame, SelfPlayConfig, SelfPlayer, list_chunks, read_chunk,
};
use shashki_train::Learner;
use shashki_train::config::TrainSection;

fn first_game(seed: u64) -> FinishedGame {
    let device = shashki_net::device_from_name("cpu").unwrap();
    let net = NetConfig {
        blocks: 1,
        channels: 8,
        ..NetConfig::tiny()
    };
    let learner = Learner::new(&net, &TrainSection::default(), 5, &device).unwrap();
    let evaluator = learner
        .evaluator(&device, 8, shashki_net::InferenceKernels::F32)
        .unwrap();
    let selfplay = SelfPlayConfig {
        threads: 1,
        games_in_flight: 4,
        batch_size: 8,
        ..SelfPlayConfig::default()
    };
    let search = SearchConfig {
        algorithm: Algorithm::Gumbel,
        full_simulations: 8,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        root_noise: true,
        ..SearchConfig::default()
    };
    let rules = DrawRules {
        max_plies: Some(40),
        ..DrawRules::default()
    };
    let mut player = SelfPlayer::new(selfplay, search, rules, seed).unwrap();
    let mut games = Vec::new();
    player.play(&evaluator, 1, |g| games.push(g)).unwrap();
    games.swap_remove(0)
}

#[test]
fn self_play_with_a_fixed_seed_is_reproducible() {
    let a = first_game(21);
    let b = first_game(21);
    assert_eq!(a.index, b.index);
    assert_eq!(a.game.moves(), b.game.moves());
    assert_eq!(a.outcome, b.outcome);
    assert_eq!(a.samples.len(), b.samples.len());
    for (x, y) in a.samples.iter().zip(&b.samples) {
        assert_eq!(x.policy(), y.policy());
        assert_eq!(x.root_wdl, y.root_wdl);
    }

    let dir = common::temp_dir("selfplay-net");
    let mut sink = ChunkSink::new(&dir, 1).unwrap();
    let path = sink.push(&a).unwrap().expect("one game per chunk");
    assert_eq!(list_chunks(&dir).unwrap(), std::slice::from_ref(&path));
    let back = read_chunk(&path).unwrap().samples().unwrap();
    assert_eq!(back.len(), a.samples.len());
    assert_eq!(back[0].position, a.samples[0].position);
    std::fs::remove_dir_all(dir).unwrap();
}
