//! Long runs on a finite disk (issue 71): below `[run] disk_floor_gb` of
//! free space, `train` (sequential and concurrent), `selfplay` and `learn`
//! stop cleanly with everything saved (exit status 75, a message that
//! says how much room is missing) and resume with nothing lost and nothing
//! counted twice; on a real small filesystem the run ends with that stop,
//! not an I/O error. What a generation costs on disk is shown as it goes.

use shashki_nnue::NnueCheckpoint;
use shashki_train::{LearnerState, RunDir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/runs.rs"]
mod runs;

use runs::{chunks_and_samples, newest_state, shipped_config, train};
use shashki_atomic::testing::temp_dir;

/// The exit status of a stop for want of room (`EX_TEMPFAIL`).
const LOW_DISK_EXIT: i32 = 75;

/// configs/nnue-smoke.toml with `[run] disk_floor_gb = floor` (and
/// `extra` lines appended to `[run]`), written to `path`.
fn smoke_with_floor(path: &Path, floor: f64, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(shipped_config("nnue-smoke.toml")).unwrap();
    let text = text.replacen(
        "[run]\n",
        &format!("[run]\ndisk_floor_gb = {floor:?}\n{extra}"),
        1,
    );
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// Sets the floor in a run's own config.toml (what a resumed run reads).
fn set_floor(run_dir: &Path, floor: f64) {
    let path = run_dir.join("config.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("disk_floor_gb"))
        .expect("the run's config states its floor")
        .to_string();
    let text = text.replace(&line, &format!("disk_floor_gb = {floor:?}"));
    std::fs::write(&path, text).unwrap();
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "{}\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// The process stopped for want of room, saying so.
fn stopped_low(output: &Output) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(LOW_DISK_EXIT),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains("stopped: "), "{stderr}");
    assert!(stderr.contains("below the floor of"), "{stderr}");
    assert!(stderr.contains("free at least"), "{stderr}");
    assert!(
        !stderr.contains("error"),
        "a clean stop, not an error: {stderr}"
    );
}

fn state(run_dir: &Path) -> LearnerState {
    newest_state::<NnueCheckpoint>(&RunDir::new(run_dir)).expect("a checkpoint loads")
}

/// The counters a stop must keep exactly.
fn counters(s: &LearnerState) -> (u64, u64, u64, u64, u64) {
    (s.generation, s.step, s.games, s.samples, s.replay.drawn)
}

#[test]
fn a_run_below_its_floor_stops_at_once_and_resumes_with_nothing_lost() {
    let dir = temp_dir("floor-train");
    let run_dir = dir.join("run");
    let config = smoke_with_floor(&dir.join("smoke.toml"), 0.0, "");
    let first = train(&config, &run_dir, 2).output().unwrap();
    succeeded(&first);
    let (stdout, stderr) = (text(&first.stdout), text(&first.stderr));
    let cost = stderr.lines().find(|l| l.starts_with("disk: "));
    let cost = cost.unwrap_or_else(|| panic!("no line of the disk's cost: {stderr}"));
    assert!(cost.contains(" KB a generation ("), "{cost}");
    assert!(
        cost.contains(" of chunks an hour at this pace; the run holds "),
        "{cost}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("gen    2 |") && l.contains("| run ") && l.ends_with(" KB")),
        "the progress line shows the run's size: {stdout}"
    );
    let before = state(&run_dir);
    let chunks_before = chunks_and_samples(&RunDir::new(&run_dir));

    // A floor above any disk: it stops before writing anything.
    set_floor(&run_dir, 1e6);
    let stopped = train(&config, &run_dir, 4).output().unwrap();
    stopped_low(&stopped);
    assert!(
        text(&stopped.stdout).contains("stopped at generation 2, step"),
        "{}",
        text(&stopped.stdout)
    );
    assert!(text(&stopped.stdout).contains("to resume: shashki train --run-dir"));
    assert_eq!(counters(&state(&run_dir)), counters(&before));
    assert_eq!(chunks_and_samples(&RunDir::new(&run_dir)), chunks_before);

    // Room again: it goes on from the same counters.
    set_floor(&run_dir, 0.0);
    succeeded(&train(&config, &run_dir, 4).output().unwrap());
    let after = state(&run_dir);
    assert_eq!(after.generation, 4);
    assert_eq!(after.games, before.games + 2 * 4, "4 games a generation");
    let (_, samples) = chunks_and_samples(&RunDir::new(&run_dir));
    assert_eq!(samples, after.samples, "every sample counted once");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn concurrent_training_and_selfplay_stop_below_their_floor_and_training_resumes() {
    let dir = temp_dir("floor-concurrent");
    let config = smoke_with_floor(&dir.join("smoke.toml"), 1e6, "mode = \"concurrent\"\n");
    let run_dir = dir.join("run");
    let concurrent = train(&config, &run_dir, 3).output().unwrap();
    stopped_low(&concurrent);
    // Self-play may finish a round of 4 games before the learner looks.
    let stdout = text(&concurrent.stdout);
    assert!(stdout.contains("stopped at generation "), "{stdout}");
    let before = state(&run_dir);
    set_floor(&run_dir, 0.0);
    succeeded(&train(&config, &run_dir, 3).output().unwrap());
    let after = state(&run_dir);
    assert_eq!(after.generation, 3);
    assert!(after.games >= before.games + 4 * (3 - before.generation));
    let (_, samples) = chunks_and_samples(&RunDir::new(&run_dir));
    assert_eq!(samples, after.samples, "every sample counted once");

    let out = dir.join("chunks");
    let selfplay = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(["selfplay", "--rounds", "2", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    stopped_low(&selfplay);
    let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
    assert_eq!(written, 0, "nothing written below the floor");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `script` as root in a mount namespace of its own (a tmpfs mounted
/// there vanishes with it); `None` where that is not allowed.
fn in_own_mounts(script: &str) -> Option<Output> {
    let probe = Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"])
        .output()
        .ok()?;
    if !probe.status.success() {
        return None;
    }
    Command::new("unshare")
        .args(["-m", "sh", "-c", script])
        .output()
        .ok()
}

#[test]
fn a_run_on_a_small_filesystem_ends_with_the_clean_stop_and_resumes_elsewhere() {
    let dir = temp_dir("floor-tmpfs");
    let mount = dir.join("small");
    std::fs::create_dir_all(&mount).unwrap();
    // A 4 MB filesystem, a 2.5 MB floor: the first generations fit, and
    // the run stops with room left for its last save.
    let config = smoke_with_floor(&dir.join("smoke.toml"), 0.0025, "");
    let script = format!(
        "mount -t tmpfs -o size=4m tmpfs {mount} || exit 90; \
         {shashki} train --config {config} --run-dir {mount}/run --generations 100000 --plain; \
         status=$?; cp -a {mount}/run {dir}/run; exit $status",
        mount = mount.display(),
        shashki = env!("CARGO_BIN_EXE_shashki"),
        config = config.display(),
        dir = dir.display(),
    );
    let Some(output) = in_own_mounts(&script) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to mount a small filesystem (root, unshare -m)"
        );
        eprintln!("skipped: no mount namespace with a tmpfs here (not root?)");
        return;
    };
    stopped_low(&output);
    let run_dir = dir.join("run");
    let stopped = state(&run_dir);
    assert!(stopped.generation >= 2, "generations were written first");
    let (_, samples) = chunks_and_samples(&RunDir::new(&run_dir));
    assert_eq!(samples, stopped.samples);

    // On the larger disk it goes on with nothing lost.
    set_floor(&run_dir, 0.0);
    let target = stopped.generation + 2;
    succeeded(&train(&config, &run_dir, target).output().unwrap());
    let after = state(&run_dir);
    assert_eq!(after.generation, target);
    assert_eq!(after.games, stopped.games + 2 * 4);
    let (_, samples) = chunks_and_samples(&RunDir::new(&run_dir));
    assert_eq!(samples, after.samples, "every sample counted once");
    std::fs::remove_dir_all(dir).unwrap();
}

/// configs/nnue-smoke.toml with a window of `window` samples, a budget of
/// `budget_kb` and `replay`, written to `path`.
fn smoke_with_budget(path: &Path, window: usize, budget_kb: f64, replay: &str) -> PathBuf {
    smoke_with_floor(
        path,
        0.0,
        &format!("disk_budget_gb = {:?}\n", budget_kb * 1e-6),
    );
    let text = std::fs::read_to_string(path).unwrap().replacen(
        "window = 5000",
        &format!("window = {window}\nreplay = \"{replay}\""),
        1,
    );
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

#[test]
fn a_run_over_its_budget_drops_only_what_its_learner_no_longer_reads() {
    let dir = temp_dir("budget");
    let run_dir = dir.join("run");
    // About 200 samples (40 KB of chunks) a generation against a window of
    // 150 samples and a 400 KB budget.
    let config = smoke_with_budget(&dir.join("smoke.toml"), 150, 400.0, "window");
    let first = train(&config, &run_dir, 8).output().unwrap();
    succeeded(&first);
    assert!(!text(&first.stderr).contains("over its disk budget"));
    let run = RunDir::new(&run_dir);
    let s = state(&run_dir);
    let (chunks, kept) = chunks_and_samples(&run);
    assert!(s.replay.dropped > 0, "the budget bound: {s:?}");
    assert_eq!(
        kept + s.replay.dropped,
        s.samples,
        "each sample kept or counted dropped"
    );
    assert!(kept >= 150, "the window's samples are all there: {kept}");
    assert!(chunks < 16, "8 generations wrote 16 chunks; {chunks} kept");
    let held = shashki_train::dir_bytes(&run_dir);
    assert!(held < 550_000, "within the budget and a generation: {held}");

    // Resumable, and its reuse accounting goes on from what it counted.
    succeeded(&train(&config, &run_dir, 10).output().unwrap());
    let s = state(&run_dir);
    assert_eq!(s.generation, 10);
    assert_eq!(
        s.replay.ingested, s.samples,
        "no sample counted twice or lost"
    );
    let (_, kept) = chunks_and_samples(&run);
    assert_eq!(kept + s.replay.dropped, s.samples);

    // A learner that reads every chunk keeps them all, and says so once.
    let all = smoke_with_budget(&dir.join("all.toml"), 150, 100.0, "all");
    let all_run = dir.join("all");
    let output = train(&all, &all_run, 3).output().unwrap();
    succeeded(&output);
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.matches("over its disk budget").count(),
        1,
        "{stderr}"
    );
    assert_eq!(chunks_and_samples(&RunDir::new(&all_run)).0, 6);
    assert_eq!(state(&all_run).replay.dropped, 0);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `shashki ARGS... --disk-floor-gb FLOOR`.
fn shashki_with_floor(args: &[&str], floor: f64) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .args(["--disk-floor-gb", &floor.to_string()])
        .output()
        .unwrap()
}

#[test]
fn relabel_and_book_stop_below_their_floor_and_finish_when_run_again() {
    let dir = temp_dir("floor-commands");
    let run_dir = dir.join("run");
    let config = smoke_with_floor(&dir.join("smoke.toml"), 0.0, "");
    succeeded(&train(&config, &run_dir, 2).output().unwrap());
    let (data, out) = (run_dir.join("data"), dir.join("relabelled"));
    let (data, out) = (data.to_str().unwrap(), out.to_str().unwrap());
    let relabel = ["relabel", "--chunks", data, "--out", out, "--depth", "3"];
    stopped_low(&shashki_with_floor(&relabel, 1e6));
    assert_eq!(
        shashki_selfplay::list_chunks(Path::new(out)).unwrap().len(),
        0
    );
    let done = shashki_with_floor(&relabel, 0.0);
    succeeded(&done);
    assert!(
        text(&done.stdout).contains("all done"),
        "{}",
        text(&done.stdout)
    );
    assert_eq!(
        shashki_selfplay::list_chunks(Path::new(out)).unwrap().len(),
        shashki_selfplay::list_chunks(Path::new(data))
            .unwrap()
            .len()
    );

    let pool = dir.join("pool.jsonl");
    let book = [
        "book",
        "score",
        "--out",
        pool.to_str().unwrap(),
        "--plies",
        "2",
        "--screen-depth",
        "2",
        "--window",
        "0..=10000",
        "--depth",
        "3",
        "--jobs",
        "2",
    ];
    let stopped = shashki_with_floor(&book, 1e6);
    stopped_low(&stopped);
    assert!(text(&stopped.stdout).contains("stopped: run the same command again"));
    let done = shashki_with_floor(&book, 0.0);
    succeeded(&done);
    let stdout = text(&done.stdout);
    assert!(!stdout.contains("stopped"), "{stdout}");
    assert!(stdout.contains("deep scores"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}
