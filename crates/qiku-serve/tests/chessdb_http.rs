//! The ChessDB endpoint at the HTTP level, as chessdb.php answers: form parameters by `POST`,
//! a status 200 with one of ChessDB's replies for bad input and for a busy engine, the last of a
//! repeated parameter; and the API's own errors (JSON 404, no search for `HEAD`).

use crate::common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Sends `bytes`, reads the whole response (the request asks to close).
fn send(addr: std::net::SocketAddr, bytes: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    s.write_all(bytes).expect("write");
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read");
    split_response(&buf)
}

fn post(addr: std::net::SocketAddr, target: &str, ctype: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut req = format!(
        "POST {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    send(addr, &req)
}

fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).trim_end_matches('\0').to_string()
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";

#[test]
fn a_form_post_answers_as_a_get() {
    let srv = server(options());
    let (_, _, by_get) = get(srv.addr, &format!("/chessdb.php?action=queryall&board={}", enc(START)));
    let form = format!("action=queryall&board={}", enc(START));
    let (status, _, by_post) = post(srv.addr, "/chessdb.php", "application/x-www-form-urlencoded", form.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(by_post, by_get);
    assert!(text(&by_post).starts_with("move:"));
    // A body parameter wins over the query's, as in PHP's $_REQUEST.
    let (status, _, body) = post(
        srv.addr,
        "/chessdb.php?action=queryall&json=1",
        "application/x-www-form-urlencoded; charset=UTF-8",
        format!("action=querybest&board={}", enc(START)).as_bytes(),
    );
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).expect("json");
    assert_eq!((v["status"].as_str(), v["move"].is_string()), (Some("ok"), true), "{v}");
    // Another body type, and a body over the bound, are refused with a line of plain text, as the
    // 405 on this path and every refusal outside /api/ (they were JSON).
    let (status, head, body) = post(srv.addr, "/chessdb.php", "application/json", b"{\"action\":\"queryall\"}");
    assert_eq!(status, 415);
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain"), "{head}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        "a POST to /chessdb.php sends application/x-www-form-urlencoded parameters, not `application/json`\n"
    );
    let big = format!("action=queryall&board={}&pad={}", enc(START), "x".repeat(100_000));
    let (status, head, body) = post(srv.addr, "/chessdb.php", "application/x-www-form-urlencoded", big.as_bytes());
    assert_eq!(status, 413);
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain"), "{head}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        "a form body has at most 65536 bytes: send only ChessDB's parameters (action, board, ban, ...)\n"
    );
}

#[test]
fn bad_input_gets_chessdb_replies() {
    let srv = server(options());
    for board in ["%ZZ", "%C0%AF", "%FF%FE", &"r".repeat(300), "rnbakabnr%2F9%zz"] {
        for (json, expected) in
            [("", "invalid board".to_string()), ("&json=1", "{\"status\":\"invalid board\"}".into())]
        {
            let (status, _, body) = get(srv.addr, &format!("/chessdb.php?action=queryall&board={board}{json}"));
            assert_eq!((status, text(&body)), (200, expected), "{}", &board[..board.len().min(20)]);
        }
    }
    // A `%` escape is two hex digits, as PHP's `urldecode` reads it: `%+9` stays as it is, not a
    // tab (which `json`'s test would trim, asking for JSON).
    let (status, _, body) = get(srv.addr, &format!("/chessdb.php?action=queryall&board={}&json=1%+9", enc(START)));
    assert_eq!(status, 200);
    assert!(text(&body).starts_with("move:"), "{}", text(&body));
    // The last of a repeated parameter wins.
    let (status, _, body) =
        get(srv.addr, &format!("/chessdb.php?action=queryall&action=querybest&board=9&board={}", enc(START)));
    assert_eq!(status, 200);
    assert!(text(&body).starts_with("move:") && !text(&body).contains('|'), "{}", text(&body));
}

