// Win/draw/loss counts of one xiangqitb WDL table (github.com/noobpwnftw/xiangqitb), counted the
// way `qiku-tb stats` counts: every legal position once, left-right mirror images separately,
// identical pieces unordered.
//
// Entries are weighted by the mirror images they stand for (benches/xiangqitb_entries.h).
//
// Built against a xiangqitb source tree (benches/xiangqitb_side_by_side.sh does this when
// XIANGQITB_SRC is set):
//   g++ -O2 -march=native -std=c++17 -pthread -I$SRC/lib -I$SRC/src -Ibenches benches/xiangqitb_wdl_count.cpp \
//       $SRC/lib/lz4/*.c $SRC/lib/LZMA/*.c $SRC/lib/zstd/common/*.c $SRC/lib/zstd/compress/*.c \
//       $SRC/lib/zstd/dictBuilder/*.c $SRC/src/util/*.cpp $SRC/src/chess/*.cpp \
//       $SRC/src/egtb/*.cpp -o xiangqitb_wdl_count
//
// Usage: xiangqitb_wdl_count NAME WDL_DIR TMP_DIR, NAME as xiangqitb writes it (KRKAABBN).
// Prints one line per side to move: legal, wins, draws, losses.

#include "xiangqitb_entries.h"

#include <cstdio>
#include <cstdint>
#include <exception>
#include <string>

int main(int argc, char* argv[])
{
	if (argc != 4)
	{
		std::fprintf(stderr, "usage: %s NAME WDL_DIR TMP_DIR\n", argv[0]);
		return 2;
	}
	try
	{
		const std::string name = argv[1];
		if (!xiangqitb_init(name))
			return 2;
		const EGTB_Paths paths = xiangqitb_paths(argv[2], argv[3]);
		const Piece_Config ps(name);
		const Piece_Config_For_Gen epsi(ps);
		const auto [mat_key, mir_key] = epsi.material_keys();
		const WDL_File_For_Probe wdl(paths, epsi, mat_key == mir_key);

		uint64_t count[COLOR_NB][4] = {};
		xiangqitb_for_each_entry(epsi, wdl, [&](Position_For_Gen&, Color color, WDL_Entry v, uint64_t weight) {
			count[color][static_cast<size_t>(v)] += weight;
		});

		for (const Color color : { WHITE, BLACK })
		{
			const uint64_t* n = count[color];
			const uint64_t win = n[static_cast<size_t>(WDL_Entry::WIN)];
			const uint64_t draw = n[static_cast<size_t>(WDL_Entry::DRAW)];
			const uint64_t loss = n[static_cast<size_t>(WDL_Entry::LOSE)];
			std::printf("%s %s legal %llu wins %llu draws %llu losses %llu\n",
				name.c_str(), color == WHITE ? "white" : "black",
				static_cast<unsigned long long>(win + draw + loss),
				static_cast<unsigned long long>(win),
				static_cast<unsigned long long>(draw),
				static_cast<unsigned long long>(loss));
		}
	}
	catch (const std::exception& e)
	{
		std::fprintf(stderr, "error: %s\n", e.what());
		return 1;
	}
	return 0;
}
