//! Who may use the board, checked before any handler runs (one axum
//! middleware, [`guard`], over every route; tower-http has no Host or
//! Origin allowlist and its CORS layer only answers browsers, it refuses
//! nothing, so the policy is written here and hooked in with axum's
//! `middleware::from_fn_with_state`):
//!
//! 1. **Host** (against DNS rebinding): on loopback only
//!    `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT` (and the bound
//!    address); off loopback also any IP literal on PORT (a page cannot
//!    rebind a literal) and the `--allow-host` names (any port, for a
//!    reverse proxy; `*` takes every name). Anything else: 421.
//! 2. **Origin**: a request that changes state or starts a search (every
//!    POST, the analysis stream) from a page of another origin gets 403.
//!    Requests without an `Origin` (curl, same-origin event streams) pass.
//! 3. **Token** (off loopback always; on loopback when one is given): in
//!    the `token` query parameter (the URL the server prints), the cookie
//!    it sets from there (an `EventSource` cannot send headers), or an
//!    `Authorization: token ...` / `Bearer ...` header. Without it: 401.
//!
//! Every answer also forbids framing (clickjacking) and referrers (the
//! token in a URL never leaves the page).

use crate::error::ApiError;
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The query parameter and the cookie's name prefix.
pub const TOKEN_PARAM: &str = "token";

/// Fewest characters of a token given with `--token`.
pub const MIN_TOKEN_LEN: usize = 16;

/// Who may use the server.
#[derive(Clone, Debug)]
pub struct Access {
    addr: SocketAddr,
    loopback: bool,
    allow_hosts: Vec<String>,
    any_host: bool,
    token: Option<String>,
}

impl Access {
    /// The policy for a server on `addr`: `allow_hosts` are extra host
    /// names (`*`: any), `token` the secret (required off loopback).
    pub fn new(
        addr: SocketAddr,
        allow_hosts: &[String],
        token: Option<String>,
    ) -> Result<Access, String> {
        let loopback = addr.ip().is_loopback();
        if !loopback && token.is_none() {
            return Err(format!(
                "listening on {} (not loopback) needs a token: anyone on the network could \
                 otherwise use the board",
                addr.ip()
            ));
        }
        if let Some(token) = &token {
            check_token(token)?;
        }
        let allow_hosts: Vec<String> = allow_hosts
            .iter()
            .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        Ok(Access {
            addr,
            loopback,
            any_host: allow_hosts.iter().any(|h| h == "*"),
            allow_hosts,
            token,
        })
    }

    /// The token, if the server requires one.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The cookie that carries the token (named by port: cookies are not
    /// kept apart by port, two boards on one machine would clash).
    fn cookie_name(&self) -> String {
        format!("shashki_token_{}", self.addr.port())
    }

    /// True if a request with this `Host` header is for this server.
    pub fn host_allowed(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if self.any_host || self.allow_hosts.contains(&name) {
            return true;
        }
        let our_port = match port {
            Some(p) => p == self.addr.port(),
            None => self.addr.port() == 80,
        };
        if !our_port {
            return false;
        }
        let literal = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .ok();
        match literal {
            Some(ip) if self.loopback => ip == self.addr.ip() || known_loopback(ip),
            Some(_) => true,
            None => name == "localhost",
        }
    }

    /// True if a state-changing request from `origin` (the `Origin`
    /// header, already with an allowed `host`) is same-origin.
    fn origin_allowed(origin: &str, host: &str) -> bool {
        let origin = origin.trim().to_ascii_lowercase();
        let host = host.trim().to_ascii_lowercase();
        ["http://", "https://"]
            .iter()
            .any(|scheme| origin.strip_prefix(scheme) == Some(host.as_str()))
    }

    /// The token a request carries (query, cookie, or header) is ours.
    fn token_matches(&self, request: &Request, query_token: Option<&str>) -> bool {
        let Some(ours) = &self.token else {
            return true;
        };
        let cookie = self.cookie_name();
        let cookies = request
            .headers()
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(name, _)| *name == cookie)
            .map(|(_, value)| value);
        let authorization = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("token ")
                    .or_else(|| v.strip_prefix("Bearer "))
            });
        query_token
            .into_iter()
            .chain(cookies)
            .chain(authorization)
            .any(|given| same_secret(given.trim(), ours))
    }
}

/// 16 or more visible ASCII characters other than `;`, `,`, `"`, `\` and
/// `=` (they would break the cookie); `+`, `&`, `#`, `%` and `/` are left
/// out too (they would need escaping in the printed URL).
fn check_token(token: &str) -> Result<(), String> {
    let bad = |c: char| !c.is_ascii_graphic() || ";,\"\\=+&#%/".contains(c);
    if token.len() < MIN_TOKEN_LEN {
        return Err(format!(
            "the token needs at least {MIN_TOKEN_LEN} characters (a guessable token guards nothing)"
        ));
    }
    if token.chars().any(bad) {
        return Err("the token may hold only letters, digits and -_.~!*'()$:@".into());
    }
    Ok(())
}

