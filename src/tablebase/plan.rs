//! Estimates for a work list before any work: entries, peak memory, disk and time of every
//! table, from rates measured on the project machine ([`Rates::MEASURED`], see
//! `docs/TABLEBASES.md`), and which tables the generator cannot do yet. `qiku-tb plan` prints
//! them; [`last_uses`] is also what the generation driver uses to drop tables it no longer needs,
//! so the memory estimate follows what the driver holds.

use super::index::{entries_of, MAX_PIECES};
use super::material::Material;
use super::select::Resolved;
use super::solve;
use crate::core::{Color, Role};
use std::collections::HashMap;

/// Rates that turn entries into bytes and seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rates {
    /// Entries solved per CPU second (both phases, file written), release build.
    pub entries_per_cpu_second: f64,
    /// Share of the threads' time spent working (the rest: serial steps between levels).
    pub parallel_efficiency: f64,
    /// File bytes per entry (zstd-compressed value codes).
    pub disk_bytes_per_entry: f64,
    /// Peak resident bytes per entry of the table being solved (solver arrays, frontiers,
    /// encoding).
    pub solver_bytes_per_entry: f64,
    /// Resident bytes per entry of a decoded smaller table held for captures (`Vec<u16>`).
    pub held_bytes_per_entry: f64,
    /// Resident bytes of the process besides tables.
    pub base_bytes: f64,
    /// The rule-aware pass (the `.qtr` companion and the `.qtw` WDL file) of a table with
    /// attacking pieces on both sides ([`RulesPass::Full`]): entries per CPU second, counted over
    /// the whole table, added to the solve (an average: directions skipped after a scan make
    /// single tables several times faster, a direction run in full slower).
    pub rules_entries_per_cpu_second: f64,
    /// Peak resident bytes per entry of such a table while its rule-aware pass runs (the plain
    /// codes, the rule-aware codes, the pass's counters, bounds and queues); the decoded smaller
    /// tables are held twice, plain and rule-aware, unless their pass was light.
    pub rules_bytes_per_entry: f64,
    /// File bytes per entry of the `.qtr` companion and the `.qtw` WDL file together (every
    /// kind of pass but [`RulesPass::Checks`]).
    pub rules_disk_bytes_per_entry: f64,
    /// File bytes per entry of the `.qtb` of a table of at most 4 pieces (they compress better).
    pub small_disk_bytes_per_entry: f64,
    /// Bytes of every file besides its entries (header, block index, checksums).
    pub file_overhead_bytes: f64,
    /// The rule-aware pass of a table with many perpetual checks ([`perpetual_checks`]):
    /// entries per CPU second.
    pub checks_rules_entries_per_cpu_second: f64,
    /// Peak resident bytes per entry while that pass runs (its cycle graphs besides the codes).
    pub checks_rules_bytes_per_entry: f64,
    /// The same where the stronger side has two rooks against the weaker side's rook
    /// ([`rook_pair_checks`]): its cycle graphs are larger still.
    pub rook_pair_checks_rules_bytes_per_entry: f64,
    /// File bytes per entry of that table's `.qtr` and `.qtw` files together (many entries
    /// change under the rules).
    pub checks_rules_disk_bytes_per_entry: f64,
    /// The light rule-aware pass of a table where one side has no attacking piece
    /// ([`RulesPass::Light`]: its directions are skipped, at most after a scan for perpetual
    /// checks), its `.qtr` and `.qtw` files written: entries per CPU second.
    pub light_rules_entries_per_cpu_second: f64,
    /// Peak resident bytes per entry of such a table after its solve: its plain codes (handed on
    /// as its rule-aware values, no copy) and the WDL file's 1-byte codes and blocks; the decoded
    /// smaller tables are held once each when they are light too (their rule-aware values are
    /// their plain ones).
    pub light_rules_bytes_per_entry: f64,
    /// A paged table (`--memory`): resident bytes per entry of what stays in memory besides its
    /// inputs (per-chunk bookkeeping, the compressed file as it is written, side lists).
    pub paged_resident_bytes_per_entry: f64,
    /// A paged table's time over its time in memory.
    pub paged_slowdown: f64,
}

impl Rates {
    /// Measured on the project machine (2 cores, 24 GiB), release build, 2 rayon threads,
    /// 2026-11-23 (memory of the solve, files), 2026-11-26 (small tables' files) and 2026-11-27
    /// (the solve's and the rule-aware passes' memory, 21 tables on the idle machine); the speeds
    /// measured again on 2026-11-27 with each table's time scaled to speed 1 by a calibration run
    /// just before it ([`calibrate`](super::calibrate::calibrate): speed 1 is the machine on
    /// which [`CALIBRATION_MATERIAL`](super::calibrate::CALIBRATION_MATERIAL) takes
    /// [`REFERENCE_SECONDS`](super::calibrate::REFERENCE_SECONDS)). See "Selections and plans"
    /// in `docs/TABLEBASES.md` for the commands and figures. The paged figures: KRPvKCC within
    /// `--memory 1G` on 2026-11-27 (1.19 to 1.26 times the time, 0.08 bytes an entry resident
    /// besides its inputs; "Bounded memory" in the same document).
    pub const MEASURED: Rates = Rates {
        entries_per_cpu_second: 3.17e6,
        parallel_efficiency: 0.93,
        disk_bytes_per_entry: 0.086,
        solver_bytes_per_entry: 2.3,
        held_bytes_per_entry: 2.0,
        base_bytes: 8.0e6,
        rules_entries_per_cpu_second: 10.6e6,
        rules_bytes_per_entry: 2.5,
        rules_disk_bytes_per_entry: 0.006,
        small_disk_bytes_per_entry: 0.064,
        file_overhead_bytes: 300.0,
        checks_rules_entries_per_cpu_second: 2.58e6,
        checks_rules_bytes_per_entry: 4.2,
        rook_pair_checks_rules_bytes_per_entry: 6.7,
        checks_rules_disk_bytes_per_entry: 0.138,
        light_rules_entries_per_cpu_second: 45.2e6,
        light_rules_bytes_per_entry: 2.3,
        paged_resident_bytes_per_entry: 0.1,
        paged_slowdown: 1.3,
    };

