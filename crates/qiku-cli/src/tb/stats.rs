//! `qiku-tb stats`: a table's counts per side to move, read from the whole table (checked
//! against its header as every whole-table read is: a file whose values the probes would refuse
//! is named, not counted).

use super::dir::{missing_table, no_directory};
use super::probe_error;
use qiku::tablebase::generate;
use qiku::tablebase::{file_name, highest_line_rank, rules_file_name, Counts, Material, Rules, TbError};
use serde_json::json;
use std::path::Path;

/// Prints the counts of the table of `name` in `dir` under `rules` (one JSON object with `json`).
pub(super) fn run_stats(name: &str, dir: &Path, rules: Rules, json: bool) -> Result<(), String> {
    let m: Material = name.parse().map_err(|e| format!("{e}"))?;
    let (canonical, swapped) = m.canonical();
    if !canonical.has_attackers() {
        return Err(qiku::tablebase::dead_draw_message(&[m]));
    }
    let path = dir.join(file_name(canonical));
    if let Some(e) = no_directory(dir) {
        return Err(e);
    }
    if !path.exists() {
        return Err(missing_table(canonical, dir));
    }
    let table = std::sync::Arc::new(generate::load(&path).map_err(|e| probe_error(e, dir))?);
    let plain = table.counts();
    let counts = match rules {
        Rules::Plain => plain,
        Rules::Asian => {
            let path = dir.join(rules_file_name(canonical));
            if !path.exists() {
                return Err(format!("{}; or count without the rules: --rules plain", TbError::NoRules { path }));
            }
            generate::load_rules(&path, &table).map_err(|e| probe_error(e, dir))?.counts()
        }
    };
    let changed = generate::changed(&plain, &counts);
    // Color swap: the table's red-to-move positions are the named material's black-to-move ones.
    let (red, black) = if swapped { (counts[1], counts[0]) } else { (counts[0], counts[1]) };
    let (red_changed, black_changed) = if swapped { (changed[1], changed[0]) } else { (changed[0], changed[1]) };
    let (plain_red, plain_black) = if swapped { (plain[1], plain[0]) } else { (plain[0], plain[1]) };
    // The rule's wins and losses carry a line rank, not plies to mate; the mates are the plain
    // table's (the rule changes only draws), so the longest mate is the plain one. The library
    // tells the two apart (`/api/tables/{material}` of `qiku serve` calls the same).
    let line_rank = |c: Counts, p: Counts| highest_line_rank(&p, &c);
    if json {
        // `max_dtm` in the counts is the largest distance stored, plies or line rank; the two
        // are apart here, each in its unit.
        let mut out = json!({"material": m.to_string(), "rules": rules.name(), "red": red, "black": black,
            "longest_mate_plies": {"red": plain_red.max_dtm, "black": plain_black.max_dtm}});
        if rules == Rules::Asian {
            out["changed"] = json!({"red": red_changed, "black": black_changed});
            out["highest_line_rank"] =
                json!({"red": line_rank(red, plain_red), "black": line_rank(black, plain_black)});
        }
        println!("{out}");
        return Ok(());
    }
    println!(
        "{m}{} under {} rules",
        if swapped { format!(" (table {canonical}, colors swapped)") } else { String::new() },
        rules.name()
    );
    for (side, c, ch, p) in [("red", red, red_changed, plain_red), ("black", black, black_changed, plain_black)] {
        let longest = match line_rank(c, p) {
            Some(rank) => format!("longest mate {} plies, line ranks up to {rank}", p.max_dtm),
            None => format!("longest mate {} plies", p.max_dtm),
        };
        let changed = if rules == Rules::Asian { format!(", {ch} decided by the rule") } else { String::new() };
        println!(
            "  {side} to move: {} legal, {} wins, {} draws, {} losses, {} without a move, {longest}{changed}",
            c.legal, c.wins, c.draws, c.losses, c.no_moves
        );
    }
    Ok(())
}
