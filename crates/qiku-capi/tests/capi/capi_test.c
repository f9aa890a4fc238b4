/* Exercises the qiku C API (include/qiku.h) as a C program would; driven by tests/capi.rs.
 *
 * usage: capi_test BOOK TB_DIR CORRUPT_BOOK CORRUPT_TB_DIR EMPTY_TB_DIR PARTIAL_TB_DIR EXPECTATIONS
 *
 * EMPTY_TB_DIR holds no table file (only a README, as a fresh clone's tablebases/ does);
 * PARTIAL_TB_DIR holds KRvKA without the KRvK table its captures of the advisor lead to.
 *
 * EXPECTATIONS holds the answers the Rust API gives, one per line ('|'-separated):
 *   tb|FEN|RC|WDL|DTM|BEST        RC: 0, or "no-table" for QIKU_ERR_NO_TABLE from qiku_tb_probe (and
 *                                 then from every table function); BEST: best move or "-"
 *   book|FEN|N|MOVE,GAMES,WINS,DRAWS,LOSSES,MIRROR|...   (all N moves, most played first;
 *                                                   MIRROR: with_mirror, or "-" for "")
 *   problem|TEXT                  an unusable file of CORRUPT_TB_DIR, in qiku_tb_problem's order
 * The program checks every line through the C API, from the main thread and then from two
 * threads at once, and checks the error paths. Prints "ok" and exits 0 when all checks pass.
 */
#include "qiku.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(QikuBookMove) == 32, "QikuBookMove layout");

static int failures = 0;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            __sync_fetch_and_add(&failures, 1);                                  \
        }                                                                        \
    } while (0)

#define MAX_LINES 256
#define MAX_MOVES 64

typedef struct {
    int is_tb;
    char fen[128];
    int rc, wdl, dtm;
    char best[8];
    int n;
    QikuBookMove moves[MAX_MOVES];
} Expect;

static Expect expects[MAX_LINES];

#define MAX_PROBLEMS 8
static char problems[MAX_PROBLEMS][4096];
static int n_problems = 0;

/* Field by field: the padding bytes after `move` and `with_mirror` are unspecified. */
static int same_move(const QikuBookMove *a, const QikuBookMove *b) {
    return strncmp(a->move, b->move, sizeof a->move) == 0 && a->games == b->games && a->wins == b->wins &&
           a->draws == b->draws && a->losses == b->losses &&
           strncmp(a->with_mirror, b->with_mirror, sizeof a->with_mirror) == 0;
}
static int n_expects = 0;
static QikuTablebases *tb;
static const char *tb_dir;
static QikuBook *book;

static void load(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    char line[4096];
    while (fgets(line, sizeof line, f) && n_expects < MAX_LINES) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "problem|", 8) == 0) {
            if (n_problems < MAX_PROBLEMS) {
                snprintf(problems[n_problems++], sizeof problems[0], "%s", line + 8);
            }
            continue;
        }
        Expect *e = &expects[n_expects++];
        char *save = NULL;
        char *kind = strtok_r(line, "|", &save);
        snprintf(e->fen, sizeof e->fen, "%s", strtok_r(NULL, "|", &save));
        if (strcmp(kind, "tb") == 0) {
            e->is_tb = 1;
            const char *rc = strtok_r(NULL, "|", &save);
            e->rc = strcmp(rc, "no-table") == 0 ? QIKU_ERR_NO_TABLE : atoi(rc);
            e->wdl = atoi(strtok_r(NULL, "|", &save));
            e->dtm = atoi(strtok_r(NULL, "|", &save));
            snprintf(e->best, sizeof e->best, "%s", strtok_r(NULL, "|", &save));
        } else {
            e->n = atoi(strtok_r(NULL, "|", &save));
            for (int i = 0; i < e->n && i < MAX_MOVES; i++) {
                QikuBookMove *m = &e->moves[i];
                char mv[6], mirror[6];
                if (sscanf(strtok_r(NULL, "|", &save), "%5[^,],%u,%u,%u,%u,%5s", mv, &m->games, &m->wins, &m->draws,
                           &m->losses, mirror) != 6) {
                    fprintf(stderr, "bad expectation line for %s\n", e->fen);
                    exit(2);
                }
                snprintf(m->move, sizeof m->move, "%s", mv);
                snprintf(m->with_mirror, sizeof m->with_mirror, "%s", strcmp(mirror, "-") == 0 ? "" : mirror);
            }
        }
    }
    fclose(f);
}