    /// Peak resident bytes per entry of the rule-aware pass of `material` when it is
    /// [`RulesPass::Checks`]: [`rook_pair_checks_rules_bytes_per_entry`](Self::rook_pair_checks_rules_bytes_per_entry)
    /// for [`rook_pair_checks`], else [`checks_rules_bytes_per_entry`](Self::checks_rules_bytes_per_entry).
    ///
    /// ```
    /// use qiku::tablebase::generate::Rates;
    ///
    /// let r = Rates::MEASURED;
    /// assert_eq!(r.checks_rules_bytes_of("KRRvKR".parse()?), r.rook_pair_checks_rules_bytes_per_entry);
    /// assert_eq!(r.checks_rules_bytes_of("KRNvKR".parse()?), r.checks_rules_bytes_per_entry);
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn checks_rules_bytes_of(&self, material: Material) -> f64 {
        if rook_pair_checks(material) {
            self.rook_pair_checks_rules_bytes_per_entry
        } else {
            self.checks_rules_bytes_per_entry
        }
    }

    /// Entries per second of wall time with `threads` threads.
    ///
    /// ```
    /// use qiku::tablebase::generate::Rates;
    ///
    /// let r = Rates::MEASURED;
    /// assert_eq!(r.entries_per_second(1), r.entries_per_cpu_second * r.parallel_efficiency);
    /// assert_eq!(r.entries_per_second(2), 2.0 * r.entries_per_second(1));
    /// assert_eq!(r.entries_per_second(0), r.entries_per_second(1)); // one thread at least
    /// // The rule-aware passes, against the solve: the light pass is the fastest.
    /// assert!(r.checks_rules_entries_per_second(2) < r.entries_per_second(2));
    /// assert!(r.entries_per_second(2) < r.rules_entries_per_second(2));
    /// assert!(r.rules_entries_per_second(2) < r.light_rules_entries_per_second(2));
    /// ```
    pub fn entries_per_second(&self, threads: usize) -> f64 {
        self.entries_per_cpu_second * self.parallel_efficiency * threads.max(1) as f64
    }

    /// Entries per second of wall time of the rule-aware pass with `threads` threads. (example at
    /// [`Rates::entries_per_second`])
    pub fn rules_entries_per_second(&self, threads: usize) -> f64 {
        self.rules_entries_per_cpu_second * self.parallel_efficiency * threads.max(1) as f64
    }

    /// Entries per second of wall time of the rule-aware pass of a table with many perpetual
    /// checks ([`perpetual_checks`]). (example at [`Rates::entries_per_second`])
    pub fn checks_rules_entries_per_second(&self, threads: usize) -> f64 {
        self.checks_rules_entries_per_cpu_second * self.parallel_efficiency * threads.max(1) as f64
    }

    /// Entries per second of wall time of the light rule-aware pass ([`RulesPass::Light`]).
    /// (example at [`Rates::entries_per_second`])
    pub fn light_rules_entries_per_second(&self, threads: usize) -> f64 {
        self.light_rules_entries_per_cpu_second * self.parallel_efficiency * threads.max(1) as f64
    }
}

/// Which kind of rule-aware pass a table gets, as the plan models it ([`rules_pass`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "lowercase"))]
pub enum RulesPass {
    /// One side has no attacking piece: the direction where it defends is skipped at once, the
    /// other after a scan finds no perpetual check (the case in every table of families A and B
    /// measured), and the plain values are handed on as the rule-aware ones, without a copy.
    Light,
    /// Attacking pieces on both sides: each direction is run in full unless a scan proves it
    /// changes nothing, which the plan cannot know before the solve, so it counts the full pass.
    Full,
    /// Many perpetual checks ([`perpetual_checks`]): the full pass with large cycle graphs.
    Checks,
}

impl RulesPass {
    /// Its name in `qiku-tb plan`'s output: `light`, `full` or `checks`.
    ///
    /// ```
    /// use qiku::tablebase::generate::{rules_pass, RulesPass};
    ///
    /// assert_eq!(rules_pass("KRvKN".parse()?).name(), "full");
    /// assert_eq!([RulesPass::Light, RulesPass::Checks].map(RulesPass::name), ["light", "checks"]);
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            RulesPass::Light => "light",
            RulesPass::Full => "full",
            RulesPass::Checks => "checks",
        }
    }
}

