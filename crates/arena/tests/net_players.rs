//! Network players: a checkpoint file and an exported model folder load
//! through their spec and play a match, their searches batched across games
//! (an 8x8 net against a diagonal one: both kinds load the same way).

use shashki_arena::matches::{Control, EndCause, MatchSettings, run_match};
use shashki_arena::{PlayerFactory, load_network};
use shashki_net::{Checkpoint, Net, NetConfig, NetKind, device_from_name, export_model};

#[test]
fn checkpoints_and_exported_models_play_matches() {
    let dir = std::env::temp_dir().join(format!("arena-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let device = device_from_name("cpu").unwrap();
    let net = Net::init(&NetConfig::tiny(), 7, &device).unwrap();
    let checkpoint = Checkpoint::from_net(&net, 120, None).unwrap();
    let file = dir.join("ckpt-120");
    checkpoint.save(&file).unwrap();
    let diag = Net::init(&NetConfig::tiny_of(NetKind::Diag32), 8, &device).unwrap();
    let folder = dir.join("model");
    export_model(&Checkpoint::from_net(&diag, 90, None).unwrap(), &folder).unwrap();
    assert_eq!(load_network::checkpoint_steps(&file).unwrap(), 120);
    assert_eq!(load_network::checkpoint_steps(&folder).unwrap(), 90);

    let a = PlayerFactory::from_text(&format!("net:{}@sims=8", file.display())).unwrap();
    let b = PlayerFactory::from_text(&format!("net:{}@sims=8,gumbel,batch=4", folder.display()))
        .unwrap();
    let mut settings = MatchSettings::new(4);
    settings.concurrency = 4;
    let report = run_match(&a, &b, &settings, &mut |_, _| Control::Continue);
    assert_eq!(report.games.len(), 4);
    assert!(
        report
            .games
            .iter()
            .all(|g| matches!(g.cause, EndCause::Rules(_)))
    );
    let stats = b.batch_stats().unwrap();
    assert!(stats.positions > 0 && stats.batches > 0);

    let missing =
        PlayerFactory::from_text(&format!("net:{}@sims=8", dir.join("nothing").display()));
    let err = missing.unwrap_err().to_string();
    assert!(err.contains("nothing"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