/* After a call of `function` on `dir` returned QIKU_ERR_NO_TABLE: the message names the
 * function, says no table covers the position, and gives the command that makes the table. */
static void check_no_table(const char *fen, const char *function, const char *dir) {
    const char *msg = qiku_last_error();
    size_t n = strlen(function);
    CHECK(strncmp(msg, function, n) == 0 && strncmp(msg + n, ": ", 2) == 0, "%s: %s: message %s", fen, function, msg);
    CHECK(strstr(msg, "no table for ") || strstr(msg, "which is missing"), "%s: %s: message %s", fen, function, msg);
    CHECK(strstr(msg, dir) && strstr(msg, "qiku-tb generate "), "%s: %s: message %s", fen, function, msg);
}

/* The board of a FEN square by square, as qiku_tb_probe_wdl_board takes it: board[rank * 9 +
 * file], rank 0 Red's back rank (the FEN's last row). Returns 0 if the placement is malformed. */
static int fen_board(const char *fen, char board[90], int *side) {
    memset(board, 0, 90);
    int rank = 9, file = 0;
    const char *p = fen;
    for (; *p && *p != ' '; p++) {
        if (*p == '/') {
            rank--, file = 0;
        } else if (*p >= '1' && *p <= '9') {
            file += *p - '0';
        } else if (rank >= 0 && file < 9) {
            board[rank * 9 + file++] = *p;
        } else {
            return 0;
        }
    }
    *side = p[0] == ' ' && p[1] == 'b' ? QIKU_BLACK : QIKU_RED;
    return rank == 0;
}

/* The WDL probes of one expectation: from the FEN and from the board, under both rules, agree
 * with qiku_tb_probe and qiku_tb_probe_rules (or all say "no table"). */
static void check_wdl(const Expect *e) {
    char board[90];
    int side = -1;
    CHECK(fen_board(e->fen, board, &side), "%s: placement", e->fen);
    for (int rules = QIKU_RULES_ASIAN; rules <= QIKU_RULES_PLAIN; rules++) {
        int want = 99, dtm = 99, from_fen = 98, from_board = 97;
        int rc = qiku_tb_probe_rules(tb, e->fen, rules, &want, &dtm, NULL);
        CHECK(rc == e->rc, "%s: probe_rules %d", e->fen, rc);
        CHECK(rules != QIKU_RULES_ASIAN || rc != 0 || want == e->wdl, "%s: asian wdl %d", e->fen, want);
        int rc_fen = qiku_tb_probe_wdl(tb, e->fen, rules, &from_fen);
        if (rc_fen == QIKU_ERR_NO_TABLE) {
            check_no_table(e->fen, "qiku_tb_probe_wdl", tb_dir);
        }
        int rc_board = qiku_tb_probe_wdl_board(tb, board, side, rules, &from_board);
        if (rc_board == QIKU_ERR_NO_TABLE) {
            check_no_table(e->fen, "qiku_tb_probe_wdl_board", tb_dir);
        }
        CHECK(rc_fen == rc && rc_board == rc, "%s rules %d: probe_wdl %d, probe_wdl_board %d, probe_rules %d (%s)",
              e->fen, rules, rc_fen, rc_board, rc, qiku_last_error());
        if (rc == 0) {
            CHECK(from_fen == want && from_board == want, "%s rules %d: wdl %d from the FEN, %d from the board, %d",
                  e->fen, rules, from_fen, from_board, want);
        }
    }
}

