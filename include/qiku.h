/* qiku C API: Xiangqi opening books (.qbk) and endgame tablebases (.qtb).
 *
 * Build: cargo build --release (feature `capi`, on by default) gives target/release/libqiku.so and
 * libqiku.a. Link the static library with: -lpthread -ldl -lm (glibc).
 *
 * Every function is thread-safe: handles may be used by many threads at once. No function
 * unwinds or aborts on bad input: failures are reported by the return value (NULL or a negative
 * code) and described by qiku_last_error(). NULL pointers and strings that are not UTF-8 are
 * errors (QIKU_ERR_ARG). FENs are Xiangqi FENs ("... w - - 0 1"); moves are ICCS ("h2e2").
 *
 * This file is written by hand and checked against src/capi.rs by tests/capi.rs.
 */
#ifndef QIKU_H
#define QIKU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Negative return codes. */
#define QIKU_ERR_ARG (-1)      /* NULL pointer, non-UTF-8 string, bad FEN, negative max */
#define QIKU_ERR_DATA (-2)     /* a file cannot be read or is not a valid book or table */
#define QIKU_ERR_NO_MOVE (-3)  /* qiku_tb_best_move: the side to move has no legal move */
#define QIKU_ERR_INTERNAL (-4) /* a bug in qiku (caught at the boundary): please report it */

typedef struct QikuTablebases QikuTablebases;
typedef struct QikuBook QikuBook;

/* A book move: ICCS text, NUL-terminated, and counts from the mover's point of view. games
 * includes games without a result; counts saturate at UINT32_MAX. */
typedef struct {
    char move[6];
    uint32_t games, wins, draws, losses;
} QikuBookMove;

/* Opens the directory of tables `dir` (each table is read on first use). NULL on error. */
QikuTablebases *qiku_tb_open(const char *dir);

/* Closes tables; NULL is ignored. No thread may still use the handle. */
void qiku_tb_close(QikuTablebases *tb);

/* Probes a position. Returns 0 with *wdl = -1/0/1 (loss/draw/win for the side to move) and
 * *dtm = plies to mate, signed for the side to move (positive: it mates; negative: it is mated;
 * 0: draw, or mated now), as `qiku-tb probe --json`; 1 if no table covers the material; <0 on
 * error (wdl and dtm must not be NULL). */
int qiku_tb_probe(const QikuTablebases *tb, const char *fen, int *wdl, int *dtm);

/* Writes a best move (fastest mate, slowest loss, or a drawing move; the first in move-encoding
 * order if several) as NUL-terminated ICCS into move[6]. Returns 0 ok, 1 if the position or one
 * of its successors has no table, QIKU_ERR_NO_MOVE if there is no legal move, <0 on error. */
int qiku_tb_best_move(const QikuTablebases *tb, const char *fen, char move[6]);

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

#ifdef __cplusplus
}
#endif

#endif /* QIKU_H */
