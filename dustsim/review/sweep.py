"""The report's sweeps as independent tasks: run here, or on a Dask cluster, same tables.

A sweep (every chosen card x every armour column x situation, and every card against every
chosen card) is split into :class:`Task` s by batches of cards and by situation. The split
depends only on the cards and ``batch``, never on the number of workers. Each Monte Carlo
task draws from ``SeedSequence([seed, *key])``, its key a stable hash of the task's content,
so a table is bitwise the same whether its tasks ran in this process, on one Dask worker or
on many, in any order. Results are put back in plan order.

Dask (``pip install dustsim[dask]``): ``--workers N`` starts a local cluster of N worker
processes; ``--scheduler ADDRESS`` joins an existing one (started with ``dask scheduler`` and
``dask worker ADDRESS`` on each machine, each with dustsim installed). A worker that dies
mid-run loses nothing: the scheduler re-runs its tasks elsewhere (``retries`` covers task
errors too), tasks it drops are resubmitted, and the sweep completes with the same tables
(:mod:`dustsim.engines.dask_runner`, the one Dask runner).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dustsim import SWEEP_TRIALS
from dustsim.data.cards import Card
from dustsim.errors import DustsimError
from dustsim.review.analytics import (
    SITUATIONS,
    reference_targets,
    unit_column_table,
    unit_unit_table,
)

BATCH = 8  # cards per task
LOST_WORKERS_WAIT = 30.0  # seconds with no worker at all before a sweep gives up
#: Dask settings of the local cluster (``--workers``), for its lifetime only: its workers do
#: not sample their own stacks (the statistical profiler, 1-4 % of a core each, measured
#: idle: 0.043 s/s per worker with it, 0.006 without) and poll memory and the system less
#: often; nothing here changes a result
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


@dataclass(frozen=True)
class Task:
    kind: str  # "unit_column" | "unit_unit"
    cards: tuple[str, ...]  # attackers (unit_column) or targets (unit_unit)
    situation: tuple[str, bool] | None = None

    @property
    def key(self) -> tuple[int, ...]:
        """Stable 128-bit key of the task's content (the same in every process)."""
        text = "|".join([self.kind, repr(self.situation), *self.cards])
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def task_seed(seed: int, task: Task) -> int:
    """The task's own seed, drawn from the run's SeedSequence keyed by the task."""
    return int(np.random.SeedSequence([seed, *task.key]).generate_state(1, np.uint64)[0]
               % (2**63))


def plan(chosen: list[Card], batch: int = BATCH) -> list[Task]:
    """Tasks of a sweep: card batches x situations, then target batches."""
    names = [c.name for c in chosen]
    groups = [tuple(names[i:i + batch]) for i in range(0, len(names), batch)]
    tasks = [Task("unit_column", g, sit) for g in groups for sit in SITUATIONS]
    tasks += [Task("unit_unit", g) for g in groups]
    return tasks


def run_task(task: Task, edition_cards: list[Card], engine: str, trials: int,
             seed: int) -> pd.DataFrame:
    """One task's rows (pure: same inputs, same table, in any process)."""
    by_name = {c.name: c for c in edition_cards}
    cards = [by_name[n] for n in task.cards]
    if task.kind == "unit_column":
        refs = {cards[0].edition: reference_targets(edition_cards)} if cards else None
        return unit_column_table(cards, engine=engine, trials=trials,
                                 seed=task_seed(seed, task), situations=(task.situation,),
                                 references=refs)
    return unit_unit_table(edition_cards, cards)


def _order(uc: pd.DataFrame, chosen: list[Card]) -> pd.DataFrame:
    """Rows in the order of a single unit_column_table call (card, column, situation)."""
    if uc.empty:
        return uc
    from dustsim.data.cards import COLUMNS

    pos = {c.name: i for i, c in enumerate(chosen)}
    col = {c: i for i, c in enumerate(COLUMNS)}
    sit = {s: i for i, s in enumerate(SITUATIONS)}
    k = (uc["unit"].map(pos) * 10_000 + uc["column"].map(col) * 10
         + [sit[(a, c)] for a, c in zip(uc["action"], uc["cover"], strict=True)])
    return uc.iloc[np.argsort(k.to_numpy(), kind="stable")].reset_index(drop=True)