/* Checks every expectation once; returns the number of probes made. */
static long check_all(void) {
    long probes = 0;
    for (int i = 0; i < n_expects; i++) {
        Expect *e = &expects[i];
        if (e->is_tb) {
            int wdl = 99, dtm = 99;
            int rc = qiku_tb_probe(tb, e->fen, &wdl, &dtm);
            CHECK(rc == e->rc, "%s: rc %d, expected %d (%s)", e->fen, rc, e->rc, qiku_last_error());
            if (rc == 0) {
                CHECK(strcmp(qiku_last_error(), "") == 0, "error after success: %s", qiku_last_error());
                CHECK(wdl == e->wdl && dtm == e->dtm, "%s: wdl %d dtm %d, expected %d %d", e->fen, wdl, dtm,
                      e->wdl, e->dtm);
            } else if (rc == QIKU_ERR_NO_TABLE) {
                check_no_table(e->fen, "qiku_tb_probe", tb_dir);
            }
            check_wdl(e);
            /* Every table function says "no table" alike. */
            int rc_rules = qiku_tb_probe_rules(tb, e->fen, QIKU_RULES_PLAIN, &wdl, &dtm, NULL);
            int n = qiku_tb_move_values(tb, e->fen, QIKU_RULES_ASIAN, NULL, 0);
            char best[6] = "xxxxx";
            int rc_best = qiku_tb_best_move(tb, e->fen, best);
            if (e->rc == QIKU_ERR_NO_TABLE) {
                CHECK(rc_rules == QIKU_ERR_NO_TABLE && n == QIKU_ERR_NO_TABLE && rc_best == QIKU_ERR_NO_TABLE,
                      "%s: probe_rules %d, move_values %d, best_move %d", e->fen, rc_rules, n, rc_best);
                check_no_table(e->fen, "qiku_tb_best_move", tb_dir);
            } else if (strcmp(e->best, "-") == 0) {
                CHECK(rc_rules == 0 && n == 0 && rc_best == QIKU_ERR_NO_MOVE,
                      "%s: probe_rules %d, move_values %d, best_move %d", e->fen, rc_rules, n, rc_best);
            } else {
                CHECK(rc_rules == 0 && n > 0, "%s: probe_rules %d, move_values %d", e->fen, rc_rules, n);
                CHECK(rc_best == 0 && strcmp(best, e->best) == 0, "%s: best %s (rc %d), expected %s", e->fen, best,
                      rc_best, e->best);
            }
        } else {
            QikuBookMove out[MAX_MOVES];
            int n = qiku_book_probe(book, e->fen, out, MAX_MOVES);
            CHECK(n == e->n, "%s: %d book moves, expected %d (%s)", e->fen, n, e->n, qiku_last_error());
            for (int k = 0; k < n && k < e->n && k < MAX_MOVES; k++) {
                CHECK(same_move(&out[k], &e->moves[k]), "%s: move %d is %s %u/%u/%u/%u (mirror \"%s\")", e->fen,
                      k, out[k].move, out[k].games, out[k].wins, out[k].draws, out[k].losses, out[k].with_mirror);
            }
            /* Counting without a buffer, and a short buffer: the count stays the full one. */
            CHECK(qiku_book_probe(book, e->fen, NULL, 0) == e->n, "%s: count only", e->fen);
            if (e->n > 1) {
                QikuBookMove one[2];
                memset(one, 0xAB, sizeof one);
                CHECK(qiku_book_probe(book, e->fen, one, 1) == e->n, "%s: max 1", e->fen);
                CHECK(same_move(&one[0], &e->moves[0]), "%s: first move", e->fen);
                unsigned char *rest = (unsigned char *)&one[1];
                CHECK(rest[0] == 0xAB && rest[sizeof one[1] - 1] == 0xAB, "%s: wrote past max", e->fen);
            }
        }
        probes++;
    }
    return probes;
}

static void *thread_main(void *arg) {
    long *count = arg;
    for (int round = 0; round < 20; round++) {
        *count += check_all();
        /* An error on this thread must not show on the other one (and vice versa). */
        int wdl, dtm;
        CHECK(qiku_tb_probe(tb, "not a fen", &wdl, &dtm) == QIKU_ERR_ARG, "bad FEN in thread");
        CHECK(strstr(qiku_last_error(), "bad FEN") != NULL, "thread error: %s", qiku_last_error());
    }
    return NULL;
}

/* A position whose table is there but one of whose captures leads to a missing table: it has a
 * value, its moves do not, and both move functions say "no table" with the same code. */