#[test]
fn a_busy_engine_gets_the_reply_for_an_unknown_position() {
    let mut o = options();
    o.engine = true;
    o.limits.max_searches = 1;
    let srv = server(o);
    let addr = srv.addr;
    // One long search holds the only permit (asked again while the probes below hold it).
    let long = std::thread::spawn(move || loop {
        let r = get(addr, "/api/analyze?movetime=4000");
        if r.0 != 503 {
            return r;
        }
        std::thread::sleep(Duration::from_millis(5));
    });
    let t = Instant::now();
    loop {
        let (status, _, _) = get(addr, "/api/analyze?movetime=1");
        if status == 503 {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(3), "the long search never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // A position only the engine knows (not in the book, too many pieces for the tables).
    let board = enc("4kab2/4a4/4b4/p3p3p/2p6/6P2/P1P1P3P/4B4/4A4/2BAK4 w");
    for (action, expected) in
        [("querybest", "nobestmove"), ("querysearch", "nobestmove"), ("queryall", "unknown"), ("querypv", "unknown")]
    {
        let t = Instant::now();
        let (status, _, body) = get(addr, &format!("/chessdb.php?action={action}&board={board}"));
        assert_eq!((status, text(&body)), (200, expected.to_string()), "{action}");
        let (_, v) = get_json(addr, &format!("/chessdb.php?action={action}&board={board}&json=1"));
        assert_eq!(v["status"], expected);
        assert!(t.elapsed() < Duration::from_secs(1), "{action} waited {:?}", t.elapsed());
    }
    // The native API still says 503 (documented), with Retry-After.
    let (status, head, _) = get(addr, "/api/analyze?movetime=1");
    assert_eq!(status, 503);
    assert!(head.to_ascii_lowercase().contains("retry-after"));
    let (status, _, _) = long.join().expect("the long search");
    assert_eq!(status, 200);
}

#[test]
fn api_errors_are_json_and_head_runs_no_search() {
    let mut o = options();
    o.engine = true;
    let srv = server(o);
    let (status, head, body) = get(srv.addr, "/api/nope");
    assert_eq!(status, 404);
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("json");
    assert!(v["error"].as_str().expect("error").contains("/api/nope"));
    // HEAD of a 5-second search answers at once.
    let t = Instant::now();
    let (status, head, _) =
        send(srv.addr, b"HEAD /api/analyze?movetime=5000 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    assert!(t.elapsed() < Duration::from_secs(2), "HEAD took {:?}", t.elapsed());
    // The GET's content type, and no length (only the search would tell it; it said 0).
    let head = head.to_ascii_lowercase();
    assert!(head.contains("content-type: application/json") && !head.contains("content-length"), "{head}");
    // Its parameters are checked as a GET's: the same status.
    for bad in ["depth=99", "movetime=0"] {
        let request = format!("HEAD /api/analyze?{bad} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        let (status, _, _) = send(srv.addr, request.as_bytes());
        assert_eq!((status, get(srv.addr, &format!("/api/analyze?{bad}")).0), (400, 400), "{bad}");
    }
    let (status, head, _) = send(
        srv.addr,
        b"HEAD /chessdb.php?action=queryall&board=x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
    assert!(!head.to_ascii_lowercase().contains("content-length"), "{head}");
}

/// A temporary directory holding a copy of the fixture tables, to damage.
fn copy_of_fixture_tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(&fixtures().tables).expect("the fixture tables") {
        let path = entry.expect("an entry").path();
        if path.is_file() {
            std::fs::copy(&path, dir.path().join(path.file_name().expect("a name"))).expect("copy");
        }
    }
    dir
}

/// A damaged table is never taken for a missing one: the ChessDB endpoint says `Error: ...`
/// with status 500 rather than `unknown`, and the table's statistics are a 500, not a 404.
#[test]
fn a_damaged_table_is_reported_not_taken_for_missing() {
    let dir = copy_of_fixture_tables();
    // Flip the bytes of the middle of KRvKN's blocks (its header and index stay readable).
    let qtb = dir.path().join("KRvKN.qtb");
    let mut bytes = std::fs::read(&qtb).expect("KRvKN.qtb");
    let n = bytes.len();
    for b in &mut bytes[n * 2 / 5..n * 4 / 5] {
        *b ^= 0xa5;
    }
    std::fs::write(&qtb, bytes).expect("write");
    let mut o = options();
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    let mut errors = 0;
    for fen in [
        "3k5/4n4/9/9/9/9/9/9/R8/4K4 w",
        "4k4/9/9/8R/9/9/9/6n2/9/5K3 w",
        "4k4/9/4n4/9/9/9/9/4R4/9/3K5 b",
        "9/4k4/9/7R1/9/9/9/3n5/9/3K5 b",
        "4k4/9/9/9/9/9/9/6n2/9/R4K3 w",
        "3k5/9/9/9/2n6/9/9/9/4R4/4K4 b",
    ] {
        let (status, _, body) = get(srv.addr, &format!("/chessdb.php?action=queryall&board={}", enc(fen)));
        let body = text(&body);
        assert_ne!(body, "unknown", "{fen}");
        if status == 500 {
            assert!(body.starts_with("Error: ") && body.contains("KRvKN"), "{fen}: {body}");
            let (status, v) = get_json(srv.addr, &format!("/chessdb.php?action=queryall&board={}&json=1", enc(fen)));
            assert_eq!((status, v["status"].as_str()), (500, Some("error")), "{v}");
            errors += 1;
        } else {
            assert_eq!(status, 200);
            assert!(body.starts_with("move:"), "{fen}: {body}");
        }
    }
    assert!(errors > 0, "some probe reads a damaged block");
    let (status, v) = get_json(srv.addr, "/api/tables/KRvKN");
    assert_eq!(status, 500, "{v}");
    assert!(v["error"].as_str().expect("error").contains("KRvKN"));
    let (status, _) = get_json(srv.addr, "/api/tables/KCvKN");
    assert_eq!(status, 404, "a table that is not there");
}

/// A table without a table its captures lead to: the position's moves cannot be valued, and both
/// endpoints name the missing table, the directory and the command that makes the table, as
/// `qiku-tb probe` does (they named the table alone), instead of answering without moves.
#[test]
fn a_missing_smaller_table_is_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for ext in ["qtb", "qtr", "qtw"] {
        let name = format!("KRvKN.{ext}");
        std::fs::copy(fixtures().tables.join(&name), dir.path().join(&name)).expect("copy");
    }
    let mut o = options();
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    // Black's knight can take the rook: that leads into KNvK, which is not in the directory.
    let fen = enc("4k4/9/9/9/7R1/9/8n/9/9/5K3 b");
    let (status, v) = get_json(srv.addr, &format!("/api/tablebase?fen={fen}"));
    assert_eq!(status, 500, "{v}");
    let d = dir.path().display();
    let said = format!(
        "KRvKN needs the table KNvK, which is missing in {d} (generate it with `qiku-tb generate KNvK -d {d}`)"
    );
    assert_eq!(v["error"].as_str(), Some(said.as_str()), "{v}");
    let (status, _, body) = get(srv.addr, &format!("/chessdb.php?action=queryall&board={fen}"));
    assert_eq!((status, text(&body)), (500, format!("Error: {said}")));
    // Word for word what the tables' own tool says.
    let tb = qiku::tablebase::Tablebases::open(dir.path()).expect("tables");
    let pos = qiku::Position::from_fen("4k4/9/9/9/7R1/9/8n/9/9/5K3 b - - 0 1").expect("fen");
    let err = tb.move_values_with(&pos, qiku::tablebase::Rules::Asian).expect_err("a missing table");
    assert_eq!(qiku::tablebase::probe_error_message(&err, dir.path(), "--rules plain"), said);
}

/// A table file that cannot be used is named once on stderr at start-up (not once per set of
/// rules the engine searches under), and nothing but the server's own lines is printed.
#[test]
fn a_damaged_table_is_named_once_at_start_up() {
    use std::io::{BufRead, BufReader, Read};
    let dir = copy_of_fixture_tables();
    // A foreign header: the file is refused when the directory is opened.
    let qtb = dir.path().join("KRvKN.qtb");
    let mut bytes = std::fs::read(&qtb).expect("KRvKN.qtb");
    bytes[8..16].copy_from_slice(b"XXXXXXXX");
    std::fs::write(&qtb, bytes).expect("write");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qiku-serve"))
        .args(["--port", "0", "--engine", "--tb"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("qiku-serve starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).expect("stderr") == 0 {
            break;
        }
        let started = line.contains("http://");
        lines.push(line);
        if started {
            break;
        }
    }
    child.kill().expect("kill");
    let mut stdout = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut stdout).expect("stdout");
    let _ = child.wait();
    assert!(lines.last().is_some_and(|l| l.contains("http://")), "{lines:?}");
    let named: Vec<&String> = lines.iter().filter(|l| l.contains("KRvKN.qtb")).collect();
    assert_eq!(named.len(), 1, "{lines:?}");
    assert!(named[0].starts_with("qiku serve: ") && named[0].contains("invalid tablebase file"), "{named:?}");
    assert_eq!(stdout, "", "nothing on stdout");
}

/// Starts `qiku-serve --port 0` with `args`: the process, its stderr after the first line (the
/// address it serves, read from that line).
fn spawn_server(
    args: &[&str],
) -> (std::process::Child, std::io::BufReader<std::process::ChildStderr>, std::net::SocketAddr) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qiku-serve"))
        .args(["--port", "0"])
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("qiku-serve starts");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("stderr");
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).expect("its address").to_string();
    let addr = url.trim_start_matches("http://").trim_end_matches('/').parse().expect("address");
    (child, stderr, addr)
}

/// A server whose stderr's reader has gone (`qiku serve 2>&1 | head -1`) goes on serving and
/// stops normally: it panicked at its next message (here the one it says when it stops).
#[test]
fn a_closed_stderr_does_not_stop_the_server() {
    use std::io::{Read, Write};
    let (mut child, stderr, addr) = spawn_server(&[]);
    drop(stderr);
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").expect("request");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: kill only sends a signal, to the child this test started and has not waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status}");
}

