//! The page in a real browser: headless Chromium driven over WebDriver (chromedriver) loads the
//! explorer, plays moves by clicking the board and the explorer table, checks that the table
//! and the values follow the API, switches notation, steps back and forward with the arrow
//! keys, loads a table position from the FEN box, opens the shareable URL and the tables page,
//! and saves screenshots at desktop and phone widths (into `docs/img/` with
//! `QIKU_UPDATE_SCREENSHOTS=1`, else into the target directory). On desktop it also drives what
//! goes wrong or comes late: bad links and FENs, double clicks, engine replies for a position
//! left, the engine's words, the keyboard, Back and Forward, late table details.
//!
//! Needs Debian's `chromium` and `chromium-driver` (and `fonts-noto-cjk` for the notation text);
//! skips with a message when they are absent. `QIKU_CHROMIUM` and `QIKU_CHROMEDRIVER` name other
//! binaries.

use crate::common::*;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn find_binary(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    names.iter().flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n))).find(|p| p.is_file())
}

/// Kills the chromedriver this test started when the test ends.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

fn start_driver(bin: &Path) -> (Driver, u16) {
    let port = free_port();
    let child = Command::new(bin)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver(child);
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t.elapsed() < Duration::from_secs(20), "chromedriver did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    (driver, port)
}

async fn session(port: u16, chromium: &Path, profile: &Path, width: u32, height: u32) -> Client {
    let args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-dev-shm-usage".into(),
        "--hide-scrollbars".into(),
        "--force-device-scale-factor=1".into(),
        format!("--user-data-dir={}", profile.display()),
        format!("--window-size={width},{height}"),
    ];
    let mut options = json!({ "binary": chromium, "args": args });
    if width < 500 {
        // Headless Chromium keeps windows at least 500 pixels wide: emulate the phone's screen.
        options["mobileEmulation"] =
            json!({ "deviceMetrics": { "width": width, "height": height, "pixelRatio": 1.0 } });
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session")
}

/// Polls a script until it returns true (10 s at most).
async fn wait_js(c: &Client, script: &str, what: &str) {
    let t = Instant::now();
    loop {
        if c.execute(script, vec![]).await.ok().and_then(|v| v.as_bool()) == Some(true) {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect("script runs")
}

/// The explorer table's rows as the page shows them: (move text, games text, table text).
async fn rows(c: &Client) -> Vec<(String, String, String)> {
    let v = js(
        c,
        "return [...document.querySelectorAll('#explorer tbody tr')].map(tr => [...tr.children].map(td => td.textContent));",
    )
    .await;
    v.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (r[0].as_str().unwrap_or("").into(), r[1].as_str().unwrap_or("").into(), r[3].as_str().unwrap_or("").into())
        })
        .collect()
}

/// The API's explore answer for a start FEN and moves.
fn api(srv: &qiku_serve::Running, fen: &str, moves: &[&str]) -> Value {
    get_json(srv.addr, &format!("/api/explore?fen={}&moves={}", enc(fen), enc(&moves.join(" ")))).1
}

/// The table's rows must be the API's moves, in order, in `notation`.
async fn check_rows(c: &Client, expected: &Value, notation: &str) {
    let got = rows(c).await;
    let want = expected["moves"].as_array().expect("moves");
    assert_eq!(got.len(), want.len(), "one row per move");
    for (g, w) in got.iter().zip(want) {
        // A mirror twin counted with the move (the start position) follows it in brackets.
        let name = w[notation].as_str().expect("name");
        let shown = match w["with_mirror"][notation].as_str() {
            Some(twin) => format!("{name} ({twin})"),
            None => name.to_string(),
        };
        assert_eq!(g.0, shown, "move names in {notation}");
        let games = w["games"].as_u64().unwrap_or(0);
        assert_eq!(g.1, if games > 0 { games.to_string() } else { String::new() });
    }
}

async fn screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("a screenshot");
    assert!(png.len() > 10_000 && png.starts_with(b"\x89PNG"), "{name}: a real picture");
    let dir = if std::env::var_os("QIKU_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        repo().join("docs/img")
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
    };
    std::fs::create_dir_all(&dir).expect("screenshot directory");
    let path = dir.join(format!("serve-{name}.png"));
    std::fs::write(&path, png).expect("write the screenshot");
    println!("screenshot: {}", path.display());
}

/// Clicks the element `css` finds (`what` names it when there is none).
async fn click_css(c: &Client, css: &str, what: &str) {
    c.find(Locator::Css(css)).await.expect(what).click().await.expect("click");
}

async fn click_square(c: &Client, sq: &str) {
    click_css(c, &format!("g.piece[data-square='{sq}']"), "a piece there").await;
}

async fn click_target(c: &Client, mv: &str) {
    click_css(c, &format!("circle.target[data-move='{mv}']"), "a target").await;
}

