"""Whether a path lies inside a folder: one rule, the same line drawn by every guard that asks."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp as nc
from neuroncmp.cli import cli
from neuroncmp.paths import inside


@pytest.fixture
def tree(tmp_path):
    """tmp/box (the folder) holding a file and a link out; tmp/boxes (a name sharing its prefix)."""
    box, boxes = tmp_path / "box", tmp_path / "boxes"
    (box / "sub").mkdir(parents=True)
    boxes.mkdir()
    (box / "sub" / "a.json").write_text("{}")
    (boxes / "b.json").write_text("{}")
    (box / "out").symlink_to(boxes)
    (tmp_path / "in").symlink_to(box / "sub")
    return tmp_path


@pytest.mark.parametrize(("path", "expected"), [
    ("box", True),                       # the folder itself
    ("box/sub/a.json", True),
    ("box/sub/../sub/a.json", True),
    ("box/sub/new.json", True),          # a file not yet written
    ("box/../boxes/b.json", False),      # ".." leads out
    ("boxes/b.json", False),             # shares the folder's name as a prefix only
    ("box/out/b.json", False),           # a link inside that leads out
    ("in/a.json", True),                 # a link outside that leads in
])
def test_a_path_is_inside_once_links_and_dots_are_resolved(tree, path, expected):
    assert inside(tree / path, tree / "box") is expected
    assert inside(str(tree / path), str(tree / "box")) is expected


def test_a_link_to_the_folder_is_the_folder(tree):
    (tree / "alias").symlink_to(tree / "box")
    assert inside(tree / "box" / "sub", tree / "alias")
    assert inside(tree / "alias" / "sub", tree / "box")


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_outputs_beside_the_store_are_written_and_through_a_link_into_it_refused(tmp_path):
    store = tmp_path / "store"
    nc.Store(store).add(RUN / "b16.json")
    (tmp_path / "into").symlink_to(store)
    beside = run("history", "total_time", "--store", str(store), "-o", str(tmp_path / "store-history.txt"))
    assert beside.exit_code == 0, beside.output
    through = run("history", "total_time", "--store", str(store), "-o", str(tmp_path / "into" / "h.txt"))
    assert through.exit_code == 2 and "inside the store this run reads" in through.output
    site = run("report", "--store", str(store), "-o", str(tmp_path / "into" / "site"))
    assert site.exit_code == 2 and "is inside the store" in site.output
    holding = run("report", "--store", str(tmp_path / "into"), "-o", str(tmp_path))
    assert holding.exit_code == 2 and "holds the store" in holding.output
