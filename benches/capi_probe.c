/* Table probes through the C API, side by side in one run: qiku_tb_probe (FEN, DTM files),
 * qiku_tb_probe_wdl (FEN, WDL files) and qiku_tb_probe_wdl_board (90 bytes, WDL files), warm
 * (the blocks cached after a first pass), on random legal positions of every material of up to
 * four pieces in the directory given. For the FEN probes a second figure counts the FEN written
 * from the board on each probe, as an engine that keeps a board must. Built and run by
 * benches/capi_probe.sh. */
#include "qiku.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096
#define ROUNDS 50

static char boards[N][90];
static int sides[N];
static char fens[N][100];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned next(unsigned n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* The FEN of a board, as an engine would write it for every probe. */
static void write_fen(const char *board, int side, char *out) {
    char *p = out;
    for (int rank = 9; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 9; file++) {
            char c = board[rank * 9 + file];
            if (!c) {
                empty++;
                continue;
            }
            if (empty) *p++ = (char)('0' + empty), empty = 0;
            *p++ = c;
        }
        if (empty) *p++ = (char)('0' + empty);
        if (rank) *p++ = '/';
    }
    strcpy(p, side == QIKU_RED ? " w - - 0 1" : " b - - 0 1");
}

int main(int argc, char **argv) {
    QikuTablebases *tb = qiku_tb_open(argc > 1 ? argv[1] : "tablebases");
    if (!tb) {
        fprintf(stderr, "%s\n", qiku_last_error());
        return 1;
    }
    /* Random placements of random materials (kings in their palaces, up to two more pieces);
     * kept when the library takes them as a legal position with a table. */
    const char *extra = "RNCPABrncpab";
    int n = 0, tries = 0, wdl;
    while (n < N && tries++ < 50 * N) {
        char *b = boards[n];
        memset(b, 0, 90);
        b[(next(3)) * 9 + 3 + next(3)] = 'K';
        b[(7 + next(3)) * 9 + 3 + next(3)] = 'k';
        int pieces = 1 + next(2);
        for (int i = 0; i < pieces; i++) {
            int sq = next(90);
            if (!b[sq]) b[sq] = extra[next(12)];
        }
        sides[n] = next(2) ? QIKU_BLACK : QIKU_RED;
        if (qiku_tb_probe_wdl_board(tb, b, sides[n], QIKU_RULES_ASIAN, &wdl) == 0) {
            write_fen(b, sides[n], fens[n]);
            n++;
        }
    }
    if (n < N) {
        fprintf(stderr, "only %d positions with tables in %s (generate up to 4 pieces there)\n", n,
                argc > 1 ? argv[1] : "tablebases");
        return 1;
    }
    long sum[3] = {0, 0, 0}, fen_sum[2] = {0, 0};
    double t[5];
    int dtm;
    char fen[100];
    for (int i = 0; i < N; i++) { /* warm the caches */
        qiku_tb_probe(tb, fens[i], &wdl, &dtm), qiku_tb_probe_wdl(tb, fens[i], QIKU_RULES_ASIAN, &wdl);
    }
    double t0 = now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) sum[0] += qiku_tb_probe(tb, fens[i], &wdl, &dtm) == 0 ? wdl + 2 : 0;
    t[0] = now() - t0, t0 = now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) sum[1] += qiku_tb_probe_wdl(tb, fens[i], QIKU_RULES_ASIAN, &wdl) == 0 ? wdl + 2 : 0;
    t[1] = now() - t0, t0 = now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++)
            sum[2] += qiku_tb_probe_wdl_board(tb, boards[i], sides[i], QIKU_RULES_ASIAN, &wdl) == 0 ? wdl + 2 : 0;
    t[2] = now() - t0, t0 = now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) {
            write_fen(boards[i], sides[i], fen);
            fen_sum[0] += qiku_tb_probe(tb, fen, &wdl, &dtm) == 0 ? wdl + 2 : 0;
        }
    t[3] = now() - t0, t0 = now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) {
            write_fen(boards[i], sides[i], fen);
            fen_sum[1] += qiku_tb_probe_wdl(tb, fen, QIKU_RULES_ASIAN, &wdl) == 0 ? wdl + 2 : 0;
        }
    t[4] = now() - t0;
    if (sum[1] != sum[2] || sum[1] != fen_sum[1] || sum[0] != fen_sum[0]) {
        fprintf(stderr, "the probes disagree: %ld %ld %ld %ld %ld\n", sum[0], sum[1], sum[2], fen_sum[0], fen_sum[1]);
        return 1;
    }
    double per = 1e9 / ((double)N * ROUNDS);
    printf("%d positions of up to 4 pieces, %d rounds, warm, Asian rules, one thread\n", N, ROUNDS);
    printf("%-52s %8s %8s\n", "probe", "ns", "+FEN");
    printf("%-52s %8.0f %8.0f\n", "qiku_tb_probe (FEN; wdl and dtm from the DTM files)", t[0] * per, t[3] * per);
    printf("%-52s %8.0f %8.0f\n", "qiku_tb_probe_wdl (FEN; the WDL files)", t[1] * per, t[4] * per);
    printf("%-52s %8.0f %8s\n", "qiku_tb_probe_wdl_board (90 bytes; the WDL files)", t[2] * per, "-");
    printf("(+FEN: the FEN written from the board on each probe, as an engine keeping a board must)\n");
    qiku_tb_close(tb);
    return 0;
}
