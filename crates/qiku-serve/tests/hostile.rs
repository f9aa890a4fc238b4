//! Hostile requests: malformed and oversized FENs and queries, invalid UTF-8, path traversal,
//! malformed HTTP, form bodies said to be chunked that are not, slow clients that never finish
//! their headers or their form bodies, many short headers, and more connections than the limit.
//! Each gets a 4xx (a transfer coding the server does not undo a 501; a request over the time
//! limit a 503 with `Retry-After`) or is cut off, and the server keeps answering other clients.
//! Only loopback traffic, bounded in count and time.

use crate::common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn hostile_server(max_connections: usize) -> qiku_serve::Running {
    let mut o = options();
    o.limits.header_timeout = Duration::from_secs(1);
    o.limits.max_connections = max_connections;
    server(o)
}

/// Sends raw bytes, reads until the server closes or 10 s pass: (bytes read, time taken).
fn raw(addr: std::net::SocketAddr, bytes: &[u8]) -> (Vec<u8>, Duration) {
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let _ = s.write_all(bytes);
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    (buf, t.elapsed())
}

fn status_of(resp: &[u8]) -> u16 {
    String::from_utf8_lossy(resp).split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// The server still answers a normal request, quickly and correctly.
fn still_serves(srv: &qiku_serve::Running) {
    let t = Instant::now();
    let (status, v) = get_json(srv.addr, "/api/explore?moves=h2e2");
    assert_eq!(status, 200);
    assert_eq!(v["turn"], "black");
    assert!(t.elapsed() < Duration::from_secs(5), "answered in {:?}", t.elapsed());
}

#[test]
fn malformed_and_oversized_queries_get_4xx() {
    let srv = hostile_server(64);
    let huge = "9/".repeat(20_000);
    let targets = [
        format!("/api/explore?fen={huge}"),
        format!("/api/tablebase?fen={}", "x".repeat(300)),
        "/api/explore?fen=rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR%20x".to_string(),
        "/api/explore?fen=kkkkkkkkk/9/9/9/9/9/9/9/9/9%20w".to_string(),
        "/api/explore?fen=%00%01%02".to_string(),
        "/api/explore?fen=%zz".to_string(),
        "/api/explore?fen=%C0%AF".to_string(),
        format!("/api/explore?moves={}", "h2e2,e2h2,".repeat(400)),
        "/api/analyze?depth=-1".to_string(),
        "/api/tables/KRvK%00".to_string(),
    ];
    for t in &targets {
        let (resp, _) =
            raw(srv.addr, format!("GET {t} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes());
        let status = status_of(&resp);
        // A request line over the server's limit may be refused by closing the connection
        // before the client has sent all of it: the client's write then fails, and the refusal
        // it was sent can be lost with the bytes the server never read (as in
        // `raw_http_abuse_is_refused`). Every other request is answered with a 4xx.
        let oversized = t.len() > options().limits.max_header_bytes;
        assert!(
            (400..500).contains(&status) || (oversized && resp.is_empty()),
            "{}: {status} {}",
            &t[..t.len().min(80)],
            String::from_utf8_lossy(&resp[..resp.len().min(200)])
        );
    }
    still_serves(&srv);
}

#[test]
fn raw_http_abuse_is_refused() {
    let srv = hostile_server(64);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        // A request line far over the limit.
        (
            format!("GET /api/explore?fen={} HTTP/1.1\r\nHost: localhost\r\n\r\n", "a".repeat(100_000)).into_bytes(),
            "long line",
        ),
        // Too many header bytes.
        (
            format!("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: {}\r\n\r\n", "b".repeat(100_000)).into_bytes(),
            "big header",
        ),
        // Invalid UTF-8 in the path.
        (b"GET /assets/\xff\xfe HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_vec(), "utf-8 path"),
        (b"GET /api/explore?fen=\xff HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_vec(), "utf-8 query"),
        // Not HTTP.
        (b"HELLO THERE\r\n\r\n".to_vec(), "garbage"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03".to_vec(), "TLS hello"),
        // Writes are not served.
        (
            b"POST /api/explore HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
                .to_vec(),
            "POST",
        ),
        (b"DELETE / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_vec(), "DELETE"),
    ];
    for (bytes, what) in &cases {
        let (resp, took) = raw(srv.addr, bytes);
        let status = status_of(&resp);
        assert!(
            resp.is_empty() || (400..500).contains(&status),
            "{what}: {}",
            String::from_utf8_lossy(&resp[..resp.len().min(200)])
        );
        assert!(took < Duration::from_secs(5), "{what}: {took:?}");
        if *what == "POST" || *what == "DELETE" {
            // A method not served is a 405 that names the methods that are, and says so in a
            // body: JSON under /api/, as the API's other errors, plain text elsewhere.
            let head = String::from_utf8_lossy(&resp).to_ascii_lowercase();
            assert_eq!(status, 405, "{what}");
            assert!(head.contains("\r\nallow: get,head\r\n"), "{what}: {head}");
            let (_, head, body) = split_response(&resp);
            let body = String::from_utf8_lossy(&body).to_string();
            let (method, path) = if *what == "POST" { ("POST", "/api/explore") } else { ("DELETE", "/") };
            let msg = if path.starts_with("/api/") {
                assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
                let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
                v["error"].as_str().expect("an error").to_string()
            } else {
                assert!(head.to_ascii_lowercase().contains("content-type: text/plain"), "{head}");
                body
            };
            let expected = format!("{method} is not served at {path}: send a GET; this path answers GET, HEAD");
            assert_eq!(msg.trim_end(), expected, "{what}");
        }
        still_serves(&srv);
    }
}

/// The ChessDB endpoint also takes a form `POST`: its `405` says so.
#[test]
fn a_405_names_what_is_served() {
    let srv = hostile_server(64);
    let (resp, _) = raw(srv.addr, b"PUT /chessdb.php HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (status, head, body) = split_response(&resp);
    assert_eq!(status, 405);
    assert!(head.to_ascii_lowercase().contains("\r\nallow: get,head,post"), "{head}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        "PUT is not served at /chessdb.php: send a GET (or a POST of a form); this path answers GET, HEAD, POST\n"
    );
}

/// A request line and headers over the limit get a `431` that says so and what to do: JSON
/// under /api/, plain text elsewhere (hyper's own `431` has no body). The server goes on.
#[test]
fn oversized_headers_get_a_431_that_says_so() {
    let srv = hostile_server(64);
    let limit = options().limits.max_header_bytes;
    let big = "b".repeat(limit + 4000);
    for (target, api) in [("/api/explore?moves=h2e2", true), ("/", false), ("/chessdb.php?action=queryall", false)] {
        let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nX-Big: {big}\r\nConnection: close\r\n\r\n");
        let (resp, _) = raw(srv.addr, request.as_bytes());
        assert!(!resp.is_empty(), "{target}: no reply");
        let (status, head, body) = split_response(&resp);
        assert_eq!(status, 431, "{target}: {head}");
        let head = head.to_ascii_lowercase();
        let body = String::from_utf8_lossy(&body).to_string();
        let msg = if api {
            assert!(head.contains("content-type: application/json"), "{head}");
            let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
            v["error"].as_str().expect("an error").to_string()
        } else {
            assert!(head.contains("content-type: text/plain"), "{head}");
            body
        };
        assert!(
            msg.starts_with(&format!(
                "the request line and headers are over {limit} bytes, this server's limit: shorten the URL"
            )),
            "{target}: {msg}"
        );
        still_serves(&srv);
    }
    // Also a URL over the limit.
    let request = format!("GET /api/explore?fen={big} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (resp, _) = raw(srv.addr, request.as_bytes());
    let (status, _, body) = split_response(&resp);
    assert_eq!(status, 431);
    let v: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert!(v["error"].as_str().expect("an error").contains("shorten the URL"), "{v}");
    still_serves(&srv);
}

/// A URL of 65,535 bytes or more gets hyper's bare `414` (hyper's own bound, before the server
/// sees the request: no setting moves it), as docs/SERVE.md says (it said such a request got a
/// bare `431`); one byte shorter is still the server's `431` that says what to do.
#[test]
fn a_url_past_hypers_bound_gets_the_bare_414_the_docs_name() {
    let srv = hostile_server(64);
    let target = |len: usize| {
        let t = "/api/explore?fen=";
        format!("{t}{}", "a".repeat(len - t.len()))
    };
    let request = |t: &str| format!("GET {t} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (resp, _) = raw(srv.addr, request(&target(65_535)).as_bytes());
    let (status, head, body) = split_response(&resp);
    assert_eq!(status, 414, "{head}");
    assert!(body.is_empty(), "{}", String::from_utf8_lossy(&body));
    let (resp, _) = raw(srv.addr, request(&target(65_534)).as_bytes());
    let (status, _, body) = split_response(&resp);
    assert_eq!(status, 431);
    let v: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert!(v["error"].as_str().expect("an error").contains("shorten the URL"), "{v}");
    still_serves(&srv);
    let doc = std::fs::read_to_string(repo().join("docs/SERVE.md")).expect("docs/SERVE.md");
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        doc.contains("a URL (path and query) of 65,535 bytes or more gets `414 URI Too Long`"),
        "docs/SERVE.md does not name the bare 414"
    );
}

#[test]
fn path_traversal_reaches_no_file() {
    let srv = hostile_server(64);
    for path in [
        "/assets/../Cargo.toml",
        "/assets/..%2F..%2FCargo.toml",
        "/assets/%2e%2e/%2e%2e/Cargo.toml",
        "/../../../../etc/passwd",
        "/assets//etc/passwd",
        "/assets/..\\..\\Cargo.toml",
        "/assets/app.js%00.png",
        "/src/lib.rs",
        "/tables/../Cargo.toml",
    ] {
        let (resp, _) =
            raw(srv.addr, format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes());
        let status = status_of(&resp);
        let text = String::from_utf8_lossy(&resp);
        assert!((400..500).contains(&status), "{path}: {status}");
        assert!(!text.contains("[package]") && !text.contains("root:"), "{path} leaked a file");
    }
    still_serves(&srv);
}

#[test]
fn slow_clients_are_cut_off_and_others_are_served() {
    let srv = hostile_server(64);
    // Clients that start a request and never finish the headers.
    let mut slow: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut s = TcpStream::connect(srv.addr).expect("connect");
            s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n").expect("write");
            s
        })
        .collect();
    // Meanwhile others are served.
    still_serves(&srv);
    let t = Instant::now();
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        let status = status_of(&buf);
        assert!(buf.is_empty() || status == 408, "{}", String::from_utf8_lossy(&buf));
    }
    // Cut off by the 1 s header timeout, not the 10 s read timeout here.
    assert!(t.elapsed() < Duration::from_secs(5), "the slow clients were cut off after {:?}", t.elapsed());
    // A client trickling one byte a while also is cut off by the header deadline.
    let mut s = TcpStream::connect(srv.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let t = Instant::now();
    let mut cut = false;
    for b in b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: 0123456789012345678901234567890123456789\r\n" {
        if s.write_all(&[*b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        if t.elapsed() > Duration::from_secs(3) {
            break;
        }
    }
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    assert!(cut || buf.is_empty() || status_of(&buf) == 408, "{}", String::from_utf8_lossy(&buf));
    assert!(t.elapsed() < Duration::from_secs(6));
    still_serves(&srv);
}

#[test]
fn connections_over_the_cap_get_503_and_the_server_recovers() {
    let srv = hostile_server(8);
    // Eight connections that each finished a request and keep the connection open.
    let mut held = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(srv.addr).expect("connect");
        s.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("write");
        s.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        let mut buf = [0u8; 4096];
        let n = s.read(&mut buf).expect("a response");
        assert_eq!(status_of(&buf[..n]), 200);
        held.push(s);
    }
    // The ninth is told to come back later.
    let (resp, took) = raw(srv.addr, b"GET /api/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert_eq!(status_of(&resp), 503, "{}", String::from_utf8_lossy(&resp));
    assert!(String::from_utf8_lossy(&resp).contains("Retry-After"));
    assert!(took < Duration::from_secs(3));
    // Idle keep-alive connections do not hold their place for ever: they close within the
    // header timeout, and then new clients are served.
    drop(held);
    let t = Instant::now();
    loop {
        let (status, _, _) = get(srv.addr, "/api/info");
        if status == 200 {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "still refused after the connections closed");
        std::thread::sleep(Duration::from_millis(50));
    }
    still_serves(&srv);
}

#[test]
fn idle_connections_are_closed() {
    let srv = hostile_server(8);
    // Connections that never send a byte.
    let mut idle: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(srv.addr).expect("connect")).collect();
    let t = Instant::now();
    for s in &mut idle {
        s.set_read_timeout(Some(Duration::from_secs(15))).expect("timeout");
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
    }
    println!("idle connections closed after {:?}", t.elapsed());
    assert!(t.elapsed() < Duration::from_secs(12), "idle connections closed after {:?}", t.elapsed());
    still_serves(&srv);
}

/// On its default loopback bind the server answers only requests addressed to this machine: a
/// page of another site that makes its own name resolve to 127.0.0.1 (DNS rebinding) gets 403,
/// not the books (every Host was answered).
#[test]
fn requests_for_other_hosts_are_refused_on_loopback() {
    let srv = hostile_server(16);
    let with_host = |host: &str| {
        raw(srv.addr, format!("GET /api/info HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes()).0
    };
    for host in ["evil.example.com", "evil.example.com:80", "127.0.0.1.evil.example", "10.0.0.1"] {
        let resp = with_host(host);
        assert_eq!(status_of(&resp), 403, "{host}: {}", String::from_utf8_lossy(&resp));
        assert!(String::from_utf8_lossy(&resp)
            .contains("answers requests for this machine only (localhost, a name under .localhost, or a loopback"));
    }
    let port = srv.addr.port();
    for host in [
        "localhost".to_string(),
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "LOCALHOST.".into(),
    ] {
        assert_eq!(status_of(&with_host(&host)), 200, "{host}");
    }
    // The refusal is JSON under /api/, as the other refusals before any handler.
    let resp = String::from_utf8_lossy(&with_host("evil.example.com")).into_owned();
    assert!(resp.contains("content-type: application/json") && resp.contains("{\"error\":"), "{resp}");
    // What a browser never sends, but HTTP settles: a target naming another host is judged by it
    // (it takes the Host header's place); several Host headers, or none in HTTP/1.1, are a 400.
    for (request, status, said) in [
        ("GET http://evil.example/api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n", 403, "for this machine only"),
        ("GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n", 400, "several Host headers"),
        ("GET /api/info HTTP/1.1\r\n", 400, "no Host header"),
        ("GET http://127.0.0.1/api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n", 200, "\"version\""),
        ("GET /api/info HTTP/1.0\r\n", 200, "\"version\""),
    ] {
        let resp = raw(srv.addr, format!("{request}Connection: close\r\n\r\n").as_bytes()).0;
        let text = String::from_utf8_lossy(&resp);
        assert!(status_of(&resp) == status && text.contains(said), "{request:?}: {text}");
    }
    still_serves(&srv);
}

/// A client that sends its request and closes its sending side gets the whole answer, every
/// time (it got none about half the time: the closed side ended the connection).
#[test]
fn a_request_then_a_half_close_is_answered() {
    let srv = hostile_server(16);
    for _ in 0..20 {
        let mut s = TcpStream::connect(srv.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        s.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("send");
        s.shutdown(std::net::Shutdown::Write).expect("half-close");
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf);
        assert!(status_of(&buf) == 200 && text.contains("\"version\""), "{text:?}");
    }
    still_serves(&srv);
}

/// Pages of other origins read the answers only where `--allow-origin` lets them (CORS): the
/// allowed origin gets `Access-Control-Allow-Origin` naming it, any other none; by default no
/// origin does.
#[test]
fn only_allowed_origins_may_read_the_answers() {
    let from = |srv: &qiku_serve::Running, origin: &str| -> String {
        let request = format!(
            "GET /api/explore?moves=h2e2 HTTP/1.1\r\nHost: localhost\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"
        );
        let (resp, _) = raw(srv.addr, request.as_bytes());
        let (status, head, _) = split_response(&resp);
        assert_eq!(status, 200, "{head}");
        head.to_ascii_lowercase()
    };
    let closed = server(options());
    assert!(!from(&closed, "https://gui.example").contains("access-control-allow-origin"));
    let mut o = options();
    o.allow_origins = vec!["https://gui.example".to_string()];
    let open = server(o);
    let head = from(&open, "https://gui.example");
    assert!(head.contains("access-control-allow-origin: https://gui.example"), "{head}");
    assert!(head.contains("vary: origin"), "{head}");
    let other = from(&open, "https://evil.example");
    assert!(!other.contains("access-control-allow-origin"), "{other}");
    let mut o = options();
    o.allow_origins = vec!["*".to_string()];
    let any = server(o);
    assert!(from(&any, "https://evil.example").contains("access-control-allow-origin: https://evil.example"));
}

/// A ChessDB form `POST` sent in chunks is read as one with a `Content-Length`, within the same
/// bound; a body that says it is chunked but is not framed so is a `400` that says why (it was a
/// `413` saying the body was too large), and a transfer coding other than chunked is a `501`.
#[test]
fn chunked_form_posts_are_read_within_the_bound_and_broken_ones_say_why() {
    let srv = hostile_server(64);
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR%20w";
    let form = format!("action=queryall&board={start}");
    let head = |coding: &str| {
        format!(
            "POST /chessdb.php HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Transfer-Encoding: {coding}\r\nConnection: close\r\n\r\n"
        )
    };
    let chunked = |body: &[u8]| {
        let mut out = Vec::new();
        for chunk in body.chunks(40) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    };
    // Refusals are a line of plain text, as everything outside /api/ (they were JSON).
    let error_of = |body: &[u8]| {
        let text = String::from_utf8(body.to_vec()).expect("text");
        assert!(!text.starts_with('{'), "{text}");
        text.strip_suffix('\n').unwrap_or_else(|| panic!("a line: {text:?}")).to_string()
    };
    let (_, _, by_get) = get(srv.addr, &format!("/chessdb.php?{form}"));
    // A tiny form in a few chunks: the answer of the GET.
    let (resp, _) = raw(srv.addr, &[head("chunked").as_bytes(), &chunked(form.as_bytes())].concat());
    let (status, _, body) = split_response(&resp);
    assert_eq!((status, &body), (200, &by_get), "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).starts_with("move:"));
    // Over the bound in chunks: the 413 of a body with a Content-Length.
    let big = format!("{form}&pad={}", "x".repeat(70_000));
    let (resp, _) = raw(srv.addr, &[head("chunked").as_bytes(), &chunked(big.as_bytes())].concat());
    let (status, response_head, body) = split_response(&resp);
    assert_eq!(status, 413);
    assert!(response_head.to_ascii_lowercase().contains("content-type: text/plain"), "{response_head}");
    assert_eq!(
        error_of(&body),
        "a form body has at most 65536 bytes: send only ChessDB's parameters (action, board, ban, ...)"
    );
    // A Content-Length over the bound: refused at once, the body never sent (it waited 5 s for
    // the 100 GB and answered 408).
    let huge = "POST /chessdb.php HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: 99999999999\r\n\r\naction=queryall";
    let (resp, took) = raw(srv.addr, huge.as_bytes());
    let (status, _, body) = split_response(&resp);
    assert_eq!(
        (status, error_of(&body).as_str()),
        (413, "a form body has at most 65536 bytes: send only ChessDB's parameters (action, board, ban, ...)")
    );
    assert!(took < Duration::from_secs(4), "answered after {took:?}");
    // Said to be chunked, sent bare: not "too large", but what is wrong and what to send.
    let (resp, _) = raw(srv.addr, &[head("chunked").as_bytes(), form.as_bytes()].concat());
    let (status, _, body) = split_response(&resp);
    let error = error_of(&body);
    assert_eq!(status, 400, "{error}");
    assert!(error.starts_with("the form body could not be read (") && error.contains("chunk size"), "{error}");
    assert!(error.contains("send it with a Content-Length, or as chunks framed as"), "{error}");
    // A coding the server does not undo would be read as the form.
    let (resp, _) = raw(srv.addr, &[head("gzip, chunked").as_bytes(), &chunked(form.as_bytes())].concat());
    let (status, _, body) = split_response(&resp);
    assert_eq!(status, 501);
    assert!(error_of(&body).contains("`Transfer-Encoding: gzip, chunked`"), "{}", error_of(&body));
    still_serves(&srv);
}

/// A form `POST` whose body never comes (a `Content-Length` of 1000, eight bytes sent) is cut
/// off as slow headers are, within the header timeout, with a `408` that says what to send: it
/// held its connection for the whole request time (30 s), so that a few such clients locked out
/// everyone under `--max-connections`.
#[test]
fn a_form_body_that_never_comes_is_cut_off_with_a_408() {
    let srv = hostile_server(64);
    let mut s = TcpStream::connect(srv.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let t = Instant::now();
    s.write_all(
        b"POST /chessdb.php HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n\
          Content-Length: 1000\r\n\r\naction=q",
    )
    .expect("write");
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let took = t.elapsed();
    assert!(!buf.is_empty(), "no reply in {took:?}");
    let (status, head, body) = split_response(&buf);
    assert_eq!(status, 408, "{head}");
    // Cut off by the 1 s header timeout of this server, and the connection closed.
    assert!(took < Duration::from_secs(4), "cut off after {took:?}");
    assert!(head.to_ascii_lowercase().contains("connection: close"), "{head}");
    // A line of plain text, as every refusal outside /api/ (it was JSON).
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain"), "{head}");
    let error = String::from_utf8_lossy(&body);
    assert!(error.starts_with("the form body did not come within 1 s (") && error.ends_with('\n'), "{error}");
    assert!(error.contains("1000 bytes") && error.contains("8 came"), "{error}");
    assert!(error.contains("send the whole body"), "{error}");
    still_serves(&srv);
}

/// A request over the whole request time is a `503` as the others are: with `Retry-After`, and
/// JSON under /api/ (it was plain text without `Retry-After`).
#[test]
fn a_request_over_the_time_limit_is_a_503_with_retry_after() {
    let mut o = options();
    o.engine = true;
    o.limits.request_timeout = Duration::from_secs(1);
    let srv = server(o);
    let (status, head, body) = get(srv.addr, "/api/analyze?moves=h2e2&movetime=3000");
    assert_eq!(status, 503, "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: "), "{head}");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("a JSON error");
    let error = v["error"].as_str().expect("an error");
    assert!(error.contains("longer than 1 s"), "{error}");
    // Elsewhere plain text, with the same header: a form body slower than the request time.
    let mut s = TcpStream::connect(srv.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    s.write_all(b"POST /chessdb.php HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\naction=q")
        .expect("write");
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let (status, head, body) = split_response(&buf);
    assert_eq!(status, 503, "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: "), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("longer than 1 s"), "{}", String::from_utf8_lossy(&body));
}

/// A material or an asset name that is not percent-encoded UTF-8 gets the server's own `400`
/// saying what to send (JSON under /api/), not the framework's `Invalid URL` in plain text.
#[test]
fn a_path_name_that_is_not_utf8_gets_a_400_saying_what_to_send() {
    let srv = hostile_server(64);
    let (status, head, body) = get(srv.addr, "/api/tables/%FF");
    assert_eq!(status, 400, "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("a JSON error");
    let error = v["error"].as_str().expect("an error");
    assert!(error.contains("like KRvKN") && !error.contains("Invalid URL"), "{error}");
    let (status, head, body) = get(srv.addr, "/assets/%FF%FE");
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 400, "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain"), "{head}");
    assert!(body.contains("/assets/") && !body.contains("Invalid URL"), "{body}");
    still_serves(&srv);
}

/// Many short headers are counted by their bytes, as any others: 200 of them (3 KB) are served,
/// and 1,500 over the byte limit get the `431` that says so (hyper refused more than 100 header
/// lines with a bare `431`).
#[test]
fn many_short_headers_are_held_to_the_byte_limit() {
    let srv = hostile_server(64);
    let lines = |n: usize| (0..n).map(|i| format!("X-H{i}: {}\r\n", "v".repeat(8))).collect::<String>();
    let request =
        format!("GET /api/explore?moves=h2e2 HTTP/1.1\r\nHost: localhost\r\n{}Connection: close\r\n\r\n", lines(200));
    let (resp, _) = raw(srv.addr, request.as_bytes());
    assert_eq!(status_of(&resp), 200, "{}", String::from_utf8_lossy(&resp));
    let limit = options().limits.max_header_bytes;
    let many = lines(1500);
    assert!(many.len() > limit && many.len() < 2 * limit);
    let request = format!("GET /api/explore?moves=h2e2 HTTP/1.1\r\nHost: localhost\r\n{many}Connection: close\r\n\r\n");
    let (resp, _) = raw(srv.addr, request.as_bytes());
    assert!(!resp.is_empty(), "no reply");
    let (status, head, body) = split_response(&resp);
    assert_eq!(status, 431, "{head}");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("a JSON error");
    assert!(v["error"].as_str().expect("an error").contains("send fewer and smaller headers"), "{v}");
    still_serves(&srv);
}
