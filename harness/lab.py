# SPDX-License-Identifier: GPL-2.0
"""A LAVA lab through its server's REST API: the jobs of python3 -m harness
lava submitted, followed, their logs and results downloaded for
python3 -m harness merge.

The API is the one LAVA 2023.01 serves (lava_rest_app/v02, Debian 12's
lava-server), with the token in the header "Authorization: Token T":

  POST /api/v0.2/jobs/                 {"definition": YAML} -> 201 {"job_ids": [N]};
                                       a refusal is 400 {"message": why}
  GET  /api/v0.2/jobs/N/               "state" (Submitted, Scheduling, Scheduled,
                                       Running, Canceling, Finished), "health"
                                       (Unknown, Complete, Incomplete, Canceled),
                                       "failure_comment"
  GET  /api/v0.2/jobs/N/logs/          the log as the server stores it (output.yaml)
  GET  /api/v0.2/jobs/N/suites/, tests/  the results (nested viewsets, paged by
                                       ?limit=L&offset=K: LimitOffsetPagination)
  GET  /api/v0.2/jobs/N/cancel/        cancels it
  GET  /api/v0.2/system/whoami/        the token's user ("" without one)

A bad token is 403 {"detail": "Invalid token."} on every request (the
server's first authenticator, Django's session, gives no 401 header).
The log is the lines "- {dt, lvl, msg}" lava-run sent the server, which
is what lavacli jobs logs --raw prints, and what lava.read_log reads;
lavacli adds its "[lavacli] Failure comment" line at the end, and so
does Client.log.

The token is read from a file (LAVA_TOKEN_FILE) and never printed: no
message here has it, nor the server's answers that carry job or worker
tokens.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import glob
import http.server
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Iterator, TextIO

from . import lava, model
from .model import Outcome
from .request import Request

API = '/api/v0.2'
# TestJob.STATE_CHOICES and HEALTH_CHOICES (lava_scheduler_app/models.py).
QUEUED = ('Submitted', 'Scheduling', 'Scheduled')
FINISHED = 'Finished'
# What the lab, not the kernel, ended: resubmitted (run's retry_if may say
# no: a hang LAVA ended Incomplete is the kernel's).
RETRIED = ('Incomplete', 'Canceled')
# A server's 5xx or a dropped connection on a GET: tried this many times.
GET_TRIES = 4
# The progress line at least this often while nothing changes.
PROGRESS_S = 60.0


class LabError(Exception):
    """The lab broke a run: one line."""


class LabUnreachable(LabError):
    """No server at the URL, or it refused the token: one line."""


class LabRefused(LabError):
    """The server refused a job: the job and the server's reason."""


