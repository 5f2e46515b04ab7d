# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/lab.py against a fake LAVA server: the REST API v0.2
of LAVA 2023.01 as lab.py uses it (lava_rest_app/v02/views.py: the
answers, their status codes and JSON), served by http.server on the
loopback in a thread."""
import contextlib
import http.server
import io
import json
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's root (tests/..), or where a harness package with lab.py is.
ROOT = os.environ.get('XT_HARNESS_ROOT') or os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from harness import lab, lava  # noqa: E402

TOKEN = 'sekrit-token-0123456789'
QUEUED, RUNNING = ('Submitted', 'Unknown'), ('Running', 'Unknown')
COMPLETE, INCOMPLETE = ('Finished', 'Complete'), ('Finished', 'Incomplete')
CANCELED = ('Finished', 'Canceled')


def server_log(job_id, lines, result='pass'):
    """A job's log as the server stores it (output.yaml): lava-run's
    records, one per line, "- " before each."""
    def rec(k, lvl, msg):
        dt = f'2026-12-05T10:00:{k * 0.01:09.6f}'
        return '- ' + json.dumps({'dt': dt, 'lvl': lvl, 'msg': msg})
    out = [rec(0, 'info', f'start: 1 deploy (job {job_id})')]
    out += [rec(k, 'target', line) for k, line in enumerate(lines, 1)]
    out.append(rec(len(lines) + 1, 'info', 'start: 4 finalize (timeout 00:10:00) [common]'))
    out.append(rec(len(lines) + 2, 'results', {'case': 'job', 'definition': 'lava',
                                               'result': result}))
    return '\n'.join(out) + '\n'


class FakeLava:
    """The server: jobs by id, each with its plan of (state, health), one
    step per GET of the job; plans(name, try) gives a job's plan."""

    def __init__(self, token=TOKEN, device_types=('qemu',), plans=None, tests=3):
        self.token = token
        self.device_types = device_types
        self.plans = plans or (lambda name, k: [QUEUED, RUNNING, COMPLETE])
        self.tests = tests
        self.jobs = {}
        self.tries = {}
        self.cancels = []
        self.auth = []
        self.lock = threading.Lock()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, data, ctype='application/json'):
                body = (json.dumps(data) if ctype == 'application/json' else data).encode()
                self.send_response(status)
                self.send_header('Content-Type', ctype)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def user(self):
                """The token's user, '' for none; None: a bad token."""
                auth = self.headers.get('Authorization')
                fake.auth.append(auth)
                if auth is None:
                    return ''
                return 'xen-timer' if auth == f'Token {fake.token}' else None

            def do_GET(self):
                with fake.lock:
                    fake.get(self)

            def do_POST(self):
                with fake.lock:
                    fake.post(self)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def post(self, h):
        user = h.user()
        if user is None:
            return h.answer(403, {'detail': 'Invalid token.'})
        if not user:
            return h.answer(403, {'detail': 'Authentication credentials were not provided.'})
        if h.path != '/api/v0.2/jobs/':
            return h.answer(404, {'detail': 'Not found.'})
        body = json.loads(h.rfile.read(int(h.headers['Content-Length'])))
        definition = body.get('definition')
        if not definition:
            return h.answer(400, {'definition': ['This field is required.']})
        dt = re.search(r'^device_type: *(\S+)', definition, re.M).group(1)
        if dt not in self.device_types:
            return h.answer(400, {'message': f"Devices unavailable: Device type '{dt}' is "
                                             'unavailable.'})
        name = re.search(r'^job_name: *(.*)$', definition, re.M).group(1)
        job_id = 100 + len(self.jobs)
        k = self.tries[name] = self.tries.get(name, 0) + 1
        self.jobs[job_id] = {'name': name, 'plan': list(self.plans(name, k)), 'step': -1,
                             'ran': False, 'comment': ''}
        h.answer(201, {'message': 'job(s) successfully submitted', 'job_ids': [job_id]})

    def get(self, h):
        user = h.user()
        if user is None:
            return h.answer(403, {'detail': 'Invalid token.'})
        u = urllib.parse.urlsplit(h.path)
        if u.path == '/api/v0.2/system/whoami/':
            return h.answer(200, {'user': user})
        m = re.fullmatch(r'/api/v0\.2/jobs/(\d+)/(\w*/?)', u.path)
        if not m or int(m.group(1)) not in self.jobs:
            return h.answer(404, {'detail': 'Not found.'})
        job_id, what = int(m.group(1)), m.group(2).rstrip('/')
        job = self.jobs[job_id]
        state, health = job['plan'][max(job['step'], 0)]
        if what == '':
            job['step'] = min(job['step'] + 1, len(job['plan']) - 1)
            state, health = job['plan'][job['step']]
            job['ran'] = job['ran'] or state not in ('Submitted', 'Scheduling')
            return h.answer(200, {'id': job_id, 'state': state, 'health': health,
                                  'failure_comment': job['comment'] or None,
                                  'actual_device': 'lab-qemu-1', 'token': 'job-token-xyz',
                                  'submit_time': '2026-12-05T10:00:00Z',
                                  'start_time': None, 'end_time': None})
        if what == 'cancel':
            self.cancels.append(job_id)
            if state != 'Finished':
                job['plan'] = [CANCELED]
                job['step'] = 0
            return h.answer(200, {'message': 'Job cancel signal sent.'})
        if what == 'logs':
            if not job['ran']:
                return h.answer(404, {'detail': 'Not found.'})
            return h.answer(200, server_log(job_id, [f'hello from {job["name"]}', 'ok 1 t']),
                            'application/yaml')
        # LimitOffsetPagination (DEFAULT_PAGINATION_CLASS, PAGE_SIZE 50).
        query = urllib.parse.parse_qs(u.query)
        limit = int(query.get('limit', ['50'])[0])
        offset = int(query.get('offset', ['0'])[0])
        if what == 'suites':
            items = [{'id': 1, 'name': 'lava'}, {'id': 2, 'name': '0_xen_timer'}]
        elif what == 'tests':
            items = [{'id': k, 'suite': 1 + (k > 0), 'name': f'case_{k}',
                      'result': 'pass', 'measurement': None, 'unit': ''}
                     for k in range(self.tests)]
        else:
            return h.answer(404, {'detail': 'Not found.'})
        more = offset + limit < len(items)
        h.answer(200, {'count': len(items), 'results': items[offset:offset + limit],
                       'previous': None, 'next': f'{self.url}{u.path}?limit={limit}&offset='
                       f'{offset + limit}' if more else None})


