//! Load benchmark: 64 concurrent clients on loopback for 10 seconds against the explorer and
//! tablebase API (book and tables warm), each client on its own keep-alive connection sending
//! its next request when the last one is answered. Prints requests per second, p50, p99 and
//! max latency, and errors (any non-200 answer or connection failure).
//!
//! `cargo bench -p qiku-serve --bench load [-- CLIENTS SECONDS]`. Server and clients share the
//! machine's cores, so the figures are a lower bound for the server alone.

#[path = "../tests/common/mod.rs"]
mod common;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The request mix: explorer positions from the book (start, 1, 2, 5 plies), and table
/// positions (KRvK, KRvKN, KNvK) with both rules.
fn targets() -> Vec<String> {
    let e = common::enc;
    let mut t = vec![
        "/api/explore".to_string(),
        "/api/explore?moves=h2e2".into(),
        "/api/explore?moves=h2e2%20h9g7".into(),
        "/api/explore?moves=h2e2%20h9g7%20h0g2%20i9h9%20i0h0".into(),
    ];
    for fen in [
        "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1",
        "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1",
        "3k5/9/9/9/4N4/9/9/9/9/4K4 w - - 0 1",
    ] {
        t.push(format!("/api/tablebase?fen={}", e(fen)));
        t.push(format!("/api/tablebase?fen={}&rules=plain", e(fen)));
    }
    t
}

async fn client(
    addr: std::net::SocketAddr,
    id: usize,
    stop: Arc<AtomicBool>,
    measure_from: Instant,
) -> (Vec<u32>, u64) {
    let targets = targets();
    let mut lat = Vec::new();
    let mut errors = 0u64;
    let mut i = id;
    'outer: while !stop.load(Ordering::Relaxed) {
        let Ok(stream) = tokio::net::TcpStream::connect(addr).await else {
            errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let Ok((mut send, conn)) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await
        else {
            errors += 1;
            continue;
        };
        tokio::spawn(conn);
        while !stop.load(Ordering::Relaxed) {
            let target = &targets[i % targets.len()];
            i += 1;
            let req = hyper::Request::get(target.as_str())
                .header("host", "localhost")
                .body(Empty::<Bytes>::new())
                .expect("a request");
            let t = Instant::now();
            let ok = match send.send_request(req).await {
                Ok(resp) => {
                    let status = resp.status();
                    resp.into_body().collect().await.is_ok() && status == 200
                }
                Err(_) => false,
            };
            if t >= measure_from {
                if ok {
                    lat.push(t.elapsed().as_micros() as u32);
                } else {
                    errors += 1;
                }
            }
            if !ok {
                continue 'outer;
            }
        }
    }
    (lat, errors)
}

/// CPU seconds (user + system) this process has used so far, from /proc (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // utime and stime are in clock ticks, 100 a second on Linux.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    // After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt, majflt,
    // cmajflt, utime, stime.
    let f: Vec<&str> = rest.split_whitespace().collect();
    match (f.get(11).and_then(|u| u.parse::<u64>().ok()), f.get(12).and_then(|s| s.parse::<u64>().ok())) {
        (Some(u), Some(s)) => (u + s) as f64 / 100.0,
        _ => 0.0,
    }
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments; only the numbers count.
    let numbers: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let clients: usize = numbers.first().and_then(|a| a.parse().ok()).unwrap_or(64);
    let seconds: u64 = numbers.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut options = common::options();
    options.limits.max_connections = clients * 2;
    let srv = common::server(options);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
    let mut cpu_at_start = 0.0;
    let (lat, errors) = rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let warm = Duration::from_secs(1);
        let measure_from = Instant::now() + warm;
        let tasks: Vec<_> =
            (0..clients).map(|id| tokio::spawn(client(srv.addr, id, stop.clone(), measure_from))).collect();
        tokio::time::sleep(warm).await;
        cpu_at_start = cpu_seconds();
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        stop.store(true, Ordering::Relaxed);
        let mut lat = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let (l, e) = t.await.expect("a client");
            lat.extend(l);
            errors += e;
        }
        (lat, errors)
    });
    let cpu = cpu_seconds() - cpu_at_start;
    let mut lat = lat;
    lat.sort_unstable();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1))).copied().unwrap_or(0) as f64
            / 1000.0
    };
    println!(
        "{clients} clients, {seconds} s (after 1 s warm-up), explore and tablebase: {} requests, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {errors} errors",
        lat.len(),
        lat.len() as f64 / seconds as f64,
        pct(0.50),
        pct(0.99),
        lat.last().copied().unwrap_or(0) as f64 / 1000.0
    );
    if cpu > 0.0 && !lat.is_empty() {
        println!(
            "CPU: {cpu:.1} s over {seconds} s ({:.2} cores), {:.0} us of CPU a request, server and clients together",
            cpu / seconds as f64,
            1e6 * cpu / lat.len() as f64
        );
    }
}