class LabInterrupted(BaseException):
    """SIGTERM during run() where nobody else handles it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _reason(body: bytes) -> str:
    """The server's reason in an error answer: DRF's "detail", LAVA's
    "message" or "error", or a field's errors; else the text's first line."""
    text = body.decode('utf-8', errors='replace').strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        for key in ('message', 'detail', 'error'):
            if isinstance(data.get(key), str):
                return ' '.join(data[key].split())[:300]
        parts = []
        for k, v in data.items():
            vs = v if isinstance(v, list) else [v]
            parts.append(f'{k}: {" ".join(str(x) for x in vs)}')
        if parts:
            return ' '.join('; '.join(parts).split())[:300]
    line = text.splitlines()[0] if text else ''
    return line[:300] or 'no reason given'


def job_name(definition: str) -> str:
    """A definition's job_name (the harness's title), '' without one."""
    m = re.search(r'^job_name:[ \t]*(.*?)[ \t]*$', definition, re.M)
    if not m:
        return ''
    name = m.group(1)
    if len(name) >= 2 and name[0] == name[-1] and name[0] in '\'"':
        name = name[1:-1].replace("''", "'") if name[0] == "'" else name[1:-1]
    return name


def read_token(path: str) -> str:
    """The API token in the file path (its first line): the harness's
    LAVA_TOKEN_FILE.  A missing or empty file is bad input (exit 2)."""
    try:
        with open(path, encoding='utf-8') as f:
            token = f.readline().strip()
    except OSError as e:
        model.die(f'LAVA token file {path}: {e.strerror}')
    if not token:
        model.die(f'LAVA token file {path} is empty')
    return token


class Client:
    """One LAVA server's REST API (v0.2) with one user's token."""

    def __init__(self, url: str, token: str, timeout: float = 60.0):
        self.url = url.rstrip('/')
        self.__token = token
        self.timeout = timeout
        self.retry_sleep: Callable[[float], None] = time.sleep

    def __repr__(self) -> str:
        return f'Client({self.url!r}, token=<hidden>)'

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None
                 ) -> tuple[int, bytes]:
        """(status, body) of one request; a 5xx or dropped connection on a
        GET is tried again.  A server that is not there, or refuses the
        token (401, 403), is LabUnreachable."""
        url = self.url + path
        headers = {'Accept': 'application/json', 'User-Agent': 'xen_timer-harness'}
        if self.__token:
            headers['Authorization'] = f'Token {self.__token}'
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        tries = GET_TRIES if method == 'GET' else 1
        for k in range(1, tries + 1):
            req = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as e:
                status, answer = e.code, e.read()
                if status in (401, 403):
                    raise LabUnreachable(f'{self.url}: the LAVA server refused the token '
                                         f'(HTTP {status}: {_reason(answer)})') from None
                if status < 500 or k == tries:
                    return status, answer
            except urllib.error.URLError as e:
                reason = e.reason
                if isinstance(reason, ConnectionRefusedError) or isinstance(
                        reason, socket.gaierror) or k == tries:
                    raise LabUnreachable(f'{self.url}: cannot reach the LAVA server '
                                         f'({_why(reason)})') from None
            except (TimeoutError, ConnectionError) as e:
                if k == tries:
                    raise LabUnreachable(f'{self.url}: cannot reach the LAVA server '
                                         f'({_why(e)})') from None
            self.retry_sleep(2.0 ** (k - 1))
        raise AssertionError('unreachable')

    def _json(self, path: str) -> dict[str, Any]:
        status, body = self._request('GET', path)
        if status != 200:
            raise LabError(f'{self.url}{path}: HTTP {status}: {_reason(body)}')
        try:
            data = json.loads(body)
        except ValueError:
            raise LabError(f'{self.url}{path}: not JSON (is this a LAVA server?)') from None
        if not isinstance(data, dict):
            raise LabError(f'{self.url}{path}: not a JSON object')
        return data

    def whoami(self) -> str:
        """The user the server took from the token ('' for none)."""
        return str(self._json(f'{API}/system/whoami/').get('user') or '')

    def check(self) -> str:
        """The token's user; LabUnreachable when there is no server, or it
        takes the token for nobody's."""
        user = self.whoami()
        if not user:
            raise LabUnreachable(f'{self.url}: the LAVA server took no user from the token '
                                 '(none given?)')
        return user

    def submit(self, definition: str, name: str = '') -> int:
        """Submit a job definition (YAML text): its id.  A refusal is
        LabRefused naming the job (name, else its job_name) and why."""
        status, body = self._request('POST', f'{API}/jobs/', {'definition': definition})
        who = name or job_name(definition) or 'a job'
        if status in (200, 201):
            try:
                ids = json.loads(body)['job_ids']
                return int(ids[0])
            except (ValueError, KeyError, IndexError, TypeError):
                raise LabError(f'{who}: the server answered the submission without a job id'
                               ) from None
        if status >= 500:
            raise LabError(f'{who}: the LAVA server failed on the submission (HTTP {status}): '
                           f'{_reason(body)}')
        raise LabRefused(f'{who}: the LAVA server refused the job (HTTP {status}): '
                         f'{_reason(body)}')

    def job(self, job_id: int) -> dict[str, Any]:
        """The job's record (state, health, failure_comment, times, device).
        A superuser's answer holds the job's token: keep it out of logs."""
        return self._json(f'{API}/jobs/{job_id}/')

    def state(self, job_id: int) -> tuple[str, str]:
        """(state, health) of a job, as the server names them."""
        j = self.job(job_id)
        return str(j.get('state', '')), str(j.get('health', ''))

    def log(self, job_id: int, failure_comment: str | None = None) -> str:
        """The job's log as lavacli jobs logs --raw prints it: the server's
        lines, and lavacli's failure comment line when the job has one
        (failure_comment: the job's, when the caller has it already).
        '' when the job has no log yet."""
        status, body = self._request('GET', f'{API}/jobs/{job_id}/logs/')
        if status == 404:
            return ''
        if status != 200:
            raise LabError(f'job {job_id}: its log: HTTP {status}: {_reason(body)}')
        text = body.decode('utf-8', errors='replace')
        if text and not text.endswith('\n'):
            text += '\n'
        if failure_comment is None:
            failure_comment = str(self.job(job_id).get('failure_comment') or '')
        if failure_comment:
            rec = {'dt': datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
                   .isoformat(), 'lvl': 'info',
                   'msg': f'[lavacli] Failure comment: {failure_comment}'}
            text += '- ' + json.dumps(rec) + '\n'
        return text

    def _pages(self, path: str, limit: int = 500) -> Iterator[dict[str, Any]]:
        """A list endpoint's items, page by page: REST_FRAMEWORK's
        LimitOffsetPagination (lava_server/settings/common.py)."""
        offset = 0
        while True:
            sep = '&' if '?' in path else '?'
            data = self._json(f'{path}{sep}limit={limit}&offset={offset}')
            items = [r for r in data.get('results', []) if isinstance(r, dict)]
            yield from items
            offset += len(items)
            if not items or not data.get('next'):
                return

    def results(self, job_id: int) -> list[dict[str, str]]:
        """The results the server recorded for the job: suite, name,
        result (pass, fail, skip, unknown), measurement and unit."""
        suites = {s.get('id'): str(s.get('name', ''))
                  for s in self._pages(f'{API}/jobs/{job_id}/suites/')}
        return [{'suite': suites.get(t.get('suite'), str(t.get('suite', ''))),
                 'name': str(t.get('name', '')), 'result': str(t.get('result', '')),
                 'measurement': '' if t.get('measurement') is None else str(t['measurement']),
                 'unit': str(t.get('unit') or '')}
                for t in self._pages(f'{API}/jobs/{job_id}/tests/')]

    def jobs_in(self, state: str) -> list[dict[str, Any]]:
        """The server's jobs in a state (Submitted, Running, ...)."""
        return list(self._pages(f'{API}/jobs/?state={urllib.parse.quote(state)}'))

    def cancel(self, job_id: int) -> None:
        """Cancel the job (a queued one ends Canceled at once, a running one
        once its worker stops it)."""
        status, body = self._request('GET', f'{API}/jobs/{job_id}/cancel/')
        if status != 200:
            raise LabError(f'job {job_id}: cancel: HTTP {status}: {_reason(body)}')

    def job_url(self, job_id: int) -> str:
        """The job's page (what lavacli --url prints)."""
        return f'{self.url}/scheduler/job/{job_id}'


