"""N `streamlit run app.py` replicas on loopback ports, nginx in front of them on one port.

What a user runs on one larger machine (`make serve-replicas N=2`), and what the replica test and
the proxied load run start. nginx runs from a temporary folder (its configuration rendered from
deploy/nginx/pe-explorer.conf.template, its logs and temporary files), never as the system
service; Ctrl-C, SIGTERM or `Replicas.stop()` stops nginx and every replica.

Run: `python deploy/serve_replicas.py --replicas 2 --port 8500`, then open http://127.0.0.1:8500.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx" / "pe-explorer.conf.template"
NO_NGINX = ("No nginx. Run `./scripts/ensure-nginx.sh` (as root it installs Debian's nginx), or "
            "`apt-get install nginx`, or set NGINX_PATH.")
# Passive health checks (open-source nginx has no active ones): one refused connection marks a
# replica failed for 10 s, and requests go to the next replica meanwhile.
UPSTREAM_SERVER = "server {address} max_fails=1 fail_timeout=10s;"


def find_nginx() -> str | None:
    for candidate in (os.environ.get("NGINX_PATH"), shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render(template: str, values: dict[str, str]) -> str:
    """`${NAME}` replaced for the given names only, as the nginx image's envsubst does (nginx's
    own `$host`, `$request_id`, ... stay)."""
    missing = set(re.findall(r"\$\{(\w+)\}", template)) - set(values)
    if missing:
        raise ValueError(f"values: missing {sorted(missing)}")
    return re.sub(r"\$\{(\w+)\}", lambda m: values[m.group(1)], template)


def nginx_config(workdir: Path, listen: str, upstreams: list[str]) -> Path:
    """The site rendered from the template and a main configuration that keeps every file nginx
    writes (pid, logs, temporary bodies) in `workdir`. Returns the main configuration's path."""
    site = render(TEMPLATE.read_text(encoding="utf-8"), {
        "PE_LISTEN": listen,
        "PE_UPSTREAM_SERVERS": "\n    ".join(UPSTREAM_SERVER.format(address=a) for a in upstreams),
        "PE_ACCESS_LOG": str(workdir / "access.log"),
    })
    (workdir / "pe-explorer.conf").write_text(site, encoding="utf-8")
    temp = {name: workdir / "temp" / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (workdir / "temp").mkdir(exist_ok=True)
    main = workdir / "nginx.conf"
    main.write_text(f"""# Written by deploy/serve_replicas.py (nginx from here, not as a service).
worker_processes 1;
error_log {workdir / "nginx.out"} warn;
pid {workdir / "nginx.pid"};
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    # Large answers (plotly.js, 4.8 MB) stream through memory buffers instead of temporary files:
    # the workers (`nobody` when started as root) may not be able to reach this folder.
    proxy_max_temp_file_size 0;
    include {workdir / "pe-explorer.conf"};
}}
""", encoding="utf-8")
    return main


def wait_healthy(url: str, process: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer /_stcore/health; see {log}")
        time.sleep(0.2)


def stop_process(process: subprocess.Popen, timeout: float = 10) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Replicas:
    """Running replicas and the nginx in front of them."""

    url: str  # nginx: what a browser opens
    workdir: Path  # nginx's configuration and logs, and each replica's log
    ports: list[int]
    servers: list[subprocess.Popen]
    nginx: subprocess.Popen | None = None
    stopped: set[int] = field(default_factory=set)

    @property
    def addresses(self) -> list[str]:
        """Each replica's address as nginx names it in X-Replica and its log."""
        return [f"127.0.0.1:{port}" for port in self.ports]

    @property
    def access_log(self) -> Path:
        return self.workdir / "access.log"

    def stop_replica(self, index: int) -> None:
        stop_process(self.servers[index])
        self.stopped.add(index)

    def stop(self) -> None:
        if self.nginx is not None:
            stop_process(self.nginx)
        for server in self.servers:
            stop_process(server)


def start(replicas: int = 2, port: int | None = None, *, workdir: Path | None = None,
          script: str = "app.py", streamlit_args: tuple[str, ...] = (),
          timeout: float = 120) -> Replicas:
    """Start `replicas` servers (`streamlit run script`) on free loopback ports and nginx on
    `port` (a free one if None); returns once every replica answers its health check and nginx
    answers through them."""
    if not 1 <= replicas <= 16:
        raise ValueError(f"replicas={replicas}: 1 to 16 on one machine")
    nginx = find_nginx()
    if nginx is None:
        raise RuntimeError(NO_NGINX)
    workdir = workdir or Path(tempfile.mkdtemp(prefix="pe-replicas-"))
    workdir.mkdir(parents=True, exist_ok=True)
    # nginx's workers drop root for `nobody`, who must reach the temporary folders.
    workdir.chmod(0o755)
    ports = [free_port() for _ in range(replicas)]
    running = Replicas(url="", workdir=workdir, ports=ports, servers=[])
    try:
        for index, replica_port in enumerate(ports):
            log = open(workdir / f"replica-{index}.log", "w")  # noqa: SIM115 (written until stopped)
            running.servers.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", script,
                 "--server.port", str(replica_port), "--server.address", "127.0.0.1",
                 "--server.headless", "true", *streamlit_args],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT))
        for index, (server, replica_port) in enumerate(zip(running.servers, ports, strict=True)):
            wait_healthy(f"http://127.0.0.1:{replica_port}", server,
                         workdir / f"replica-{index}.log", timeout)
        port = port or free_port()
        config = nginx_config(workdir, f"127.0.0.1:{port}", running.addresses)
        nginx_log = open(workdir / "nginx.out", "w")  # noqa: SIM115 (written until stopped)
        running.nginx = subprocess.Popen(
            [nginx, "-p", str(workdir), "-c", str(config), "-g", "daemon off;"],
            stdout=nginx_log, stderr=subprocess.STDOUT)
        running.url = f"http://127.0.0.1:{port}"
        wait_healthy(running.url, running.nginx, workdir / "nginx.out", 15)
    except BaseException:
        running.stop()
        raise
    return running


def _interrupt(*_) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8500, help="nginx's port (loopback)")
    parser.add_argument("--script", default="app.py",
                        help="app.py, or serve.py (which also closes the doors nginx closes)")
    args = parser.parse_args()
    try:
        running = start(args.replicas, args.port, script=args.script)
    except (RuntimeError, ValueError) as error:
        sys.exit(str(error))
    signal.signal(signal.SIGTERM, _interrupt)  # as Ctrl-C: both end in the finally below
    print(f"{args.replicas} replicas ({', '.join(running.addresses)}) behind nginx: "
          f"open {running.url}\nlogs in {running.workdir}; Ctrl-C stops them all.", flush=True)
    try:
        reported: set[int] = set()
        while running.nginx.poll() is None:
            for index, server in enumerate(running.servers):
                # nginx sends its sessions to the others; say so once.
                if server.poll() is not None and index not in reported:
                    reported.add(index)
                    print(f"replica {running.addresses[index]} ended (exit {server.returncode}); "
                          f"see {running.workdir}/replica-{index}.log", file=sys.stderr)
            time.sleep(1)
        print(f"nginx ended; see {running.workdir}/nginx.out", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        with contextlib.suppress(KeyboardInterrupt):
            running.stop()


if __name__ == "__main__":
    main()