/// Ctrl-C stops the server at once, also while a search is under way (it waited for the search
/// to end, seconds, and a second Ctrl-C did not help), and says so.
#[test]
fn ctrl_c_stops_the_server_during_a_search() {
    use std::io::Read;
    let (mut child, mut stderr, addr) = spawn_server(&["--engine"]);
    // The longest search the server allows (5 s), running when the signal comes.
    let search = std::thread::spawn(move || {
        use std::io::Write;
        // Errors ignored: the server goes away in the middle of it.
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        let _ = s.write_all(b"GET /api/analyze?movetime=5000 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        let _ = s.read_to_end(&mut Vec::new());
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!search.is_finished(), "the search is under way");
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: kill only sends a signal, to the child this test started and has not waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        // Well short of the 4.7 s the search has left.
        if start.elapsed() > std::time::Duration::from_secs(3) {
            let _ = child.kill();
            panic!("still running 3 s after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("stderr");
    assert!(status.success(), "{status}: {rest}");
    assert_eq!(rest.trim_end(), "qiku serve: stopped");
}

/// A limit too large to be one is refused by name, as 0 is, with the range taken: past tokio's
/// bound on permits (2^61 - 1) the server stopped with a panic at start-up.
#[test]
fn huge_limits_are_refused_with_their_range() {
    for (limit, value, range) in [
        ("--max-searches", "2305843009213693952", "1..=256"),
        ("--max-searches", "257", "1..=256"),
        ("--max-connections", "18446744073709551615", "1..=1000000"),
        ("--max-connections", "1000001", "1..=1000000"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_qiku-serve"))
            .args([limit, value, "--port", "0"])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{limit} {value}: {err}");
        assert!(err.contains(&format!("invalid value '{value}' for '{limit}")), "{err}");
        assert!(err.contains(&format!("{value} is not in {range}")), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Start-up mistakes are named: a limit of 0 (it was taken as 1), an address not of this machine
/// (it advised another port), a tables directory without tables (it started silently).
#[test]
fn start_up_mistakes_are_named() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_qiku-serve")).args(args).output().expect("runs");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for limit in ["--max-searches", "--max-connections"] {
        let (ok, err) = run(&[limit, "0", "--port", "0"]);
        assert!(!ok && err.contains(&format!("invalid value '0' for '{limit}")), "{err}");
    }
    let (ok, err) = run(&["--bind", "192.0.2.1", "--port", "0"]);
    assert!(!ok && err.contains("--bind takes an address of this machine"), "{err}");
    // An origin is a scheme and a host (and port), as a browser sends it, or `*`.
    for bad in ["gui.example", "https://", "https://gui.example/page", "://x"] {
        let (ok, err) = run(&["--allow-origin", bad, "--port", "0"]);
        assert!(!ok && err.contains(&format!("`{bad}` is not an origin: give a scheme and host")), "{err}");
    }
    let empty = tempfile::tempdir().expect("dir");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qiku-serve"))
        .args(["--port", "0", "--tb"])
        .arg(empty.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stderr.take().expect("stderr")), &mut first)
        .expect("a line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.starts_with(&format!("qiku serve: no tables in {} yet", empty.path().display())), "{first}");
}