def job_file(d, stem, device_type='qemu'):
    with open(os.path.join(d, f'{stem}.yaml'), 'w') as f:
        f.write(f'device_type: {device_type}\njob_name: xen_timer t [{stem}]\n'
                'visibility: public\nactions: []\n')


class LabTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.jobs = os.path.join(self.tmp.name, 'jobs')
        self.logs = os.path.join(self.tmp.name, 'logs')
        os.makedirs(self.jobs)
        self.fake = None

    def tearDown(self):
        if self.fake:
            self.fake.close()
        self.tmp.cleanup()

    def lab(self, **kw):
        self.fake = FakeLava(**kw)
        client = lab.Client(self.fake.url, TOKEN)
        client.retry_sleep = lambda s: None
        return client

    def run_lab(self, client, retries=2, **kw):
        out = io.StringIO()
        kw.setdefault('sleep', lambda s: None)
        runs = lab.run(client, self.jobs, self.logs, retries, poll_s=0, out=out, **kw)
        return runs, out.getvalue()


class Submit(LabTest):
    def test_submit_sends_definition_and_token(self):
        client = self.lab()
        job_id = client.submit('device_type: qemu\njob_name: a\n')
        self.assertEqual(job_id, 100)
        self.assertEqual(self.fake.auth[-1], f'Token {TOKEN}')
        self.assertEqual(client.state(job_id), QUEUED)
        self.assertEqual(client.job_url(job_id), f'{self.fake.url}/scheduler/job/100')
        self.assertNotIn(TOKEN, repr(client))

    def test_refusal_names_job_and_reason(self):
        client = self.lab()
        with self.assertRaises(lab.LabRefused) as cm:
            client.submit('device_type: qemux\njob_name: xen_timer boot [1/2] PV\n')
        msg = str(cm.exception)
        self.assertIn('xen_timer boot [1/2] PV', msg)
        self.assertIn("Device type 'qemux' is unavailable", msg)
        self.assertIn('HTTP 400', msg)
        self.assertNotIn('\n', msg)
        with self.assertRaises(lab.LabRefused) as cm:
            client.submit('')
        self.assertIn('definition: This field is required.', str(cm.exception))

    def test_refused_job_cancels_the_jobs_before_it(self):
        client = self.lab()
        job_file(self.jobs, '001-a')
        job_file(self.jobs, '002-b', device_type='qemux')
        out = io.StringIO()
        with self.assertRaises(lab.LabRefused) as cm:
            lab.run(client, self.jobs, self.logs, 2, poll_s=0, out=out, sleep=lambda s: None)
        self.assertIn('002-b', str(cm.exception))
        self.assertEqual(self.fake.cancels, [100])
        self.assertIn('cancelled jobs 100', out.getvalue())


