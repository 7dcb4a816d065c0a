//! The board is safe to leave open (issue 33), against a real server over
//! real HTTP: a request runs and opens nothing it names, answers only for
//! the server's own address and page, and off loopback only with the
//! token. The off-loopback server binds 0.0.0.0 (not loopback, so the
//! token is required) and is reached at 127.0.0.1.

mod support;

use serde_json::json;
use shashki_serve::{ServeOptions, Server};
use std::net::SocketAddr;
use support::{Answer, Client, options, temp_dir};

/// Words that would tell the client something about a file.
const FILE_WORDS: [&str; 9] = [
    "passwd",
    "shadow",
    "/etc",
    "../",
    "no such",
    "not a shashki",
    "checkpoint",
    "permission",
    "exist",
];

fn assert_says_nothing_about_files(answer: &Answer, what: &str) {
    assert!(
        (400..500).contains(&answer.status),
        "{what}: {} {}",
        answer.status,
        answer.body
    );
    let error = answer.error().to_lowercase();
    for word in FILE_WORDS {
        assert!(!error.contains(word), "{what}: {word:?} in {error}");
    }
    assert!(
        error.contains("ab"),
        "{what}: the choices are named: {error}"
    );
}

#[test]
fn a_request_naming_a_program_runs_nothing() {
    let server = Server::start(options()).unwrap();
    let c = Client::new(&server);
    let marker = std::env::current_dir().unwrap().join("marker");
    let dir = temp_dir("no-exec");
    let elsewhere = dir.join("marker");
    assert!(!marker.exists() && !elsewhere.exists());
    // The exact request of issue 33, and one touching a file we can see.
    let exact =
        r#"{"fen":"W:Wc3:Bf6","engine":"ext:/bin/sh -c \"touch marker\"","movetime_ms":100}"#;
    let a = c.raw("POST", "/api/engine-move", &[], exact);
    assert!((400..500).contains(&a.status), "{}", a.body);
    assert!(a.error().contains("ab"), "names the choices: {}", a.error());
    let touch = format!("ext:/bin/sh -c \"touch {}\"", elsewhere.display());
    let b = c.post_json(
        "/api/engine-move",
        &json!({"engine": touch, "movetime_ms": 100}),
    );
    assert!((400..500).contains(&b.status), "{}", b.body);
    let query = format!("/api/analyse?engine={}", urlencode(&touch));
    assert_eq!(c.raw("GET", &query, &[], "").status, 400);
    assert!(!marker.exists(), "the request ran a program");
    assert!(!elsewhere.exists(), "the request ran a program");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_request_naming_a_file_learns_nothing_about_it() {
    let server = Server::start(options()).unwrap();
    let c = Client::new(&server);
    for spec in [
        "nnue:/etc/passwd",
        "net:../../x",
        "nnue:/etc/passwd@depth=2",
        "net:/etc/shadow@batch=16,kernels=burn",
        "ext:\"/bin/cat /etc/passwd\"@movetime=10",
        "nnue:/no/such/model",
    ] {
        let play = c.post_json("/api/engine-move", &json!({"engine": spec}));
        assert_says_nothing_about_files(&play, spec);
        let analyse = c.raw(
            "GET",
            &format!("/api/analyse?engine={}", urlencode(spec)),
            &[],
            "",
        );
        assert_says_nothing_about_files(&analyse, spec);
    }
    // No field beside the name and the bounded settings is read.
    let a = c.post_json(
        "/api/engine-move",
        &json!({"engine": "ab", "path": "/etc/passwd"}),
    );
    assert_eq!(a.status, 400, "{}", a.body);
}

/// Every route, as (method, path, body).
fn routes() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("GET", "/", ""),
        ("GET", "/assets/app.js", ""),
        ("GET", "/api/info", ""),
        ("GET", "/api/analyse?time_ms=50", ""),
        ("GET", "/api/pdn-files", ""),
        ("GET", "/api/pdn-files/0", ""),
        ("GET", "/api/runs", ""),
        ("GET", "/api/runs/alpha", ""),
        ("GET", "/no-such-page", ""),
        ("POST", "/api/position", "{}"),
        ("POST", "/api/engine-move", r#"{"movetime_ms": 20}"#),
        ("POST", "/api/pdn", "1. c3-d4 *"),
    ]
}

/// A server with a PDN file and a run folder holding one (empty) run, so
/// every route has something to answer.
fn full_options(tag: &str) -> (ServeOptions, std::path::PathBuf) {
    let dir = temp_dir(tag);
    let pdn = dir.join("games.pdn");
    std::fs::write(&pdn, "[White \"a\"]\n1. c3-d4 f6-g5 *\n").unwrap();
    std::fs::create_dir_all(dir.join("runs/alpha/checkpoints")).unwrap();
    let options = ServeOptions {
        pdn_files: vec![pdn],
        runs: Some(dir.join("runs")),
        // Each route is asked several times in a row: a finished analysis
        // frees its search slot on its own thread a moment after its stream
        // ends, so a slot per request keeps 429 out of these checks.
        max_searches: 16,
        ..options()
    };
    (options, dir)
}