/// The rule-aware pass `material` gets: [`RulesPass::Checks`] for [`perpetual_checks`],
/// [`RulesPass::Light`] where one side has only its king, advisors and elephants (the pass skips
/// the direction where that side defends without looking at an entry: it never gives check; see
/// `src/tablebase/rules.rs`), else [`RulesPass::Full`].
///
/// ```
/// use qiku::tablebase::generate::{rules_pass, RulesPass};
///
/// assert_eq!(rules_pass("KRvKAABB".parse()?), RulesPass::Light); // family A
/// assert_eq!(rules_pass("KRNvKAB".parse()?), RulesPass::Light); // family B
/// assert_eq!(rules_pass("KRvKN".parse()?), RulesPass::Full);
/// assert_eq!(rules_pass("KRPvKR".parse()?), RulesPass::Checks);
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn rules_pass(material: Material) -> RulesPass {
    if perpetual_checks(material) {
        RulesPass::Checks
    } else if Color::ALL.iter().any(|&c| !material.side_has_attackers(c)) {
        RulesPass::Light
    } else {
        RulesPass::Full
    }
}

/// Attacking material of a side for [`perpetual_checks`]: rook 9, cannon 4.5, horse 4, pawn 1.
/// Advisors and elephants do not count: they never leave their own half, so they add no check
/// and no threat to the other side's king.
fn points(m: &Material, color: Color) -> f64 {
    let each = [(Role::Rook, 9.0), (Role::Cannon, 4.5), (Role::Horse, 4.0), (Role::Pawn, 1.0)];
    each.iter().map(|&(r, p)| p * f64::from(m.count(color, r))).sum()
}

/// Does the rule-aware pass of `material` have much to do: a side with a rook has less attacking
/// material than the other (KRNvKR, KRPvKR; not KRAvKR, whose advisor attacks nothing)? The
/// weaker side's rook then checks without end in many positions that every-cycle-a-draw calls
/// drawn and the Asian rules decide, so the pass's cycle analysis, its memory and its files are
/// several times those of other tables (measured: 3.7 to 7.3 bytes an entry at the peak and
/// 0.14 file bytes for KRPvKR, KRNvKR, KRCvKR and KRRvKR, 15% to 36% of their entries changed,
/// against about 2.3 bytes and at most 3% changed for the 40 other tables measured, KRAvKR,
/// KRBvKR, KRAAvKR, KRABvKR and KRBBvKR among them, and a pass 4 times slower than theirs).
///
/// ```
/// use qiku::tablebase::generate::perpetual_checks;
///
/// assert!(perpetual_checks("KRNvKR".parse()?));
/// assert!(!perpetual_checks("KPPvKR".parse()?)); // the rook is the stronger side's
/// assert!(!perpetual_checks("KRvKR".parse()?));
/// assert!(!perpetual_checks("KRAvKR".parse()?)); // the advisor attacks nothing
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn perpetual_checks(material: Material) -> bool {
    Color::ALL.into_iter().any(|c| weaker_rook(material, c))
}

/// Is `material` a [`perpetual_checks`] table where the stronger side has two rooks against the
/// weaker side's rook (KRRvKR, KRRvKRA)? Both sides then check without end in many positions,
/// and the rule-aware pass's cycle graphs take about 6.7 bytes an entry at the peak (measured:
/// KRRvKR 6.8, KRRvKRA 6.8, KRRvKRB 6.2) against 3.5 to 4.4 for the other tables with many
/// perpetual checks (KRPvKR, KRCvKR, KRNvKR), although few of their entries change (0.016 file
/// bytes an entry for the `.qtr` and `.qtw` files of KRRvKR against 0.138).
///
/// ```
/// use qiku::tablebase::generate::rook_pair_checks;
///
/// assert!(rook_pair_checks("KRRvKR".parse()?));
/// assert!(rook_pair_checks("KRRvKRA".parse()?));
/// assert!(!rook_pair_checks("KRNvKR".parse()?));
/// assert!(!rook_pair_checks("KRRvKN".parse()?)); // no rook for the weaker side
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn rook_pair_checks(material: Material) -> bool {
    Color::ALL.into_iter().any(|c| weaker_rook(material, c) && material.count(!c, Role::Rook) >= 2)
}

/// Has `color` a rook and less attacking material than the other side (the side of
/// [`perpetual_checks`] whose rook checks without end)?
pub(crate) fn weaker_rook(material: Material, color: Color) -> bool {
    material.count(color, Role::Rook) > 0 && points(&material, color) < points(&material, !color)
}

/// The figures of a table with more pieces than an index has slots: not counted (`u64::MAX`).
pub const UNCOUNTED: u64 = u64::MAX;

