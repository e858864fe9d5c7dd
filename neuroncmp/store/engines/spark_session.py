"""The Spark session of the Spark engine, from the standard settings (pyspark imported here): where it
runs, which configuration wins, and why ``PYSPARK_PYTHON`` is set: docs/history/spark.md.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import InputError, UsageError, optional

DEFAULT_MASTER = "local[*]"
# A terminal command's output should not be interleaved with progress bars and INFO logs.
QUIET = {"spark.ui.showConsoleProgress": "false", "spark.log.level": "ERROR", "spark.ui.enabled": "false"}


def start(master: str | None, conf: Mapping[str, str]) -> Any:
    """A session (an existing one in this process is reused, as ``getOrCreate`` does)."""
    remote = os.environ.get("SPARK_REMOTE")
    if master and remote:
        raise UsageError(f"--spark-master {master} and SPARK_REMOTE={remote} both name a cluster; "
                         "unset one")
    sql = optional("pyspark.sql", "--engine spark needs pyspark and Java 17: pip install 'neuroncmp[spark]'")
    builder = sql.SparkSession.builder.appName("neuroncmp")
    chosen = remote or master or os.environ.get("SPARK_MASTER") or DEFAULT_MASTER
    if chosen.startswith("local"):  # local mode, or a local Spark Connect server pyspark starts
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # see the module's docstring
    builder = builder.remote(chosen) if remote else builder.master(chosen)
    quiet = set(QUIET) if remote else user_defaults()  # a Connect server's settings are its own
    for key, value in settings(conf, quiet).items():
        builder = builder.config(key, value)
    try:
        return builder.getOrCreate()
    except Exception as exc:  # pyspark raises several kinds; each means "no session"
        raise InputError(f"could not start Spark ({first_line(exc)}); Spark needs Java 17 or later "
                         "(java on PATH or JAVA_HOME) and, for a cluster, a reachable master") from None


def settings(conf: Mapping[str, str], skip: set[str]) -> dict[str, str]:
    """``conf`` over the quiet defaults, but those in ``skip`` (set by the user's
    spark-defaults.conf, or all of them for Spark Connect)."""
    return {**{k: v for k, v in QUIET.items() if k not in skip}, **conf}


def user_defaults() -> set[str]:
    """The keys the user's ``spark-defaults.conf`` sets (empty when there is none)."""
    folder = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if os.environ.get("SPARK_HOME") else "")
    path = Path(folder) / "spark-defaults.conf" if folder else None
    if path is None or not path.is_file():
        return set()
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return {line.split(None, 1)[0].split("=", 1)[0] for line in lines
            if line.strip() and not line.lstrip().startswith("#")}


def first_line(exc: BaseException) -> str:
    """A Spark error in one line: the Python error a task raised, else the cause of the task's
    failure (``Python worker exited unexpectedly (crashed)``), else the error's first line."""
    text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    raised = [line for line in lines if re.match(r"[A-Za-z_][\w.]*(Error|Exception)(: |$)", line)]
    failure = next((line for line in lines if "most recent failure" in line), None)
    if "Traceback (most recent call last)" in text and raised:
        chosen = raised[-1]
    elif failure:
        chosen = re.split(r"(?:Exception|Error): ", failure)[-1].split(". ")[0]
    else:
        chosen = next((line for line in lines if not line.startswith("An error occurred while calling")),
                      type(exc).__name__)
    return chosen if len(chosen) <= 300 else chosen[:297] + "..."


def shares_cwd(spark: Any) -> bool:
    """Whether the executors run in this process's working directory: a classic session in
    local mode (its Python workers are this process's grandchildren), not Spark Connect or a
    cluster."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return False
    return str(spark.conf.get("spark.master", "")).startswith("local")
