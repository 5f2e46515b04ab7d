# SPDX-License-Identifier: GPL-2.0
"""Host tests of the series' sender: scripts/sender.sh, and the stored
patches, which carry nobody's From: or Signed-off-by:."""
import glob
import os
import re
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SENDER = os.path.join(TOP, 'scripts', 'sender.sh')


class Sender(unittest.TestCase):
    """make patches mails the series as git's user.name and user.email,
    and refuses, in one line saying how to set them, what is not a
    person's own identity."""

    def sender(self, name: str | None, email: str | None) -> subprocess.CompletedProcess[str]:
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(['git', 'init', '-q', d], check=True)
            # No global or system identity leaks in.
            env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d, GIT_CONFIG_NOSYSTEM='1')
            for key, value in (('user.name', name), ('user.email', email)):
                if value is not None:
                    subprocess.run(['git', '-C', d, 'config', key, value], check=True, env=env)
            return subprocess.run([SENDER, d], capture_output=True, text=True, env=env)

    def refused(self, name: str | None, email: str | None, why: str) -> None:
        r = self.sender(name, email)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertEqual(r.stdout, '')
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(why, lines[0])
        self.assertIn("git config user.name 'Your Name'; git config user.email", lines[0])

    def test_a_person_is_the_sender(self) -> None:
        r = self.sender('Jane Doe', 'jane.doe@kernel.org')
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, 'Jane Doe <jane.doe@kernel.org>\n', ''))

    def test_no_identity(self) -> None:
        self.refused(None, None, 'no git identity')
        self.refused('Jane Doe', None, 'no git identity')

    def test_placeholder_addresses(self) -> None:
        for email in ('maintainers@users.noreply.a-seed-91a072e3.example', 'jane@doe.invalid',
                      'jane@example.org', 'jane@test.localhost', 'jane@box.test'):
            with self.subTest(email=email):
                self.refused('Jane Doe', email, 'placeholder address')

    def test_noreply_address(self) -> None:
        self.refused('Jane Doe', '12345+jane@users.noreply.github.com', 'noreply address')

    def test_not_an_address(self) -> None:
        self.refused('Jane Doe', 'jane', 'is not an e-mail address')

    def test_names_that_are_not_a_persons(self) -> None:
        self.refused('Seed 91a072e3 maintainers', 'jane@kernel.org', 'no digits')
        for name in ('CI Bot', 'root', 'Xen maintainers', 'Build Automation'):
            with self.subTest(name=name):
                self.refused(name, 'jane@kernel.org', 'names a role, not a person')


class StoredPatches(unittest.TestCase):
    def test_nobodys_sign_off_is_stored(self) -> None:
        patches = glob.glob(os.path.join(TOP, 'patches', '**', '*.patch'), recursive=True)
        self.assertGreater(len(patches), 10)
        for p in patches:
            with open(p) as f:
                text = f.read()
            with self.subTest(patch=os.path.relpath(p, TOP)):
                self.assertIsNone(re.search(r'^(From|Signed-off-by): ', text, re.M))


if __name__ == '__main__':
    unittest.main()
