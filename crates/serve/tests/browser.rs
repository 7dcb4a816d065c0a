//! The page in a real browser: headless Chromium driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`, which `.ci/run` installs).
//! It plays a move by clicking, waits for the engine's reply, opens a PDN
//! and steps through it with the keyboard, runs the analysis, and checks
//! the squares drawn in the page against the game's position each time.
//! Screenshots go to `target/tmp/serve-screenshots/`.
//!
//! Without chromedriver the test says so and passes, except under CI (the
//! `CI` variable set), where it fails.

mod support;
#[path = "support/webdriver.rs"]
mod webdriver;

use serde_json::{Value, json};
use shashki_rules::{Color, Game, Position, Square};
use shashki_serve::Server;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use webdriver::Browser;

/// Chromium's flags: headless, no sandbox (CI containers run as root),
/// nothing that reaches the network.
const CHROMIUM_ARGS: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,860",
];

const PDN: &str = r#"[Event "browser test"]
[White "Alice"]
[Black "Bob"]
[Result "0-2"]
1. c3-d4 f6-g5 2. d4-c5 b6:d4 3. e3:c5 d6:b4 0-2
"#;

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Kills the driver (and with it the browser) however the test ends.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_driver(driver: &Path) -> (Driver, String) {
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
    let guard = Driver(child);
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not start within 20 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (guard, url)
}

#[test]
fn the_board_plays_analyses_and_steps_through_a_pdn_in_chromium() {
    let driver = find_program(&["chromedriver"]);
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let (Some(driver), Some(chromium)) = (driver, chromium) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs chromium and chromium-driver (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "skipped: chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"
        );
        return;
    };
    let dir = support::temp_dir("browser");
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let pdn_file = dir.join("games.pdn");
    std::fs::write(&pdn_file, PDN).unwrap();
    // With a token (as off loopback): the page opens the printed URL and
    // every later request, the event stream included, carries the cookie.
    // The run folder does not exist yet: the Runs tab says so.
    let server = Server::start(shashki_serve::ServeOptions {
        pdn_files: vec![pdn_file.clone()],
        runs: Some(dir.join("runs")),
        token: Some("browser-test-token-0123456789".into()),
        ..support::options()
    })
    .unwrap();
    let (_driver, driver_url) = start_driver(&driver);
    let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", dir.join("profile").display()));
    let browser = Browser::start(&driver_url, &chromium, &args);
    scenario(&browser, &server.url(), &shots, &pdn_file);
    browser.close();
    std::fs::remove_dir_all(dir).ok();
}

/// The whole visit, in the order a user would go: play, analyse, undo;
/// open a game and step through it; flip the board; the runs tab.
fn scenario(browser: &Browser, url: &str, shots: &Path, pdn_file: &Path) {
    play_and_analyse(browser, url, shots);
    let game_moves = open_and_step_through_a_game(browser, shots, pdn_file);
    flip_and_visit_runs(browser, shots, &game_moves);
}

fn play_and_analyse(browser: &Browser, url: &str, shots: &Path) {
    browser.goto(url);
    wait_for(
        browser,
        "document.body.dataset.ready === '1'",
        "the page to load",
    );
    check_board(browser, &[], "the start");
    shot(browser, shots, "start");

    // Play c3-d4 by clicking; the engine (ab, 0.1 s) answers.
    click(browser, "#movetime option[value='100']");
    click(browser, "#board [data-square='c3']");
    let targets = js(
        browser,
        "return [...document.querySelectorAll('[data-target]')].map(t => t.dataset.target)",
    );
    assert_eq!(targets, json!(["b4", "d4"]), "c3's moves are shown");
    click(browser, "#board [data-square='d4']");
    wait_for(
        browser,
        "!!document.querySelector(\"#moves .mv[data-ply='2']\")",
        "the engine's reply",
    );
    wait_for(
        browser,
        "document.getElementById('status').dataset.thinking === '0'",
        "the engine to finish",
    );
    let moves = move_list(browser);
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(moves[0], "c3-d4");
    check_board(browser, &moves, "after the engine's reply");
    shot(browser, shots, "play");

    // Live analysis of the position on the board.
    click(browser, "#analyse-toggle");
    wait_for(
        browser,
        "document.getElementById('ceval-pv').children.length > 0",
        "an analysis line",
    );
    let score = js(
        browser,
        "return document.getElementById('ceval-score').textContent",
    );
    assert!(score.as_str().is_some_and(|s| s != "–"), "{score}");
    shot(browser, shots, "analysis");
    click(browser, "#analyse-toggle");

    // Undo takes back the engine's reply and our move.
    click(browser, "#undo");
    wait_for(
        browser,
        "document.querySelectorAll('#moves .mv[data-ply]').length === 0",
        "the undo",
    );
    check_board(browser, &[], "after undo");
}

