//! Tests of the evaluation: the king zone, the tables' symmetry, the start position, the
//! summed-per-role form against the piece-by-piece reference, the safe checks against the move
//! generator, and the weak squares of the king zone.

use super::*;

#[test]
fn king_zone_is_the_square_and_its_eight_neighbours() {
    for i in 0..90 {
        let k = Square::from_index_unchecked(i);
        let mut expected = Bitboard::from_square(k);
        for (df, dr) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
            if let Some(s) = k.offset(df, dr) {
                expected = expected.with(s);
            }
        }
        assert_eq!(king_zone(k), expected, "{k}");
    }
}

#[test]
fn tables_are_left_right_symmetric() {
    for (role, table) in PST.iter().chain(&PST_EG).enumerate() {
        for row in table.iter() {
            for f in 0..9 {
                assert_eq!(row[f], row[8 - f], "table {role}");
            }
        }
    }
}

#[test]
fn start_position_is_level_but_for_the_tempo() {
    let red = Position::startpos();
    let black = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b").unwrap();
    let (r, b) = (breakdown(&red, &Weights::DEFAULT), breakdown(&black, &Weights::DEFAULT));
    for x in [&r, &b] {
        assert_eq!((x.material, x.pst, x.mobility, x.king_safety, x.structure), (0, 0, 0, 0, 0), "{x:?}");
        assert_eq!(x.phase, PHASE_MAX);
    }
    // What remains is the side to move's bonus: nothing is threatened (the horses under the
    // enemy cannons are defended and worth less than a cannon in exchange values).
    assert_eq!(r.relations, 0, "{r:?}");
    assert_eq!(r.total, Weights::DEFAULT.tempo, "{r:?}");
    assert_eq!(r.total, -b.total);
}

/// The placement terms square by square, as [`structure`] defines them.
fn slow_structure(pos: &Position, c: Color, horse_reach: Pair, w: &Weights) -> Pair {
    let file_has = |color: Color, file: usize| {
        Iterator::any(&mut pos.pieces(Piece::new(color, Role::Pawn)).into_iter(), |p: Square| p.index() % 9 == file)
    };
    let mut v = horse_reach;
    let mut add = |x: Pair| {
        v.mg += x.mg;
        v.eg += x.eg;
    };
    for sq in pos.pieces(Piece::new(c, Role::Rook)) {
        let file = sq.index() % 9;
        if !file_has(c, file) {
            add(if file_has(!c, file) { w.rook_half_open_file } else { w.rook_open_file });
        }
    }
    let pawns = pos.pieces(Piece::new(c, Role::Pawn));
    for sq in pawns {
        let across = if c == Color::Red { sq.index() / 9 >= 5 } else { sq.index() / 9 <= 4 };
        let next = Square::from_coords((sq.index() % 9) as i32 + 1, (sq.index() / 9) as i32);
        if across && next.is_some_and(|n| pawns.contains(n)) {
            add(w.connected_pawns);
        }
    }
    let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() + pos.pieces(Piece::new(c, Role::Elephant)).count();
    if guards == 4 {
        add(w.guards_complete);
    }
    v
}

