//! Tablebase benchmark: generation time of every table up to 4 pieces (and optionally more), total
//! sizes (`.qtb` DTM, `.qtr` Asian rules, `.qtw` WDL), and probe latency and probes per second
//! (cold: block not cached; warm: cached; WDL from the `.qtw` files and DTM from the `.qtb`, both
//! without rules and under the Asian rules), with the default reader (positioned reads) and with
//! memory maps (`Tablebases::open_mmap`).
//!
//! `cargo bench --bench tablebase` generates into the target directory. Set `QIKU_TB_DIR` to probe
//! an existing directory (for example the full 5-piece set) instead of generating, and
//! `QIKU_TB_MAX_PIECES=5` to generate everything up to 5 pieces (about 10 minutes on 2 idle cores);
//! add `QIKU_TB_ONE_SIDED=1` for only the tables in which one side has no attacking piece (the set
//! other open-source generators cover; it is closed under captures). `QIKU_TB_WDL_FILLS=1` also
//! prints the WDL files' total size for each way of filling illegal entries ([`Fill`]).

use qiku::tablebase::format::{self, TableFile};
use qiku::tablebase::generate::{self, generate_set, GenerateOptions};
use qiku::tablebase::wdl::{self, Fill};
use qiku::tablebase::{rules_file_name, wdl_file_name, Material, Rules, Tablebases};
use qiku::Rng;
use qiku::{Color, Position};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let dir = match std::env::var_os("QIKU_TB_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let max: usize = std::env::var("QIKU_TB_MAX_PIECES").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
            let one_sided = std::env::var_os("QIKU_TB_ONE_SIDED").is_some();
            let mut materials = Material::all_up_to(max);
            if one_sided {
                materials.retain(|m| !m.side_has_attackers(Color::Black));
            }
            let kind = if one_sided { "one-sided " } else { "" };
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("bench_tb{max}{}", if one_sided { "_one_sided" } else { "" }));
            let _ = std::fs::remove_dir_all(&dir);
            let opts = GenerateOptions::new(&dir);
            let t = Instant::now();
            let reports = generate_set(&materials, &opts).expect("generation");
            let entries: u64 = reports.iter().map(|r| r.entries).sum();
            println!(
                "generate all {} {kind}tables of up to {max} pieces: {:.2} s ({entries} entries, {} threads)",
                reports.len(),
                t.elapsed().as_secs_f64(),
                rayon::current_num_threads()
            );
            dir
        }
    };
    let t = Instant::now();
    let tb = Tablebases::open(&dir).expect("open directory");
    println!(
        "Tablebases::open (every file's header and block index checked): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let (mut raw, mut file, mut entries, mut rules_bytes, mut wdl_bytes) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut positions = Vec::new();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for t in tb.tables() {
        let f = TableFile::open(&t.path).expect("open table");
        raw += f.entries() * f.header().width as u64;
        file += f.file_len();
        entries += f.entries();
        let size = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
        rules_bytes += size(dir.join(rules_file_name(t.material)));
        wdl_bytes += size(dir.join(wdl_file_name(t.material)));
        // Random legal positions of this table.
        let mut found = 0;
        for _ in 0..2000 {
            if found == 20 {
                break;
            }
            let Some(setup) = f.setup(rng.next_u64() % f.entries()) else { continue };
            if let Ok(pos) = Position::from_setup(&setup) {
                positions.push(pos);
                found += 1;
            }
        }
    }
    println!(
        "{} tables: {:.1} MB uncompressed, {:.1} MB in files ({:.1}%)",
        tb.tables().len(),
        raw as f64 / 1e6,
        file as f64 / 1e6,
        100.0 * file as f64 / raw.max(1) as f64
    );
    let per = |b: u64| b as f64 / entries.max(1) as f64;
    println!(
        "bytes per entry over {entries} entries: .qtb {:.4}, .qtr {:.4}, .qtw {:.4} ({:.1} MB of WDL files)",
        per(file),
        per(rules_bytes),
        per(wdl_bytes),
        wdl_bytes as f64 / 1e6
    );
    if std::env::var_os("QIKU_TB_WDL_FILLS").is_some() {
        compare_fills(&tb, &dir);
    }
    // Shuffle so consecutive probes hit different tables and blocks.
    for i in (1..positions.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        positions.swap(i, j);
    }
    bench_probes(&tb, &positions, "positioned reads (Tablebases::open, the default)");
    let t = Instant::now();
    // Safety: the benchmark's tables are not modified while mapped.
    let mapped = unsafe { Tablebases::open_mmap(&dir) }.expect("map directory");
    println!("Tablebases::open_mmap: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    bench_probes(&mapped, &positions, "memory maps (Tablebases::open_mmap)");
}