def _why(reason: object) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower() if reason.strerror[:1].isupper() else reason.strerror
    return str(reason) or type(reason).__name__


@dataclasses.dataclass
class JobRun:
    """One job file through the lab: its tries' ids, where each try
    stands, and what was downloaded."""
    stem: str
    definition: str
    ids: list[int] = dataclasses.field(default_factory=list)
    urls: list[str] = dataclasses.field(default_factory=list)
    state: str = ''
    health: str = ''
    failure_comment: str = ''
    submitted: float = 0.0
    started: float | None = None
    ended: float | None = None
    times: list[dict[str, str]] = dataclasses.field(default_factory=list)
    log: str = ''
    results: str = ''
    canceled_by_us: bool = False

    @property
    def done(self) -> bool:
        return self.state == FINISHED

    @property
    def id(self) -> int:
        return self.ids[-1]

    def as_json(self) -> dict[str, Any]:
        """What the run's JSON keeps of the job: every try's id and page,
        the last one's health and the server's times."""
        return {'job': self.stem, 'ids': self.ids, 'urls': self.urls, 'health': self.health,
                'tries': len(self.ids), 'times': self.times,
                **({'failure_comment': self.failure_comment} if self.failure_comment else {})}


def _default_retry(job: JobRun) -> bool:
    return job.health in RETRIED and not job.canceled_by_us