static void check_missing_capture(const char *partial_tb_dir) {
    QikuTablebases *partial = qiku_tb_open(partial_tb_dir);
    CHECK(partial != NULL, "partial dir: %s", qiku_last_error());
    if (!partial) {
        return;
    }
    const char *fen = "3k5/R3a4/9/9/9/9/9/9/9/4K4 w - - 0 1"; /* R a8 takes the advisor on e8 */
    int wdl = 99, dtm = 99;
    char best[6];
    CHECK(qiku_tb_probe(partial, fen, &wdl, &dtm) == 0 && wdl == 1, "KRvKA probe: wdl %d (%s)", wdl,
          qiku_last_error());
    /* One position's WDL needs only its own table. */
    CHECK(qiku_tb_probe_wdl(partial, fen, QIKU_RULES_ASIAN, &wdl) == 0 && wdl == 1, "KRvKA wdl: %d (%s)", wdl,
          qiku_last_error());
    CHECK(qiku_tb_move_values(partial, fen, QIKU_RULES_ASIAN, NULL, 0) == QIKU_ERR_NO_TABLE, "move values: %s",
          qiku_last_error());
    check_no_table(fen, "qiku_tb_move_values", partial_tb_dir);
    CHECK(strstr(qiku_last_error(), "qiku-tb generate KRvK -d "), "names KRvK: %s", qiku_last_error());
    CHECK(qiku_tb_best_move(partial, fen, best) == QIKU_ERR_NO_TABLE, "best move: %s", qiku_last_error());
    check_no_table(fen, "qiku_tb_best_move", partial_tb_dir);
    CHECK(qiku_tb_best_move_rules(partial, fen, QIKU_RULES_PLAIN, best) == QIKU_ERR_NO_TABLE, "best move (plain): %s",
          qiku_last_error());
    check_no_table(fen, "qiku_tb_best_move_rules", partial_tb_dir);
    qiku_tb_close(partial);
}

