/* qiku C API: Xiangqi opening books (.qbk) and endgame tablebases (.qtb).
 *
 * Build: cargo build --release -p qiku-capi gives target/release/libqiku.so and
 * libqiku.a. Link the static library with: -lpthread -ldl -lm (glibc).
 *
 * Every function is thread-safe: handles may be used by many threads at once. No function
 * unwinds or aborts on bad input: failures are reported by the return value (NULL or a negative
 * code) and described by qiku_last_error(). NULL pointers and strings that are not UTF-8 are
 * errors (QIKU_ERR_ARG). FENs are Xiangqi FENs ("... w - - 0 1"); moves are ICCS ("h2e2").
 * A table function returns 0 or a count when it has an answer, a negative code when it has none:
 * QIKU_ERR_NO_TABLE when no table covers the position (the same code from every one of them),
 * QIKU_ERR_NO_MOVE when there is no legal move, the other codes for errors. Read its output
 * variables only after it returned 0 or a count: after a negative code they are unspecified (left
 * as they were, or set to 0).
 *
 * Changed within 0.1.0 (check code written against an earlier copy of this header):
 * - "No table" is QIKU_ERR_NO_TABLE (-5) from every table function, with a message naming the
 *   table to generate (or, for a material beyond what can be generated, saying none can be made). qiku_tb_probe, qiku_tb_probe_rules, qiku_tb_best_move and
 *   qiku_tb_best_move_rules returned 1 for it (and no message); they no longer return 1, so a
 *   test `rc == 1` must become `rc == QIKU_ERR_NO_TABLE`. A test `rc == 0` for an answer, or
 *   `rc != 0` for none, is unchanged.
 * - qiku_tb_open returns NULL for a directory that holds no table file (it returned a handle
 *   that found no table for any position).
 * - qiku_tb_problem_count and qiku_tb_problem are new.
 *
 * At most 256 table and book files stay open at once in the process (fewer under a low limit on
 * open files); the others are opened again when read. libqiku.a bundles zstd (and SQLite when
 * built with the whole workspace; `cargo build --release -p qiku-capi` leaves it out).
 *
 * This file is written by hand and checked against crates/qiku-capi/src/lib.rs by
 * crates/qiku-capi/tests/capi.rs.
 */
#ifndef QIKU_H
#define QIKU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; qiku_version() gives the library's. */
#define QIKU_VERSION "0.1.0"

/* Negative return codes. */
#define QIKU_ERR_ARG (-1)      /* NULL pointer, non-UTF-8 string, bad FEN, unknown rules, negative max */
#define QIKU_ERR_DATA (-2)     /* a file cannot be read or is not a valid book or table */
#define QIKU_ERR_NO_MOVE (-3)  /* qiku_tb_best_move: the side to move has no legal move */
#define QIKU_ERR_INTERNAL (-4) /* a bug in qiku caught at the boundary, not a fault of the caller's
                                  input: the call failed and qiku_last_error() names the function
                                  and the failure; treat it as a bug in qiku, not as bad data */
#define QIKU_ERR_NO_TABLE (-5) /* no table for the position (or, for moves, a capture's position) */

/* Repetition rules of table values. The default everywhere is QIKU_RULES_ASIAN, as tournaments
 * play: a side that can only hold by perpetual check loses (the .qtr companions). A value only
 * the rules decide ("by_rule") is a draw without them; its dtm is then the rank of the winning
 * line in the table, not plies to mate. QIKU_RULES_PLAIN: every cycle is a draw (.qtb alone). */
#define QIKU_RULES_ASIAN (0)
#define QIKU_RULES_PLAIN (1)

/* The side to move, for qiku_tb_probe_wdl_board. */
#define QIKU_RED (0)
#define QIKU_BLACK (1)

typedef struct QikuTablebases QikuTablebases;
typedef struct QikuBook QikuBook;

/* A book move: ICCS text, NUL-terminated, and counts from the mover's point of view. games
 * includes games without a result; counts saturate at UINT32_MAX. In a position that is its own
 * mirror image (the start position) the book keeps one move of each mirror pair, with the games
 * of both: with_mirror is then the other one ("b2e2" beside "h2e2"), else "". */
