"""Screenshots of the MLflow UI as a person sees it after `memrecall sync`: a run's traces
(one per question, with the verdict and the gold answer) and two runs compared question by
question. Starts a real `mlflow server` on the store, loads the pages in headless Chromium
(Debian's `chromium` package) and writes PNGs.

    python bench/mlflow_screenshots.py [--store sqlite:///ABS/mlflow.db] [--out docs/img]
        [--run RUN_ID --compare RUN_ID] [--pages traces|compare|both]

Without --run/--compare it takes the two most recent evaluation runs of the `memrecall`
experiment (MEMRECALL_MLFLOW_EXPERIMENT).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(url: str, proc: subprocess.Popen, timeout: float = 240) -> None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise SystemExit("mlflow server exited before it came up")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"mlflow server not up after {timeout}s")


def screenshot(
    url: str, out: Path, *, width: int = 1600, height: int = 1000, wait_ms: int = 25000
) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium not found: apt-get install chromium")
    with tempfile.TemporaryDirectory(prefix="memrecall-chromium-") as profile:
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                f"--virtual-time-budget={wait_ms}",
                f"--screenshot={out}",
                url,
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    print(f"wrote {out} ({out.stat().st_size:,} bytes) from {url}")


def main() -> None:
    from memrecall import tracking

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", default=None, help="tracking URI (default: the project's)")
    ap.add_argument("--out", default="docs/img")
    ap.add_argument("--run", default=None)
    ap.add_argument("--compare", default=None)
    ap.add_argument("--pages", choices=("traces", "compare", "both"), default="both")
    args = ap.parse_args()

    from mlflow import MlflowClient

    store = args.store or tracking.tracking_uri()
    client = MlflowClient(store)
    exp = client.get_experiment_by_name(tracking.experiment_name())
    if exp is None:
        raise SystemExit(
            f"no experiment '{tracking.experiment_name()}' in {store}: run `memrecall sync` first"
        )
    runs = client.search_runs(
        [exp.experiment_id],
        order_by=["attributes.start_time DESC"],
        filter_string="tags.`mlflow.runType` = 'genai_evaluate'",
    )
    run = args.run or (runs[0].info.run_id if runs else None)
    other = args.compare or (runs[1].info.run_id if len(runs) > 1 else None)
    if run is None:
        raise SystemExit("no evaluation run to show: sync a run with traces first")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Served on 127.0.0.2, not 127.0.0.1: on localhost/127.0.0.1 the UI opens its assistant
    # panel on first load, over a third of the page (a headless browser cannot close it).
    host = "127.0.0.2"
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="memrecall-mlflow-ui-") as tmp:
        log = open(Path(tmp) / "server.log", "w")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mlflow",
                "server",
                "--host",
                host,
                "--port",
                str(port),
                "--allowed-hosts",
                f"{host},{host}:{port}",
                "--cors-allowed-origins",
                f"http://{host}:{port}",
                "--workers",
                "1",
                "--backend-store-uri",
                store,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        )
        url = f"http://{host}:{port}"
        try:
            _wait_up(url, proc)
            base = f"{url}/#/experiments/{exp.experiment_id}"
            if args.pages in ("traces", "both"):
                screenshot(f"{base}/runs/{run}/traces", out / "mlflow_run_traces.png")
            if other and args.pages in ("compare", "both"):
                screenshot(
                    f"{base}/evaluation-runs?selectedRunUuid={run}&compareToRunUuid={other}",
                    out / "mlflow_compare_runs.png",
                    width=1800,
                )
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            log.close()


if __name__ == "__main__":
    main()