class Follow(LabTest):
    def test_jobs_followed_logs_and_results_downloaded(self):
        client = self.lab(tests=1234)
        for stem in ('001-a', '002-b'):
            job_file(self.jobs, stem)
        runs, out = self.run_lab(client)
        self.assertEqual([(r.stem, r.ids, r.health) for r in runs],
                         [('001-a', [100], 'Complete'), ('002-b', [101], 'Complete')])
        self.assertRegex(out, r'lab: queued 2, running 0, done 0 of 2 \(\d+ s\): '
                              r'001-a Submitted \d+ s, 002-b Submitted \d+ s\n')
        self.assertRegex(out, r'lab: queued 0, running 2, done 0 of 2 \(\d+ s\): '
                              r'001-a Running \d+ s, 002-b Running \d+ s\n')
        self.assertRegex(out, r'lab: queued 0, running 0, done 2 of 2 \(\d+ s\)\n')
        self.assertRegex(out, r'\[1/2\] 001-a: job 100 running on lab-qemu-1 after \d+ s queued')
        self.assertRegex(out, r'\[2/2\] 002-b: job 101 Complete in \d+ s \(queued \d+ s, '
                              r'running \d+ s\)')
        self.assertNotIn('job-token-xyz', out)
        # The log is the server's, as lavacli --raw prints it, and what
        # python3 -m harness merge reads.
        with open(os.path.join(self.logs, '001-a.log')) as f:
            text = f.read()
        self.assertEqual(text, server_log(100, ['hello from xen_timer t [001-a]', 'ok 1 t']))
        log = lava.read_log(os.path.join(self.logs, '001-a.log'))
        self.assertEqual([line for line, _ in log.lines],
                         ['hello from xen_timer t [001-a]', 'ok 1 t'])
        self.assertEqual(log.result, 'pass')
        with open(os.path.join(self.logs, '002-b.results.json')) as f:
            res = json.load(f)
        self.assertEqual(len(res['results']), 1234)
        self.assertEqual(res['results'][0], {'suite': 'lava', 'name': 'case_0',
                                             'result': 'pass', 'measurement': '', 'unit': ''})
        self.assertEqual(res['results'][1233], {'suite': '0_xen_timer', 'name': 'case_1233',
                                                'result': 'pass', 'measurement': '',
                                                'unit': ''})
        self.assertEqual(runs[0].as_json()['urls'], [f'{self.fake.url}/scheduler/job/100'])
        self.assertEqual(runs[0].as_json()['tries'], 1)

    def test_failure_comment_appended_as_lavacli_does(self):
        client = self.lab()
        job_id = client.submit('device_type: qemu\njob_name: a\n')
        self.fake.jobs[job_id]['comment'] = 'lava test monitoring has timed out'
        client.state(job_id)
        client.state(job_id)
        text = client.log(job_id)
        last = text.splitlines()[-1]
        self.assertTrue(last.startswith('- {"dt": "'), last)
        self.assertIn('"lvl": "info", "msg": "[lavacli] Failure comment: lava test monitoring '
                      'has timed out"}', last)
        path = os.path.join(self.tmp.name, 'j.log')
        with open(path, 'w') as f:
            f.write(text)
        self.assertEqual(lava.read_log(path).result, 'pass')

    def test_incomplete_resubmitted(self):
        plans = {1: [QUEUED, RUNNING, INCOMPLETE], 2: [RUNNING, COMPLETE]}
        client = self.lab(plans=lambda name, k: plans[k])
        job_file(self.jobs, '001-a')
        runs, out = self.run_lab(client)
        self.assertEqual(runs[0].ids, [100, 101])
        self.assertEqual(runs[0].health, 'Complete')
        self.assertIn('the lab ended it Incomplete: submitted again', out)
        self.assertIn('submitted (try 2 of 3)', out)
        with open(os.path.join(self.logs, '001-a.log')) as f:
            self.assertIn('(job 101)', f.read())
        with open(os.path.join(self.logs, '001-a.try1.log')) as f:
            self.assertIn('(job 100)', f.read())
        self.assertEqual(runs[0].as_json()['urls'][1], f'{self.fake.url}/scheduler/job/101')

    def test_canceled_on_server_resubmitted_until_retries_run_out(self):
        client = self.lab(plans=lambda name, k: [RUNNING, CANCELED])
        job_file(self.jobs, '001-a')
        runs, out = self.run_lab(client, retries=2)
        self.assertEqual(runs[0].ids, [100, 101, 102])
        self.assertEqual(runs[0].health, 'Canceled')
        self.assertTrue(os.path.exists(os.path.join(self.logs, '001-a.try2.log')))
        self.assertEqual(out.count('submitted again'), 2)

    def test_retry_if_may_say_no(self):
        client = self.lab(plans=lambda name, k: [RUNNING, INCOMPLETE])
        job_file(self.jobs, '001-a')
        seen = []
        runs, out = self.run_lab(client, retry_if=lambda j: seen.append(j.log) or False)
        self.assertEqual(runs[0].ids, [100])
        self.assertEqual(seen, [os.path.join(self.logs, '001-a.log')])
        self.assertNotIn('submitted again', out)

    def test_queued_too_long_cancelled_not_retried(self):
        client = self.lab(plans=lambda name, k: [QUEUED])
        job_file(self.jobs, '001-a')
        ticks = iter(range(0, 10 ** 6, 100))
        runs, out = self.run_lab(client, max_queue_s=250, clock=lambda: float(next(ticks)))
        self.assertEqual(runs[0].ids, [100])
        self.assertEqual(runs[0].health, 'Canceled')
        self.assertEqual(self.fake.cancels, [100])
        self.assertIn('cancelled (no idle device of its type online?)', out)
        self.assertIn('no log', out)
        self.assertFalse(os.path.exists(os.path.join(self.logs, '001-a.log')))


