#!/usr/bin/env bash
# The walk of one CF.ADD on an existing filter through the server, file by file, traced method by
# method under the JDK's debugger interface (WalkTrace.java): a tree of the files with behaviour
# the request enters, how many calls entered each, and every call into a file already on the call
# stack (a callback: the walk going back to a file it left other than by returning a value), and
# per task of the event loop (the write, its flush, its acknowledgement) the files entered more than
# once. Classes that only carry data or settings (Session, Request, WriteScope, Config...) and
# accessors (methods that only return a field) are transparent: what they call is shown as called
# by the file below them. The server runs in the traced JVM with the log on (appendfsync
# everysec) and a slow-log threshold of a minute (under the debugger every call is slow).
# JAR=path traces another build (e.g. the build before a change, to compare the walks).
# Needs: a JDK 17 (jdk.jdi), and the jar: mvn -B -ntp -pl cuckoo-server -am package -DskipTests
# Usage: [JAR=...] cuckoo-server/bench/walk-trace.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=${JAR:-cuckoo-server/target/cuckoo-server.jar}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK" -cp "$JAR" cuckoo-server/bench/WalkTrace.java
java -cp "$WORK:$JAR" WalkTrace trace "$WORK:$JAR" 2> "$WORK/traced.log" || {
  cat "$WORK/traced.log" >&2
  exit 1
}
