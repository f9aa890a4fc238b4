//! The page's files, compiled into the binary: nothing is read from disk, so no path a client
//! sends can reach a file; an unknown name is a 404.

use axum::extract::rejection::PathRejection;
use axum::extract::Path;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// (name, content type, bytes) of every asset under `/assets/`.
const ASSETS: &[(&str, &str, &[u8])] = &[
    ("app.js", "text/javascript; charset=utf-8", include_bytes!("../assets/app.js")),
    ("board.js", "text/javascript; charset=utf-8", include_bytes!("../assets/board.js")),
    ("errors.js", "text/javascript; charset=utf-8", include_bytes!("../assets/errors.js")),
    ("glyphs.js", "text/javascript; charset=utf-8", include_bytes!("../assets/glyphs.js")),
    ("tables.js", "text/javascript; charset=utf-8", include_bytes!("../assets/tables.js")),
    ("style.css", "text/css; charset=utf-8", include_bytes!("../assets/style.css")),
    ("LICENSE-glyphs.txt", "text/plain; charset=utf-8", include_bytes!("../assets/LICENSE-glyphs.txt")),
];

const INDEX: &str = include_str!("../assets/index.html");
const TABLES: &str = include_str!("../assets/tables.html");

fn html(body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// `GET /`: the explorer page.
pub async fn index() -> Response {
    html(INDEX)
}

/// `GET /tables`: the tables page.
pub async fn tables_page() -> Response {
    html(TABLES)
}

/// `GET /favicon.ico`: no icon (`204`), so that a browser asking for one gets no error. The pages
/// name an empty one themselves.
pub async fn favicon() -> Response {
    (StatusCode::NO_CONTENT, [(header::CACHE_CONTROL, "max-age=86400")]).into_response()
}

/// `GET /assets/{name}`.
pub async fn asset(name: Result<Path<String>, PathRejection>) -> Response {
    // Not percent-encoded UTF-8 (`%FF`): the framework's own answer would be `Invalid URL`.
    let Ok(Path(name)) = name else {
        let msg = "the name in /assets/{name} is not percent-encoded UTF-8: this server's assets have ASCII names, \
                   such as /assets/app.js\n";
        return (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], msg).into_response();
    };
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, ctype, bytes)) => {
            ([(header::CONTENT_TYPE, *ctype), (header::CACHE_CONTROL, "no-cache")], *bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found\n").into_response(),
    }
}

/// Anything else: 404, as JSON under `/api/` (the API's errors are JSON).
pub async fn not_found(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") {
        let msg = format!("no such API path: {}", uri.path());
        return (StatusCode::NOT_FOUND, Json(serde_json::json!({ "error": msg }))).into_response();
    }
    (StatusCode::NOT_FOUND, "not found\n").into_response()
}
