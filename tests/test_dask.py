"""The report's sweeps on a real Dask LocalCluster: same tables as a local run, and a worker
killed mid-sweep loses nothing."""

from __future__ import annotations

import os
import sys

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from dustsim.review.sweep import Task, plan, run_task, sweep, task_seed  # noqa: E402

TRIALS = 3000


@pytest.fixture(scope="module")
def d47(all_cards):
    return [c for c in all_cards if c.edition == "dust-1947"]


@pytest.fixture(scope="module")
def chosen(d47):
    return d47[:16]


@pytest.fixture(scope="module")
def local(d47, chosen):
    return sweep(d47, chosen, engine="mc", trials=TRIALS, seed=11)


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=50) as c, Client(c) as client:
        yield c, client


def test_task_keys_are_stable_and_distinct(chosen):
    tasks = plan(chosen)
    assert len({t.key for t in tasks}) == len(tasks)
    assert Task("unit_unit", ("a", "b")).key == Task("unit_unit", ("a", "b")).key
    assert task_seed(1, tasks[0]) != task_seed(2, tasks[0])
    # the plan depends on the cards only: 2 batches x 4 situations + 2 target batches
    assert len(tasks) == 2 * 4 + 2


def test_task_split_equals_one_local_table(d47, chosen, local):
    """Exact engine: the split sweep equals the single-call tables."""
    from dustsim.review.analytics import reference_targets, unit_column_table, unit_unit_table

    uc, uu = sweep(d47, chosen[:5], batch=2)
    refs = {"dust-1947": reference_targets(d47)}
    pd.testing.assert_frame_equal(uc, unit_column_table(chosen[:5], references=refs))
    pd.testing.assert_frame_equal(uu, unit_unit_table(d47, chosen[:5]))


def test_dask_tables_equal_local(d47, chosen, local, cluster):
    _, client = cluster
    uc, uu = sweep(d47, chosen, engine="mc", trials=TRIALS, seed=11, client=client)
    pd.testing.assert_frame_equal(uc, local[0])
    pd.testing.assert_frame_equal(uu, local[1])
    # and another seed gives other numbers (the seed is really used)
    uc2, _ = sweep(d47, chosen[:8], engine="mc", trials=TRIALS, seed=12, client=client)
    assert not uc2["mean_damage"].equals(local[0]["mean_damage"].iloc[:len(uc2)])