/// One table of a plan with its estimates.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlannedTable {
    /// The material (canonical).
    #[cfg_attr(feature = "serde", serde(serialize_with = "as_string"))]
    pub material: Material,
    /// Pieces, kings included.
    pub pieces: usize,
    /// Selected for itself (false: only needed by a selected table's captures).
    pub target: bool,
    /// Entries (both sides to move) under today's index scheme; [`UNCOUNTED`] (and `null` in
    /// JSON, as the figures below) for a table of more pieces than an index has slots, which has
    /// no such scheme (and no estimate: its `seconds` are NaN, `null` in JSON).
    #[cfg_attr(feature = "serde", serde(serialize_with = "counted"))]
    pub entries: u64,
    /// Estimated peak resident memory while it is solved, smaller tables held included.
    #[cfg_attr(feature = "serde", serde(serialize_with = "counted"))]
    pub peak_memory_bytes: u64,
    /// Estimated size of its files: the `.qtb`, and with the rule-aware pass the `.qtr` and
    /// `.qtw` too.
    #[cfg_attr(feature = "serde", serde(serialize_with = "counted"))]
    pub disk_bytes: u64,
    /// Of which the `.qtr` and `.qtw` files (0 without the rule-aware pass).
    #[cfg_attr(feature = "serde", serde(serialize_with = "counted"))]
    pub rules_disk_bytes: u64,
    /// Estimated generation time.
    pub seconds: f64,
    /// The kind of rule-aware pass counted ([`rules_pass`]); `None` without the pass.
    pub rules_pass: Option<RulesPass>,
    /// Why the generator cannot do it yet (`None`: it can).
    pub unsupported: Option<String>,
    /// The tables its captures lead to ([`inputs`]): what a job generating it alone reads.
    #[cfg_attr(feature = "serde", serde(serialize_with = "as_strings"))]
    pub inputs: Vec<Material>,
    /// Estimated peak resident memory of generating it alone (`qiku-tb generate --only`),
    /// holding only its inputs: what a workflow job asks for.
    #[cfg_attr(feature = "serde", serde(serialize_with = "counted"))]
    pub job_peak_memory_bytes: u64,
}

/// A figure of a table with more pieces than an index has slots ([`UNCOUNTED`]): `null` in JSON.
#[cfg(feature = "serde")]
fn counted<S: serde::Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
    match *n {
        UNCOUNTED => s.serialize_none(),
        n => s.serialize_u64(n),
    }
}

#[cfg(feature = "serde")]
fn as_string<S: serde::Serializer>(m: &Material, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(m)
}

#[cfg(feature = "serde")]
fn as_strings<S: serde::Serializer>(list: &[Material], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(list.iter().map(|m| m.to_string()))
}

/// Sums over a plan.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Totals {
    /// Tables in the plan.
    pub tables: usize,
    /// Of which selected for themselves.
    pub targets: usize,
    /// Of which the generator cannot do yet.
    pub unsupported: usize,
    /// Entries of all tables the generator can do (this and the figures below leave out the
    /// `unsupported` ones).
    pub entries: u64,
    /// The largest peak memory of one table (tables are solved one at a time).
    pub peak_memory_bytes: u64,
    /// All files.
    pub disk_bytes: u64,
    /// All tables, one after the other.
    pub seconds: f64,
}

/// The tables `material`'s captures lead to (canonical, with an attacking piece, each once, in
/// a fixed order): the decoded tables its generation reads.
///
/// ```
/// use qiku::tablebase::generate::inputs;
///
/// let names = |m: &str| -> Result<Vec<String>, qiku::tablebase::MaterialError> {
///     Ok(inputs(m.parse()?).iter().map(|m| m.to_string()).collect())
/// };
/// assert_eq!(names("KAvKRN")?, ["KNvKA", "KRNvK", "KRvKA"]); // canonical, each capture once
/// assert!(names("KRvK")?.is_empty()); // KvK is a dead draw: no table to read
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn inputs(material: Material) -> Vec<Material> {
    let mut out: Vec<Material> = Vec::new();
    for (_, _, sub) in material.canonical().0.captures() {
        let sub = sub.canonical().0;
        if sub.has_attackers() && !out.contains(&sub) {
            out.push(sub);
        }
    }
    out.sort_by_key(|m| (m.piece_count(), m.to_string()));
    out
}

/// For every table of `plan` (in order) that a later table captures into, the position of the
/// last such table: a decoded table is needed until then, and no longer.
///
/// ```
/// use qiku::tablebase::generate::last_uses;
/// use qiku::tablebase::Material;
///
/// let plan: Vec<Material> = ["KRvK", "KRvKA", "KRvKAA"].iter().map(|m| m.parse()).collect::<Result<_, _>>()?;
/// let last = last_uses(&plan);
/// assert_eq!((last.get(&plan[0]), last.get(&plan[1])), (Some(&1), Some(&2))); // KRvKA, KRvKAA
/// assert_eq!(last.get(&plan[2]), None); // no later table captures into KRvKAA
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn last_uses(plan: &[Material]) -> HashMap<Material, usize> {
    let mut last = HashMap::new();
    for (i, m) in plan.iter().enumerate() {
        for (_, _, sub) in m.captures() {
            let sub = sub.canonical().0;
            if sub.has_attackers() {
                last.insert(sub, i);
            }
        }
    }
    last
}

/// For every table of `plan` (in order, `entries` its sizes: entries, times the decoded copies
/// held), the entries the driver holds while solving it: earlier tables j still captured into by it or a later table (last use l >= i),
/// that is table j is held for i in j+1..=l. One sweep over the changes at each i, so that the
/// largest plans (a hundred thousand tables) take linear time. Sums past `u64` saturate.
fn held_entries(plan: &[Material], entries: &[u64]) -> Vec<u64> {
    let last = last_uses(plan);
    let mut change = vec![0i128; plan.len() + 1];
    for (j, m) in plan.iter().enumerate() {
        if let Some(&l) = last.get(m).filter(|&&l| l > j) {
            change[j + 1] += i128::from(entries[j]);
            change[l + 1] -= i128::from(entries[j]);
        }
    }
    let mut now = 0i128;
    change[..plan.len()]
        .iter()
        .map(|c| {
            now += c;
            u64::try_from(now).unwrap_or(u64::MAX)
        })
        .collect()
}