def run(client: Client, jobs_dir: str, logs_dir: str, retries: int = 2, *,
        poll_s: float = 10.0, max_queue_s: float = 6 * 3600.0, out: TextIO | None = None,
        retry_if: Callable[[JobRun], bool] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic) -> list[JobRun]:
    """Submit every job of jobs_dir (NAME.yaml, in name order), follow
    them to their end and download each log to logs_dir/NAME.log (what
    python3 -m harness merge --logs reads) and the server's results to
    logs_dir/NAME.results.json.  A job the lab ended Incomplete or
    Canceled is submitted again, retries times at most, when retry_if
    (default: yes) says so; the earlier try's log is kept as
    NAME.try<K>.log.  On any exception (SIGINT's KeyboardInterrupt, the
    harness's SIGTERM, LabInterrupted where nobody handles SIGTERM) every
    job still queued or running is cancelled, then it goes on.  A refused
    job cancels the jobs submitted before it: LabRefused."""
    out = out or sys.stdout
    paths = sorted(glob.glob(os.path.join(jobs_dir, '*.yaml')))
    if not paths:
        raise LabError(f'{jobs_dir}: no LAVA jobs (*.yaml) to submit')
    os.makedirs(logs_dir, exist_ok=True)
    may_retry = retry_if or _default_retry
    user = client.check()
    print(f'lab: {client.url} as {user}: {len(paths)} jobs from {jobs_dir}', file=out, flush=True)
    jobs: list[JobRun] = []
    for p in paths:
        with open(p, encoding='utf-8') as f:
            jobs.append(JobRun(os.path.basename(p)[:-len('.yaml')], f.read()))
    n = len(jobs)
    t0 = clock()

    def tag(k: int, j: JobRun) -> str:
        return f'lab: [{k}/{n}] {j.stem}: job {j.id}'

    def submit(k: int, j: JobRun) -> None:
        j.ids.append(client.submit(j.definition, j.stem))
        j.urls.append(client.job_url(j.id))
        j.state, j.health, j.failure_comment = 'Submitted', 'Unknown', ''
        j.submitted, j.started, j.ended = clock(), None, None
        j.canceled_by_us = False
        try_note = f' (try {len(j.ids)} of {retries + 1})' if len(j.ids) > 1 else ''
        print(f'{tag(k, j)} submitted{try_note}: {j.urls[-1]}', file=out, flush=True)

    old_term = None
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)):
        def on_term(signum: int, _frame: object) -> None:
            raise LabInterrupted(signum)
        old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        for k, j in enumerate(jobs, 1):
            submit(k, j)
        last_line, last_print, warned = '', -PROGRESS_S, False
        while True:
            changed = False
            for k, j in enumerate(jobs, 1):
                if j.done:
                    continue
                rec = client.job(j.id)
                state, health = str(rec.get('state', '')), str(rec.get('health', ''))
                now = clock()
                if state in QUEUED and now - j.submitted > max_queue_s:
                    client.cancel(j.id)
                    j.canceled_by_us = True
                    print(f'{tag(k, j)}: still {state} after {now - j.submitted:.0f} s: '
                          'cancelled (no idle device of its type online?)', file=out, flush=True)
                    state, health = FINISHED, 'Canceled'
                if state not in QUEUED and j.started is None:
                    j.started = now
                    if state != FINISHED:
                        print(f'{tag(k, j)} running on {rec.get("actual_device") or "?"} after '
                              f'{now - j.submitted:.0f} s queued', file=out, flush=True)
                if state == j.state and health == j.health:
                    continue
                changed = True
                j.state, j.health = state, health
                if not j.done:
                    continue
                j.ended = now
                j.failure_comment = str(rec.get('failure_comment') or '')
                j.times.append({'id': str(j.id), 'health': health,
                                **{f: str(rec.get(f) or '') for f in
                                   ('submit_time', 'start_time', 'end_time')}})
                finish(client, j, logs_dir)
                started = j.started if j.started is not None else now
                why = f' ({j.failure_comment})' if j.failure_comment else ''
                saved = f'log {j.log}' if os.path.exists(j.log) else 'no log'
                print(f'{tag(k, j)} {health}{why} in {now - j.submitted:.0f} s (queued '
                      f'{started - j.submitted:.0f} s, running {now - started:.0f} s); {saved}',
                      file=out, flush=True)
                if health in RETRIED and len(j.ids) <= retries and may_retry(j):
                    keep = os.path.join(logs_dir, f'{j.stem}.try{len(j.ids)}.log')
                    if os.path.exists(j.log):
                        os.replace(j.log, keep)
                    print(f'{tag(k, j)}: the lab ended it {health}: submitted again '
                          f'(its log kept as {keep})', file=out, flush=True)
                    submit(k, j)
            queued = sum(1 for j in jobs if j.state in QUEUED)
            done = sum(1 for j in jobs if j.done)
            line = f'lab: queued {queued}, running {n - queued - done}, done {done} of {n}'
            now = clock()
            if changed and line != last_line or now - last_print >= PROGRESS_S:
                print(f'{line} ({now - t0:.0f} s){_states(jobs, now)}', file=out, flush=True)
                last_line, last_print = line, now
            if done == n:
                break
            if (not warned and queued and now - t0 > 300 and done == 0
                    and all(j.started is None for j in jobs)):
                print('lab: no job has started in 300 s: is a worker with an idle device of '
                      'their type online?', file=out, flush=True)
                warned = True
            sleep(poll_s)
    except BaseException as e:
        pending = [j for j in jobs if j.ids and not j.done]
        cancelled = []
        for j in pending:
            with contextlib.suppress(LabError):
                client.cancel(j.id)
                j.canceled_by_us = True
                cancelled.append(str(j.id))
        if cancelled:
            what = 'stopped' if not isinstance(e, Exception) else 'failed'
            print(f'lab: {what}: cancelled jobs {" ".join(cancelled)} on {client.url}',
                  file=out, flush=True)
        raise
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return jobs