class Interrupt(LabTest):
    def test_cancel_on_keyboard_interrupt(self):
        client = self.lab(plans=lambda name, k: [QUEUED, RUNNING, RUNNING, COMPLETE])
        for stem in ('001-a', '002-b'):
            job_file(self.jobs, stem)
        calls = []

        def sleep(s):
            calls.append(s)
            if len(calls) == 2:
                raise KeyboardInterrupt
        out = io.StringIO()
        with self.assertRaises(KeyboardInterrupt):
            lab.run(client, self.jobs, self.logs, 2, poll_s=0, out=out, sleep=sleep)
        self.assertEqual(sorted(self.fake.cancels), [100, 101])
        self.assertIn('lab: stopped: cancelled jobs 100 101', out.getvalue())

    def test_cancel_on_sigterm(self):
        client = self.lab(plans=lambda name, k: [QUEUED, RUNNING])
        job_file(self.jobs, '001-a')

        def sleep(s):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        self.assertIs(signal.getsignal(signal.SIGTERM), signal.SIG_DFL)
        out = io.StringIO()
        with self.assertRaises(lab.LabInterrupted) as cm:
            lab.run(client, self.jobs, self.logs, 2, poll_s=0, out=out, sleep=sleep)
        self.assertEqual(cm.exception.signum, signal.SIGTERM)
        self.assertEqual(self.fake.cancels, [100])
        self.assertIs(signal.getsignal(signal.SIGTERM), signal.SIG_DFL)

    def test_finished_jobs_not_cancelled(self):
        plans = {'xen_timer t [001-a]': [COMPLETE], 'xen_timer t [002-b]': [QUEUED]}
        client = self.lab(plans=lambda name, k: plans[name])
        for stem in ('001-a', '002-b'):
            job_file(self.jobs, stem)

        def sleep(s):
            raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt):
            lab.run(client, self.jobs, self.logs, 2, poll_s=0, out=io.StringIO(), sleep=sleep)
        self.assertEqual(self.fake.cancels, [101])