#[test]
fn a_foreign_host_is_refused_on_every_route() {
    let (full, dir) = full_options("host");
    let server = Server::start(full).unwrap();
    let c = Client::new(&server);
    let port = server.addr().port();
    for host in [
        "evil.example.com".to_string(),
        format!("evil.example.com:{port}"),
        format!("127.0.0.1:{}", port + 1),
        format!("10.1.2.3:{port}"),
    ] {
        for (method, path, body) in routes() {
            let a = c.raw(method, path, &[("host", &host)], body);
            assert_eq!(a.status, 421, "{host} {method} {path}: {}", a.body);
            assert!(a.error().contains("Host"), "{}", a.error());
        }
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ] {
        for (method, path, body) in routes().into_iter().filter(|r| r.1 != "/no-such-page") {
            let a = c.raw(method, path, &[("host", &host)], body);
            assert_eq!(a.status, 200, "{host} {method} {path}: {}", a.body);
        }
    }
    // Named hosts pass (e.g. an /etc/hosts alias of this machine).
    let named = Server::start(ServeOptions {
        allow_hosts: vec!["board.test".into()],
        ..options()
    })
    .unwrap();
    let n = Client::new(&named);
    assert_eq!(
        n.raw("GET", "/api/info", &[("host", "board.test:8000")], "")
            .status,
        200
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_page_of_another_origin_cannot_start_anything() {
    let server = Server::start(options()).unwrap();
    let c = Client::new(&server);
    let own = format!("http://{}", server.addr());
    let starts_work = [
        ("POST", "/api/position", "{}"),
        ("POST", "/api/engine-move", r#"{"movetime_ms": 20}"#),
        ("POST", "/api/pdn", "1. c3-d4 *"),
        ("GET", "/api/analyse?time_ms=50", ""),
    ];
    for (method, path, body) in starts_work {
        for headers in [
            vec![("origin", "http://evil.example.com")],
            vec![("origin", "null")],
            vec![("sec-fetch-site", "cross-site")],
        ] {
            let a = c.raw(method, path, &headers, body);
            assert_eq!(a.status, 403, "{headers:?} {method} {path}: {}", a.body);
            assert!(a.error().contains("Origin"), "{}", a.error());
        }
        let same = c.raw(method, path, &[("origin", &own)], body);
        assert_eq!(same.status, 200, "{method} {path}: {}", same.body);
    }
    // Reading is not refused: the browser keeps the answer from the page.
    let read = c.raw(
        "GET",
        "/api/info",
        &[("origin", "http://evil.example.com")],
        "",
    );
    assert_eq!(read.status, 200);
}

#[test]
fn off_loopback_every_route_needs_the_token() {
    let (options, dir) = full_options("token");
    let token = "test-token-0123456789abcdef";
    let refused = Server::start(ServeOptions {
        addr: SocketAddr::from(([0, 0, 0, 0], 0)),
        ..options.clone()
    });
    let error = refused.err().expect("no token off loopback").to_string();
    assert!(error.contains("token"), "{error}");
    let server = Server::start(ServeOptions {
        addr: SocketAddr::from(([0, 0, 0, 0], 0)),
        token: Some(token.into()),
        ..options
    })
    .unwrap();
    assert!(server.url().ends_with(&format!("/?token={token}")));
    let port = server.addr().port();
    let c = Client::new(&server).at(format!("http://127.0.0.1:{port}"));
    let cookie_name = format!("shashki_token_{port}");
    let wrong = format!("{cookie_name}=wrong-token-0123456789abc");
    for (method, path, body) in routes() {
        for headers in [vec![], vec![("cookie", wrong.as_str())]] {
            let a = c.raw(method, path, &headers, body);
            assert_eq!(a.status, 401, "{method} {path} {headers:?}: {}", a.body);
            assert!(a.error().contains("token"), "{}", a.error());
        }
    }
    let cookie = format!("other=1; {cookie_name}={token}");
    let bearer = format!("Bearer {token}");
    for (method, path, body) in routes().into_iter().filter(|r| r.1 != "/no-such-page") {
        let joiner = if path.contains('?') { '&' } else { '?' };
        let with_query = format!("{path}{joiner}token={token}");
        let a = c.raw(method, &with_query, &[], body);
        assert_eq!(a.status, 200, "{method} {with_query}: {}", a.body);
        let set = a.set_cookie.clone().unwrap_or_default();
        assert!(set.starts_with(&format!("{cookie_name}={token};")), "{set}");
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
        let b = c.raw(method, path, &[("cookie", &cookie)], body);
        assert_eq!(b.status, 200, "{method} {path} with the cookie: {}", b.body);
        let d = c.raw(method, path, &[("authorization", &bearer)], body);
        assert_eq!(d.status, 200, "{method} {path} with the header: {}", d.body);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