typedef struct {
    char move[6];
    uint32_t games, wins, draws, losses;
    char with_mirror[6];
} QikuBookMove;

/* A move's table value: ICCS text, NUL-terminated, and the value for the side to move in the
 * probed position if it plays the move: wdl -1/0/1 (loss/draw/win), dtm plies to mate signed as
 * wdl (0 for a draw), by_rule 1 if only the rules decide it (dtm is then a line rank), else 0. */
typedef struct {
    char move[6];
    int wdl, dtm, by_rule;
} QikuTbMove;

/* Opens the directory of tables `dir`: every file's header and block index is read and checked
 * now (a damaged file is an error when its material is probed, and listed by qiku_tb_problem),
 * the values when probed. At most 256 files stay open at once in the process (or a quarter of its
 * limit on open files), the others opened again when read. NULL on error: qiku_last_error() names
 * the directory (a very long path cut, as FENs are) with the system's cause, and the command that
 * generates tables there only when it does not exist. NULL too when `dir` holds no table file
 * (.qtb): such a handle could only ever answer "no table", which is what a wrong path looks like,
 * so qiku_last_error() names the directory and says how to make tables. A directory whose tables
 * are all damaged opens, so that qiku_tb_problem can list them. */
QikuTablebases *qiku_tb_open(const char *dir);

/* Closes tables; NULL is ignored. No thread may still use the handle. */
void qiku_tb_close(QikuTablebases *tb);

/* How many files of the directory cannot be used (a damaged table, a file of another format, a
 * .qtb name that is not a table's, a companion without its table): 0 when every file can be
 * used; <0 on error. Fixed when the directory is opened. Probing the material of a damaged table
 * is QIKU_ERR_DATA (never taken for a missing table); these say which files to replace before. */
int qiku_tb_problem_count(const QikuTablebases *tb);

/* The message of unusable file `index` (0 to qiku_tb_problem_count() - 1, in the order of the
 * files' paths): "<file>: <cause>", as qiku-tb prints it. The string belongs to the handle: do
 * not free it; it stays valid and unchanged until qiku_tb_close(tb), whatever other calls are
 * made meanwhile, on any thread. NULL if tb is NULL or index is out of range (qiku_last_error()
 * says which). */
const char *qiku_tb_problem(const QikuTablebases *tb, int index);

/* Probes a position under the Asian rules (the default). Returns 0 with *wdl = -1/0/1
 * (loss/draw/win for the side to move) and *dtm = plies to mate, signed for the side to move
 * (positive: it mates; negative: it is mated; 0: draw, or mated now), as `qiku-tb probe --json`;
 * QIKU_ERR_NO_TABLE if no table covers the material (before: 1); other <0 on error (wdl and dtm
 * must not be NULL). A position without an attacking piece (rook, horse, cannon, pawn) is a draw
 * without any table. For a value only the rules decide, *dtm is a line rank: qiku_tb_probe_rules
 * says which. */
int qiku_tb_probe(const QikuTablebases *tb, const char *fen, int *wdl, int *dtm);

/* qiku_tb_probe under `rules` (QIKU_RULES_ASIAN or QIKU_RULES_PLAIN); *by_rule (if by_rule is
 * not NULL) is 1 when only the rules decide the value (*dtm is then a line rank), else 0. Under
 * the Asian rules a table without its .qtr companion is QIKU_ERR_DATA for the positions the
 * rules would decide: qiku_last_error() gives the command that makes the companion, or says to
 * probe with QIKU_RULES_PLAIN. The message of a damaged table file names it and gives the
 * command that makes its files again; damage behind valid checksums (two files disagree) is
 * answered with `qiku-tb verify` first, then removing the files it finds damaged. */
int qiku_tb_probe_rules(const QikuTablebases *tb, const char *fen, int rules, int *wdl, int *dtm, int *by_rule);

