//! A server on a free 127.0.0.1 port and a small HTTP client, for the API
//! and browser tests.

#![allow(dead_code)]

use shashki_search::{AbConfig, AlphaBeta, Engine};
use shashki_serve::{NamedEngine, ServeOptions, Server};
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
        make: Arc::new(|| Ok(Box::new(AlphaBeta::new(AbConfig::default())) as Box<dyn Engine>)),
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

    fn answer(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut response = result.expect("the server answers");
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
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
        }
    }

    pub fn get(&self, path: &str) -> Answer {
        Self::answer(self.agent.get(format!("{}{path}", self.base)).call())
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

/// A fresh temporary folder.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "shashki-serve-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