/// The estimates for every table of a resolved selection, in its order, and their totals, for a
/// generation with `threads` threads, with the rule-aware pass (`rules`, the default of
/// `qiku-tb generate`) or without it (`--no-rules`).
///
/// ```
/// use qiku::tablebase::generate::{estimate, Rates, Selection};
///
/// let every_five = Selection::new().max_pieces(5).resolve()?;
/// let (tables, totals) = estimate(&every_five, &Rates::MEASURED, 2, true);
/// assert_eq!((tables.len(), totals.tables, totals.unsupported), (209, 209, 0));
/// assert_eq!(totals.entries, 2_232_493_150);
/// // Tables are solved one at a time: the peak is the largest table's.
/// assert_eq!(totals.peak_memory_bytes, tables.iter().map(|t| t.peak_memory_bytes).max().unwrap());
/// // More threads, less time; the same work.
/// let (_, faster) = estimate(&every_five, &Rates::MEASURED, 4, true);
/// assert!(faster.seconds < totals.seconds && faster.entries == totals.entries);
/// # Ok::<(), qiku::tablebase::generate::SelectError>(())
/// ```
pub fn estimate(resolved: &Resolved, rates: &Rates, threads: usize, rules: bool) -> (Vec<PlannedTable>, Totals) {
    let plan = &resolved.plan;
    let entries: Vec<u64> = plan.iter().map(entries_of).collect();
    let passes: Vec<Option<RulesPass>> = plan.iter().map(|m| rules.then(|| rules_pass(*m))).collect();
    // A held table's values: one array for both rules, and where the pass may change entries a
    // bit per entry for the changed ones (an eighth of a byte: a sixteenth of the 2-byte codes).
    // A table the generator cannot do is never decoded, so never held.
    let held_sizes: Vec<u64> = plan
        .iter()
        .zip(&entries)
        .zip(&passes)
        .map(|((m, &e), p)| match solve::check_supported(m) {
            Err(_) => 0,
            Ok(()) if matches!(p, None | Some(RulesPass::Light)) => e,
            Ok(()) => e.saturating_add(e / 16),
        })
        .collect();
    let held_by = held_entries(plan, &held_sizes);
    let targets: std::collections::HashSet<&Material> = resolved.targets.iter().collect();
    let mut tables = Vec::with_capacity(plan.len());
    let mut totals = Totals { tables: plan.len(), ..Totals::default() };
    for (i, m) in plan.iter().enumerate() {
        let own_inputs = inputs(*m);
        let input_entries: u64 = own_inputs.iter().map(entries_of).sum();
        let e = entries[i] as f64;
        let held = rates.held_bytes_per_entry * held_by[i] as f64;
        // Alone (`--only`), a job reads every input plain and, with the pass, rule-aware too, and
        // keeps one array of each with a bit per entry for the changed ones.
        let copies = if rules { 1.0625 } else { 1.0 };
        let job_held = rates.held_bytes_per_entry * copies * input_entries as f64;
        let per_entry =
            if m.piece_count() <= 4 { rates.small_disk_bytes_per_entry } else { rates.disk_bytes_per_entry };
        let mut disk = rates.file_overhead_bytes + per_entry * e;
        let mut rules_disk = 0.0;
        let mut seconds = e / rates.entries_per_second(threads);
        // Bytes per entry of the table at the peak: the solve's, or the pass's if larger.
        let mut own = rates.solver_bytes_per_entry;
        if let Some(pass) = passes[i] {
            let (bytes, disk_rate, speed) = match pass {
                RulesPass::Light => (
                    rates.light_rules_bytes_per_entry,
                    rates.rules_disk_bytes_per_entry,
                    rates.light_rules_entries_per_second(threads),
                ),
                RulesPass::Full => (
                    rates.rules_bytes_per_entry,
                    rates.rules_disk_bytes_per_entry,
                    rates.rules_entries_per_second(threads),
                ),
                RulesPass::Checks => (
                    rates.checks_rules_bytes_of(*m),
                    rates.checks_rules_disk_bytes_per_entry,
                    rates.checks_rules_entries_per_second(threads),
                ),
            };
            own = own.max(bytes);
            rules_disk = 2.0 * rates.file_overhead_bytes + disk_rate * e;
            disk += rules_disk;
            seconds += e / speed;
        }
        let memory = rates.base_bytes + own * e + held;
        let job_memory = rates.base_bytes + own * e + job_held;
        let unsupported = solve::check_supported(m).err().map(|e| e.to_string());
        // Past an index's slots there is no count of entries to estimate from.
        let counted = m.piece_count() <= MAX_PIECES;
        let figure = |x: f64| if counted { x as u64 } else { UNCOUNTED };
        let row = PlannedTable {
            material: *m,
            pieces: m.piece_count(),
            target: targets.contains(m),
            entries: if counted { entries[i] } else { UNCOUNTED },
            peak_memory_bytes: figure(memory),
            disk_bytes: figure(disk),
            rules_disk_bytes: figure(rules_disk),
            seconds: if counted { seconds } else { f64::NAN },
            rules_pass: passes[i],
            unsupported,
            inputs: own_inputs,
            job_peak_memory_bytes: figure(job_memory),
        };
        totals.targets += row.target as usize;
        totals.unsupported += row.unsupported.is_some() as usize;
        // A table the generator cannot do has no cost to add up (its entries may not even fit a
        // number): the totals are those of the work that can be done.
        if row.unsupported.is_none() {
            totals.entries = totals.entries.saturating_add(row.entries);
            totals.peak_memory_bytes = totals.peak_memory_bytes.max(row.peak_memory_bytes);
            totals.disk_bytes = totals.disk_bytes.saturating_add(row.disk_bytes);
            totals.seconds += row.seconds;
        }
        tables.push(row);
    }
    (tables, totals)
}