/// The WDL files' total size over the directory for each [`Fill`] of illegal entries.
fn compare_fills(tb: &Tablebases, dir: &std::path::Path) {
    let fills = [Fill::Previous, Fill::MostCommon, Fill::Draw];
    let mut totals = [0u64; 3];
    let mut entries = 0u64;
    for t in tb.tables() {
        let plain = std::sync::Arc::new(generate::load(&t.path).expect("table"));
        let rule = generate::load_rules(&dir.join(rules_file_name(t.material)), &plain).expect("companion");
        entries += plain.entries();
        for (total, fill) in totals.iter_mut().zip(fills) {
            let codes = wdl::codes(plain.codes(), rule.codes(), fill);
            *total += format::encode_wdl(t.material, &codes, &plain.counts(), true).expect("encode").len() as u64;
        }
    }
    for (total, fill) in totals.iter().zip(fills) {
        println!(
            "WDL files with illegal entries filled {fill:?}: {total} bytes, {:.5} bytes an entry",
            *total as f64 / entries.max(1) as f64
        );
    }
}

/// One kind of probe.
type Probe<'a> = dyn Fn(&Position) + 'a;

/// Probe latencies of one reader over `positions`.
fn bench_probes(tb: &Tablebases, positions: &[Position], reader: &str) {
    let n = positions.len();
    println!("-- {reader}");
    // First probe of each position: blocks cold (tables were opened with the directory).
    let t = Instant::now();
    for pos in positions {
        black_box(tb.probe_wdl(pos).expect("probe"));
    }
    println!("first pass (blocks cold): {:.1} us/probe over {n}", us(t, n));
    // The four probes compared: WDL (from the .qtw) and DTM (from the .qtb), without rules and
    // under the Asian rules (the engine's default; DTM then also reads the .qtr for drawn entries).
    let kinds: [(&str, &Probe); 4] = [
        ("WDL plain", &|p| {
            black_box(tb.probe_wdl(p).expect("probe"));
        }),
        ("DTM plain", &|p| {
            black_box(tb.probe(p).expect("probe"));
        }),
        ("WDL asian", &|p| {
            black_box(tb.probe_wdl_with(p, Rules::Asian).expect("probe"));
        }),
        ("DTM asian", &|p| {
            black_box(tb.probe_with(p, Rules::Asian).expect("probe"));
        }),
    ];
    for (label, probe) in &kinds {
        let mut total = 0.0;
        for pos in positions {
            tb.clear_cache();
            let t = Instant::now();
            probe(pos);
            total += t.elapsed().as_secs_f64();
        }
        println!("cold {label} probe (block decompressed): {:.1} us", total * 1e6 / n as f64);
    }
    // Warm: a working set whose blocks fit in the 64 MiB block cache (256 blocks of 32 KiB raw
    // at most 64 KiB each), then every position, which overflows it with the full 5-piece set.
    let warm = &positions[..n.min(256)];
    for (set, label_set) in [(warm, "warm"), (positions, "all positions")] {
        for (label, probe) in &kinds {
            set.iter().for_each(probe);
            let rounds = 20;
            let t = Instant::now();
            for _ in 0..rounds {
                set.iter().for_each(probe);
            }
            let per = us(t, set.len() * rounds);
            println!("{label_set} {label} probe, {} positions: {per:.2} us ({:.0} probes/s)", set.len(), 1e6 / per);
        }
    }
    let t = Instant::now();
    for pos in positions.iter().take(200) {
        black_box(tb.best_moves(pos).expect("probe"));
    }
    println!("best_moves (every legal move probed): {:.1} us", us(t, n.min(200)));
}

fn us(t: Instant, n: usize) -> f64 {
    t.elapsed().as_secs_f64() * 1e6 / n.max(1) as f64
}