def _assemble(tasks: list[Task], results: list[pd.DataFrame], chosen: list[Card]
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    uc = [r for t, r in zip(tasks, results, strict=True) if t.kind == "unit_column"]
    uu = [r for t, r in zip(tasks, results, strict=True) if t.kind == "unit_unit"]
    uc_df = pd.concat(uc, ignore_index=True) if uc else pd.DataFrame()
    uu_df = pd.concat(uu, ignore_index=True) if uu else pd.DataFrame()
    return _order(uc_df, chosen), uu_df


def sweep(edition_cards: list[Card], chosen: list[Card], *, engine: str = "exact",
          trials: int = SWEEP_TRIALS, seed: int = 0, client=None, batch: int = BATCH,
          progress: bool = False, retries: int = 2, task_fn=None
          ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The unit x column and unit x unit tables of ``chosen``, here or on a Dask client.

    ``task_fn`` replaces :func:`run_task` (same signature); the tests use it to kill a
    worker in the middle of a sweep."""
    task_fn = task_fn or run_task
    tasks = plan(chosen, batch)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="sweep tasks", unit="task", leave=False)
    try:
        if client is None:
            results = []
            for t in tasks:
                results.append(task_fn(t, edition_cards, engine, trials, seed))
                if bar is not None:
                    bar.update(1)
        else:
            results = _run_dask(client, task_fn, tasks, edition_cards, engine, trials, seed,
                                bar, retries)
    finally:
        if bar is not None:
            bar.close()
    return _assemble(tasks, results, chosen)


def _run_dask(client, task_fn, tasks, edition_cards, engine, trials, seed, bar, retries,
              resubmits: int = 3):
    """Every task's result on the client's cluster, in plan order
    (:func:`dustsim.engines.dask_runner.run_tasks`: a lost worker's tasks re-run, dropped
    ones resubmitted ``resubmits`` times, every worker lost for ``LOST_WORKERS_WAIT`` s an
    error)."""
    from dustsim.engines.dask_runner import Shared, run_tasks

    def tick(_i, _r) -> None:
        if bar is not None:
            bar.update(1)
    return run_tasks(client, task_fn, [(t, Shared(0), engine, trials, seed) for t in tasks],
                     keys=[f"dustsim-{t.kind}-{i}-{seed}" for i, t in enumerate(tasks)],
                     shared=(edition_cards,), retries=retries, resubmits=resubmits,
                     lost_wait=LOST_WORKERS_WAIT, on_result=tick)


_ADDRESS_RE = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                         r"(?::([0-9]{1,5}))?")


def check_scheduler_address(address: str) -> str:
    """``tcp://host:port`` (or ``host:port``, tls/ws/wss/ucx), else a one-line error."""
    if re.fullmatch(r"inproc://[\w.:/-]+", address.strip()):  # a cluster in this process
        return address.strip()
    m = _ADDRESS_RE.fullmatch(address.strip())
    if not address.strip() or not m or (m.group(2) and not 0 < int(m.group(2)) < 65536):
        raise DustsimError(f"--scheduler {address!r} is not a Dask scheduler address such as "
                           "tcp://host:8786", field="--scheduler")
    return address.strip()


@contextlib.contextmanager
def _workers_ignore_sigint() -> Iterator[None]:
    """The local cluster's worker processes ignore SIGINT, and this process does not.

    Ctrl-C reaches the whole process group; only this process should answer it (it stops
    the cluster), else each worker prints a traceback. The workers are forked by
    multiprocessing's fork server (``multiprocessing-method: forkserver``), which is started
    here with SIGINT ignored for the few milliseconds of its launch: it and every worker it
    forks keep ignoring it (an ignored signal stays ignored across ``exec``; the fork server
    restores the disposition it started with in each child). A fork server already running
    is reused as it is."""
    import multiprocessing.forkserver
    import signal

    import dask
    from distributed.utils import get_mp_context

    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        get_mp_context()  # Dask's preload list for the fork server, set before it starts
        if threading.current_thread() is threading.main_thread():
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                multiprocessing.forkserver.ensure_running()
            finally:
                signal.signal(signal.SIGINT, old)
        yield


class _Deferred:
    """A SIGINT or SIGTERM that landed while the local cluster started, delivered later."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def deliver(self) -> None:
        """Send the deferred signal again, to whatever handlers are installed now."""
        import signal

        if self.signum is not None:
            signum, self.signum = self.signum, None
            signal.raise_signal(signum)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[_Deferred]:
    """SIGINT/SIGTERM held while the body runs (the cluster's start, 1-5 s): an interrupt
    there would leave worker processes no cluster object can reach. The first signal is
    recorded and answered by :meth:`_Deferred.deliver` once the cluster exists; a second
    one goes to the old handler at once (a start that hangs can still be stopped). Only in
    the main thread (where signals land)."""
    import signal

    deferred = _Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield deferred
        return
    olds = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        if deferred.signum is None:
            deferred.signum = signum
            return
        old = olds[signum]
        if callable(old):
            old(signum, frame)

    for sig, old in olds.items():
        if old not in (signal.SIG_IGN, None):  # an ignored signal stays ignored
            signal.signal(sig, handler)
    try:
        yield deferred
    finally:
        for sig, old in olds.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)


@contextlib.contextmanager
def dask_client(workers: int = 0, scheduler: str | None = None,
                timeout: str = "10s") -> Iterator[object]:
    """A Dask client: None (run here) without workers or scheduler, a LocalCluster of
    ``workers`` processes (one thread each), or a client of the cluster at ``scheduler``."""
    if not workers and not scheduler:
        yield None
        return
    if workers and scheduler:
        raise DustsimError("give --workers or --scheduler, not both", field="--workers")
    if workers < 0:
        raise DustsimError("--workers must be >= 0", field="--workers")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise DustsimError("Dask is not installed: pip install 'dustsim[dask]'",
                           field="--workers" if workers else "--scheduler") from None
    if scheduler:
        scheduler = check_scheduler_address(scheduler)
        try:
            client = Client(scheduler, timeout=timeout)
        # TypeError: tls:// without Dask security settings; ImportError/RuntimeError: ucx://
        # without ucx-py
        except (OSError, TimeoutError, ValueError, TypeError, ImportError, RuntimeError) as exc:
            raise DustsimError(f"cannot reach the Dask scheduler {scheduler!r}: "
                               f"{' '.join(str(exc).split())[:200]}",
                               field="--scheduler") from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            client.close()
            raise DustsimError(f"the Dask scheduler {scheduler!r} has no workers (waited "
                               f"{timeout}); start some with `dask worker {scheduler}`",
                               field="--scheduler") from None
        try:
            yield client
        finally:
            client.close()
        return
    # one thread per worker process: the kernel's own threads would oversubscribe the cores.
    # The worker processes ignore SIGINT (only this process answers Ctrl-C); a signal that
    # lands while the cluster starts is answered as soon as it exists
    with contextlib.ExitStack() as quiet, contextlib.ExitStack() as stack:
        import dask

        stack.enter_context(dask.config.set(LOCAL_CLUSTER_CONFIG))  # scoped, restored at exit
        stack.enter_context(_workers_ignore_sigint())
        with _signals_deferred() as deferred:
            # silence_logs=CRITICAL (50): the cluster's own log lines are Dask's internals (a
            # worker directory already removed by its nanny at teardown logged an ERROR line
            # after the one line a Ctrl-C prints); lost workers and failed tasks are reported
            # by the runner itself, in one line (engines.dask_runner)
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=50, env={"DUSTSIM_THREADS": "1"}))
            client = stack.enter_context(Client(cluster))
        try:
            # Dask's logs go quiet the moment a signal lands (its event loop thread logs the
            # interrupted calls at once), until the client and cluster are closed (``quiet``
            # exits after ``stack``)
            with _quiet_on_signal(quiet):
                deferred.deliver()
                yield client
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (cli.shell.Terminated)
            _silence_once(quiet)
            _kill_local_workers(cluster)
            raise


def _silence_once(quiet: contextlib.ExitStack) -> None:
    if not getattr(quiet, "dustsim_silenced", False):
        quiet.dustsim_silenced = True
        quiet.enter_context(_distributed_logs_silenced())


@contextlib.contextmanager
def _quiet_on_signal(quiet: contextlib.ExitStack) -> Iterator[None]:
    """SIGINT/SIGTERM handlers that silence Dask's loggers, then do what the handlers they
    replace did (raise KeyboardInterrupt, the shell's Terminated, or the default action);
    the old handlers are restored at exit. Only in the main thread (where signals land)."""
    import os
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    olds = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        old = olds[signum]
        if old in (signal.SIG_IGN, None):
            return
        _silence_once(quiet)
        if callable(old):
            old(signum, frame)
            return
        signal.signal(signum, old)  # the default action: as if never caught
        os.kill(os.getpid(), signum)

    for sig in olds:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in olds.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)


def _kill_local_workers(cluster) -> None:
    """An interrupted run: end this process's worker processes at once (SIGKILL) instead of
    the cluster's graceful retirement (seconds per worker, and workers still running after
    the scheduler closed print heartbeat tracebacks). Their nannies are told first not to
    restart them."""
    import os
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if not pid:
            continue
        with contextlib.suppress(Exception):
            nanny.close_gracefully(reason="dustsim-interrupted")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


_DISTRIBUTED_LOGGERS = ("distributed", "tornado", "asyncio")


@contextlib.contextmanager
def _distributed_logs_silenced() -> Iterator[None]:
    """Dask's loggers in this process off while an interrupted cluster closes (it reports
    lost workers and closed streams that dustsim caused on purpose); levels restored."""
    import logging

    names = [n for n in list(logging.root.manager.loggerDict)
             if n.split(".")[0] in _DISTRIBUTED_LOGGERS]  # children with levels of their own
    loggers = [logging.getLogger(n) for n in {*_DISTRIBUTED_LOGGERS, *names}]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