/// How a table is generated under a memory budget (`--memory`).
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "mode", rename_all = "snake_case"))]
pub enum MemoryMode {
    /// Its estimated peak (`needs` bytes, generated alone with its inputs) fits the budget.
    InMemory {
        /// The estimated peak in bytes.
        needs: u64,
    },
    /// Its working arrays go to scratch files: `needs` bytes in memory would not fit, `resident`
    /// bytes must stay in memory (the solver's bookkeeping and the rule-aware pass's
    /// perpetual-check graph, which are not paged; its decoded inputs are), and it takes about `slowdown` times as
    /// long.
    Paged {
        /// The estimated peak in memory, in bytes.
        needs: u64,
        /// The estimated bytes that stay in memory when paged.
        resident: u64,
        /// The smallest budget it can be paged within: `resident` and the least working set
        /// paging needs (a smaller `--memory` refuses the table).
        least_budget: u64,
        /// The estimated factor on its time.
        slowdown: f64,
    },
    /// Not at all: even paged, `resident` bytes must stay in memory, over the budget.
    Refused {
        /// The estimated peak in memory, in bytes.
        needs: u64,
        /// The estimated bytes that must stay in memory (with the least working set paging
        /// needs).
        resident: u64,
    },
}

/// The least a paged table's working set may have besides what stays in memory.
const PAGED_MIN_WORKING_SET: u64 = 64 << 20;

/// How `material` (canonical) is generated within `budget` bytes, alone with its inputs (the
/// estimate of [`PlannedTable::job_peak_memory_bytes`]), with or without the rule-aware pass.
///
/// ```
/// use qiku::tablebase::generate::{memory_mode, MemoryMode};
///
/// let krpvkcc = "KRPvKCC".parse()?;
/// assert!(matches!(memory_mode(krpvkcc, true, 16 << 30), MemoryMode::InMemory { .. }));
/// assert!(matches!(memory_mode(krpvkcc, true, 1 << 30), MemoryMode::Paged { .. }));
/// assert!(matches!(memory_mode(krpvkcc, true, 100 << 20), MemoryMode::Refused { .. }));
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn memory_mode(material: Material, rules: bool, budget: u64) -> MemoryMode {
    memory_mode_with(&Rates::MEASURED, material, rules, budget)
}

