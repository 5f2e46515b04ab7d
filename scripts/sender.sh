#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sender.sh REPO: prints "NAME <EMAIL>", the identity the series is
# mailed as: git's user.name and user.email in REPO, as
# 'git format-patch -s' signs.  The stored patches carry nobody's From:
# or Signed-off-by:; a Signed-off-by is its sender's Developer's
# Certificate of Origin, so only a person's own identity may go into
# one.  Refuses, in one line that says how to set it, an empty identity,
# a placeholder address (.example, .invalid, .test, .localhost, a
# noreply address, example.com/.net/.org) or a name that is not a
# person's (digits, an address, a role such as "maintainers" or "bot").
set -euo pipefail

repo=${1:?usage: sender.sh REPO}
name=$(git -C "$repo" config user.name || true)
email=$(git -C "$repo" config user.email || true)
how="set yours: git config user.name 'Your Name'; git config user.email you@your.domain"
refuse() { echo "sender: $1: a Signed-off-by is its sender's own; $how" >&2; exit 1; }

[ -n "$name" ] && [ -n "$email" ] || refuse "no git identity (user.name and user.email)"
id="'$name <$email>'"
shopt -s nocasematch
[[ $email =~ ^[^@[:space:]]+@([^@[:space:]]+\.[^@[:space:]]+)$ ]] ||
	refuse "$id: '$email' is not an e-mail address"
domain=${BASH_REMATCH[1]}
case $domain in
*.example | *.invalid | *.test | *.localhost | *.local | localhost | \
example.com | example.net | example.org | *.example.com | *.example.net | *.example.org)
	refuse "$id is a placeholder address ($domain)" ;;
esac
[[ $email != *noreply* && $email != *no-reply* ]] || refuse "$id is a noreply address"
[[ $name != *[0-9@]* ]] || refuse "$id: a person's name has no digits or address in it"
for w in $name; do
	case ${w,,} in
	maintainer | maintainers | bot | robot | ci | root | admin | administrator | team | \
	user | nobody | unknown | seed | build | automation | noreply | test | tester)
		refuse "$id: '$w' names a role, not a person" ;;
	esac
done
echo "$name <$email>"
