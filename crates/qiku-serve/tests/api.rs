//! The JSON API over loopback, against a book built from real games and generated tables.

mod common;
use common::*;

#[test]
fn smoke() {
    let srv = server(options());
    let (status, v) = get_json(srv.addr, "/api/explore");
    assert_eq!(status, 200);
    println!("{}", serde_json::to_string_pretty(&v).unwrap());
}