/// Drags the piece of `mv`'s first square to its second with the mouse (WebDriver actions).
async fn drag(c: &Client, mv: &str) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
    let svg = c.find(Locator::Css("#board svg")).await.expect("the board");
    let width = js(c, "return document.querySelector('#board svg').getBoundingClientRect().width").await;
    // The board's drawing: 948 x 1048 units, squares 100 apart from (74, 74); offsets are from
    // the element's centre.
    let scale = width.as_f64().expect("a width") / 948.0;
    let offset = |sq: &str| {
        let b = sq.as_bytes();
        let (f, r) = (f64::from(b[0] - b'a'), f64::from(b[1] - b'0'));
        (((74.0 + 100.0 * f - 474.0) * scale).round(), ((74.0 + 100.0 * (9.0 - r) - 524.0) * scale).round())
    };
    let ((fx, fy), (tx, ty)) = (offset(&mv[..2]), offset(&mv[2..4]));
    let step = |x: f64, y: f64, ms: u64| PointerAction::MoveToElement {
        element: svg.clone(),
        duration: Some(Duration::from_millis(ms)),
        x,
        y,
    };
    let actions = MouseActions::new("mouse".into())
        .then(step(fx, fy, 0))
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(step(((fx + tx) / 2.0).round(), ((fy + ty) / 2.0).round(), 150))
        .then(step(tx, ty, 150))
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    c.perform_actions(actions).await.expect("a drag");
}

async fn wait_ply(c: &Client, ply: usize) {
    wait_js(
        c,
        &format!("return document.querySelectorAll('#played .ply').length >= {ply} && (document.querySelector('#played .ply.current')?.dataset.ply ?? '0') === '{ply}' && !!document.querySelector('#explorer tbody');"),
        &format!("ply {ply}"),
    )
    .await;
}