def _states(jobs: list[JobRun], now: float, most: int = 8) -> str:
    """The progress line's tail: each job not yet done, its state and how
    long it has been queued or running."""
    left = [j for j in jobs if not j.done]
    parts = [f'{j.stem} {j.state} {now - (j.submitted if j.started is None else j.started):.0f} s'
             for j in left[:most]]
    if len(left) > most:
        parts.append(f'{len(left) - most} more')
    return ': ' + ', '.join(parts) if parts else ''


def finish(client: Client, j: JobRun, logs_dir: str) -> None:
    """An ended job's log (as lavacli --raw prints it) and results, to
    logs_dir.  A job without a log (cancelled before it started) leaves
    no NAME.log: merge judges it INFRA, "no LAVA log"."""
    j.log = os.path.join(logs_dir, f'{j.stem}.log')
    text = client.log(j.id, j.failure_comment)
    if not text:
        with contextlib.suppress(FileNotFoundError):
            os.remove(j.log)
    else:
        with open(j.log, 'w', encoding='utf-8') as f:
            f.write(text)
    record: dict[str, Any] = {'job': j.id, 'url': client.job_url(j.id), 'health': j.health}
    try:
        record['results'] = client.results(j.id)
    except LabError as e:
        record['error'] = str(e)
    j.results = os.path.join(logs_dir, f'{j.stem}.results.json')
    with open(j.results, 'w', encoding='utf-8') as f:
        json.dump(record, f, indent=1)
        f.write('\n')


