"""The manual's measured numbers come from runs: each table of docs/measured/ is one that a bench
section writes (bench/tables.py), says where and when it was measured, and is included by a
page; the writer turns a section's results into the table it shows."""

import re
import sys

from mcsgen.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import tables  # noqa: E402

MEASURED = ROOT / "docs" / "measured"


def test_every_measured_table_is_a_bench_sections_and_a_page_includes_it():
    files = sorted(p.stem for p in MEASURED.glob("*.md"))
    assert files == sorted(tables.TABLES), (files, sorted(tables.TABLES))
    pages = "\n".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for name in files:
        text = (MEASURED / f"{name}.md").read_text()
        assert re.search(
            rf"\*Measured by `bench/run.py {name}` on \d{{4}}-\d\d-\d\d \(.+cores", text
        )
        assert f'--8<-- "measured/{name}.md"' in pages, name


def test_a_sweep_result_becomes_its_table(monkeypatch, tmp_path):
    monkeypatch.setattr(tables, "MEASURED", tmp_path)
    row = dict(workers=2, batch=8, sweep_s=2.0, start_s=1.5, runs_per_s=50.0, run_ms=39.5,
               overhead_ms=0.25, same_as_serial=True, speedup=1.9)  # fmt: skip
    path = tables.write("sweep", {"runs": 100, "integration_ms": 30.0, "rows": {"two": row}})
    text = path.read_text()
    assert "| two | 50.0 | 1.90 | 39.5 ms | 0.25 ms | 8 | 1.5 s |" in text
    assert "100 slider-crank runs" in text and "bit-identical" in text
    assert tables.write("arm", {}) is None  # a section without a table writes nothing
