"""A runs listing's paths: a file named twice by any path is one entry; a broken link or a
missing file is a bad row; a listing given by a relative path reads its rows from its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import RUN

from neuroncmp.store import listing as listings


def test_a_broken_link_is_a_missing_file_and_a_link_to_a_listed_file_is_a_repeat(tmp_path):
    shutil.copy(RUN / "b4.json", tmp_path / "a.json")
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "link.json").symlink_to("a.json")
    (tmp_path / "runs.csv").write_text("path\na.json\ngone.json\nlink.json\n")
    entries, problems = listings.read(tmp_path / "runs.csv")
    assert [e.path for e in entries] == [tmp_path / "a.json"]
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'runs.csv'}: line 3: path 'gone.json': no such file ({tmp_path / 'gone.json'})",
        f"{tmp_path / 'runs.csv'}: line 4: path 'link.json' is listed already on line 2"]


def test_a_relative_listing_in_the_working_folder(tmp_path, monkeypatch):
    shutil.copy(RUN / "b4.json", tmp_path / "a.json")
    shutil.copy(RUN / "b16.json", tmp_path / "b.json")
    (tmp_path / "runs.csv").write_text("path\na.json\n./b.json\n./a.json\n")
    monkeypatch.chdir(tmp_path)
    entries, problems = listings.read(Path("runs.csv"))
    assert [str(e.path) for e in entries] == ["a.json", "b.json"]
    assert [p.message for p in problems] == ["path './a.json' is listed already on line 2"]