/// The evaluation as first written, piece by piece: the summed-per-role form above must give
/// the same value term for term (and `evaluate`, compiled with POPCNT where available, the
/// same total).
fn reference_breakdown(pos: &Position, w: &Weights) -> Breakdown {
    let tables = &PieceSquareTables::DEFAULT;
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);
    let mut material = [0; 2];
    let mut pst_sum = [Pair { mg: 0, eg: 0 }; 2];
    let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
    let mut horse_reach = [Pair { mg: 0, eg: 0 }; 2];
    let mut att =
        Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2], cannon_moves: [Bitboard::EMPTY; 2] };
    let mut pressure = [0i32; 2];
    let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];
    for c in Color::ALL {
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        for r in Role::ALL {
            let piece = Piece::new(c, r);
            for sq in pos.pieces(piece) {
                material[c.index()] += taper(tables.material[r.index()], phase);
                let v = tables.pst(piece, sq);
                pst_sum[c.index()].mg += v.mg;
                pst_sum[c.index()].eg += v.eg;
                let a = piece_attacks(piece, sq, occ);
                att.by_role[c.index()][r.index()] |= a;
                let reach = match r {
                    Role::Cannon => (attacks::rook_attacks(sq, occ) - occ) | (a & them),
                    _ => a - own,
                };
                if r == Role::Cannon {
                    att.cannon_moves[c.index()] |= reach;
                }
                let n = reach.count() as i32;
                let mw = w.mobility[r.index()];
                mobility[c.index()].mg += mw.mg * n;
                mobility[c.index()].eg += mw.eg * n;
                if r == Role::Horse {
                    horse_reach[c.index()].mg += w.horse_reach[n as usize].mg;
                    horse_reach[c.index()].eg += w.horse_reach[n as usize].eg;
                }
                if (a & zones[(!c).index()]).any() {
                    pressure[c.index()] += match r {
                        Role::Rook | Role::Horse => 3,
                        Role::Cannon | Role::Pawn => 2,
                        _ => 0,
                    };
                }
            }
        }
        att.all[c.index()] = att.by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    }
    // The imbalance from its definition: products of role counts.
    let count = |c: Color, r: Role| pos.pieces(Piece::new(c, r)).count() as i32;
    for c in Color::ALL {
        let mut sum = 0;
        for ri in Role::ALL.into_iter().skip(1) {
            for rj in Role::ALL.into_iter().skip(1) {
                if rj.index() >= ri.index() {
                    sum += w.imbalance_own[ri.index()][rj.index()] * count(c, ri) * count(c, rj);
                }
                sum += w.imbalance_them[ri.index()][rj.index()] * count(c, ri) * count(!c, rj);
            }
        }
        material[c.index()] += sum / 16;
    }
    let relations = |c: Color| {
        let (us, them) = (c.index(), (!c).index());
        let mut bonus = 0;
        let mut threats = TopThreats::default();
        for sq in pos.by_color(c) - pos.by_role(Role::King) {
            let Some(piece) = pos.piece_at(sq) else { continue };
            let defended = att.all[us].contains(sq);
            if defended {
                bonus += w.defended[piece.role.index()];
            }
            if !att.all[them].contains(sq) {
                continue;
            }
            threats.add(threat_size(piece.role, defended, sq, &att.by_role[them]));
        }
        if pos.turn() == c {
            bonus -= (threats.first * w.threat_first + threats.second * w.threat_second) / 64;
        }
        bonus
    };
    let relations = [relations(Color::Red), relations(Color::Black)];
    let safety = [
        king_safety(pos, &att, Color::Red, pressure[1], phase, w),
        king_safety(pos, &att, Color::Black, pressure[0], phase, w),
    ];
    let structure =
        [slow_structure(pos, Color::Red, horse_reach[0], w), slow_structure(pos, Color::Black, horse_reach[1], w)];
    // The per-side terms are what this reference computes its own way; summing them is shared.
    let b = Sides { phase, material, pst: pst_sum, mobility, relations, safety, structure }.breakdown(pos.turn(), w);
    scale_drawish(pos, b)
}

#[test]
fn breakdown_equals_the_piece_by_piece_reference() {
    // Random games (a fixed-seed generator) from the start and from a middlegame, every
    // position checked with the default and the basic weights.
    let starts = [
        Position::startpos(),
        Position::from_fen("2bakab2/5r3/1cn1c1n2/2C1p1p1p/9/1p4P2/P1r1P3P/1RN1C1N2/4A4/2BAK1BR1 w - - 2 13").unwrap(),
    ];
    // Imbalance weights of both signs, each pair different, so that a swapped index shows.
    let mut skewed = Weights::DEFAULT;
    for i in 0..7 {
        for j in 0..7 {
            skewed.imbalance_own[i][j] = (i * 7 + j) as Value - 24;
            skewed.imbalance_them[i][j] = 17 - (i * 5 + j * 3) as Value;
        }
    }
    let mut checked = 0;
    for start in &starts {
        random_games(start, 40, 120, 0x9e37_79b9_7f4a_7c15, |pos| {
            for w in [Weights::DEFAULT, Weights::BASIC, skewed] {
                let b = breakdown(pos, &w);
                assert_eq!(b, reference_breakdown(pos, &w), "{}", pos.fen());
                // `evaluate` (with POPCNT where the CPU has it) agrees with the portable code.
                let v = if pos.turn() == Color::Red { b.total } else { -b.total };
                assert_eq!(evaluate(pos, &w), v, "{}", pos.fen());
            }
            checked += 1;
        });
    }
    assert!(checked > 5_000, "{checked}");
}

