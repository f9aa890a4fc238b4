//! libFuzzer target for `qiku serve`: HTTP requests answered by the whole server in the process,
//! without a socket (checks in `crates/qiku-serve/tests/common/requests.rs`). Input: a request as
//! text, `METHOD TARGET`, header lines, an empty line, the body. The server has a book of real
//! games, four small tables and the engine on, with searches of a few milliseconds.
#![no_main]

#[path = "../../crates/qiku-serve/tests/common/requests.rs"]
mod checks;

use std::sync::OnceLock;

/// The server, built once per fuzzing process, with the runtime it is called in.
fn served() -> &'static (tokio::runtime::Runtime, qiku_serve::Service) {
    static S: OnceLock<(tokio::runtime::Runtime, qiku_serve::Service)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("qiku-fuzz-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let book = dir.join("wukong.qbk");
        let games = repo.join("books/games/wukong-hu-ronghua-uci.pgn");
        qiku::book::build::build(&[games], &book, &qiku::book::build::BuildOptions::default())
            .expect("the book builds");
        let tables = dir.join("tables");
        let materials: Vec<qiku::tablebase::Material> =
            ["KRvK", "KNvK", "KCvK", "KPvK"].iter().map(|m| m.parse().expect("a material")).collect();
        qiku::tablebase::generate::generate_set(&materials, &qiku::tablebase::generate::GenerateOptions::new(&tables))
            .expect("the tables generate");
        let options = qiku_serve::Options {
            books: vec![book],
            tables: Some(tables),
            engine: true,
            limits: checks::limits(),
            ..qiku_serve::Options::default()
        };
        checks::in_process(&options, 1)
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (rt, service) = served();
    let _ = checks::check_request(rt, service, data);
});
