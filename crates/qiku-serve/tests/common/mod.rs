//! Test data for the server's tests and its load benchmark: a book compiled from the
//! repository's real games and a few small endgame tables, built once per process into a
//! temporary directory with the qiku library.

#![allow(dead_code)]

pub mod requests;

use qiku::book::build::{build, BuildOptions};
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::Material;
use qiku_serve::{Options, Running};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Paths of the fixtures.
pub struct Fixtures {
    /// Keeps the directory alive.
    _dir: tempfile::TempDir,
    /// The book, from the CCPD games in ICCS (`books/games/ccpd-iccs.pgn.zst`).
    pub book: PathBuf,
    /// Tables KRvK, KNvK, KCvK, KPvK, KRvKN and what they need, with their Asian-rules companions.
    pub tables: PathBuf,
}

/// Builds the fixtures (once per process).
pub fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let book = dir.path().join("ccpd.qbk");
        let games = repo().join("books/games/ccpd-iccs.pgn.zst");
        let t = std::time::Instant::now();
        build(&[games], &book, &BuildOptions::default()).expect("the book builds");
        eprintln!("fixtures: book built in {:.1} s", t.elapsed().as_secs_f64());
        let tables = dir.path().join("tables");
        let materials: Vec<Material> =
            ["KRvK", "KNvK", "KCvK", "KPvK", "KRvKN"].iter().map(|m| m.parse().expect("a material")).collect();
        let t = std::time::Instant::now();
        generate_set(&materials, &GenerateOptions::new(&tables)).expect("the tables generate");
        eprintln!("fixtures: tables generated in {:.1} s", t.elapsed().as_secs_f64());
        Fixtures { _dir: dir, book, tables }
    })
}

/// Server options over the fixtures on a free loopback port.
pub fn options() -> Options {
    let f = fixtures();
    Options { books: vec![f.book.clone()], tables: Some(f.tables.clone()), port: 0, ..Options::default() }
}

/// A server over the fixtures.
pub fn server(mut options: Options) -> Running {
    options.port = 0;
    qiku_serve::start(options).expect("the server starts")
}

/// One HTTP/1.1 GET over a fresh connection: (status, headers, body bytes).
pub fn get(addr: std::net::SocketAddr, target: &str) -> (u16, String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(std::time::Duration::from_secs(30))).expect("timeout");
    write!(s, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").expect("write");
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read");
    split_response(&buf)
}

/// Splits a raw HTTP/1.1 response (a `Content-Length` body or a chunked one).
pub fn split_response(buf: &[u8]) -> (u16, String, Vec<u8>) {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n").expect("a header end");
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    let status: u16 = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let mut body = buf[end + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let line_end = rest.windows(2).position(|w| w == b"\r\n").expect("a chunk size");
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).expect("hex").trim(), 16).expect("hex");
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
            rest = &rest[line_end + 2 + size + 2..];
        }
        body = out;
    }
    (status, head, body)
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// GET returning JSON (panics on a non-JSON body).
pub fn get_json(addr: std::net::SocketAddr, target: &str) -> (u16, serde_json::Value) {
    let (status, _, body) = get(addr, target);
    (
        status,
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{target}: {e}: {}", String::from_utf8_lossy(&body))),
    )
}

/// A copy of the fixtures' tables in a directory of its own, to damage.
pub fn tables_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(&fixtures().tables).expect("the tables") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.path().join(path.file_name().expect("a name"))).expect("copy");
    }
    dir
}

/// Changes one byte of a file: at `at`, or in the middle.
pub fn flip_byte(path: &std::path::Path, at: Option<usize>) {
    let mut bytes = std::fs::read(path).expect("read");
    let at = at.unwrap_or(bytes.len() / 2);
    bytes[at] ^= 0xff;
    std::fs::write(path, &bytes).expect("write");
}