/// Calls `f` on every position of `games` random games of at most `plies` plies from `start`
/// (a fixed-seed generator, so the same positions every run).
fn random_games(start: &Position, games: usize, plies: usize, mut seed: u64, mut f: impl FnMut(&Position)) {
    for _game in 0..games {
        let mut pos = start.clone();
        for _ply in 0..plies {
            f(&pos);
            let moves = pos.moves();
            if moves.is_empty() {
                break;
            }
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            pos.make_move(moves[(seed >> 33) as usize % moves.len()]);
        }
    }
}

/// Each side's attacks by role, piece by piece.
fn attack_maps(pos: &Position) -> [[Bitboard; 7]; 2] {
    let occ = pos.occupied();
    let mut by_role = [[Bitboard::EMPTY; 7]; 2];
    for side in Color::ALL {
        for r in Role::ALL {
            for sq in pos.pieces(Piece::new(side, r)) {
                by_role[side.index()][r.index()] |= piece_attacks(Piece::new(side, r), sq, occ);
            }
        }
    }
    by_role
}

#[test]
fn safe_checks_match_the_moves_to_checking_squares() {
    // For each side of positions from random games: the squares an enemy rook, horse or cannon
    // can move to (the move generator's), from which that piece would attack the king (its
    // own attack function from there, the board otherwise unchanged), not attacked by the
    // king's side.
    let (mut checked, mut found) = (0, [0; 3]);
    random_games(&Position::startpos(), 30, 150, 0x2545_f491_4f6c_dd1d, |pos| {
        let occ = pos.occupied();
        let by_role = attack_maps(pos);
        for c in Color::ALL {
            let defended = by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
            let mut cannon_moves = Bitboard::EMPTY;
            for sq in pos.pieces(Piece::new(!c, Role::Cannon)) {
                cannon_moves |=
                    (attacks::rook_attacks(sq, occ) - occ) | (attacks::cannon_captures(sq, occ) & pos.by_color(c));
            }
            let got = safe_checks(pos, &by_role[(!c).index()], cannon_moves, defended, c);
            let mut enemy_to_move = pos.clone();
            if enemy_to_move.turn() == c {
                enemy_to_move.make_null_move();
            }
            let mut moves = crate::core::MoveList::new();
            enemy_to_move.pseudo_legal_moves_to(Bitboard::FULL, &mut moves);
            let k = pos.king(c);
            let mut want = [Bitboard::EMPTY; 3];
            for m in moves.iter() {
                let Some(p) = pos.piece_at(m.from()) else { continue };
                let x = m.to();
                let from_x = match p.role {
                    Role::Rook => attacks::rook_attacks(x, occ),
                    Role::Horse => attacks::horse_attacks(x, occ),
                    Role::Cannon => attacks::cannon_captures(x, occ | Bitboard::from_square(x)),
                    _ => continue,
                };
                let i = match p.role {
                    Role::Rook => 0,
                    Role::Horse => 1,
                    _ => 2,
                };
                if from_x.contains(k) && !defended.contains(x) {
                    want[i] |= Bitboard::from_square(x);
                }
            }
            let want = want.map(|b| b.count() as i32);
            assert_eq!(got, want, "{} king of {c:?}", pos.fen());
            for i in 0..3 {
                found[i] += want[i];
            }
            checked += 1;
        }
    });
    assert!(checked > 5_000, "{checked}");
    // Every kind of check occurs (a test of nothing would pass too).
    assert!(found.iter().all(|&n| n > 100), "{found:?}");
}

#[test]
fn weak_zone_squares_are_attacked_and_guarded_only_by_the_king() {
    // A black rook on d5 looks down the open d-file at red's palace: it attacks d1 and the
    // advisor on d0, which only the king guards (the advisors guard e1). Nothing red attacks
    // reaches black's king zone.
    let pos = Position::from_fen("4k4/9/9/9/3r5/9/4P4/9/9/3AKA3 w").unwrap();
    let by_role = attack_maps(&pos);
    let all = by_role.map(|b| b.iter().fold(Bitboard::EMPTY, |a, &x| a | x));
    let (red, black) = (Color::Red.index(), Color::Black.index());
    assert_eq!(weak_zone_squares(pos.king(Color::Red), &by_role[red], all[black]), 2);
    assert_eq!(weak_zone_squares(pos.king(Color::Black), &by_role[black], all[red]), 0);
    // Checks times pressure, checks times missing guards, weak squares times pressure, weak squares.
    assert_eq!(danger_counts(3, 4, 2, 2), [12, 6, 8, 2]);
}
