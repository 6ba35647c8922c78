"""The one Dask runner: submit keyed tasks, gather the results in order, resubmit what the
scheduler drops, and give up with one line when every worker is gone.

The report's sweeps (:mod:`dustsim.review.sweep`), the value model's engagements
(:mod:`dustsim.review.value`) and the meta of list and board battles
(:func:`dustsim.play.list_battles.play_pairings`) run their tasks here. A task's numbers
depend only on its arguments (each draws from its own stream), so where and in which order
the tasks ran changes nothing.

* A lost worker's tasks are re-run by the scheduler (``retries`` covers task errors too).
* Should the scheduler still drop tasks (a worker lost while it held the only copy of an
  input: "already forgotten", a ``CancelledError``), the tasks without a result are submitted
  again under new keys, ``resubmits`` times (3: a worker lost while the scheduler still
  settles the last loss can drop a resubmission too, seen once in CI), while a worker
  remains.
* With no worker at all for ``lost_wait`` seconds the run stops: :func:`lost_workers_error`.

Keys are unique to a run (a random suffix): an earlier run's keys of the same name may still
be being released on the scheduler, which would cancel these.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from typing import Any

from dustsim.errors import DustsimError

LOST_WORKERS_WAIT = 30.0  # seconds with no worker at all before a run gives up


@dataclass(frozen=True)
class Shared:
    """In a task's arguments: the ``index``-th of the run's ``shared`` values, scattered once
    to every worker (per submission) instead of sent with each task."""

    index: int


def has_workers(client) -> bool:
    """Whether the client's cluster has a worker (False when the scheduler itself is gone)."""
    try:
        return bool(client.scheduler_info().get("workers"))
    except Exception:  # the scheduler itself is gone
        return False


def lost_workers_error(n_tasks: int, wait: float = LOST_WORKERS_WAIT) -> DustsimError:
    return DustsimError(f"every Dask worker was lost, with the run's data ({n_tasks} tasks; "
                        f"none came back within {wait:g} s); restart the workers "
                        "and run again", field="--scheduler")


def run_tasks(client, fn: Callable, args: Sequence[tuple], *, keys: Sequence[str],
              shared: Sequence = (), retries: int = 2, resubmits: int = 3,
              lost_wait: float = LOST_WORKERS_WAIT,
              on_result: Callable[[int, Any], None] | None = None) -> list:
    """``[fn(*args[i]) for i]`` on ``client``'s cluster, in order (module docstring).

    ``keys[i]``: task *i*'s key (a run suffix is added); ``shared``: values scattered to every
    worker, passed where a task's arguments hold :class:`Shared` placeholders;
    ``on_result(i, result)`` is called as each result comes back (a progress bar)."""
    if len(keys) != len(args):
        raise DustsimError("internal: one key per task")
    results: list = [None] * len(args)
    done = [False] * len(args)
    todo = list(range(len(args)))
    for attempt in range(resubmits + 1):
        try:
            _run_once(client, fn, args, keys, todo, results, done, shared, retries, lost_wait,
                      on_result)
            return results
        except CancelledError as exc:  # the scheduler dropped tasks of the run
            todo = [i for i in todo if not done[i]]
            if attempt == resubmits or not has_workers(client):
                raise DustsimError(f"the Dask scheduler dropped the run's tasks ({exc}); if "
                                   "its workers were lost, restart them; run again",
                                   field="--scheduler") from None
    return results


def _run_once(client, fn, args, keys, todo, results, done, shared, retries, lost_wait,
              on_result) -> None:
    """One submission of the tasks ``todo``; fills ``results``/``done`` as they come back."""
    from distributed import as_completed

    if not todo:
        return
    shared_f = client.scatter(list(shared), broadcast=True, hash=False) if shared else []
    run = uuid.uuid4().hex[:12]
    calls = [tuple(shared_f[a.index] if isinstance(a, Shared) else a for a in args[i])
             for i in todo]
    # one call submits every task (a submit per task waits on the event loop each time)
    futures = client.map(fn, *zip(*calls, strict=True), key=[f"{keys[i]}-{run}" for i in todo],
                         retries=retries, pure=False)
    index = {f.key: i for f, i in zip(futures, todo, strict=True)}
    lost = threading.Event()
    finished = threading.Event()

    def watchdog() -> None:  # every worker gone for lost_wait s: give up
        since = None
        while not finished.wait(min(2.0, lost_wait)):
            if has_workers(client):
                since = None
                continue
            since = since or time.monotonic()
            if time.monotonic() - since > lost_wait:
                lost.set()
                client.cancel(futures)
                return

    threading.Thread(target=watchdog, daemon=True, name="dustsim-dask-watchdog").start()
    try:
        for fut in as_completed(futures):
            if lost.is_set():
                break
            i = index[fut.key]
            results[i] = fut.result()
            done[i] = True
            if on_result is not None:
                on_result(i, results[i])
    except BaseException:
        client.cancel(futures)
        if lost.is_set():
            raise lost_workers_error(len(args), lost_wait) from None
        raise
    finally:
        finished.set()
    if lost.is_set():
        raise lost_workers_error(len(args), lost_wait)