fn memory_mode_with(rates: &Rates, material: Material, rules: bool, budget: u64) -> MemoryMode {
    let resolved = Resolved { targets: vec![material], plan: vec![material], dead: Vec::new(), excluded: Vec::new() };
    let (rows, _) = estimate(&resolved, rates, 1, rules);
    let row = &rows[0];
    let needs = row.job_peak_memory_bytes;
    if needs <= budget {
        return MemoryMode::InMemory { needs };
    }
    // The decoded inputs are paged with the table. The rule-aware pass's perpetual-check graph is
    // not: where checks go on without end it is most of that pass's bytes beyond the codes.
    let graph = match row.rules_pass {
        Some(RulesPass::Checks) => (rates.checks_rules_bytes_of(material) - rates.rules_bytes_per_entry).max(0.0),
        _ => 0.0,
    };
    let per_entry = rates.paged_resident_bytes_per_entry + graph;
    let resident = (rates.base_bytes + per_entry * row.entries as f64) as u64;
    if resident.saturating_add(PAGED_MIN_WORKING_SET) > budget {
        return MemoryMode::Refused { needs, resident: resident.saturating_add(PAGED_MIN_WORKING_SET) };
    }
    MemoryMode::Paged {
        needs,
        resident,
        least_budget: resident.saturating_add(PAGED_MIN_WORKING_SET),
        slowdown: rates.paged_slowdown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::select::{Family, Filters, Selection};

    #[test]
    fn estimates_follow_entries_and_held_tables() {
        let rates = Rates {
            entries_per_cpu_second: 0.5e6,
            parallel_efficiency: 1.0,
            disk_bytes_per_entry: 0.5,
            solver_bytes_per_entry: 4.0,
            held_bytes_per_entry: 2.0,
            base_bytes: 0.0,
            rules_entries_per_cpu_second: 0.25e6,
            rules_bytes_per_entry: 20.0,
            rules_disk_bytes_per_entry: 0.25,
            small_disk_bytes_per_entry: 0.5,
            file_overhead_bytes: 0.0,
            checks_rules_entries_per_cpu_second: 0.25e6,
            checks_rules_bytes_per_entry: 20.0,
            rook_pair_checks_rules_bytes_per_entry: 20.0,
            checks_rules_disk_bytes_per_entry: 0.25,
            light_rules_entries_per_cpu_second: 0.5e6,
            light_rules_bytes_per_entry: 10.0,
            paged_resident_bytes_per_entry: 0.1,
            paged_slowdown: 2.0,
        };
        let sel = Selection { materials: vec!["KRvKA".parse().unwrap()], ..Selection::default() };
        let (rows, totals) = estimate(&sel.resolve().unwrap(), &rates, 2, false);
        let krvk = 2 * 45 * 90;
        // The black camp (king and advisor) has 40 placements, 19 primary and 2 symmetric.
        let krvka = 2 * (3 * 40 + 3 * 21) * 90;
        assert_eq!(
            rows.iter().map(|r| (r.material.to_string(), r.target)).collect::<Vec<_>>(),
            [("KRvK".to_string(), false), ("KRvKA".to_string(), true)]
        );
        assert_eq!(rows[0].peak_memory_bytes, 4 * krvk);
        // KRvK is held (2 bytes an entry) while KRvKA is solved.
        assert_eq!(rows[1].peak_memory_bytes, 4 * krvka + 2 * krvk);
        assert_eq!(rows[1].disk_bytes, krvka / 2);
        // Alone (one workflow job), KRvKA holds its one input, KRvK, as well.
        assert_eq!(rows[1].inputs, ["KRvK".parse::<Material>().unwrap()]);
        assert_eq!(rows[1].job_peak_memory_bytes, rows[1].peak_memory_bytes);
        assert!(rows[0].inputs.is_empty());
        assert_eq!(totals.entries, krvk + krvka);
        assert_eq!(totals.peak_memory_bytes, rows[1].peak_memory_bytes);
        assert!((totals.seconds - (krvk + krvka) as f64 / 1e6).abs() < 1e-9);
        assert_eq!((totals.tables, totals.targets, totals.unsupported), (2, 1, 0));
        assert!(rows.iter().all(|r| r.rules_pass.is_none()));
        // With the rule-aware pass: both tables have a side without attacking pieces, so the
        // light pass: its memory (KRvK held once: its rule-aware values are its plain ones; a job
        // alone reads both and keeps one array with a bit per entry), the companion and WDL files,
        // its time.
        let (with, totals_with) = estimate(&sel.resolve().unwrap(), &rates, 2, true);
        assert!(with.iter().all(|r| r.rules_pass == Some(RulesPass::Light)));
        assert_eq!(with[1].peak_memory_bytes, 10 * krvka + 2 * krvk);
        assert_eq!(with[1].job_peak_memory_bytes, ((10 * krvka) as f64 + 2.0 * 1.0625 * krvk as f64) as u64);
        assert_eq!(with[1].disk_bytes, krvka / 2 + krvka / 4);
        assert!((totals_with.seconds - 2.0 * (krvk + krvka) as f64 / 1e6).abs() < 1e-9);
        // Attacking pieces on both sides: the full pass, and a held table that had it is held
        // once, with a bit per entry for the entries the rules changed.
        let sel = Selection { materials: vec!["KRNvKN".parse().unwrap()], ..Selection::default() };
        let (rows, _) = estimate(&sel.resolve().unwrap(), &rates, 2, true);
        let row = |name: &str| rows.iter().find(|r| r.material.to_string() == name).unwrap();
        let e = |name: &str| entries_of(&name.parse().unwrap());
        assert_eq!(row("KRNvKN").rules_pass, Some(RulesPass::Full));
        assert_eq!(row("KRNvK").rules_pass, Some(RulesPass::Light));
        assert_eq!(row("KRNvKN").inputs.len(), 3);
        let held = e("KRNvK") + e("KRvKN") + e("KRvKN") / 16 + e("KNvKN") + e("KNvKN") / 16;
        assert_eq!(row("KRNvKN").peak_memory_bytes, 20 * e("KRNvKN") + 2 * held);
        let inputs = e("KRNvK") + e("KRvKN") + e("KNvKN");
        assert_eq!(
            row("KRNvKN").job_peak_memory_bytes,
            ((20 * e("KRNvKN")) as f64 + 2.0 * 1.0625 * inputs as f64) as u64
        );
    }

    #[test]
    fn unsupported_tables_are_named() {
        // Family A goes up to 11 pieces (KRAABBvKAABB): within the index's 12 slots.
        let sel = Selection { family: Some(Family::A), ..Selection::default() };
        let (rows, totals) = estimate(&sel.resolve().unwrap(), &Rates::MEASURED, 2, true);
        assert_eq!((totals.tables, totals.unsupported), (324, 0));
        assert_eq!(rows.iter().map(|r| r.pieces).max(), Some(11));
        // More pieces than the index has slots for.
        let sel = Selection { materials: vec!["KRRAABBvKPAABB".parse().unwrap()], ..Selection::default() };
        let (rows, totals) = estimate(&sel.resolve().unwrap(), &Rates::MEASURED, 2, true);
        let big = rows.last().unwrap();
        assert_eq!(big.pieces, 13);
        assert!(big.unsupported.as_deref().unwrap().contains("more than 12 pieces"), "{big:?}");
        // Its dependencies have at most 12 pieces; the largest have too many entries.
        let by_entries = rows.iter().filter(|r| r.entries > solve::MAX_ENTRIES && r.pieces <= 12).count();
        assert_eq!(totals.unsupported, 1 + by_entries);
        // It has no count of entries, and so no estimate.
        let figures =
            [big.entries, big.peak_memory_bytes, big.disk_bytes, big.rules_disk_bytes, big.job_peak_memory_bytes];
        assert_eq!(figures, [UNCOUNTED; 5]);
        assert!(big.seconds.is_nan());
        // The totals are the tables that can be done: none of the others is held while they are
        // solved (they are never decoded), so the peak is one of theirs alone, held tables
        // included.
        let can: Vec<&PlannedTable> = rows.iter().filter(|r| r.unsupported.is_none()).collect();
        assert!(!can.is_empty());
        assert_eq!(Some(totals.peak_memory_bytes), can.iter().map(|r| r.peak_memory_bytes).max());
        assert_eq!(totals.entries, can.iter().map(|r| r.entries).sum::<u64>());
        // With tables past an index's slots among the dependencies (15 pieces), held until the
        // 16-piece table they lead to: not counted as held (they were, as 2^64 entries each).
        let sel = Selection { materials: vec!["KRNCPPPPPAABBvKRR".parse().unwrap()], ..Selection::default() };
        let (rows, totals) = estimate(&sel.resolve().unwrap(), &Rates::MEASURED, 2, true);
        assert!(rows.iter().filter(|r| r.pieces == 15).count() > 1);
        // At most the largest table's own arrays (under 7 bytes an entry with any pass) and every
        // other table that can be done held beside it.
        let can = rows.iter().filter(|r| r.unsupported.is_none());
        let all_held = 2.2 * can.clone().map(|r| r.entries as f64).sum::<f64>();
        let largest_own = 7.0 * can.map(|r| r.entries).max().unwrap() as f64;
        assert!((totals.peak_memory_bytes as f64) < largest_own + all_held, "peak {}", totals.peak_memory_bytes);
        // Six pieces: every table, the largest (past 32-bit entry numbers) included.
        let sel = Selection { filters: Filters { max_pieces: Some(6), ..Filters::default() }, ..Selection::default() };
        let (rows, totals) = estimate(&sel.resolve().unwrap(), &Rates::MEASURED, 2, true);
        let krnc = rows.iter().find(|r| r.material.to_string() == "KRNCvKR").unwrap();
        assert_eq!(krnc.entries, 5_904_900_000);
        assert!(krnc.entries > u64::from(u32::MAX) && krnc.unsupported.is_none(), "{krnc:?}");
        assert!(solve::check_supported(&krnc.material).is_ok());
        assert_eq!((totals.tables, totals.unsupported), (831, 0));
    }

    #[test]
    fn two_rooks_against_a_rook_get_the_larger_graph() {
        let rates = Rates::MEASURED;
        let job = |m: &str, rules: bool| {
            let sel = Selection { materials: vec![m.parse().unwrap()], ..Selection::default() };
            let (rows, _) = estimate(&sel.resolve().unwrap(), &rates, 2, rules);
            rows.into_iter().last().unwrap()
        };
        let inputs = |row: &PlannedTable| row.inputs.iter().map(entries_of).sum::<u64>() as f64;
        for (m, bytes) in
            [("KRRvKR", rates.rook_pair_checks_rules_bytes_per_entry), ("KRNvKR", rates.checks_rules_bytes_per_entry)]
        {
            let row = job(m, true);
            assert_eq!(row.rules_pass, Some(RulesPass::Checks), "{m}");
            let own = row.job_peak_memory_bytes as f64 - rates.base_bytes;
            let held = rates.held_bytes_per_entry * 1.0625 * inputs(&row);
            assert!((own - held - bytes * row.entries as f64).abs() < 2.0, "{m}: {row:?}");
            // Without the rule-aware pass both are planned at the solver's bytes.
            let plain = job(m, false);
            let expected = rates.base_bytes
                + rates.solver_bytes_per_entry * plain.entries as f64
                + rates.held_bytes_per_entry * inputs(&plain);
            assert!((plain.job_peak_memory_bytes as f64 - expected).abs() < 2.0, "{m}: {plain:?}");
        }
    }

    #[test]
    fn held_entries_in_one_sweep_are_the_quadratic_sums() {
        let plan = Selection::new().max_pieces(5).resolve().unwrap().plan;
        let entries: Vec<u64> = plan.iter().map(entries_of).collect();
        let last = last_uses(&plan);
        let quadratic: Vec<u64> = (0..plan.len())
            .map(|i| (0..i).filter(|&j| last.get(&plan[j]).is_some_and(|&l| l >= i)).map(|j| entries[j]).sum())
            .collect();
        assert_eq!(held_entries(&plan, &entries), quadratic);
        assert!(quadratic.iter().filter(|&&h| h > 0).count() > 100, "a plan that holds tables");
    }

    #[test]
    fn held_tables_are_dropped_after_their_last_user() {
        let plan: Vec<Material> = ["KRvK", "KNvK", "KRvKA", "KRNvK"].iter().map(|s| s.parse().unwrap()).collect();
        let last = last_uses(&plan);
        assert_eq!(last.get(&plan[0]), Some(&3));
        assert_eq!(last.get(&plan[1]), Some(&3));
        assert_eq!(last.get(&plan[2]), None);
    }

    #[test]
    fn inputs_are_the_captured_tables_with_attackers() {
        let names = |m: &str| inputs(m.parse().unwrap()).iter().map(|m| m.to_string()).collect::<Vec<_>>();
        // KRNvKR: capturing a rook leaves KNvKR (canonical KRvKN) or KRNvK; the horse, KRvKR.
        assert_eq!(names("KRNvKR"), ["KRNvK", "KRvKN", "KRvKR"]);
        // Either color order, the same inputs; capturing the lone attacker leaves a dead draw.
        assert_eq!(names("KAvKR"), names("KRvKA"));
        assert_eq!(names("KRvKA"), ["KRvK"]);
        assert!(names("KRvK").is_empty());
    }
}
