"""The examples of docs/PYTHON.md run as written, in a directory laid out as a fresh clone: the
shipped games, and a tablebases/ directory that holds only its README (tables are generated,
never committed)."""

import re
import subprocess
import sys

from conftest import ROOT


def test_python_md_examples_run_on_a_fresh_clone(tmp_path):
    text = (ROOT / "docs" / "PYTHON.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 4
    (tmp_path / "books").symlink_to(ROOT / "books")
    (tmp_path / "tablebases").mkdir()
    (tmp_path / "tablebases" / "README.md").write_bytes((ROOT / "tablebases" / "README.md").read_bytes())
    script = "\n".join(blocks)
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{run.stderr[-2000:]}"
    # The tablebase example printed its probe: a win for the side to move.
    assert "win" in run.stdout.splitlines()[-1], run.stdout[-500:]
