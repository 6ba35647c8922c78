"""Platoon chart files given to the library (``load_platoons(paths)``): size caps from
``dustsim.limits``, refused in one line naming the file before anything is parsed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dustsim.army.platoons import load_platoons, parse_platoon_file
from dustsim.data.cards import default_data_dir
from dustsim.errors import DustsimError
from dustsim.limits import PLATOON_CHARTS, PLATOON_FILE_BYTES

CHART = '[[platoon]]\nname = "P{i}"\n'


def _refused(path: Path, word: str) -> str:
    with pytest.raises(DustsimError) as exc:
        load_platoons([path])
    msg = str(exc.value)
    assert "\n" not in msg and path.name in msg and word in msg, msg
    return msg


def test_a_file_over_the_byte_cap_is_refused_unread(tmp_path):
    f = tmp_path / "big.toml"
    f.write_text(CHART.format(i=0), encoding="utf-8")
    os.truncate(f, PLATOON_FILE_BYTES + 1)  # sparse: the refusal must come from its size
    assert f"{PLATOON_FILE_BYTES:,}" in _refused(f, "larger than the cap")


def test_more_charts_than_the_cap_are_refused_by_count(tmp_path):
    f = tmp_path / "many.toml"
    text = "".join(CHART.format(i=i) for i in range(PLATOON_CHARTS + 1))
    assert len(text.encode()) <= PLATOON_FILE_BYTES  # under the byte cap: the count refuses
    f.write_text(text, encoding="utf-8")
    _refused(f, f"{PLATOON_CHARTS + 1:,} charts is over the cap of {PLATOON_CHARTS:,}")


def test_folders_devices_and_missing_files_are_refused(tmp_path):
    _refused(tmp_path, "not a regular file")
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)  # reading it would block forever
    _refused(fifo, "not a regular file")
    with pytest.raises(DustsimError, match="cannot read"):
        parse_platoon_file(tmp_path / "missing.toml")


def test_the_bundled_charts_are_within_the_caps():
    files = sorted((default_data_dir() / "platoons").glob("*.toml"))
    assert files
    for f in files:
        assert f.stat().st_size <= PLATOON_FILE_BYTES
        assert len(parse_platoon_file(f)) <= PLATOON_CHARTS
