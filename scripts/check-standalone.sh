#!/usr/bin/env bash
# Fails when a tracked file refers to something outside the repository: a path next to the checkout
# or on the machine it was developed on, or a reference document that is not part of the repository.
# The repository's own documentation is docs/ (domain knowledge with public sources) and
# collectors/testdata/SOURCES.md (where every capture comes from).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Regular expressions (so this file does not match itself): a parent-directory path into a sibling
# checkout, the development machine's work tree, and the names of documents kept outside.
outside='\.\./shared|/wor[k]/|DOMAIN\.md|HELPERS\.md|DESIGN\.md|STYLE\.md|ENVIRONMENT\.md|APIS\.md'
if found="$(git grep -n -I -E "$outside" -- .)"; then
  echo "check-standalone: tracked files refer to things outside the repository:" >&2
  echo "$found" >&2
  exit 1
fi
echo "check-standalone: no tracked file refers outside the repository" >&2