/// A fresh random token: 24 bytes from the OS-seeded generator, in hex.
pub fn new_token() -> String {
    use rand::Rng;
    let bytes: [u8; 24] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares in time independent of where the texts differ.
fn same_secret(given: &str, ours: &str) -> bool {
    given.len() == ours.len()
        && given
            .bytes()
            .zip(ours.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn known_loopback(ip: IpAddr) -> bool {
    ip == IpAddr::from([127, 0, 0, 1]) || ip == IpAddr::from(std::net::Ipv6Addr::LOCALHOST)
}

/// `name[:port]` or `[v6][:port]`; `None` if malformed.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let host = host.trim();
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(p) => Some(p),
            None if rest.is_empty() => None,
            None => return None,
        };
        (&host[..=end], port)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    (!name.is_empty()).then_some((name, port))
}

/// Requests that change state or start a search.
fn starts_work(method: &Method, uri: &Uri) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) || uri.path() == "/api/analyse"
}

/// `uri` without its `token` parameter (the handlers never see it), and
/// the token it carried.
fn take_token(uri: &Uri) -> (Option<Uri>, Option<String>) {
    let Some(query) = uri.query() else {
        return (None, None);
    };
    let mut token = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.split_once('=') {
            Some((TOKEN_PARAM, value)) => {
                token = Some(value.to_string());
                false
            }
            _ => *pair != TOKEN_PARAM,
        })
        .collect();
    if token.is_none() {
        return (None, None);
    }
    let rebuilt = if kept.is_empty() {
        uri.path().to_string()
    } else {
        format!("{}?{}", uri.path(), kept.join("&"))
    };
    (rebuilt.parse().ok(), token)
}

fn refuse(status: StatusCode, message: &str) -> Response {
    ApiError::new(status, message).into_response()
}

/// The middleware: Host, then Origin, then the token; the answer carries
/// the headers that keep the page out of frames and its URL out of
/// referrers, and the token's cookie when the query brought it.
pub async fn guard(
    State(access): State<Arc<Access>>,
    mut request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !access.host_allowed(&host) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "this server answers only for its own address (Host header refused); \
             open the URL it printed, or start it with --allow-host NAME",
        );
    }
    if starts_work(request.method(), request.uri()) && from_elsewhere(request.headers(), &host) {
        return refuse(
            StatusCode::FORBIDDEN,
            "refused: the request comes from a page of another site (Origin)",
        );
    }
    let (uri, query_token) = take_token(request.uri());
    if !access.token_matches(&request, query_token.as_deref()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "this board needs its token: open the URL the server printed (…/?token=...)",
        );
    }
    if let Some(uri) = uri {
        *request.uri_mut() = uri;
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if let (Some(token), Some(_)) = (access.token(), query_token) {
        let cookie = format!(
            "{}={token}; Path=/; HttpOnly; SameSite=Strict",
            access.cookie_name()
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            headers.append(header::SET_COOKIE, value);
        }
    }
    response
}

/// A foreign `Origin`, or a browser that says the request is cross-site.
fn from_elsewhere(headers: &HeaderMap, host: &str) -> bool {
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""));
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("cross-site"));
    cross_site || origin.is_some_and(|o| !Access::origin_allowed(o, host))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(addr: &str, hosts: &[&str]) -> Access {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        Access::new(addr.parse().unwrap(), &hosts, Some("a".repeat(20))).unwrap()
    }

    #[test]
    fn loopback_answers_only_its_own_names_on_its_port() {
        let a = access("127.0.0.1:8000", &[]);
        for ok in [
            "127.0.0.1:8000",
            "localhost:8000",
            "[::1]:8000",
            "LOCALHOST:8000",
        ] {
            assert!(a.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example.com",
            "evil.example.com:8000",
            "127.0.0.1:8001",
            "127.0.0.1",
            "10.0.0.1:8000",
            "",
            "[::1",
            "localhost:x",
        ] {
            assert!(!a.host_allowed(bad), "{bad}");
        }
        assert!(access("127.0.0.1:8000", &["board.test"]).host_allowed("board.test:443"));
    }

    #[test]
    fn off_loopback_takes_literals_and_named_hosts() {
        let a = access("0.0.0.0:8000", &["board.lan"]);
        assert!(a.host_allowed("192.168.1.5:8000"));
        assert!(a.host_allowed("board.lan"));
        assert!(!a.host_allowed("evil.example.com:8000"));
        assert!(access("0.0.0.0:8000", &["*"]).host_allowed("evil.example.com"));
        let none = Access::new("0.0.0.0:8000".parse().unwrap(), &[], None);
        assert!(none.unwrap_err().contains("token"));
    }

    #[test]
    fn tokens_are_long_and_cookie_safe_and_taken_out_of_the_query() {
        assert!(check_token("short").is_err());
        assert!(check_token("abcdefghijklmnop;x").is_err());
        assert!(check_token(&new_token()).is_ok());
        assert_ne!(new_token(), new_token());
        let (uri, token) = take_token(&"/api/analyse?fen=x&token=abc&moves=".parse().unwrap());
        assert_eq!(uri.unwrap().to_string(), "/api/analyse?fen=x&moves=");
        assert_eq!(token.as_deref(), Some("abc"));
        assert_eq!(take_token(&"/?fen=x".parse().unwrap()).1, None);
        assert!(same_secret("abc", "abc") && !same_secret("abd", "abc"));
    }

    #[test]
    fn origins_must_match_the_host() {
        assert!(Access::origin_allowed(
            "http://127.0.0.1:8000",
            "127.0.0.1:8000"
        ));
        assert!(!Access::origin_allowed(
            "http://evil.example.com",
            "127.0.0.1:8000"
        ));
        assert!(!Access::origin_allowed("null", "127.0.0.1:8000"));
    }
}