def is_loopback(host: str) -> bool:
    """Whether host names this machine: localhost or a loopback address."""
    try:
        return host == 'localhost' or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def serve_images(directory: str, base_url: str) -> Iterator[str]:
    """directory served over HTTP at base_url (a loopback address and
    port: http://127.0.0.1:PORT), for a local lab's workers, while the
    block runs."""
    u = urllib.parse.urlsplit(base_url)
    loopback = u.scheme == 'http' and u.port is not None and is_loopback(u.hostname or '')
    if not loopback or u.path.strip('/'):
        raise LabError(f'{base_url}: images are served here only at http://127.0.0.1:PORT')
    handler = functools.partial(_QuietHandler, directory=directory)
    try:
        server = http.server.ThreadingHTTPServer((u.hostname or '', u.port or 0), handler)
    except OSError as e:
        raise LabError(f'{base_url}: cannot serve the images: {e.strerror}') from None
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), daemon=True)
    thread.start()
    try:
        yield base_url.rstrip('/')
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def lab_command(url: str, token_file: str, jobs_dir: str, logs_dir: str, retries: int,
                images: str = '', images_url: str = '', poll_s: float = 10.0,
                retry_if: Callable[[JobRun], bool] | None = None) -> list[JobRun]:
    """run() as the harness's lab command calls it: the token from its
    file, the images served for a local lab (images_url on the
    loopback); an unreachable server, a refused token or a refused job is
    one line and exit 2 (model.die), a lab that broke the run one line
    and exit 3."""
    client = Client(url, read_token(token_file))
    try:
        with contextlib.ExitStack() as stack:
            if images and images_url:
                stack.enter_context(serve_images(images, images_url))
            jobs = run(client, jobs_dir, logs_dir, retries, poll_s=poll_s, retry_if=retry_if)
    except (LabUnreachable, LabRefused) as e:
        model.die(str(e))
    except LabError as e:
        print(f'harness: {e} (the lab, not the kernel)', file=sys.stderr)
        sys.exit(model.EXIT_INFRA)
    return jobs


def platform_broke(args: Request, configs: list[model.Config], machines: dict[model.MachineKey, Any],
                   machine_key: lava.MachineKeyOf) -> Callable[[JobRun], bool]:
    """run()'s retry_if: a job the lab ended Incomplete or Canceled is
    submitted again only where its log, judged as merge judges it, is not
    the kernel's failure (a panic, a hang LAVA's monitors timed out on):
    a FAIL is never booted again."""
    by_stem = {lava.job_stem(k, c): c for k, c in enumerate(configs, 1)}

    def retry(j: JobRun) -> bool:
        c = by_stem.get(j.stem)
        if j.canceled_by_us or c is None:
            return False
        if not j.log or not os.path.exists(j.log):
            return True
        try:
            replay = lava.Replay(machines[machine_key(args, c)], args.guest.cmdline(c),
                                 lava.read_log(j.log))
        except lava.LavaError:
            return True
        return replay.ending.outcome is Outcome.INFRA
    return retry


def lab(args: Request, configs_of: lava.ConfigsOf, machines_of: lava.MachinesOf,
        machine_key: lava.MachineKeyOf,
        merge: Callable[[Request, tuple[dict[str, Any], ...]], int]) -> int:
    """The lab command: the run's LAVA jobs written (lava.lava_jobs), run
    through the LAVA server at LAVA_URL (the images served from here when
    --base-url is a loopback address), their logs merged into the run's
    reports (merge: run.run), each job's record in its JSON."""
    rc = lava.lava_jobs(args, configs_of, machines_of, machine_key)
    if rc:
        return rc
    outdir = os.path.join(args.out, f'{args.name}-lava')
    logs = os.path.join(outdir, 'logs')
    shutil.rmtree(logs, ignore_errors=True)
    configs = lava.lava_configs(args, configs_of, say=False)
    machines = machines_of(args, lava.lava_accel(args))
    local = is_loopback(urllib.parse.urlsplit(args.base_url).hostname or '')
    jobs = lab_command(args.lava_url, args.lava_token_file, os.path.join(outdir, 'jobs'), logs,
                       args.retries, os.path.join(outdir, 'images'),
                       args.base_url if local else '',
                       retry_if=platform_broke(args, configs, machines, machine_key))
    return merge(args, tuple(j.as_json() for j in jobs))

