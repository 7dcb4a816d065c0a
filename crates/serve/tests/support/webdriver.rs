//! The few WebDriver commands (W3C protocol, JSON over HTTP) the browser
//! test sends to chromedriver. Any failure panics with the driver's message.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session.
pub struct Browser {
    agent: ureq::Agent,
    session: String,
}

/// An element of the page.
pub struct Element<'a> {
    browser: &'a Browser,
    id: String,
}

impl Browser {
    /// A new session of `chromium` with `args`, through the driver at `url`.
    pub fn start(url: &str, chromium: &Path, args: &[String]) -> Browser {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let value = call(&agent, "POST", &format!("{url}/session"), Some(caps));
        let session = value["sessionId"].as_str().expect("a session id");
        Browser {
            agent,
            session: format!("{url}/session/{session}"),
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        call(
            &self.agent,
            method,
            &format!("{}{path}", self.session),
            body,
        )
    }

    /// Loads `url`.
    pub fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({"url": url})));
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub fn execute(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// The first element matching `css`.
    pub fn find(&self, css: &str) -> Element<'_> {
        let v = self.call(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        Element {
            browser: self,
            id: v[ELEMENT]
                .as_str()
                .unwrap_or_else(|| panic!("no element {css}"))
                .to_string(),
        }
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.call("GET", "/screenshot", None);
        base64_decode(v.as_str().expect("base64 PNG"))
    }

    /// Ends the session (and the browser).
    pub fn close(self) {
        drop(self);
    }
}

/// Ends the session however the test ends (a failed assertion included),
/// so no browser outlives it.
impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.session).call();
    }
}

impl Element<'_> {
    /// Clicks it (real pointer events at its centre).
    pub fn click(&self) {
        self.browser.call(
            "POST",
            &format!("/element/{}/click", self.id),
            Some(json!({})),
        );
    }

    /// Types `text` into it (WebDriver key codes for special keys).
    pub fn send_keys(&self, text: &str) {
        self.browser.call(
            "POST",
            &format!("/element/{}/value", self.id),
            Some(json!({"text": text})),
        );
    }
}

fn call(agent: &ureq::Agent, method: &str, url: &str, body: Option<Value>) -> Value {
    let result = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        ("DELETE", _) => agent.delete(url).call(),
        (_, body) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(body.unwrap_or(json!({})).to_string().as_bytes()),
    };
    let mut response = result.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status();
    let text = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: {e}: {text}"));
    assert!(
        status.is_success(),
        "{method} {url}: {status}: {}",
        value["value"]
    );
    value["value"].clone()
}

fn base64_decode(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(digit(c)) << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}
