#!/usr/bin/env bash
# Makes docs/call_hierarchy.png: Neovim, in tmux, showing explorer lsp's outgoing call hierarchy
# from Conv2d.forward (bundled tree) beside its source; the screen is turned into HTML with
# rich and photographed with headless Chromium. Needs nvim, tmux, chromium and `explorer` on PATH.
set -euo pipefail
cd "$(dirname "$0")"
root=$(python3 -c "from explorer.workspace import SAMPLE_ROOT; print(SAMPLE_ROOT)")
work=$(mktemp -d)
trap 'tmux kill-session -t explorer-picture 2>/dev/null || true; rm -rf "$work"' EXIT
tmux new-session -d -s explorer-picture -x 190 -y 42 \
  "EXPLORER_NVIM_ROOT=$root EXPLORER_PICTURE_READY=$work/ready nvim --clean -c 'set number' -c 'syntax on' -c 'luafile $PWD/hierarchy_picture.lua'"
for _ in $(seq 600); do [ -f "$work/ready" ] && break; sleep 0.2; done
sleep 1
tmux capture-pane -t explorer-picture -e -p > "$work/screen.ansi"
python3 - "$work/screen.ansi" "$work/screen.html" <<'PY'
import sys
from rich.console import Console
from rich.text import Text
console = Console(record=True, width=190, file=open("/dev/null", "w"), color_system="truecolor")
console.print(Text.from_ansi(open(sys.argv[1], encoding="utf-8").read()), soft_wrap=True)
open(sys.argv[2], "w").write(console.export_html(inline_styles=True))
PY
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --user-data-dir="$work/profile" --window-size=1560,860 --screenshot="$PWD/call_hierarchy.png" "file://$work/screen.html" 2>/dev/null
echo "wrote docs/call_hierarchy.png"