def _dying_task(task, cards, engine, trials, seed, marker):
    """Kills its worker process the first time it runs (a worker lost mid-sweep): one worker
    only, the marker created atomically (two workers checking it at once both died once, and
    the cluster lost every worker and the scattered cards with them)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return run_task(task, cards, engine, trials, seed)
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    os._exit(1)


def test_a_killed_worker_loses_no_result(d47, chosen, local, cluster, tmp_path):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    _, client = cluster
    marker = str(tmp_path / "killed")

    def fn(task, cards, engine, trials, seed):
        return _dying_task(task, cards, engine, trials, seed, marker)

    uc, uu = sweep(d47, chosen, engine="mc", trials=TRIALS, seed=11, client=client,
                   task_fn=fn)
    assert os.path.exists(marker)  # a worker really died
    pd.testing.assert_frame_equal(uc, local[0])
    pd.testing.assert_frame_equal(uu, local[1])
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def dropped_once(monkeypatch, dr) -> list:
    """The Dask runner's first submission returns half its tasks, then the scheduler drops
    the run ("already forgotten"); the submissions' task lists are recorded."""
    from concurrent.futures import CancelledError

    real, calls = dr._run_once, []

    def once(client, fn, args, keys, todo, *rest):
        calls.append(list(todo))
        if len(calls) == 1:
            real(client, fn, args, keys, todo[: len(todo) // 2], *rest)
            raise CancelledError(f"{keys[todo[-1]]}: already forgotten")
        real(client, fn, args, keys, todo, *rest)

    monkeypatch.setattr(dr, "_run_once", once)
    return calls


def test_a_run_the_scheduler_drops_is_resubmitted(d47, chosen, local, cluster, monkeypatch):
    """Tasks the scheduler cancels ("already forgotten") are submitted again, only those."""
    import dustsim.engines.dask_runner as dr

    _, client = cluster
    calls = dropped_once(monkeypatch, dr)
    uc, uu = sweep(d47, chosen, engine="mc", trials=TRIALS, seed=11, client=client)
    assert len(calls) == 2 and calls[1] == calls[0][len(calls[0]) // 2:]
    pd.testing.assert_frame_equal(uc, local[0])
    pd.testing.assert_frame_equal(uu, local[1])


def test_value_engagements_on_workers_equal_local(d47, cluster):
    """The value model's engagements played on two workers: bitwise the local table (an
    unplayable card included), and the compile memos change nothing either."""
    from dustsim.play import duel
    from dustsim.review import value as V

    _, client = cluster
    names = ("Pounder", "Ranger Combat Squad", "Rhino", "Ludwig", "Grenadiers")
    from dataclasses import replace

    cards = [c for c in d47 if c.name in names][:4]
    cards.insert(1, replace(cards[0], name="No Move", move=None))  # cannot play: a why row
    field_ = V.reference_field(d47, per_class=1)[:4]
    st = V.ValueSettings(trials=3, threads=1)
    V.clear_cache()
    duel._MEMO.clear()
    local = V.engagements(cards, field_, d47, st)
    V.clear_cache()  # the local memo now holds every compiled side: the workers have none
    remote = V.engagements(cards, field_, d47, st, client=client)
    V.clear_cache()
    pd.testing.assert_frame_equal(remote, local, check_exact=True)
    assert (local["why"] != "").sum() >= 1 and (local["why"] == "").sum() > 1


def test_report_with_workers_equals_local(tmp_path, monkeypatch):
    """The local run may read the value model from the cache (the same model, by content:
    tests/test_value_cache.py); the run on workers computes it there, battles included."""
    from dustsim.cli.shell import main

    units = "Pounder,Heavy Laser Grenadier Squad,Ludwig"
    common = ["report", "--units", units, "--engine", "mc", "--trials", "2000",
              "--format", "png", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    monkeypatch.setenv("DUSTSIM_VALUE_CACHE", "0")
    assert main([*common, "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    for t in ("unit_column", "unit_unit", "scores", "fair_points", "value_engagements"):
        a = pd.read_parquet(tmp_path / "a" / "tables" / f"{t}.parquet")
        b = pd.read_parquet(tmp_path / "b" / "tables" / f"{t}.parquet")
        pd.testing.assert_frame_equal(a, b)


def test_ctrl_c_during_a_dask_sweep_leaves_nothing(tmp_path, monkeypatch):
    import dustsim.review.report as rep
    from dustsim.cli.shell import main

    real = rep.sweep

    def interrupted(*a, **k):
        assert k["client"] is not None  # inside the cluster
        real(*a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(rep, "sweep", interrupted)
    out = tmp_path / "rep"
    assert main(["report", "--units", "Pounder", "--out", str(out), "--quiet",
                 "--workers", "2", "--confirm", "0"]) == 130
    assert not out.exists() and not any(tmp_path.iterdir())


def test_bad_dask_options_are_one_line_errors(tmp_path, capsys):
    from dustsim.cli.shell import main

    out = str(tmp_path / "r")
    assert main(["report", "--units", "Pounder", "--out", out, "--workers", "-1"]) == 2
    assert main(["report", "--units", "Pounder", "--out", out, "--workers", "2",
                 "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("dustsim: error:") for e in err)
    assert not (tmp_path / "r").exists()
    from dustsim.errors import DustsimError
    from dustsim.review.sweep import dask_client

    with pytest.raises(DustsimError, match="cannot reach the Dask scheduler"):  # noqa: SIM117
        with dask_client(scheduler="tcp://127.0.0.1:1", timeout="1s"):
            pass
