//! A server on a free 127.0.0.1 port and a small HTTP client, for the API
//! and browser tests.

#![allow(dead_code)]

use shashki_arena::PlayerFactory;
use shashki_search::{AbConfig, AlphaBeta, Engine};
use shashki_serve::{EngineSettings, NamedEngine, NamedPlayer, ServeOptions, Server};
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The reference alpha-beta engine, named `ab` (fast to build; the
/// built-in NNUE engine lives in the binary's crate).
pub fn ab_engine() -> NamedEngine {
    NamedEngine {
        name: "ab".into(),
        description: "alpha-beta (hand-written evaluation)".into(),
        make: Arc::new(|settings: &EngineSettings| {
            let config = AbConfig {
                threads: settings.threads.unwrap_or(1),
                ..AbConfig::default()
            };
            Ok(Box::new(AlphaBeta::new(config)) as Box<dyn Engine>)
        }),
    }
}

/// An arena player under `name`, prepared from `spec` as the command line
/// does.
pub fn player(name: &str, spec: &str) -> NamedPlayer {
    NamedPlayer {
        name: name.into(),
        description: format!("arena player {spec}"),
        factory: Arc::new(PlayerFactory::from_text(spec).expect("a valid spec")),
    }
}

/// Options for a test server: port 0 (a free port), the `ab` engine, short
/// limits.
pub fn options() -> ServeOptions {
    ServeOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        max_movetime: Duration::from_millis(300),
        max_analysis: Duration::from_secs(30),
        max_body: 256 << 10,
        ..ServeOptions::new(vec![ab_engine()])
    }
}

/// An HTTP answer: status and body text.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub content_type: String,
    /// The `set-cookie` header, if any.
    pub set_cookie: Option<String>,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The `error` message of a refused request.
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message in {}", self.body))
            .to_string()
    }
}

/// A client of one server.
#[derive(Clone)]
pub struct Client {
    pub base: String,
    agent: ureq::Agent,
}

impl Client {
    pub fn new(server: &Server) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Client {
            base: format!("http://{}", server.addr()),
            agent,
        }
    }

    /// The same client, sending to `base` (`http://ADDR:PORT`).
    pub fn at(&self, base: String) -> Client {
        Client {
            base,
            agent: self.agent.clone(),
        }
    }

    fn answer(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut response = result.expect("the server answers");
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let set_cookie = response
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let status = response.status().as_u16();
        let mut body = String::new();
        response
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .reader()
            .read_to_string(&mut body)
            .expect("a UTF-8 body");
        Answer {
            status,
            body,
            content_type,
            set_cookie,
        }
    }

    pub fn get(&self, path: &str) -> Answer {
        Self::answer(self.agent.get(format!("{}{path}", self.base)).call())
    }

    /// `method path` over a bare socket with exactly these headers (a
    /// `host` among them replaces the real one; HTTP clients set their
    /// own), and the body if any; the answer as read.
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        use std::io::Write;
        let addr = self.base.trim_start_matches("http://");
        let mut socket = std::net::TcpStream::connect(addr).expect("connect to the server");
        socket
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("host: {addr}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if !body.is_empty() {
            head.push_str("content-type: application/json\r\n");
        }
        head.push_str(&format!(
            "content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        ));
        socket.write_all(head.as_bytes()).expect("send the request");
        // Read to the server's close; an event stream never closes, so its
        // head is enough (dropping the socket stops its search).
        let mut raw = Vec::new();
        let mut buffer = [0u8; 8192];
        while let Ok(n) = socket.read(&mut buffer) {
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
            if let Some((head, _)) = text.split_once("\r\n\r\n")
                && head.contains("text/event-stream")
            {
                break;
            }
        }
        parse_answer(&raw)
    }

    pub fn post_json(&self, path: &str, body: &serde_json::Value) -> Answer {
        self.post_raw(path, "application/json", body.to_string().into_bytes())
    }

    pub fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Answer {
        Self::answer(
            self.agent
                .post(format!("{}{path}", self.base))
                .header("content-type", content_type)
                .send(&body[..]),
        )
    }

    /// Posts `body` over a bare socket and reads the answer even when the
    /// server answers early and stops reading (as it does for a body over
    /// the limit): a write that fails with a broken pipe is not an error
    /// here, the answer already sent is what the test checks. (ureq gives
    /// up on the broken pipe, which made this check racy.)
    pub fn post_unread(&self, path: &str, content_type: &str, body: &[u8]) -> Answer {
        use std::io::Write;
        let host = self.base.trim_start_matches("http://");
        let mut socket = std::net::TcpStream::connect(host).expect("connect to the server");
        socket
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: {content_type}\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = socket
            .write_all(head.as_bytes())
            .and_then(|_| socket.write_all(body));
        let mut raw = Vec::new();
        // Reading stops at the server's close (or a reset after its answer).
        let _ = socket.read_to_end(&mut raw);
        parse_answer(&raw)
    }

    /// Opens a server-sent event stream; the events are read with
    /// [`Events::next`].
    pub fn events(&self, path: &str) -> Result<Events, Answer> {
        let response = self
            .agent
            .get(format!("{}{path}", self.base))
            .call()
            .expect("the server answers");
        if response.status() != 200 {
            return Err(Self::answer(Ok(response)));
        }
        let reader = response.into_body().into_reader();
        Ok(Events {
            reader: std::io::BufReader::new(Box::new(reader)),
        })
    }
}

/// A stream of server-sent events.
pub struct Events {
    reader: std::io::BufReader<Box<dyn Read + Send>>,
}

impl Events {
    /// The next event (name, data), skipping keep-alive comments; `None`
    /// at the end of the stream.
    pub fn next(&mut self) -> Option<(String, serde_json::Value)> {
        use std::io::BufRead;
        let (mut name, mut data) = (String::new(), String::new());
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if !data.is_empty() {
                    let value = serde_json::from_str(&data).expect("event data is JSON");
                    return Some((name, value));
                }
                continue;
            }
            if let Some(v) = line.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
    }
}

pub use shashki_atomic::testing::temp_dir;

/// Parses an HTTP/1.1 answer read from a socket: status, content type and
/// body (the body as far as `content-length` says, when it is given).
fn parse_answer(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete HTTP answer in {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let header = |name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
    };
    let length = header("content-length").and_then(|v| v.parse::<usize>().ok());
    let body = match length {
        Some(n) => body.get(..n).unwrap_or(body),
        None => body,
    };
    Answer {
        status,
        body: body.to_string(),
        content_type: header("content-type").unwrap_or_default(),
        set_cookie: header("set-cookie"),
    }
}