static void check_errors(const char *corrupt_book, const char *corrupt_tb_dir, const char *empty_tb_dir) {
    int wdl = 0, dtm = 0;
    char best[6];
    QikuBookMove out[4];

    CHECK(qiku_tb_open("/nonexistent/qiku/tables") == NULL, "missing directory opened");
    CHECK(strstr(qiku_last_error(), "/nonexistent/qiku/tables") != NULL, "message: %s", qiku_last_error());
    CHECK(strstr(qiku_last_error(), "qiku-tb generate -d /nonexistent/qiku/tables") != NULL, "what to do: %s",
          qiku_last_error());
    /* A directory without a table file: an error naming it and saying how to make tables, not a
     * handle that answers "no table" to everything. */
    CHECK(qiku_tb_open(empty_tb_dir) == NULL, "a directory without tables opened");
    CHECK(strstr(qiku_last_error(), "no table (.qtb file) in ") != NULL && strstr(qiku_last_error(), empty_tb_dir) &&
              strstr(qiku_last_error(), "qiku-tb generate -d "),
          "message: %s", qiku_last_error());
    CHECK(qiku_tb_open(NULL) == NULL && strstr(qiku_last_error(), "NULL"), "NULL dir: %s", qiku_last_error());
    CHECK(qiku_tb_open("") == NULL && strstr(qiku_last_error(), "dir is empty"), "empty dir: %s", qiku_last_error());
    CHECK(qiku_tb_open("\xff\xfe") == NULL && strstr(qiku_last_error(), "UTF-8"), "bad UTF-8: %s",
          qiku_last_error());
    CHECK(qiku_book_open("/nonexistent/book.qbk") == NULL, "missing book opened");
    CHECK(strstr(qiku_last_error(), "/nonexistent/book.qbk") != NULL, "message: %s", qiku_last_error());
    CHECK(qiku_book_open(NULL) == NULL && strstr(qiku_last_error(), "NULL"), "NULL path");
    CHECK(qiku_book_open(corrupt_book) == NULL, "corrupt book opened");
    CHECK(strstr(qiku_last_error(), corrupt_book) != NULL, "message: %s", qiku_last_error());

    /* A directory of damaged files opens (so that they can be listed); probing a damaged table's
     * material fails, naming the file. */
    QikuTablebases *bad = qiku_tb_open(corrupt_tb_dir);
    CHECK(bad != NULL, "corrupt dir: %s", qiku_last_error());
    const char *krk = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1";
    CHECK(qiku_tb_probe(bad, krk, &wdl, &dtm) == QIKU_ERR_DATA, "corrupt table probed");
    CHECK(strstr(qiku_last_error(), "KRvK.qtb") != NULL, "message: %s", qiku_last_error());
    CHECK(qiku_tb_best_move(bad, krk, best) == QIKU_ERR_DATA, "corrupt table best move");
    CHECK(qiku_tb_probe_wdl(bad, krk, QIKU_RULES_PLAIN, &wdl) == QIKU_ERR_DATA, "corrupt table, WDL probed");
    CHECK(strstr(qiku_last_error(), "qiku_tb_probe_wdl: ") && strstr(qiku_last_error(), "KRvK.qtb"), "message: %s",
          qiku_last_error());

    /* The unusable files, as the Rust API lists them; the strings belong to the handle and stay
     * put until it is closed, whatever calls come between. */
    CHECK(n_problems == 2, "%d problems expected", n_problems);
    CHECK(qiku_tb_problem_count(bad) == n_problems, "problem count %d (%s)", qiku_tb_problem_count(bad),
          qiku_last_error());
    const char *first = qiku_tb_problem(bad, 0);
    for (int i = 0; i < n_problems; i++) {
        const char *p = qiku_tb_problem(bad, i);
        CHECK(p != NULL && strcmp(p, problems[i]) == 0, "problem %d: %s", i, p ? p : qiku_last_error());
        CHECK(strcmp(qiku_last_error(), "") == 0, "error after success: %s", qiku_last_error());
    }
    CHECK(qiku_tb_probe(bad, krk, &wdl, &dtm) == QIKU_ERR_DATA, "corrupt table probed again");
    CHECK(qiku_tb_problem(bad, 0) == first && first != NULL && strcmp(first, problems[0]) == 0, "first problem moved");
    CHECK(qiku_tb_problem(bad, n_problems) == NULL && strstr(qiku_last_error(), "out of range"), "past the end: %s",
          qiku_last_error());
    CHECK(qiku_tb_problem(bad, -1) == NULL && strstr(qiku_last_error(), "out of range"), "negative index: %s",
          qiku_last_error());
    CHECK(qiku_tb_problem(NULL, 0) == NULL && strstr(qiku_last_error(), "tb is NULL"), "NULL tb: %s",
          qiku_last_error());
    CHECK(qiku_tb_problem_count(NULL) == QIKU_ERR_ARG, "NULL tb counted");
    qiku_tb_close(bad);
    CHECK(qiku_tb_problem_count(tb) == 0, "problems in the good tables: %d", qiku_tb_problem_count(tb));
    CHECK(qiku_tb_problem(tb, 0) == NULL && strstr(qiku_last_error(), "every file can be used"), "no problem: %s",
          qiku_last_error());

    CHECK(qiku_tb_probe(tb, "rnbakabnr/9/9 w", &wdl, &dtm) == QIKU_ERR_ARG, "bad FEN");
    CHECK(strstr(qiku_last_error(), "bad FEN") != NULL, "message: %s", qiku_last_error());
    /* Text-valid but illegal: two kings facing each other with Black to move... and no king. */
    CHECK(qiku_tb_probe(tb, "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &wdl, &dtm) == QIKU_ERR_ARG, "no black king");
    CHECK(qiku_tb_probe(NULL, krk, &wdl, &dtm) == QIKU_ERR_ARG, "NULL tb");
    CHECK(qiku_tb_probe(tb, NULL, &wdl, &dtm) == QIKU_ERR_ARG, "NULL fen");
    CHECK(qiku_tb_probe(tb, krk, NULL, &dtm) == QIKU_ERR_ARG, "NULL wdl");
    CHECK(qiku_tb_probe(tb, "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1\xff", &wdl, &dtm) == QIKU_ERR_ARG, "bad UTF-8");
    CHECK(qiku_tb_best_move(tb, krk, NULL) == QIKU_ERR_ARG, "NULL move buffer");

    /* The board probe's arguments: each fault named. */
    char board[90];
    int side;
    CHECK(fen_board(krk, board, &side) && side == QIKU_RED, "KRvK board");
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, QIKU_RULES_ASIAN, &wdl) == 0 && wdl == 1, "KRvK from the board: %s",
          qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(tb, board, QIKU_BLACK, QIKU_RULES_ASIAN, &wdl) == 0 && wdl == -1,
          "KRvK, Black to move: %d (%s)", wdl, qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(tb, board, 2, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG &&
              strstr(qiku_last_error(), "side is 2"),
          "side 2: %s", qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, 7, &wdl) == QIKU_ERR_ARG && strstr(qiku_last_error(), "rules is 7"),
          "rules 7: %s", qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(tb, NULL, side, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG &&
              strstr(qiku_last_error(), "board is NULL"),
          "NULL board: %s", qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, QIKU_RULES_ASIAN, NULL) == QIKU_ERR_ARG &&
              strstr(qiku_last_error(), "wdl is NULL"),
          "NULL wdl: %s", qiku_last_error());
    CHECK(qiku_tb_probe_wdl_board(NULL, board, side, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG, "NULL tb");
    board[40] = 'x'; /* e4 */
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG &&
              strstr(qiku_last_error(), "qiku_tb_probe_wdl_board: board[40] (e4) is byte 120 ('x')"),
          "a bad byte: %s", qiku_last_error());
    board[40] = '.'; /* not an empty square: 0 is */
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG, "a dot");
    board[40] = 0;
    board[84] = 0; /* d9: the black king gone */
    CHECK(qiku_tb_probe_wdl_board(tb, board, side, QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG &&
              strstr(qiku_last_error(), "not a legal position (black has no king)"),
          "no black king: %s", qiku_last_error());
    CHECK(qiku_tb_probe_wdl(tb, "junk", QIKU_RULES_ASIAN, &wdl) == QIKU_ERR_ARG && strstr(qiku_last_error(), "bad FEN"),
          "bad FEN for WDL: %s", qiku_last_error());
    CHECK(qiku_tb_best_move(NULL, krk, best) == QIKU_ERR_ARG, "NULL tb for best move");
    CHECK(qiku_tb_best_move(tb, "junk", best) == QIKU_ERR_ARG, "bad FEN for best move");
    const char *start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    CHECK(qiku_book_probe(NULL, start, out, 4) == QIKU_ERR_ARG, "NULL book");
    CHECK(qiku_book_probe(book, NULL, out, 4) == QIKU_ERR_ARG, "NULL fen");
    CHECK(qiku_book_probe(book, start, NULL, 4) == QIKU_ERR_ARG, "NULL out");
    CHECK(qiku_book_probe(book, start, out, -1) == QIKU_ERR_ARG, "negative max");
    CHECK(qiku_book_probe(book, "x", out, 4) == QIKU_ERR_ARG, "bad FEN in book");
    CHECK(strstr(qiku_last_error(), "qiku_book_probe") != NULL, "message: %s", qiku_last_error());
    /* Success clears the message. */
    CHECK(qiku_book_probe(book, start, out, 4) >= 0 && strcmp(qiku_last_error(), "") == 0, "cleared");
    qiku_tb_close(NULL);
    qiku_book_close(NULL);
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s BOOK TB_DIR CORRUPT_BOOK CORRUPT_TB_DIR EMPTY_TB_DIR PARTIAL_TB_DIR EXPECTATIONS\n",
                argv[0]);
        return 2;
    }
    CHECK(strcmp(qiku_version(), QIKU_VERSION) == 0, "library %s, header %s", qiku_version(), QIKU_VERSION);
    book = qiku_book_open(argv[1]);
    if (!book) {
        fprintf(stderr, "book: %s\n", qiku_last_error());
        return 1;
    }
    tb_dir = argv[2];
    tb = qiku_tb_open(tb_dir);
    if (!tb) {
        fprintf(stderr, "tables: %s\n", qiku_last_error());
        return 1;
    }
    load(argv[7]);
    CHECK(n_expects > 0, "no expectations");
    long main_probes = check_all();
    check_errors(argv[3], argv[4], argv[5]);
    check_missing_capture(argv[6]);

    pthread_t threads[2];
    long counts[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&threads[i], NULL, thread_main, &counts[i]) == 0, "pthread_create");
    }
    /* The main thread's message is its own: the threads' bad FENs must not overwrite it. */
    qiku_tb_open(NULL);
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
    }
    CHECK(strstr(qiku_last_error(), "qiku_tb_open: dir is NULL") != NULL, "main message: %s", qiku_last_error());
    CHECK(counts[0] == 20 * main_probes && counts[1] == 20 * main_probes, "thread probes %ld %ld", counts[0],
          counts[1]);

    qiku_book_close(book);
    qiku_tb_close(tb);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok: %d expectations, %ld probes per thread\n", n_expects, counts[0]);
    return 0;
}
