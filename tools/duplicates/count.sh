#!/usr/bin/env bash
# Counts the pairs of repeated code (six lines or more) in a committed tree, outside specs and
# migrations, as issue 19's audit counted them: the tree of REV (default HEAD) unpacked into a
# temporary folder, `*.spec.ts(x)`, `*migration*.ts` and `migrations/` folders deleted, and the
# `duplicates` command (not part of this repo) run over the rest with `--most 200`.
#
# Usage: tools/duplicates/count.sh [REV] [--list]
#   prints the count line of `duplicates`, the pairs not marked boilerplate, and the pairs by
#   project (apps/X, libs/X, libs/platform/X, tools/X; "a ~ b" when the two sides are in two);
#   --list prints every row as well.
set -euo pipefail

rev=HEAD
list=no
for arg in "$@"; do
  case "$arg" in
    --list) list=yes ;;
    -h | --help)
      sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) rev="$arg" ;;
  esac
done

command -v duplicates >/dev/null || {
  echo "count.sh: the duplicates command is not installed here" >&2
  exit 2
}

root="$(git rev-parse --show-toplevel)"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
git -C "$root" archive "$rev" | tar -x -C "$tree"
find "$tree" \( -name '*.spec.ts' -o -name '*.spec.tsx' -o -name '*migration*.ts' \) -type f -delete
find "$tree" -type d -name migrations -prune -exec rm -rf {} +

report="$(cd "$tree" && duplicates --most 200 --seconds 300)"
rows="$(grep -E '^D[0-9]+ ' <<<"$report" || true)"

echo "$rev ($(git -C "$root" rev-parse --short "$rev")), specs and migrations left out:"
head -n 1 <<<"$report"
echo "not marked boilerplate: $(grep -vc ' boilerplate' <<<"$rows" || true)"
grep -E '^\(\+[0-9]+ more pairs\)|^incomplete:' <<<"$report" || true
echo
echo "pairs by project:"
awk '
  function project(place,   parts) {
    split(place, parts, "/")
    if (parts[1] == "libs" && parts[2] == "platform") return parts[1] "/" parts[2] "/" parts[3]
    if (parts[1] == "apps" || parts[1] == "libs" || parts[1] == "tools") return parts[1] "/" parts[2]
    return parts[1]
  }
  {
    a = project($2); b = project($4)
    if (a > b) { t = a; a = b; b = t }
    key = (a == b) ? a : a " ~ " b
    count[key]++
  }
  END { for (k in count) printf "%5d  %s\n", count[k], k }
' <<<"$rows" | sort -k1,1nr -k2
if [ "$list" = yes ]; then
  echo
  echo "$report"
fi
