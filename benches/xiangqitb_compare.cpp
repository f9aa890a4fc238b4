// Position-by-position comparison of one xiangqitb WDL table (github.com/noobpwnftw/xiangqitb)
// with qiku's tables of the same material, through qiku's C API.
//
// Every legal entry of xiangqitb's index (one of each pair of left-right mirror images, weighted
// as benches/xiangqitb_entries.h explains, so totals match `qiku-tb stats`) is written as a
// FEN and probed in qiku's tables under the Asian rules; the counts of each pair of values are
// printed per side to move, with, for the positions where they differ, qiku's value under plain
// rules and the first few FENs.
//
// Built against a xiangqitb source tree and qiku's C library:
//   g++ -O2 -march=native -std=c++17 -pthread -w -I$SRC/lib -I$SRC/src -Ibenches -Iinclude \
//       benches/xiangqitb_compare.cpp $SRC/lib/lz4/*.c $SRC/lib/LZMA/*.c \
//       $SRC/lib/zstd/common/*.c $SRC/lib/zstd/compress/*.c $SRC/lib/zstd/dictBuilder/*.c \
//       $SRC/src/util/*.cpp $SRC/src/chess/*.cpp $SRC/src/egtb/*.cpp \
//       -Ltarget/release -lqiku -o xiangqitb_compare
//
// Usage: LD_LIBRARY_PATH=target/release xiangqitb_compare NAME WDL_DIR TMP_DIR QIKU_DIR [SHOW]
// NAME as xiangqitb writes it (KRKAABBN); SHOW differing FENs printed (default 5).

#include "xiangqitb_entries.h"

#include "qiku.h"

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

int main(int argc, char* argv[])
{
	if (argc != 5 && argc != 6)
	{
		std::fprintf(stderr, "usage: %s NAME WDL_DIR TMP_DIR QIKU_DIR [SHOW]\n", argv[0]);
		return 2;
	}
	try
	{
		const std::string name = argv[1];
		if (!xiangqitb_init(name))
			return 2;
		long show = argc == 6 ? std::strtol(argv[5], nullptr, 10) : 5;
		const EGTB_Paths paths = xiangqitb_paths(argv[2], argv[3]);

		QikuTablebases* tb = qiku_tb_open(argv[4]);
		if (tb == nullptr)
		{
			std::fprintf(stderr, "%s: %s\n", argv[4], qiku_last_error());
			return 1;
		}

		const Piece_Config ps(name);
		const Piece_Config_For_Gen epsi(ps);
		const auto [mat_key, mir_key] = epsi.material_keys();
		const WDL_File_For_Probe wdl(paths, epsi, mat_key == mir_key);

		// [color][xiangqitb -1/0/1][qiku asian -1/0/1], and for differences qiku plain -1/0/1.
		uint64_t pairs[COLOR_NB][3][3] = {};
		uint64_t diff_plain[COLOR_NB][3] = {};
		uint64_t errors = 0;
		char fen[MAX_FEN_LENGTH + 16];

		xiangqitb_for_each_entry(epsi, wdl, [&](Position_For_Gen& gen, Color color, WDL_Entry v, uint64_t weight) {
			const int xq = v == WDL_Entry::WIN ? 1 : v == WDL_Entry::LOSE ? -1 : 0;
			std::memset(fen, 0, sizeof(fen));
			gen.get_fen(Span(fen, MAX_FEN_LENGTH));
			std::strcat(fen, " - - 0 1");
			int q = 0, dtm = 0, by_rule = 0;
			if (qiku_tb_probe_rules(tb, fen, QIKU_RULES_ASIAN, &q, &dtm, &by_rule) != 0)
			{
				if (++errors <= 5)
					std::fprintf(stderr, "qiku probe failed on %s: %s\n", fen, qiku_last_error());
				return;
			}
			pairs[color][xq + 1][q + 1] += weight;
			if (xq != q)
			{
				int p = 0;
				if (qiku_tb_probe_rules(tb, fen, QIKU_RULES_PLAIN, &p, &dtm, &by_rule) != 0)
					++errors;
				else
					diff_plain[color][p + 1] += weight;
				if (show > 0)
				{
					--show;
					std::printf("differs: %s xiangqitb %d qiku %d (plain %d)\n", fen, xq, q, p);
				}
			}
		});

		const char* wdl_name[3] = { "loss", "draw", "win" };
		for (const Color color : { WHITE, BLACK })
		{
			std::printf("%s %s to move (xiangqitb's side; the FEN's %s):\n", name.c_str(),
				color == WHITE ? "white" : "black", color == WHITE ? "red" : "black");
			for (int a = 0; a < 3; ++a)
				for (int b = 0; b < 3; ++b)
					if (pairs[color][a][b] != 0)
						std::printf("  xiangqitb %s, qiku %s: %llu\n", wdl_name[a], wdl_name[b],
							static_cast<unsigned long long>(pairs[color][a][b]));
			std::printf("  where they differ, qiku's plain value: loss %llu, draw %llu, win %llu\n",
				static_cast<unsigned long long>(diff_plain[color][0]),
				static_cast<unsigned long long>(diff_plain[color][1]),
				static_cast<unsigned long long>(diff_plain[color][2]));
		}
		std::printf("probe errors: %llu\n", static_cast<unsigned long long>(errors));
		qiku_tb_close(tb);
		return errors == 0 ? 0 : 1;
	}
	catch (const std::exception& e)
	{
		std::fprintf(stderr, "error: %s\n", e.what());
		return 1;
	}
}
