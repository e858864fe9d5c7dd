"""The store's copies are named by the sha256 of their content and hold that content: a small
file is hashed from bytes read once and copied from those very bytes; a large file or a folder
as before (hashed, then copied from its path); an add holds a bounded amount of bytes."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from conftest import RUN

from neuroncmp.store import Store, adding, objects

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_small_file_is_read_once_with_its_hash_and_name(tmp_path):
    data = (RUN / "b16.json").read_bytes()
    content = objects.read(RUN / "b16.json")
    assert content == (sha(data), f"objects/{sha(data)[:2]}/{sha(data)}.json", data)
    (tmp_path / "empty.MD").write_bytes(b"")
    assert objects.read(tmp_path / "empty.MD") == (sha(b""), f"objects/{sha(b'')[:2]}/{sha(b'')}.md", b"")


def test_a_large_file_and_a_folder_are_hashed_as_before_and_not_held(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * (objects.SMALL + 1))
    assert objects.read(big) == (sha(big.read_bytes()), f"objects/{sha(big.read_bytes())[:2]}/"
                                 f"{sha(big.read_bytes())}.json", None)
    folder = tmp_path / "explorer"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.parquet").write_bytes(b"a")
    (folder / "sub" / "b.parquet").write_bytes(b"b")
    expected = hashlib.sha256()  # every file's relative path and the sha256 of its bytes, sorted
    for name, data in (("a.parquet", b"a"), ("sub/b.parquet", b"b")):
        expected.update(name.encode() + b"\0")
        expected.update(hashlib.sha256(data).digest())
    content = objects.read(folder)
    assert content == (expected.hexdigest(), f"objects/{expected.hexdigest()[:2]}/{expected.hexdigest()}.d", None)


def test_the_copy_is_the_content_hashed_even_if_the_file_changes_before_the_commit(tmp_path):
    source = tmp_path / "b32.json"
    shutil.copy(RUN / "b32.json", source)
    (prepared,) = adding.prepare(adding.Entry(source, {}, None, None, str(source)))
    source.write_text(source.read_text().replace("0.1147", "0.2222"))  # rewritten in place
    root = tmp_path / "s"
    objects.keep(root, prepared.object, source, prepared.data[prepared.object])
    assert sha((root / prepared.object).read_bytes()) == prepared.content_hash
    assert objects.verify(root, prepared.object, prepared.content_hash)


def test_an_add_beyond_the_bytes_it_may_hold_copies_from_the_files(tmp_path, monkeypatch):
    files = [RUN / "b4.json", RUN / "b16.json", RUN / "b32.json", RUN / "b48.json"]
    monkeypatch.setattr(adding, "HELD_BYTES", len(files[0].read_bytes()) + 10)  # the first one only
    copied = []
    real = objects.keep

    def keep(root, relative, source, data=None):
        copied.append((source.name, data is not None))
        real(root, relative, source, data)

    monkeypatch.setattr(objects, "keep", keep)
    store = Store(tmp_path / "s")
    store.add(*files)
    assert copied[0] == ("b4.json", True)
    assert ("b16.json", False) in copied and ("b48.json", False) in copied
    assert ("b16.memory.md", False) in copied  # a sidecar beyond it too
    assert store.check().ok  # every copy holds the content its name says
    for file in files:
        digest = sha(file.read_bytes())
        assert (tmp_path / "s" / "objects" / digest[:2] / f"{digest}.json").read_bytes() == file.read_bytes()
