#!/bin/sh
# Starts Walker (Godot) on the Godot 3 that can draw it, so it gives screenshots:
#   a display ($DISPLAY): godot3-runner on it;
#   no display but Xvfb: godot3-runner on a virtual display of its own, with Mesa's software GL;
#   otherwise: godot3-server, the headless build, which draws nothing (no screenshots).
# Usage: sh run.sh --debug-port=7860
set -e
cd "$(dirname "$0")"
if command -v godot3-runner >/dev/null 2>&1; then
  if [ -n "${DISPLAY:-}" ]; then
    exec godot3-runner --audio-driver Dummy --path . -- "$@"
  fi
  if command -v Xvfb >/dev/null 2>&1; then
    # -displayfd: Xvfb picks a free display and says which once it is ready, with no race
    # between games started at once. -terminate: it ends when its only client, the game, does,
    # however the game ends.
    ready=$(mktemp)
    Xvfb -displayfd 3 -screen 0 1024x600x24 -nolisten tcp -terminate 3>"$ready" >/dev/null 2>&1 &
    i=0
    while [ ! -s "$ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    display=$(cat "$ready")
    rm -f "$ready"
    if [ -n "$display" ]; then
      DISPLAY=":$display" LIBGL_ALWAYS_SOFTWARE=1 exec godot3-runner --audio-driver Dummy --path . -- "$@"
    fi
    echo "run.sh: Xvfb did not start; running headless on godot3-server (no screenshots)" >&2
  fi
fi
exec godot3-server --path . -- "$@"
