#!/bin/sh
# The GPU side of a model-bridge study (bench/fragments/suite-study.sh):
#
#   bench/fragments/bridge-gpu.sh stage STUDY_DIR OUT_DIR [BUILD_DIR]
#       copies every runner call still waiting (STUDY_DIR/*/g/<id>/ready
#       without done) and llmptx-runner into OUT_DIR, with OUT_DIR/run.sh,
#       which runs them on the GPU machine and leaves one tarball under $OUT;
#   bench/fragments/bridge-gpu.sh deliver STUDY_DIR TARBALL
#       hands the results back to the waiting runs (results.json, rc, done).
set -eu
command=${1:?usage: bridge-gpu.sh stage STUDY OUT [BUILD] | deliver STUDY TARBALL}
study=${2:?study directory}
case $command in
stage)
  out=${3:?output directory}
  build=${4:-build}
  rm -rf "$out"
  mkdir -p "$out/calls"
  cp "$build/bin/llmptx-runner" "$out/"
  for d in "$study"/*/g/*/; do
    [ -f "$d/ready" ] && [ ! -f "$d/done" ] || continue
    name=$(basename "$(dirname "$(dirname "$d")")")-$(basename "$d")
    mkdir -p "$out/calls/$name"
    cp "$d"/b/*.json "$out/calls/$name/"
  done
  cat > "$out/run.sh" <<'EOS'
#!/bin/sh
# Runs every staged call through llmptx-runner; one tarball under $OUT.
cd "$(dirname "$0")"
mkdir -p results
for c in calls/*/; do
  n=$(basename "$c")
  mkdir -p "results/$n"
  ./llmptx-runner "$c"/*.json -o "results/$n/results.json" \
    > "results/$n/runner.txt" 2>&1
  echo $? > "results/$n/rc"
  echo "$n rc=$(cat "results/$n/rc")"
done
tar czf "$OUT/results.tgz" -C results .
EOS
  chmod +x "$out/run.sh"
  echo "$(ls "$out/calls" | wc -l) call(s) staged in $out"
  ;;
deliver)
  tarball=${3:?results tarball}
  unpacked=$(mktemp -d)
  tar xzf "$tarball" -C "$unpacked"
  for r in "$unpacked"/*/; do
    n=$(basename "$r")
    d=$study/${n%%-*}/g/${n#*-}
    [ -d "$d" ] || { echo "no waiting call $n" >&2; continue; }
    cp "$r/results.json" "$d/results.json" 2>/dev/null || true
    cp "$r/runner.txt" "$d/runner.txt"
    cp "$r/rc" "$d/rc"
    touch "$d/done"
  done
  rm -rf "$unpacked"
  ;;
*)
  echo "bridge-gpu.sh: unknown command $command" >&2
  exit 2
  ;;
esac
