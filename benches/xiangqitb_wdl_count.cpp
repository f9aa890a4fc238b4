// Win/draw/loss counts of one xiangqitb WDL table (github.com/noobpwnftw/xiangqitb), counted the
// way `qiku-tb stats` counts: every legal position once, left-right mirror images separately,
// identical pieces unordered.
//
// xiangqitb's index keeps, for one group of pieces (its "compress" group), only one placement of
// each pair of left-right mirror images; a placement that is its own mirror image is kept, and
// then both the position and its mirror image have entries of their own. So an entry stands for
// two positions when its compress group's placement differs from its mirror image, else for one.
//
// Built against a xiangqitb source tree (benches/xiangqitb_side_by_side.sh does this when
// XIANGQITB_SRC is set):
//   g++ -O2 -march=native -std=c++17 -pthread -I$SRC/lib -I$SRC/src benches/xiangqitb_wdl_count.cpp \
//       $SRC/lib/lz4/*.c $SRC/lib/LZMA/*.c $SRC/lib/zstd/common/*.c $SRC/lib/zstd/compress/*.c \
//       $SRC/lib/zstd/dictBuilder/*.c $SRC/src/util/*.cpp $SRC/src/chess/*.cpp \
//       $SRC/src/egtb/*.cpp -o xiangqitb_wdl_count
//
// Usage: xiangqitb_wdl_count NAME WDL_DIR TMP_DIR, NAME as xiangqitb writes it (KRKAABBN).
// Prints one line per side to move: legal, wins, draws, losses.

#include "chess/chess.h"
#include "chess/attack.h"
#include "chess/piece_config.h"
#include "egtb/egtb.h"
#include "egtb/egtb_gen.h"

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
		init_possible();
		attack_init();

		const std::string name = argv[1];
		if (!Piece_Config::is_constructible_from(name))
		{
			std::fprintf(stderr, "%s: not a xiangqitb material name such as KRKAABBN\n", name.c_str());
			return 2;
		}
		EGTB_Paths paths;
		paths.add_wdl_path(argv[2]);
		paths.set_tmp_path(argv[3]);
		paths.init_directories();

		const Piece_Config ps(name);
		const Piece_Config_For_Gen epsi(ps);
		const auto [mat_key, mir_key] = epsi.material_keys();
		const WDL_File_For_Probe wdl(paths, epsi, mat_key == mir_key);

		const Piece_Class compress = epsi.compress_id();
		const Piece_Group& group = epsi.group(compress);

		uint64_t count[COLOR_NB][4] = {};
		for (size_t pos = 0; pos < epsi.num_positions(); ++pos)
		{
			const Board_Index ix = static_cast<Board_Index>(pos);
			// The WDL file's illegal entries were overwritten for compression: legality is
			// decided here as the generator decides it (no two pieces on a square, the side
			// not to move not in check, kings not facing).
			Position_For_Gen gen(epsi, ix, WHITE);
			if (!gen.is_legal())
				continue;
			const Piece_Group::Placement_Index c = gen.index()[compress];
			const uint64_t weight = group.mirr_index(c) == c ? 1 : 2;
			for (const Color color : { WHITE, BLACK })
			{
				gen.set_turn(color);
				if (!gen.board().is_legal())
					continue;
				count[color][static_cast<size_t>(wdl.read(color, ix))] += weight;
			}
		}

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