class Unreachable(LabTest):
    def token_file(self, token):
        path = os.path.join(self.tmp.name, 'token')
        with open(path, 'w') as f:
            f.write(token + '\n')
        return path

    def command(self, url, token_file):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            lab.lab_command(url, token_file, self.jobs, self.logs, 2, poll_s=0)
        return cm.exception.code, err.getvalue()

    def test_bad_token(self):
        self.lab()
        job_file(self.jobs, '001-a')
        client = lab.Client(self.fake.url, 'wrong-token-42')
        with self.assertRaises(lab.LabUnreachable) as cm:
            client.check()
        self.assertIn('refused the token (HTTP 403: Invalid token.)', str(cm.exception))
        code, err = self.command(self.fake.url, self.token_file('wrong-token-42'))
        self.assertEqual(code, 2)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn('refused the token', err)
        self.assertNotIn('wrong-token-42', err)
        self.assertEqual(self.fake.jobs, {})

    def test_no_token(self):
        self.lab()
        with self.assertRaises(lab.LabUnreachable) as cm:
            lab.Client(self.fake.url, '').check()
        self.assertIn('took no user from the token', str(cm.exception))

    def test_connection_refused(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        url = f'http://127.0.0.1:{s.getsockname()[1]}'
        s.close()
        job_file(self.jobs, '001-a')
        with self.assertRaises(lab.LabUnreachable) as cm:
            lab.Client(url, TOKEN).check()
        self.assertIn('cannot reach the LAVA server (connection refused)', str(cm.exception))
        code, err = self.command(url, self.token_file(TOKEN))
        self.assertEqual(code, 2)
        self.assertEqual(err.strip(), f'harness: {url}: cannot reach the LAVA server '
                                      '(connection refused)')

    def test_missing_token_file(self):
        code, err = self.command('http://127.0.0.1:9', os.path.join(self.tmp.name, 'none'))
        self.assertEqual(code, 2)
        self.assertIn('No such file or directory', err)

    def test_command_runs_jobs(self):
        self.lab()
        job_file(self.jobs, '001-a')
        with contextlib.redirect_stdout(io.StringIO()):
            runs = lab.lab_command(self.fake.url, self.token_file(TOKEN), self.jobs,
                                   self.logs, 2, poll_s=0)
        self.assertEqual(runs[0].health, 'Complete')


class Images(unittest.TestCase):
    def test_served_on_loopback(self):
        # localhost too: lab() takes it as local, so serve_images must.
        for host in ('127.0.0.1', 'localhost'):
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, 'xen.gz'), 'wb') as f:
                    f.write(b'XEN')
                s = socket.socket()
                s.bind(('127.0.0.1', 0))
                port = s.getsockname()[1]
                s.close()
                with lab.serve_images(d, f'http://{host}:{port}/') as base:
                    with urllib.request.urlopen(f'{base}/xen.gz', timeout=10) as r:
                        self.assertEqual(r.read(), b'XEN')

    def test_only_loopback(self):
        for url in ('http://10.1.2.3:8093', 'http://lab.example:8093', 'https://127.0.0.1:1',
                    'http://127.0.0.1', 'http://127.0.0.1:8093/images'):
            with self.assertRaises(lab.LabError, msg=url):
                with lab.serve_images('.', url):
                    pass


if __name__ == '__main__':
    unittest.main()