/* Win, draw or loss for the side to move under `rules` (QIKU_RULES_ASIAN or QIKU_RULES_PLAIN):
 * returns 0 with *wdl = -1/0/1 (loss/draw/win); QIKU_ERR_NO_TABLE if no table covers the
 * material; other <0 on error. Whenever both answer, *wdl is the *wdl qiku_tb_probe_rules gives
 * under the same rules. A damaged table (.qtb), or under the Asian rules a damaged .qtr
 * companion, is QIKU_ERR_DATA for both, even where the .qtw could answer; a block of the .qtw
 * found damaged when read is QIKU_ERR_DATA for this probe only (qiku_tb_probe_rules does not read
 * the .qtw). Read from the material's .qtw WDL file (2 bits an entry, a fifth of the DTM files'
 * size, so more of it stays in the block cache) when it has one, else from the DTM files; under
 * the Asian rules the few values only the rules decide come from the .qtr companion. The probe
 * for a search's inner nodes. */
int qiku_tb_probe_wdl(const QikuTablebases *tb, const char *fen, int rules, int *wdl);

/* qiku_tb_probe_wdl for a board given square by square, without a FEN (faster: no FEN is
 * written or read). board[rank * 9 + file] is the piece on that square: rank 0 is Red's back
 * rank and file 0 the a-file, so board[0] is a0 and board[89] is i9, as ICCS names them. A
 * square holds its piece's FEN letter (KABNRCP for Red, kabnrcp for Black; H/h for a horse and
 * E/e for an elephant are taken too, as many Xiangqi FENs write them) or 0 when empty.
 * side is QIKU_RED or QIKU_BLACK, the side to move. Another byte, or a board that is not a legal
 * position (a missing king, kings facing, a piece where it can never stand, the side not to move
 * in check), is QIKU_ERR_ARG, the message naming the square or the fault. */
int qiku_tb_probe_wdl_board(const QikuTablebases *tb, const char board[90], int side, int rules, int *wdl);

/* Every legal move with its value under `rules`, best first (fastest win, draws, slowest loss):
 * returns how many legal moves there are (0 if none) and writes the first `max` to `out` (which
 * may be NULL when max is 0); QIKU_ERR_NO_TABLE if the position, or a position one of its
 * captures leads to, has no table (qiku_last_error() names the table); <0 on other errors. */
int qiku_tb_move_values(const QikuTablebases *tb, const char *fen, int rules, QikuTbMove *out, int max);

/* Writes a best move under the Asian rules (fastest mate, slowest loss, a drawing move, or the
 * table's line of a win the rules decide; the first in move-encoding order if several) as
 * NUL-terminated ICCS into move[6]. Returns 0 ok; QIKU_ERR_NO_TABLE (before: 1) if the position,
 * or a position one of its captures leads to, has no table; QIKU_ERR_NO_MOVE if there is no legal
 * move (never for a position that has one); QIKU_ERR_DATA if the table's values cannot be right
 * (a position with legal moves none of which keeps its value, or one without a legal move that is
 * not lost: damaged behind valid checksums), the message naming the table; other <0 on error. */
int qiku_tb_best_move(const QikuTablebases *tb, const char *fen, char move[6]);

/* qiku_tb_best_move under `rules` (QIKU_RULES_ASIAN or QIKU_RULES_PLAIN). */
int qiku_tb_best_move_rules(const QikuTablebases *tb, const char *fen, int rules, char move[6]);

/* Opens and fully verifies a book. NULL on error. */
QikuBook *qiku_book_open(const char *path);

/* Closes a book; NULL is ignored. No thread may still use the handle. */
void qiku_book_close(QikuBook *book);

/* The book moves of a position, most played first: returns how many there are (0 if the
 * position is not in the book) and writes the first `max` of them to `out` (which may be NULL
 * when max is 0); <0 on error: QIKU_ERR_DATA if the file was truncated, damaged or rewritten in
 * place since it was opened (never 0 for a book that can no longer be read). */
int qiku_book_probe(const QikuBook *book, const char *fen, QikuBookMove *out, int max);

/* The message of this thread's last failed call ("" if its last call succeeded). Valid until
 * the next qiku call on this thread. Never NULL. */
const char *qiku_last_error(void);

/* The version of the library loaded ("0.1.0"), to compare with QIKU_VERSION, the header's. A
 * static string: never freed. */
const char *qiku_version(void);

#ifdef __cplusplus
}
#endif

#endif /* QIKU_H */