/// Opens a pasted PDN, picks its game and steps with the keyboard, then
/// opens the same file from disk; returns the game's moves.
fn open_and_step_through_a_game(browser: &Browser, shots: &Path, pdn_file: &Path) -> Vec<String> {
    // Open a PDN (pasted), pick the game, step with the keyboard.
    click(browser, "#tab-games");
    browser.find("#pdn-text").send_keys(PDN);
    click(browser, "#pdn-load");
    wait_for(
        browser,
        "!!document.querySelector(\"#game-list tr[data-game='1']\")",
        "the game list",
    );
    let row = js(
        browser,
        "return [...document.querySelectorAll(\"#game-list tr[data-game='1'] td\")].map(td => td.textContent)",
    );
    assert_eq!(row, json!(["1", "Alice", "Bob", "0-2", "", "3"]));
    click(browser, "#game-list tr[data-game='1']");
    wait_for(
        browser,
        "document.querySelectorAll('#moves .mv[data-ply]').length === 6",
        "the game's moves",
    );
    let game_moves = move_list(browser);
    let body = browser.find("body");
    for _ in 0..3 {
        body.send_keys("\u{E014}"); // ArrowRight
    }
    wait_for(
        browser,
        "!!document.querySelector(\"#moves .mv.current[data-ply='3']\")",
        "three steps",
    );
    check_board(browser, &game_moves[..3], "three half-moves into the game");
    body.send_keys("\u{E010}"); // End: the capture b6:d4 and e3:c5 played
    wait_for(
        browser,
        "!!document.querySelector(\"#moves .mv.current[data-ply='6']\")",
        "the end",
    );
    check_board(browser, &game_moves, "the end of the game");
    shot(browser, shots, "games");
    body.send_keys("\u{E012}"); // ArrowLeft
    wait_for(
        browser,
        "!!document.querySelector(\"#moves .mv.current[data-ply='5']\")",
        "one step back",
    );
    check_board(browser, &game_moves[..5], "one step back");

    // The same file opened from disk through the file picker.
    browser
        .find("#pdn-file")
        .send_keys(&pdn_file.display().to_string());
    wait_for(
        browser,
        "document.getElementById('pdn-source').textContent.includes('1 game')",
        "the opened file",
    );
    game_moves
}

fn flip_and_visit_runs(browser: &Browser, shots: &Path, game_moves: &[String]) {
    // Flipped, a1 is drawn at the top right.
    click(browser, "#flip");
    let corner = js(
        browser,
        "const r = document.querySelector(\"#board [data-square='a1'] rect\").getBoundingClientRect(); const b = document.getElementById('board').getBoundingClientRect(); return [r.left > b.left + b.width / 2, r.top < b.top + b.height / 2]",
    );
    assert_eq!(corner, json!([true, true]));
    check_board(browser, &game_moves[..5], "flipped");
    shot(browser, shots, "flipped");

    // The token left the address bar; the runs folder has no runs yet.
    assert_eq!(js(browser, "return window.location.search"), json!(""));
    click(browser, ".tab[data-tab='runs']");
    wait_for(
        browser,
        "document.getElementById('runs-note').textContent.startsWith('No runs yet')",
        "the runs tab saying there are no runs yet",
    );
    // The address names the tab shown, and a link to a tab opens it.
    assert_eq!(js(browser, "return window.location.hash"), json!("#runs"));
    click(browser, ".tab[data-tab='play']");
    assert_eq!(js(browser, "return window.location.hash"), json!(""));
    js(browser, "window.location.hash = '#runs'; return 1");
    wait_for(
        browser,
        "!document.getElementById('panel-runs').hidden && document.getElementById('panel-play').hidden",
        "a #runs link opening the runs tab",
    );
}

fn js(browser: &Browser, script: &str) -> Value {
    browser.execute(script)
}

fn wait_for(browser: &Browser, condition: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if js(browser, &format!("return !!({condition})")) == json!(true) {
            return;
        }
        if Instant::now() > deadline {
            let status = js(
                browser,
                "return document.getElementById('status').textContent + ' | ' + document.getElementById('error').textContent",
            );
            panic!("waited 30 s for {what}; the page says: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn click(browser: &Browser, css: &str) {
    browser.find(css).click();
}

fn move_list(browser: &Browser) -> Vec<String> {
    let v = js(
        browser,
        "return [...document.querySelectorAll('#moves .mv[data-ply]')].map(m => m.textContent)",
    );
    serde_json::from_value(v).unwrap()
}

/// The squares drawn in the page equal the position after `moves`.
fn check_board(browser: &Browser, moves: &[String], when: &str) {
    let drawn = js(
        browser,
        "return Object.fromEntries([...document.querySelectorAll('#board [data-square]')].map(c => [c.dataset.square, c.dataset.piece]))",
    );
    let mut game = Game::new(Position::startpos());
    for mv in moves {
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{when}: {e}"));
    }
    let pos = game.position();
    for sq in Square::ALL {
        let expected = pos.piece_at(sq).map_or(String::new(), |p| {
            let c = if p.color == Color::White { "w" } else { "b" };
            if p.king {
                c.to_uppercase()
            } else {
                c.to_string()
            }
        });
        assert_eq!(
            drawn[sq.to_string()],
            json!(expected),
            "{when}: square {sq}"
        );
    }
    assert_eq!(
        drawn.as_object().unwrap().len(),
        32,
        "{when}: 32 dark squares"
    );
}

fn shot(browser: &Browser, dir: &Path, name: &str) {
    let png = browser.screenshot();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}
