// The legal entries of one xiangqitb WDL table (github.com/noobpwnftw/xiangqitb), shared by
// benches/xiangqitb_wdl_count.cpp and benches/xiangqitb_compare.cpp.
//
// xiangqitb's index keeps, for one group of pieces (its "compress" group), only one placement of
// each pair of left-right mirror images; a placement that is its own mirror image is kept, and
// then both the position and its mirror image have entries of their own. So an entry stands for
// two positions when its compress group's placement differs from its mirror image, else for one:
// that is the weight handed to the callback, so totals match `qiku-tb stats`.

#pragma once

#include "chess/chess.h"
#include "chess/attack.h"
#include "chess/piece_config.h"
#include "egtb/egtb.h"
#include "egtb/egtb_gen.h"

#include <cstdint>
#include <cstdio>
#include <string>

// Initialises xiangqitb's tables and checks `name` (as xiangqitb writes it, KRKAABBN); false
// after a message on stderr when it is not a material name.
inline bool xiangqitb_init(const std::string& name)
{
	init_possible();
	attack_init();
	if (!Piece_Config::is_constructible_from(name))
	{
		std::fprintf(stderr, "%s: not a xiangqitb material name such as KRKAABBN\n", name.c_str());
		return false;
	}
	return true;
}

// Paths with one WDL directory and a scratch directory.
inline EGTB_Paths xiangqitb_paths(const char* wdl_dir, const char* tmp_dir)
{
	EGTB_Paths paths;
	paths.add_wdl_path(wdl_dir);
	paths.set_tmp_path(tmp_dir);
	paths.init_directories();
	return paths;
}

// Calls f(gen, color, value, weight) for every legal entry of the table `epsi` read from `wdl`,
// with `gen` set to that position and side to move. The WDL file's illegal entries were
// overwritten for compression: legality is decided here as the generator decides it (no two
// pieces on a square, the side not to move not in check, kings not facing).
template <typename F>
void xiangqitb_for_each_entry(const Piece_Config_For_Gen& epsi, const WDL_File_For_Probe& wdl, F&& f)
{
	const Piece_Class compress = epsi.compress_id();
	const Piece_Group& group = epsi.group(compress);
	for (size_t pos = 0; pos < epsi.num_positions(); ++pos)
	{
		const Board_Index ix = static_cast<Board_Index>(pos);
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
			f(gen, color, wdl.read(color, ix), weight);
		}
	}
}