async fn run_width(srv: &qiku_serve::Running, port: u16, chromium: &Path, label: &str, width: u32, height: u32) {
    let profile = tempfile::tempdir().expect("a profile directory");
    let c = session(port, chromium, profile.path(), width, height).await;
    let base = srv.url();
    let start = api(srv, "startpos", &[]);

    // The start position: the book's moves, most played first, in Chinese notation.
    c.goto(&format!("{base}/")).await.expect("the page loads");
    wait_js(&c, "return document.querySelectorAll('#explorer tbody tr').length > 5", "the explorer table").await;
    check_rows(&c, &start, "chinese").await;
    let status = c.find(Locator::Id("status")).await.expect("status").text().await.expect("text");
    assert_eq!(status, "Red to move");
    let pieces = js(&c, "return document.querySelectorAll('g.piece path.glyph').length").await;
    assert_eq!(pieces, 32, "32 pieces drawn with their outlines");
    screenshot(&c, &format!("start-{label}")).await;

    // Five moves: one by clicking the board (piece, then its target), one by dragging the piece,
    // three from the table.
    let book = qiku::book::Book::open(&fixtures().book).expect("book");
    let mut line: Vec<String> = Vec::new();
    let mut pos = qiku::Position::startpos();
    for ply in 0..5 {
        let m = book.probe(&pos).expect("book readable")[0].mv;
        let iccs = m.to_string();
        if ply == 0 {
            click_square(&c, &iccs[..2]).await;
            click_target(&c, &iccs).await;
        } else if ply == 1 {
            drag(&c, &iccs).await;
        } else {
            click_row(&c, &iccs).await;
        }
        wait_ply(&c, ply + 1).await;
        line.push(iccs);
        pos = pos.play(m).expect("legal");
    }
    let refs: Vec<&str> = line.iter().map(String::as_str).collect();
    let after = api(srv, "startpos", &refs);
    wait_js(&c, &format!("return document.getElementById('fen').value === {}", json!(pos.fen())), "the FEN box").await;
    check_rows(&c, &after, "chinese").await;
    // The URL names the line.
    let url = js(&c, "return new URLSearchParams(location.search).get('moves')").await;
    assert_eq!(url.as_str(), Some(line.join(",").as_str()));
    screenshot(&c, &format!("five-moves-{label}")).await;

    // The notation switch.
    for n in ["wxf", "iccs", "chinese"] {
        c.find(Locator::Id("notation")).await.expect("select").select_by_value(n).await.expect("select");
        wait_js(
            &c,
            &format!(
                "return document.querySelector('#explorer tbody tr td').textContent === {}",
                json!(after["moves"][0][n])
            ),
            n,
        )
        .await;
        check_rows(&c, &after, n).await;
        let played = js(&c, "return [...document.querySelectorAll('#played .ply')].map(b => b.textContent)").await;
        let want: Vec<&Value> = after["played"].as_array().expect("played").iter().map(|m| &m[n]).collect();
        assert_eq!(played.as_array().expect("played").iter().collect::<Vec<_>>(), want, "the move list in {n}");
    }

    // Back and forward with the arrow keys.
    let body = c.find(Locator::Css("body")).await.expect("body");
    body.send_keys("\u{E012}").await.expect("ArrowLeft");
    wait_ply(&c, 4).await;
    // The fifth move, now ahead, keeps its name in the move list.
    let ahead = js(&c, "return document.querySelector('#played .ply.future')?.textContent").await;
    assert_eq!(ahead, after["played"][4]["chinese"]);
    let four = api(srv, "startpos", &refs[..4]);
    wait_js(
        &c,
        &format!("return document.getElementById('fen').value === {}", json!(four["fen"])),
        "the position after four plies",
    )
    .await;
    check_rows(&c, &four, "chinese").await;
    body.send_keys("\u{E014}").await.expect("ArrowRight");
    wait_ply(&c, 5).await;

    // A recent game of the position: clicked, it is fetched whole and replayed up to here.
    let listed = &after["recent_games"][0];
    assert!(listed.is_object(), "the shipped games reach the position after five moves");
    let (status, game) =
        get_json(srv.addr, &format!("/api/game?fen={}&moves={}&n=0", enc("startpos"), enc(&refs.join(" "))));
    assert_eq!(status, 200, "{game}");
    let total = game["moves"].as_array().expect("moves").len();
    let at = game["ply"].as_u64().expect("ply") as usize;
    c.find(Locator::Css("#recent li")).await.expect("a recent game").click().await.expect("click");
    wait_js(
        &c,
        &format!("return document.querySelectorAll('#played .ply').length === {total}"),
        "the recent game's moves",
    )
    .await;
    wait_ply(&c, at).await;
    // Replayed from the game's `start` (its own start position), the page is at the position the
    // game was listed for.
    assert!(game["start"].is_string() && game.get("fen").is_none(), "{game}");
    wait_js(
        &c,
        &format!("return document.getElementById('fen').value === {}", json!(after["fen"])),
        "the position the recent game reached",
    )
    .await;

    // A table position from the FEN box: the values of the position and of every move.
    let fen = "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1";
    let table = api(srv, fen, &[]);
    let input = c.find(Locator::Id("fen")).await.expect("the FEN box");
    input.clear().await.expect("clear");
    input.send_keys(fen).await.expect("type");
    c.find(Locator::Css("#fenform button")).await.expect("the button").click().await.expect("click");
    wait_js(&c, "return !!document.querySelector('#position .tb')", "the table value").await;
    let tb_text = c.find(Locator::Css("#position .tb")).await.expect("value").text().await.expect("text");
    let v = &table["tablebase"];
    // The value in the words of `qiku-tb probe`, for the side to move.
    let words = match (v["wdl"].as_str(), v["dtm"].as_i64()) {
        (Some("win"), Some(n)) => format!("win, mate in {n} plies"),
        (Some("loss"), Some(n)) => format!("loss, mated in {} plies", -n),
        _ => "draw".into(),
    };
    assert_eq!(tb_text, format!("Table (asian rules), red to move: {words}"), "{v}");
    check_rows(&c, &table, "chinese").await;
    for (row, m) in rows(&c).await.iter().zip(table["moves"].as_array().expect("moves")) {
        let t = &m["tablebase"];
        let n = t["dtm"].as_i64().expect("dtm").abs();
        let expected = match (t["wdl"].as_str(), t["by_rule"].as_bool()) {
            (Some("draw"), _) => "Draw".to_string(),
            (Some("win"), Some(true)) => "Win (rules)".into(),
            (Some("loss"), Some(true)) => "Loss (rules)".into(),
            (Some("win"), _) => format!("Win in {n}"),
            (_, _) if n == 0 => "Mated".into(),
            _ => format!("Loss in {n}"),
        };
        assert_eq!(row.2.trim_end_matches(" ★"), expected, "{}", row.0);
    }
    screenshot(&c, &format!("table-{label}")).await;
    // Play the table's best move: the value now is the other side's.
    let best = table["moves"][0]["iccs"].as_str().expect("best move").to_string();
    click_row(&c, &best).await;
    wait_ply(&c, 1).await;
    let next = api(srv, fen, &[&best]);
    wait_js(
        &c,
        &format!("return document.querySelector('#position .tb')?.dataset.wdl === {}", json!(next["tablebase"]["wdl"])),
        "the value after the move",
    )
    .await;

    // The engine's line on request: in a table position, the tables' verdict for the side to move.
    c.find(Locator::Id("analyze")).await.expect("the engine button").click().await.expect("click");
    wait_js(
        &c,
        "return /^For (red|black) \\(to move\\)/.test(document.getElementById('engine-out').textContent)",
        "the engine's line",
    )
    .await;
    let line = c.find(Locator::Id("engine-out")).await.expect("out").text().await.expect("text");
    assert!(line.contains("from the tables: ") && line.contains("plies (asian rules)"), "{line}");

    // The URL names the position: opening it shows the same.
    let href = js(&c, "return location.href").await.as_str().expect("href").to_string();
    c.goto("about:blank").await.expect("blank");
    c.goto(&href).await.expect("the shared URL");
    wait_js(
        &c,
        &format!("return document.getElementById('fen').value === {}", json!(next["fen"])),
        "the shared position",
    )
    .await;

    // The tables page: a table's statistics and its histogram.
    c.goto(&format!("{base}/tables")).await.expect("tables page");
    wait_js(&c, "return document.querySelectorAll('#tables tbody tr').length > 3", "the table list").await;
    c.find(Locator::Css("#tables tbody tr[data-material='KRvKN']")).await.expect("KRvKN").click().await.expect("click");
    wait_js(&c, "return document.querySelectorAll('#detail svg.chart rect').length > 10", "the histogram").await;
    // Under the Asian rules the longest mate is the plain one; the rule's line ranks are said apart.
    wait_js(
        &c,
        "return [...document.querySelectorAll('#detail table.tables td')].some(td => td.textContent === '25 (line rank up to 29)')",
        "the Asian rows' longest mate and line rank",
    )
    .await;
    // Both Asian rows as the server gives them apart, and the positions only the rules decide.
    let (status, stats) = get_json(srv.addr, "/api/tables/KRvKN");
    assert_eq!(status, 200, "{stats}");
    let cells =
        js(&c, "return [...document.querySelectorAll('#detail table.tables td')].map(td => td.textContent)").await;
    let fmt = |n: &Value| {
        let d = n.as_u64().expect("a count").to_string();
        let mut out = String::new();
        for (i, ch) in d.chars().enumerate() {
            if i > 0 && (d.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        out
    };
    for side in 0..2 {
        let a = &stats["asian"][side];
        let want = format!("{} (line rank up to {})", fmt(&a["longest_mate_plies"]), fmt(&a["highest_line_rank"]));
        assert!(cells.as_array().expect("cells").iter().any(|t| t == &json!(want)), "{want} in {cells}");
    }
    let words = js(&c, "return document.querySelector('#detail p').textContent").await;
    let want = format!(
        "Decided only by the Asian rules: {} (red to move), {} (black to move). ",
        fmt(&stats["changed"][0]),
        fmt(&stats["changed"][1])
    );
    assert!(words.as_str().expect("text").starts_with(&want), "{words}");
    screenshot(&c, &format!("tables-{label}")).await;
    c.close().await.expect("close");
}

/// Records the page's uncaught errors and rejected promises from now on.
async fn watch_errors(c: &Client) {
    js(
        c,
        "window.__errors = []; \
         addEventListener('error', (e) => window.__errors.push(String(e.message))); \
         addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));",
    )
    .await;
}

async fn assert_no_errors(c: &Client, what: &str) {
    assert_eq!(js(c, "return window.__errors").await, json!([]), "{what}: uncaught errors in the page");
}

/// Waits until the page has had an answer from `path` (the browser's resource timing lists a
/// request once its answer is in).
async fn wait_answered(c: &Client, path: &str) {
    wait_js(
        c,
        &format!("return performance.getEntriesByType('resource').some(e => e.name.includes({}))", json!(path)),
        path,
    )
    .await;
}

async fn text_of(c: &Client, id: &str) -> String {
    js(c, &format!("return document.getElementById('{id}').textContent")).await.as_str().unwrap_or("").to_string()
}

async fn url_param(c: &Client, name: &str) -> Value {
    js(c, &format!("return new URLSearchParams(location.search).get('{name}')")).await
}

/// Types `fen` into the FEN box and loads it.
async fn load_fen(c: &Client, fen: &str) {
    let input = c.find(Locator::Id("fen")).await.expect("the FEN box");
    input.clear().await.expect("clear");
    input.send_keys(fen).await.expect("type");
    c.find(Locator::Css("#fenform button")).await.expect("the button").click().await.expect("click");
}

/// The pages' words for a server that cannot be reached (`assets/errors.js`).
const UNREACHABLE: &str = "the server cannot be reached (is qiku serve still running?)";

/// Makes every later request of the page fail as requests fail once the server is gone.
async fn cut_off(c: &Client) {
    js(c, "window.fetch = () => Promise.reject(new TypeError('Failed to fetch'))").await;
}

/// Waits until the text of the element with id `id` is `text`.
async fn wait_text(c: &Client, id: &str, text: &str) {
    wait_js(c, &format!("return document.getElementById('{id}').textContent === {}", json!(text)), text).await;
}

/// Types `mv` into the move box and plays it with Enter.
async fn type_move(c: &Client, mv: &str) {
    let input = c.find(Locator::Id("move")).await.expect("the move box");
    input.clear().await.expect("clear");
    input.send_keys(&format!("{mv}\u{E007}")).await.expect("type");
}

/// Clicks the explorer table's row of move `mv` (ICCS).
async fn click_row(c: &Client, mv: &str) {
    click_css(c, &format!("#explorer tbody tr[data-move='{mv}']"), "row").await;
}

async fn click_id(c: &Client, id: &str) {
    c.find(Locator::Id(id)).await.expect(id).click().await.expect("click");
}

/// Opens `path` and waits for its position to be shown.
async fn open(c: &Client, base: &str, path: &str) {
    c.goto(&format!("{base}{path}")).await.expect("the page loads");
    wait_answered(c, "/api/info").await;
    // The answer read (the engine button knows the engine is on).
    tokio::time::sleep(Duration::from_millis(100)).await;
    wait_js(c, "return /to move/.test(document.getElementById('status').textContent)", path).await;
}

/// The explorer where things go wrong or come late: bad positions, clicks while a position
/// loads, engine replies for a position left, the keyboard, the browser's history, the engine's
/// words. Desktop only, against a server of its own (with the engine).
async fn explorer_behaviour(srv: &qiku_serve::Running, port: u16, chromium: &Path) {
    let profile = tempfile::tempdir().expect("a profile directory");
    let c = session(port, chromium, profile.path(), 1280, 900).await;
    let base = srv.url();
    let start = api(srv, "startpos", &[]);
    let first = start["moves"][0]["iccs"].as_str().expect("a book move").to_string();

    // A link naming a bad position: the error is shown, and the engine button says there is no
    // position rather than failing.
    c.goto(&format!("{base}/?fen=garbage")).await.expect("the page loads");
    wait_answered(&c, "/api/info").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    wait_js(&c, "return document.getElementById('status').classList.contains('error')", "the bad link's error").await;
    assert!(text_of(&c, "status").await.contains("bad FEN"), "{}", text_of(&c, "status").await);
    watch_errors(&c).await;
    click_id(&c, "analyze").await;
    assert_eq!(text_of(&c, "engine-out").await, "No position to analyse: load one first.");
    assert_no_errors(&c, "the engine button without a position").await;

    // A bad FEN typed in: the error is shown, the last good position stays (board, moves, URL)
    // and keeps working, and reloading shows it again.
    open(&c, &base, &format!("/?moves={first}")).await;
    wait_ply(&c, 1).await;
    let good = js(&c, "return location.href").await;
    let after_first = api(srv, "startpos", &[&first]);
    load_fen(&c, "rnbakabnr/9/1c5c1/xxx w").await;
    wait_js(&c, "return document.getElementById('status').classList.contains('error')", "the bad FEN's error").await;
    assert!(text_of(&c, "status").await.starts_with("Error: bad FEN"), "{}", text_of(&c, "status").await);
    assert_eq!(js(&c, "return location.href").await, good, "a failing position is not written into the URL");
    assert_eq!(js(&c, "return document.querySelectorAll('g.piece').length").await, 32, "the board stays");
    check_rows(&c, &after_first, "chinese").await;
    let reply = after_first["moves"][0]["iccs"].as_str().expect("a book reply").to_string();
    click_row(&c, &reply).await;
    wait_ply(&c, 2).await;
    assert_eq!(text_of(&c, "status").await, "Red to move");
    c.goto(good.as_str().expect("href")).await.expect("reload");
    wait_js(
        &c,
        &format!("return document.getElementById('fen').value === {}", after_first["fen"]),
        "the good position",
    )
    .await;

    // A double click on a book row plays the move once.
    open(&c, &base, "/").await;
    watch_errors(&c).await;
    js(&c, "const tr = document.querySelector('#explorer tbody tr'); tr.click(); tr.click();").await;
    wait_ply(&c, 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(url_param(&c, "moves").await, json!(first), "one move");
    assert_eq!(text_of(&c, "status").await, "Black to move");
    assert_no_errors(&c, "a double click").await;

    // The engine's line of a position left late: a move played while the engine thinks drops it.
    open(&c, &base, "/").await;
    js(&c, "document.getElementById('analyze').click(); document.querySelector('#explorer tbody tr').click();").await;
    wait_ply(&c, 1).await;
    wait_answered(&c, "/api/analyze").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(text_of(&c, "engine-out").await, "", "no line from the position before the move");

    // The engine asked for while a position loads searches that position once it is shown (the
    // button did nothing).
    open(&c, &base, "/").await;
    let waiting = js(
        &c,
        "document.querySelector('#explorer tbody tr').click(); document.getElementById('analyze').click(); \
         return document.getElementById('engine-out').textContent",
    )
    .await;
    assert_eq!(waiting, json!("Waiting for the position…"));
    wait_ply(&c, 1).await;
    wait_js(&c, "return document.getElementById('engine-out').textContent.startsWith('For black')", "the line").await;

    // The engine's words: whose score, the tables' verdict, the rules, plies, the end of a game.
    let by_rule = "9/9/4k4/1R7/9/9/6n2/9/5K3/9 w - - 0 1";
    let v = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc(by_rule))).1;
    assert_eq!((v["by_rule"].as_bool(), v["wdl"].as_str()), (Some(true), Some("win")), "{v}");
    open(&c, &base, &format!("/?fen={}", enc(by_rule))).await;
    click_id(&c, "analyze").await;
    wait_js(&c, "return document.getElementById('engine-out').textContent.startsWith('For red')", "the engine").await;
    let out = text_of(&c, "engine-out").await;
    assert!(
        out.starts_with("For red (to move), from the tables: win by the perpetual-check rule: the opponent can only check forever (line rank "),
        "{out}"
    );
    assert!(!out.contains("28743") && out.contains("asian rules"), "{out}");
    // Plain rules: a draw in the tables, said in good grammar; the engine says what it follows.
    c.find(Locator::Id("rules")).await.expect("rules").select_by_value("plain").await.expect("plain");
    wait_js(
        &c,
        "return document.querySelector('#position .tb')?.textContent === 'Table (plain rules), red to move: draw'",
        "the plain value",
    )
    .await;
    assert_eq!(text_of(&c, "engine-out").await, "", "the line under other rules is gone");
    click_id(&c, "analyze").await;
    wait_js(&c, "return document.getElementById('engine-out').textContent.startsWith('For red')", "the engine").await;
    let out = text_of(&c, "engine-out").await;
    assert!(out.contains("; tables: draw (plain rules), the engine chose among the drawing moves"), "{out}");
    assert!(out.contains("the engine's search judges repetitions by the Asian rules"), "{out}");
    assert!(!out.contains("perpetual-check"), "{out}");
    // A mate the search finds (no table for two rooks here), in plies for the side to move.
    open(&c, &base, &format!("/?fen={}", enc("3k5/9/9/9/9/9/9/9/RR7/4K4 b - - 0 1"))).await;
    click_id(&c, "analyze").await;
    wait_js(&c, "return document.getElementById('engine-out').textContent.startsWith('For black')", "the engine").await;
    let out = text_of(&c, "engine-out").await;
    assert!(out.starts_with("For black (to move): loss, mated in 2 plies (depth "), "{out}");
    // No legal move: the status and the table agree in the CLI's words, no empty move table,
    // and the engine says the game is over.
    open(&c, &base, &format!("/?fen={}", enc("3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"))).await;
    assert_eq!(text_of(&c, "status").await, "Black to move: loss, no legal move (stalemate)");
    let value = js(&c, "return document.querySelector('#position .tb').textContent").await;
    assert_eq!(value, "Table (asian rules), black to move: loss, no legal move");
    assert_eq!(js(&c, "return document.getElementById('explorer').hidden").await, true);
    assert_eq!(js(&c, "return document.getElementById('empty').hidden").await, false);
    assert_eq!(text_of(&c, "empty").await, "No legal move: the game is over.");
    click_id(&c, "analyze").await;
    assert_eq!(text_of(&c, "engine-out").await, "Game over (stalemate): black to move, loss, no legal move.");

    // Recent games that reached the mirror image of the position are marked `(mirrored)`, those
    // and only those the API says `mirrored`; chosen, one is replayed mirrored to the position.
    let (mirrored_line, listed) = ["b2e2", "c3c4", "h2e2", "g3g4"]
        .iter()
        .find_map(|m| {
            let v = api(srv, "startpos", &[m]);
            let games = v["recent_games"].as_array().cloned().unwrap_or_default();
            games.iter().any(|g| g["mirrored"] == json!(true)).then_some((*m, games))
        })
        .expect("a position with a recent game played as its mirror image");
    open(&c, &base, &format!("/?moves={mirrored_line}")).await;
    wait_ply(&c, 1).await;
    wait_js(
        &c,
        &format!("return document.querySelectorAll('#recent li').length === {}", listed.len()),
        "the recent games",
    )
    .await;
    let marks =
        js(&c, "return [...document.querySelectorAll('#recent li')].map(li => li.textContent.endsWith(' (mirrored)'))")
            .await;
    let want: Vec<bool> = listed.iter().map(|g| g["mirrored"] == json!(true)).collect();
    assert_eq!(marks, json!(want), "{mirrored_line}: {listed:?}");
    let n = want.iter().position(|&m| m).expect("a mirrored game");
    let (status, game) = get_json(srv.addr, &format!("/api/game?moves={mirrored_line}&n={n}"));
    assert_eq!((status, game["mirrored"].as_bool()), (200, Some(true)), "{game}");
    let here = api(srv, "startpos", &[mirrored_line]);
    js(&c, &format!("document.querySelectorAll('#recent li')[{n}].click()")).await;
    wait_js(
        &c,
        &format!(
            "return document.querySelectorAll('#played .ply').length === {}",
            game["moves"].as_array().expect("moves").len()
        ),
        "the mirrored game's moves",
    )
    .await;
    wait_ply(&c, game["ply"].as_u64().expect("ply") as usize).await;
    wait_js(
        &c,
        &format!("return document.getElementById('fen').value === {}", json!(here["fen"])),
        "the position the mirrored game reaches, shown mirrored",
    )
    .await;

    // The keyboard: move rows and recent games are buttons reached with Tab and chosen with
    // Enter or Space; the focus comes back to the new position's first move.
    open(&c, &base, "/").await;
    let attrs = js(
        &c,
        "const tr = document.querySelector('#explorer tbody tr'); return [tr.tabIndex, tr.getAttribute('role')]",
    )
    .await;
    assert_eq!(attrs, json!([0, "button"]));
    js(&c, "document.querySelector('#explorer tbody tr').focus()").await;
    c.active_element().await.expect("focus").send_keys("\u{E007}").await.expect("Enter");
    wait_ply(&c, 1).await;
    let focused = js(&c, "return document.activeElement.dataset.move").await;
    let after = api(srv, "startpos", &[&first]);
    assert_eq!(focused, after["moves"][0]["iccs"], "the first move of the new position has the focus");
    c.active_element().await.expect("focus").send_keys(" ").await.expect("Space");
    wait_ply(&c, 2).await;
    let line = [first.clone(), after["moves"][0]["iccs"].as_str().expect("move").to_string()];
    assert_eq!(url_param(&c, "moves").await, json!(line.join(",")));
    let attrs =
        js(&c, "const li = document.querySelector('#recent li'); return [li.tabIndex, li.getAttribute('role')]").await;
    assert_eq!(attrs, json!([0, "button"]));
    js(&c, "document.querySelector('#recent li').focus()").await;
    c.active_element().await.expect("focus").send_keys("\u{E007}").await.expect("Enter");
    wait_js(&c, "return document.querySelectorAll('#played .ply').length > 2", "the recent game").await;

    // The browser's Back: from the game to the line, then move by move (each new line an entry).
    c.back().await.expect("back");
    wait_js(
        &c,
        &format!("return new URLSearchParams(location.search).get('moves') === {}", json!(line.join(","))),
        "the line before the game",
    )
    .await;
    wait_ply(&c, 2).await;
    c.back().await.expect("back");
    wait_js(
        &c,
        &format!("return new URLSearchParams(location.search).get('moves') === {}", json!(first)),
        "one move back",
    )
    .await;
    wait_ply(&c, 1).await;
    c.back().await.expect("back");
    wait_js(
        &c,
        "return location.search === '' && document.getElementById('status').textContent === 'Red to move'",
        "the start",
    )
    .await;
    wait_js(&c, &format!("return document.getElementById('fen').value === {}", start["fen"]), "the start position")
        .await;
    c.forward().await.expect("forward");
    wait_ply(&c, 1).await;

    // A link whose moves are in Chinese (the API reads them) before its ply: every move is shown
    // in the notation chosen, the URL turns them into ICCS, and the next move played keeps the
    // line (the moves after the ply were shown in ICCS, the last-move mark was drawn at NaN, and
    // playing the next move cut the line).
    let line = api(srv, "startpos", &["h2e2", "h9g7", "h0g2"]);
    let names: Vec<&str> = (0..3).map(|i| line["played"][i]["chinese"].as_str().expect("a name")).collect();
    open(&c, &base, &format!("/?moves={}&ply=1", names.join(","))).await;
    watch_errors(&c).await;
    wait_ply(&c, 1).await;
    assert_eq!(js(&c, "return document.getElementById('board').innerHTML.includes('NaN')").await, json!(false));
    wait_js(&c, "return new URLSearchParams(location.search).get('moves') === 'h2e2,h9g7,h0g2'", "the line in ICCS")
        .await;
    let listed: Vec<String> = serde_json::from_value(
        js(&c, "return [...document.querySelectorAll('#played .ply')].map((b) => b.textContent)").await,
    )
    .expect("texts");
    assert_eq!(listed, names, "every move in Chinese");
    click_row(&c, "h9g7").await;
    wait_ply(&c, 2).await;
    assert_eq!(url_param(&c, "moves").await, json!("h2e2,h9g7,h0g2"), "the line kept");
    assert_no_errors(&c, "a link in Chinese").await;

    // The move list from the keyboard: the focus stays on the current move as it steps.
    js(&c, "document.querySelector('#played button.ply[data-ply=\"1\"]').focus()").await;
    c.active_element().await.expect("focus").send_keys("\u{E007}").await.expect("Enter");
    wait_ply(&c, 1).await;
    wait_js(&c, "return document.activeElement.matches('#played button.ply[data-ply=\"1\"]')", "focus on the move")
        .await;
    c.active_element().await.expect("focus").send_keys("\u{E014}").await.expect("Right");
    wait_ply(&c, 2).await;
    wait_js(&c, "return document.activeElement.matches('#played button.ply[data-ply=\"2\"]')", "focus kept").await;

    // The move box: moves typed in Chinese, ICCS and WXF are played; one not legal here, or two at
    // once, are errors, and the position and the text typed stay.
    open(&c, &base, "/").await;
    watch_errors(&c).await;
    for (i, typed) in ["炮二平五", "h9g7", "H2+3"].iter().enumerate() {
        type_move(&c, typed).await;
        wait_ply(&c, i + 1).await;
    }
    assert_eq!(url_param(&c, "moves").await, json!("h2e2,h9g7,h0g2"));
    assert_eq!(js(&c, "return document.getElementById('move').value").await, json!(""));
    let here = js(&c, "return location.href").await;
    for (typed, why) in [
        ("h0h9", "Error: move \"h0h9\": no such piece in this position"),
        ("車九進一 馬2進3", "Error: \"車九進一 馬2進3\": type one move at a time"),
    ] {
        type_move(&c, typed).await;
        wait_js(&c, "return document.getElementById('status').classList.contains('error')", typed).await;
        let status = text_of(&c, "status").await;
        assert!(status.starts_with(why) && !status.contains("moves["), "{typed}: {status}");
        assert_eq!(js(&c, "return location.href").await, here, "{typed}");
        assert_eq!(js(&c, "return document.getElementById('move').value").await, json!(typed));
    }
    assert_no_errors(&c, "the move box").await;

    // A server that can no longer be reached: a move says so, and the position stays.
    cut_off(&c).await;
    js(&c, "document.querySelector('#explorer tbody tr').click()").await;
    wait_text(&c, "status", &format!("Error: {UNREACHABLE}")).await;
    assert_eq!(js(&c, "return location.href").await, here, "the position stays");

    // Back into a link the server refuses: the last good position stays, in the URL too, and the
    // refused FEN is in the box to be mended (the URL said `fen=garbage` over the start position).
    c.goto(&format!("{base}/?fen=garbage")).await.expect("the page loads");
    wait_js(&c, "return document.getElementById('status').classList.contains('error')", "the bad link's error").await;
    load_fen(&c, start["fen"].as_str().expect("the start FEN")).await;
    wait_js(&c, "return document.getElementById('status').textContent === 'Red to move'", "the start").await;
    click_row(&c, &first).await;
    wait_ply(&c, 1).await;
    c.back().await.expect("back");
    wait_js(&c, "return location.search === ''", "the start's URL").await;
    c.back().await.expect("back");
    wait_js(&c, "return document.getElementById('status').classList.contains('error')", "refused again").await;
    wait_js(&c, "return location.search === '' && document.getElementById('fen').value === 'garbage'", "mended URL")
        .await;

    // The board turned round is in the URL: a reload (or a link) shows it so.
    click_id(&c, "flip").await;
    wait_js(&c, "return new URLSearchParams(location.search).get('flip') === '1'", "flip in the URL").await;
    let flipped = js(&c, "return location.href").await;
    open(&c, &base, &format!("/?{}", flipped.as_str().expect("href").split_once('?').expect("a query").1)).await;
    assert_eq!(js(&c, "return document.getElementById('board').dataset.flipped").await, json!("true"));
    click_id(&c, "flip").await;
    wait_js(
        &c,
        "return location.search === '' && document.getElementById('board').dataset.flipped === 'false'",
        "back",
    )
    .await;
    c.close().await.expect("close");
}

/// The tables page: the details of the last table chosen, even when an earlier one answers
/// later (its answer is held back here), scrolled into view below a long list; rows are buttons
/// for the keyboard. Desktop only, against a server whose table statistics are not yet computed.
async fn tables_behaviour(srv: &qiku_serve::Running, port: u16, chromium: &Path) {
    let profile = tempfile::tempdir().expect("a profile directory");
    let c = session(port, chromium, profile.path(), 1280, 900).await;
    let base = srv.url();
    c.goto(&format!("{base}/tables")).await.expect("tables page");
    wait_js(&c, "return document.querySelectorAll('#tables tbody tr').length > 3", "the table list").await;
    js(
        &c,
        "document.getElementById('tables').style.marginBottom = '5000px'; window.__late = false; \
         const orig = window.fetch; \
         window.fetch = (u, o) => orig(u, o).then((r) => String(u).endsWith('/KRvKN') \
           ? new Promise((res) => setTimeout(() => { res(r); setTimeout(() => { window.__late = true; }, 100); }, 1000)) : r);",
    )
    .await;
    c.find(Locator::Css("#tables tbody tr[data-material='KRvKN']")).await.expect("KRvKN").click().await.expect("click");
    c.find(Locator::Css("#tables tbody tr[data-material='KRvK']")).await.expect("KRvK").click().await.expect("click");
    wait_js(&c, "return window.__late", "the late answer").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(js(&c, "return document.querySelector('#detail h2')?.textContent").await, "KRvK");
    let seen = js(
        &c,
        "const r = document.getElementById('detail').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight",
    )
    .await;
    assert_eq!(seen, true, "the details are scrolled into view");
    let attrs =
        js(&c, "const tr = document.querySelector('#tables tbody tr'); return [tr.tabIndex, tr.getAttribute('role')]")
            .await;
    assert_eq!(attrs, json!([0, "button"]));
    js(&c, "document.querySelector(\"#tables tbody tr[data-material='KCvK']\").focus()").await;
    c.active_element().await.expect("focus").send_keys("\u{E007}").await.expect("Enter");
    wait_js(&c, "return document.querySelector('#detail h2')?.textContent === 'KCvK'", "KCvK by the keyboard").await;
    // A server that can no longer be reached (every request fails as fetch fails then) is said so.
    cut_off(&c).await;
    c.find(Locator::Css("#tables tbody tr[data-material='KRvKN']")).await.expect("KRvKN").click().await.expect("click");
    wait_text(&c, "detail", &format!("KRvKN: Error: {UNREACHABLE}")).await;
    c.close().await.expect("close");
}

/// The tables page over a directory with a damaged `.qtr`: the server's error naming the file,
/// where the list would be (the page stayed at "Loading…").
async fn damaged_tables_page(port: u16, chromium: &Path) {
    let dir = tables_copy();
    flip_byte(&dir.path().join("KCvK.qtr"), None);
    let tables = dir.path().to_path_buf();
    let srv = tokio::task::spawn_blocking(move || {
        let mut o = options();
        o.tables = Some(tables);
        server(o)
    })
    .await
    .expect("server");
    let profile = tempfile::tempdir().expect("a profile directory");
    let c = session(port, chromium, profile.path(), 1280, 900).await;
    c.goto(&format!("{}/tables", srv.url())).await.expect("tables page");
    wait_js(&c, "return document.getElementById('summary').textContent.includes('KCvK.qtr')", "the damaged file named")
        .await;
    c.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_in_headless_chromium() {
    let (Some(chromium), Some(driver)) = (
        find_binary("QIKU_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"]),
        find_binary("QIKU_CHROMEDRIVER", &["chromedriver"]),
    ) else {
        println!("SKIPPED: the browser test needs chromium and chromedriver (apt-get install chromium chromium-driver fonts-noto-cjk)");
        return;
    };
    if !Path::new("/usr/share/fonts/opentype/noto").exists() {
        println!(
            "note: fonts-noto-cjk is not installed: the notation text will show as boxes (the pieces need no font)"
        );
    }
    let srv = tokio::task::spawn_blocking(|| {
        let mut o = options();
        o.engine = true;
        server(o)
    })
    .await
    .expect("server");
    let (_driver, port) = start_driver(&driver);
    let fresh = tokio::task::spawn_blocking(|| {
        let mut o = options();
        o.engine = true;
        server(o)
    })
    .await
    .expect("server");
    tables_behaviour(&fresh, port, &chromium).await;
    damaged_tables_page(port, &chromium).await;
    explorer_behaviour(&fresh, port, &chromium).await;
    run_width(&srv, port, &chromium, "desktop", 1280, 900).await;
    run_width(&srv, port, &chromium, "phone", 390, 844).await;
}
