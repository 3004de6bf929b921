#!/bin/sh
# Builds Walker (C#) with Mono's mcs when its sources changed, then runs it with mono.
# Usage: sh run.sh --debug-port 7820   (sh run.sh --build-only: build, do not run)
set -e
cd "$(dirname "$0")"
exe=build/Walker.exe
kit=../../kits/csharp/GameBridge.cs
if [ ! -f "$exe" ] || [ Walker.cs -nt "$exe" ] || [ "$kit" -nt "$exe" ]; then
  mkdir -p build
  tmp="build/Walker.$$.exe"
  mcs -nologo -langversion:7 -out:"$tmp" Walker.cs "$kit"
  mv -f "$tmp" "$exe"   # atomic, so two starts at once never run half a file
fi
[ "${1:-}" = "--build-only" ] && exit 0
exec mono "$exe" "$@"
