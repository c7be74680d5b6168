package dev.cuckoo.server.cluster;

import java.io.IOException;
import java.nio.file.Path;

/** A {@code nodes.conf} that cannot be read: names the file, the line and what is wrong. */
public final class CorruptNodesFile extends IOException {
  private static final long serialVersionUID = 1L;

  /** Creates the error for line {@code lineNumber} (0: the file as a whole). */
  CorruptNodesFile(Path file, int lineNumber, String problem) {
    super(
        "corrupt cluster config file "
            + file
            + (lineNumber > 0 ? " line " + lineNumber : "")
            + ": "
            + problem);
  }
}
